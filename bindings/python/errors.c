/*
 * errors.c - the exception classes and the mapping from pathgate codes.
 *
 *   pathgate.Error(ValueError)      every failure the core reports; `kind`
 *                                   is pathgate_errname(code), `code` the
 *                                   negative PATHGATE_E* value
 *   pathgate.PathError(Error)       a path, URI or text conversion failed
 *                                   (PathUri, LegacyAppPathString,
 *                                   VisibilityRef, and any text fault)
 *   pathgate.SessionError(Error)    a Session refused cd / push
 * Out of memory is MemoryError. Resolution failures are results, never
 * exceptions. Messages come from the core and never name a host path.
 */
#include "module.h"

static PyObject *pg_new_error(const char *name, const char *doc, PyObject *base) {
    PyObject *dict = PyDict_New();
    if (dict == NULL)
        return NULL;
    if (PyDict_SetItemString(dict, "kind", Py_None) < 0 ||
        PyDict_SetItemString(dict, "code", Py_None) < 0) {
        Py_DECREF(dict);
        return NULL;
    }
    PyObject *cls = PyErr_NewExceptionWithDoc(name, doc, base, dict);
    Py_DECREF(dict);
    return cls;
}

int pg_errors_init(PyObject *module, pg_state *st) {
    st->Error = pg_new_error("pathgate.Error",
                             "Base class of every pathgate failure (a ValueError).\n\n"
                             "kind is the machine-readable name of the failure (for example\n"
                             "'not_absolute' or 'unknown_root'), code the negative C error code.",
                             PyExc_ValueError);
    if (st->Error == NULL)
        return -1;
    st->PathError = pg_new_error("pathgate.PathError",
                                 "A path, URI or text conversion failed (kind says why, e.g.\n"
                                 "'unsupported_scheme', 'not_absolute', 'nul_byte').",
                                 st->Error);
    if (st->PathError == NULL)
        return -1;
    st->SessionError = pg_new_error("pathgate.SessionError",
                                    "A Session refused cd or push (kind: 'unknown_root',\n"
                                    "'subdirectory_home', 'stack_overflow', 'not_a_directory',\n"
                                    "'invalid_path').",
                                    st->Error);
    if (st->SessionError == NULL)
        return -1;
    if (PyModule_AddObjectRef(module, "Error", st->Error) < 0 ||
        PyModule_AddObjectRef(module, "PathError", st->PathError) < 0 ||
        PyModule_AddObjectRef(module, "SessionError", st->SessionError) < 0)
        return -1;
    return 0;
}

PyObject *pg_raise(pg_state *st, PyObject *cls, int code, const pathgate_error *err) {
    if (code == PATHGATE_ENOMEM)
        return PyErr_NoMemory();
    /* A fault of the text itself is a PathError wherever it happens. */
    if (code == PATHGATE_ENUL || code == PATHGATE_EUTF8 || code == PATHGATE_ETOOLONG)
        cls = st->PathError;
    /* The message is trusted only when it belongs to this failure (its code
     * matches) and is a terminated string; otherwise the table's text. */
    const char *text = (err != NULL && err->code == code && err->message[0] != '\0' &&
                        memchr(err->message, '\0', sizeof err->message) != NULL)
                           ? err->message
                           : pathgate_strerror(code);
    PyObject *msg = PyUnicode_DecodeUTF8(text, (Py_ssize_t)strlen(text), "replace");
    if (msg == NULL)
        return NULL;
    PyObject *exc = PyObject_CallFunctionObjArgs(cls, msg, NULL);
    Py_DECREF(msg);
    if (exc == NULL)
        return NULL;
    PyObject *kind = PyUnicode_FromString(pathgate_errname(code));
    PyObject *num = kind == NULL ? NULL : PyLong_FromLong(code);
    if (num == NULL || PyObject_SetAttr(exc, st->str_kind, kind) < 0 ||
        PyObject_SetAttr(exc, st->str_code, num) < 0) {
        Py_XDECREF(kind);
        Py_XDECREF(num);
        Py_DECREF(exc);
        return NULL;
    }
    Py_DECREF(kind);
    Py_DECREF(num);
    PyErr_SetObject(cls, exc);
    Py_DECREF(exc);
    return NULL;
}
