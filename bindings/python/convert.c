/*
 * convert.c - argument and result conversions shared by every file:
 * text (with its length, never truncated), host paths (str, bytes,
 * os.PathLike), native text back to str, conventions, pathlib.Path, the
 * fast-call argument binder, and the making and freeing of the module's
 * types (below module.c, which calls every file's init).
 */
#include "module.h"

static int pg_type_error(const char *what, const char *expected, PyObject *obj) {
    PyObject *name = PyType_GetName(Py_TYPE(obj));
    if (name == NULL)
        return -1;
    PyErr_Format(PyExc_TypeError, "%s must be %s, not %U", what, expected, name);
    Py_DECREF(name);
    return -1;
}

/* str -> UTF-8 bytes. The common case (a str that is valid Unicode) uses
 * the str's cached UTF-8 buffer without copying. A str holding lone
 * surrogates is encoded with surrogateescape (the os.fsdecode rule, so a
 * POSIX file name that is not UTF-8 keeps its bytes), or with
 * surrogatepass, which yields ill-formed UTF-8 that the core rejects as
 * invalid_utf8 rather than the glue inventing an error of its own. */
static int pg_utf8(PyObject *obj, const char **text, Py_ssize_t *len, PyObject **holder) {
    const char *s = PyUnicode_AsUTF8AndSize(obj, len);
    if (s != NULL) {
        *text = s;
        return 0;
    }
    if (!PyErr_ExceptionMatches(PyExc_UnicodeEncodeError))
        return -1;
    PyErr_Clear();
    PyObject *bytes = PyUnicode_AsEncodedString(obj, "utf-8", "surrogateescape");
    if (bytes == NULL) {
        if (!PyErr_ExceptionMatches(PyExc_UnicodeEncodeError))
            return -1;
        PyErr_Clear();
        bytes = PyUnicode_AsEncodedString(obj, "utf-8", "surrogatepass");
        if (bytes == NULL)
            return -1;
    }
    char *p;
    if (PyBytes_AsStringAndSize(bytes, &p, len) < 0) {
        Py_DECREF(bytes);
        return -1;
    }
    *text = p;
    *holder = bytes;
    return 0;
}

int pg_text(PyObject *obj, const char **text, Py_ssize_t *len, PyObject **holder,
            const char *what) {
    *holder = NULL;
    if (!PyUnicode_Check(obj))
        return pg_type_error(what, "str", obj);
    return pg_utf8(obj, text, len, holder);
}

int pg_host_text(PyObject *obj, const char **text, Py_ssize_t *len, PyObject **holder,
                 const char *what) {
    *holder = NULL;
    if (PyUnicode_Check(obj))
        return pg_utf8(obj, text, len, holder);
    if (!PyBytes_Check(obj) && PyObject_HasAttrString((PyObject *)Py_TYPE(obj), "__fspath__") == 0)
        return pg_type_error(what, "str or os.PathLike", obj);
    PyObject *path = PyOS_FSPath(obj); /* str or bytes */
    if (path == NULL)
        return -1;
    if (PyBytes_Check(path)) {
        char *p;
        if (PyBytes_AsStringAndSize(path, &p, len) < 0) {
            Py_DECREF(path);
            return -1;
        }
        *text = p;
        *holder = path;
        return 0;
    }
    PyObject *bytes = NULL;
    if (pg_utf8(path, text, len, &bytes) < 0) {
        Py_DECREF(path);
        return -1;
    }
    if (bytes != NULL) {
        Py_DECREF(path);
        *holder = bytes;
    } else {
        *holder = path; /* *text points into its UTF-8 buffer */
    }
    return 0;
}

PyObject *pg_native_str(const char *text, size_t len) {
    return PyUnicode_DecodeUTF8(text, (Py_ssize_t)len, "surrogateescape");
}

PyObject *pg_buf_to_native(pathgate_buf *buf) {
    if (buf->ptr == NULL) {
        pathgate_buf_dispose(buf);
        Py_RETURN_NONE;
    }
    PyObject *s = pg_native_str(buf->ptr, buf->len);
    pathgate_buf_dispose(buf);
    return s;
}

