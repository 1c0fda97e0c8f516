/*
 * toolkit.c - the toolkit calls of fs_toolkit.h that do not fit the table
 * of ../fs_ops.h, as private functions of pathgate._core:
 *
 *   _fs_exists(owner, path)                    -> "file" | "directory" | "other" | None
 *   _fs_utime(owner, path, atime_ns=None, mtime_ns=None) -> address (None: now)
 *   _fs_subroot(owner, path, key=None)         -> Resolver
 *
 * Failures raise pathgate.Error (exists never fails for a path: None).
 * The GIL is released around every core call.
 */
#include "module.h"

static const pg_arg path_args[] = {{"path", PG_TEXT, PG_POS | PG_REQ, 0}};

static PyObject *fs_exists(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                           PyObject *kwnames) {
    pg_spec spec = PG_SPEC(path_args);
    pg_args h;
    if (pg_args_parse(&h, module, "_fs_exists", spec, args, nargs, kwnames) < 0)
        return NULL;
    pg_argv *a = &h.a;
    pathgate_fs_type type = 0;
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = pathgate_fs_exists(&type, a->resolver, PG_TXT(a, 0), &a->opts, &a->err);
    Py_END_ALLOW_THREADS
    pg_state *st = PyModule_GetState(module);
    PyObject *out;
    if (rc < 0)
        out = pg_raise(st, st->Error, rc, &a->err);
    else if (type == 0)
        out = Py_NewRef(Py_None);
    else
        out = PyUnicode_FromString(type == PATHGATE_FS_TYPE_FILE        ? "file"
                                   : type == PATHGATE_FS_TYPE_DIRECTORY ? "directory"
                                                                        : "other");
    pg_args_release(&h);
    return out;
}

/* A time in nanoseconds (None: now). */
static int time_arg(PyObject *obj, pathgate_fs_time *t) {
    if (obj == NULL || obj == Py_None) {
        t->sec = 0;
        t->nsec = PATHGATE_FS_TIME_NOW;
        return 0;
    }
    PyObject *billion = PyLong_FromLong(1000000000L);
    PyObject *qr = billion ? PyNumber_Divmod(obj, billion) : NULL;
    Py_XDECREF(billion);
    if (qr == NULL)
        return -1;
    long long sec = PyLong_AsLongLong(PyTuple_GetItem(qr, 0));
    long nsec = PyLong_AsLong(PyTuple_GetItem(qr, 1));
    Py_DECREF(qr);
    if ((sec == -1 || nsec == -1) && PyErr_Occurred())
        return -1;
    t->sec = sec;
    t->nsec = nsec;
    return 0;
}

static PyObject *fs_utime(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                          PyObject *kwnames) {
    static const char *const names[] = {NULL, "path", "atime_ns", "mtime_ns"};
    PyObject *b[4];
    if (pg_bind("_fs_utime", args, nargs, kwnames, names, 4, 4, 2, b) < 0)
        return NULL;
    pathgate_fs_time times[2];
    if (time_arg(b[2], &times[0]) < 0 || time_arg(b[3], &times[1]) < 0)
        return NULL;
    if ((b[2] != NULL && !PyLong_Check(b[2]) && b[2] != Py_None) ||
        (b[3] != NULL && !PyLong_Check(b[3]) && b[3] != Py_None)) {
        PyErr_SetString(PyExc_TypeError, "atime_ns and mtime_ns must be int or None");
        return NULL;
    }
    pg_spec spec = PG_SPEC(path_args);
    pg_args h;
    PyObject *const owner_path[2] = {b[0], b[1]};
    if (pg_args_parse(&h, module, "_fs_utime", spec, owner_path, 2, NULL) < 0)
        return NULL;
    pg_argv *a = &h.a;
    pathgate_buf path = PATHGATE_BUF_INIT;
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = pathgate_fs_utime(&path, a->resolver, PG_TXT(a, 0), times, &a->opts, &a->err);
    Py_END_ALLOW_THREADS
    pg_state *st = PyModule_GetState(module);
    PyObject *out = rc < 0 ? pg_raise(st, st->Error, rc, &a->err) : pg_buf_to_native(&path);
    pg_args_release(&h);
    return out;
}

static const pg_arg subroot_args[] = {{"path", PG_TEXT, PG_POS | PG_REQ, 0},
                                      {"key", PG_TEXT, PG_POS, 0}};

static PyObject *fs_subroot(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                            PyObject *kwnames) {
    pg_spec spec = PG_SPEC(subroot_args);
    pg_args h;
    if (pg_args_parse(&h, module, "_fs_subroot", spec, args, nargs, kwnames) < 0)
        return NULL;
    pg_argv *a = &h.a;
    pathgate_resolver *sub = NULL;
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = pathgate_fs_subroot(&sub, a->resolver, PG_TXT(a, 0), PG_TXT(a, 1), &a->opts, &a->err);
    Py_END_ALLOW_THREADS
    pg_state *st = PyModule_GetState(module);
    PyObject *out = NULL;
    if (rc < 0) {
        pg_raise(st, st->Error, rc, &a->err);
    } else {
        PyTypeObject *type = (PyTypeObject *)st->ResolverType;
        allocfunc alloc = (allocfunc)PyType_GetSlot(type, Py_tp_alloc);
        pg_resolver_object *self = (pg_resolver_object *)alloc(type, 0);
        if (self == NULL) {
            pathgate_resolver_free(sub);
        } else {
            self->resolver = sub;
            self->parent = Py_NewRef(h.owner); /* the events' callable lives there */
            out = (PyObject *)self;
        }
    }
    pg_args_release(&h);
    return out;
}

static PyMethodDef toolkit_methods[] = {
    {"_fs_exists", PG_METH(fs_exists), METH_FASTCALL | METH_KEYWORDS,
     PyDoc_STR("_fs_exists(owner, path) -> 'file', 'directory', 'other' or None")},
    {"_fs_utime", PG_METH(fs_utime), METH_FASTCALL | METH_KEYWORDS,
     PyDoc_STR("_fs_utime(owner, path, atime_ns=None, mtime_ns=None) -> address (None: now)")},
    {"_fs_subroot", PG_METH(fs_subroot), METH_FASTCALL | METH_KEYWORDS,
     PyDoc_STR("_fs_subroot(owner, path, key=None) -> Resolver rooted at the directory")},
    {NULL, NULL, 0, NULL},
};

int pg_toolkit_init(PyObject *module, pg_state *st) {
    (void)st;
    return PyModule_AddFunctions(module, toolkit_methods);
}
