/* fields.c - the kinds of ../result_fields.h as Python objects (fields.h). */
#include "fields.h"

int pg_conv_init(pg_conv *cv, const char *const *names, size_t n, int absent_none) {
    memset(cv, 0, sizeof *cv);
    if (n > PG_CONV_MAX) {
        PyErr_SetString(PyExc_SystemError, "pathgate: too many result fields");
        return -1;
    }
    cv->n = n;
    cv->absent_none = absent_none;
    for (size_t i = 0; i < n; i++)
        if ((cv->keys[i] = PyUnicode_InternFromString(names[i])) == NULL)
            return -1;
    return 0;
}

void pg_conv_dispose(pg_conv *cv) {
    for (size_t i = 0; i < cv->n; i++) {
        Py_XDECREF(cv->keys[i]);
        Py_XDECREF(cv->last[i]);
    }
}

PyObject *pg_field_STR(pg_conv *cv, size_t k, const char *s, size_t len) {
    if (cv->last[k] != NULL && cv->last_ptr[k] == s && cv->last_len[k] == len)
        return Py_NewRef(cv->last[k]);
    PyObject *o = PyUnicode_DecodeUTF8(s, (Py_ssize_t)len, "replace");
    if (o != NULL) {
        Py_XDECREF(cv->last[k]);
        cv->last[k] = Py_NewRef(o);
        cv->last_ptr[k] = s;
        cv->last_len[k] = len;
    }
    return o;
}

PyObject *pg_field_CSTR(pg_conv *cv, size_t k, const char *s, size_t unused) {
    (void)cv, (void)k, (void)unused;
    return PyUnicode_FromString(s);
}

PyObject *pg_field_BOOL(pg_conv *cv, size_t k, int v, size_t unused) {
    (void)cv, (void)k, (void)unused;
    return PyBool_FromLong(v);
}

PyObject *pg_field_INT(pg_conv *cv, size_t k, int v, size_t unused) {
    (void)cv, (void)k, (void)unused;
    return PyLong_FromLong(v);
}

PyObject *pg_field_UINT(pg_conv *cv, size_t k, uint64_t v, size_t unused) {
    (void)cv, (void)k, (void)unused;
    return PyLong_FromUnsignedLongLong(v);
}

int pg_conv_put(PyObject *d, const pg_conv *cv, size_t k, int present, PyObject *value) {
    if (!present)
        return cv->absent_none ? PyDict_SetItem(d, cv->keys[k], Py_None) : 0;
    if (value == NULL)
        return -1;
    int rc = PyDict_SetItem(d, cv->keys[k], value);
    Py_DECREF(value);
    return rc;
}