int pg_convention_arg(pg_state *st, PyObject *obj, pathgate_convention *out) {
    if (obj == NULL || obj == Py_None) {
        *out = PATHGATE_CONVENTION_NONE;
        return 0;
    }
    if (obj == st->str_posix) { /* interned fast paths */
        *out = PATHGATE_CONVENTION_POSIX;
        return 0;
    }
    if (obj == st->str_windows) {
        *out = PATHGATE_CONVENTION_WINDOWS;
        return 0;
    }
    if (!PyUnicode_Check(obj))
        return pg_type_error("convention", "'posix', 'windows' or None", obj);
    const char *s;
    Py_ssize_t len;
    PyObject *holder = NULL;
    if (pg_utf8(obj, &s, &len, &holder) < 0)
        return -1;
    pathgate_error err = PATHGATE_ERROR_INIT;
    int rc = pathgate_convention_parse(out, s, (size_t)len, &err);
    Py_XDECREF(holder);
    if (rc < 0) {
        pg_raise(st, st->Error, rc, &err);
        return -1;
    }
    return 0;
}

PyObject *pg_convention_obj(pg_state *st, pathgate_convention c) {
    switch (c) {
    case PATHGATE_CONVENTION_POSIX:
        return Py_NewRef(st->str_posix);
    case PATHGATE_CONVENTION_WINDOWS:
        return Py_NewRef(st->str_windows);
    default:
        Py_RETURN_NONE;
    }
}

PyObject *pg_buf_to_path(pg_state *st, pathgate_buf *buf) {
    PyObject *s = pg_buf_to_native(buf);
    if (s == NULL || s == Py_None)
        return s;
    if (st->path_class == NULL) { /* pathlib costs an import: only on first use */
        PyObject *pathlib = PyImport_ImportModule("pathlib");
        if (pathlib == NULL) {
            Py_DECREF(s);
            return NULL;
        }
        st->path_class = PyObject_GetAttrString(pathlib, "Path");
        Py_DECREF(pathlib);
        if (st->path_class == NULL) {
            Py_DECREF(s);
            return NULL;
        }
    }
    PyObject *path = PyObject_CallFunctionObjArgs(st->path_class, s, NULL);
    Py_DECREF(s);
    return path;
}

int pg_bind(const char *fname, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
            const char *const *names, Py_ssize_t n, Py_ssize_t maxpos, Py_ssize_t required,
            PyObject **out) {
    for (Py_ssize_t i = 0; i < n; i++)
        out[i] = NULL;
    if (nargs > maxpos) {
        PyErr_Format(PyExc_TypeError, "%s() takes at most %zd positional argument%s (%zd given)",
                     fname, maxpos, maxpos == 1 ? "" : "s", nargs);
        return -1;
    }
    for (Py_ssize_t i = 0; i < nargs; i++)
        out[i] = args[i];
    Py_ssize_t nkw = kwnames == NULL ? 0 : PyTuple_Size(kwnames);
    for (Py_ssize_t k = 0; k < nkw; k++) {
        PyObject *key = PyTuple_GetItem(kwnames, k);
        Py_ssize_t i = 0;
        while (i < n && (names[i] == NULL || PyUnicode_CompareWithASCIIString(key, names[i]) != 0))
            i++;
        if (i == n) {
            PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument %R", fname, key);
            return -1;
        }
        if (out[i] != NULL) {
            PyErr_Format(PyExc_TypeError, "%s() got multiple values for argument '%s'", fname,
                         names[i]);
            return -1;
        }
        out[i] = args[nargs + k];
    }
    for (Py_ssize_t i = 0; i < required; i++) {
        if (out[i] == NULL) {
            if (names[i] != NULL)
                PyErr_Format(PyExc_TypeError, "%s() missing required argument '%s'", fname,
                             names[i]);
            else
                PyErr_Format(PyExc_TypeError, "%s() missing required positional argument", fname);
            return -1;
        }
    }
    return 0;
}

/* ---------------------------------------------------------------- types */

PyObject *pg_add_type(PyObject *module, PyType_Spec *spec) {
    PyObject *type = PyType_FromModuleAndSpec(module, spec, NULL);
    if (type == NULL)
        return NULL;
    if (PyModule_AddType(module, (PyTypeObject *)type) < 0) {
        Py_DECREF(type);
        return NULL;
    }
    return type;
}

void pg_free_instance(PyObject *self) {
    PyTypeObject *tp = Py_TYPE(self);
    freefunc tp_free = (freefunc)PyType_GetSlot(tp, Py_tp_free);
    tp_free(self);
    Py_DECREF(tp);
}
