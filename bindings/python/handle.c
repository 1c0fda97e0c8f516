/*
 * handle.c - the handles of fs_toolkit.h as private functions of
 * pathgate._core, for Backend.open and pathgate.open (backend.py wraps the
 * descriptors in standard io objects):
 *
 *   _fs_open(owner, path, flags, mode=0)     -> (fd, address)
 *   _fs_atomic_open(owner, path, flags)      -> (_Atomic, fd, address)
 *   _Atomic.commit(fd)  fsync and rename over the name (raises on failure)
 *   _Atomic.abort()     remove the temp file (also when collected unused)
 *
 * flags are the PATHGATE_FS_OPEN_* bits (exported as _OPEN_READ, ...).
 * Failures raise pathgate.Error with the core's message and .kind; the
 * caller turns them into OSErrors. The GIL is released around every core
 * call.
 */
#include "module.h"

#include <limits.h>
#include <unistd.h>

static const pg_arg open_args[] = {{"path", PG_TEXT, PG_POS | PG_REQ, 0},
                                   {"flags", PG_INT, PG_POS | PG_REQ, 0},
                                   {"mode", PG_INT, PG_POS, 0}};

static PyObject *fs_open(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                         PyObject *kwnames) {
    pg_spec spec = PG_SPEC(open_args);
    pg_args h;
    if (pg_args_parse(&h, module, "_fs_open", spec, args, nargs, kwnames) < 0)
        return NULL;
    pg_argv *a = &h.a;
    int fd = -1, rc;
    pathgate_buf path = PATHGATE_BUF_INIT;
    unsigned int flags = a->v[1].i < 0 || a->v[1].i > 0xFFFF ? 0x8000u : (unsigned int)a->v[1].i;
    unsigned int mode = a->v[2].i < 0 || a->v[2].i > 07777 ? 0xFFFFu : (unsigned int)a->v[2].i;
    Py_BEGIN_ALLOW_THREADS
    rc = pathgate_fs_open(&fd, &path, a->resolver, PG_TXT(a, 0), flags, mode, &a->opts, &a->err);
    Py_END_ALLOW_THREADS
    pg_state *st = PyModule_GetState(module);
    PyObject *out = NULL;
    if (rc < 0) {
        pg_raise(st, st->Error, rc, &a->err);
    } else {
        out = Py_BuildValue("(iN)", fd, pg_buf_to_native(&path));
        if (out == NULL)
            close(fd);
    }
    pg_args_release(&h);
    return out;
}

/* ------------------------------------------------------------ _Atomic */

typedef struct {
    PyObject_HEAD pathgate_fs_atomic *atomic; /* NULL once committed or aborted */
    PyObject *owner;                          /* keeps the Resolver or Session alive */
} atomic_object;

static void atomic_abort_now(atomic_object *self) {
    pathgate_fs_atomic *a = self->atomic;
    self->atomic = NULL;
    if (a != NULL) {
        Py_BEGIN_ALLOW_THREADS
        pathgate_fs_atomic_abort(a);
        Py_END_ALLOW_THREADS
    }
}

static void atomic_dealloc(PyObject *obj) {
    atomic_object *self = (atomic_object *)obj;
    atomic_abort_now(self);
    Py_CLEAR(self->owner);
    pg_free_instance(obj);
}

static PyObject *atomic_commit(PyObject *obj, PyObject *arg) {
    atomic_object *self = (atomic_object *)obj;
    long fd = PyLong_AsLong(arg);
    if (fd == -1 && PyErr_Occurred())
        return NULL;
    if (fd < -1 || fd > INT_MAX) {
        PyErr_SetString(PyExc_ValueError, "fd out of range");
        return NULL;
    }
    pathgate_fs_atomic *a = self->atomic;
    if (a == NULL) {
        PyErr_SetString(PyExc_ValueError, "the handle was committed or aborted already");
        return NULL;
    }
    self->atomic = NULL;
    pathgate_error err = PATHGATE_ERROR_INIT;
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = pathgate_fs_atomic_commit(a, (int)fd, &err);
    Py_END_ALLOW_THREADS
    if (rc < 0)
        return pg_raise(pg_state_of(obj), pg_state_of(obj)->Error, rc, &err);
    Py_RETURN_NONE;
}

static PyObject *atomic_abort(PyObject *obj, PyObject *unused) {
    (void)unused;
    atomic_abort_now((atomic_object *)obj);
    Py_RETURN_NONE;
}

static PyObject *atomic_pending(PyObject *obj, void *closure) {
    (void)closure;
    return PyBool_FromLong(((atomic_object *)obj)->atomic != NULL);
}

static PyMethodDef atomic_methods[] = {
    {"commit", atomic_commit, METH_O,
     "commit(fd): fsync fd and rename the temp file over the name (the caller closes fd)."},
    {"abort", atomic_abort, METH_NOARGS, "Removes the temp file; the old content stays."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef atomic_getset[] = {
    {"pending", atomic_pending, NULL, "Neither committed nor aborted yet.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot atomic_slots[] = {
    {Py_tp_doc, "The temp file of an atomic write handle (internal)."},
    {Py_tp_dealloc, atomic_dealloc},
    {Py_tp_methods, atomic_methods},
    {Py_tp_getset, atomic_getset},
    {0, NULL},
};

static PyType_Spec atomic_spec = {
    .name = "pathgate._core._Atomic",
    .basicsize = sizeof(atomic_object),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_IMMUTABLETYPE | Py_TPFLAGS_DISALLOW_INSTANTIATION,
    .slots = atomic_slots,
};

static const pg_arg atomic_args[] = {{"path", PG_TEXT, PG_POS | PG_REQ, 0},
                                     {"flags", PG_INT, PG_POS | PG_REQ, 0}};

static PyObject *fs_atomic_open(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                                PyObject *kwnames) {
    pg_spec spec = PG_SPEC(atomic_args);
    pg_args h;
    if (pg_args_parse(&h, module, "_fs_atomic_open", spec, args, nargs, kwnames) < 0)
        return NULL;
    pg_argv *a = &h.a;
    unsigned int flags = a->v[1].i < 0 || a->v[1].i > 0xFFFF ? 0x8000u : (unsigned int)a->v[1].i;
    pathgate_fs_atomic *atomic = NULL;
    pathgate_buf path = PATHGATE_BUF_INIT;
    int fd = -1, rc;
    Py_BEGIN_ALLOW_THREADS
    rc = pathgate_fs_atomic_open(&atomic, &fd, &path, a->resolver, PG_TXT(a, 0), flags, &a->opts,
                                 &a->err);
    Py_END_ALLOW_THREADS
    pg_state *st = PyModule_GetState(module);
    PyObject *out = NULL;
    if (rc < 0) {
        pg_raise(st, st->Error, rc, &a->err);
        pg_args_release(&h);
        return NULL;
    }
    PyObject *type = PyObject_GetAttrString(module, "_Atomic");
    allocfunc alloc = type ? (allocfunc)PyType_GetSlot((PyTypeObject *)type, Py_tp_alloc) : NULL;
    atomic_object *self = alloc ? (atomic_object *)alloc((PyTypeObject *)type, 0) : NULL;
    Py_XDECREF(type);
    if (self == NULL) {
        close(fd);
        pathgate_fs_atomic_abort(atomic);
        pathgate_buf_dispose(&path);
    } else {
        self->atomic = atomic;
        self->owner = Py_NewRef(h.owner);
        out = Py_BuildValue("(NiN)", (PyObject *)self, fd, pg_buf_to_native(&path));
        if (out == NULL)
            close(fd); /* self went with the failed tuple and aborted */
    }
    pg_args_release(&h);
    return out;
}

/* ---------------------------------------------------------------- init */

static PyMethodDef handle_methods[] = {
    {"_fs_open", PG_METH(fs_open), METH_FASTCALL | METH_KEYWORDS,
     PyDoc_STR("_fs_open(owner, path, flags, mode=0) -> (fd, address)")},
    {"_fs_atomic_open", PG_METH(fs_atomic_open), METH_FASTCALL | METH_KEYWORDS,
     PyDoc_STR("_fs_atomic_open(owner, path, flags) -> (_Atomic, fd, address)")},
    {NULL, NULL, 0, NULL},
};

int pg_handle_init(PyObject *module, pg_state *st) {
    (void)st;
    if (PyModule_AddFunctions(module, handle_methods) < 0)
        return -1;
    PyObject *type = pg_add_type(module, &atomic_spec);
    if (type == NULL)
        return -1;
    Py_DECREF(type); /* the module keeps it as _Atomic */
    static const struct {
        const char *name;
        long value;
    } consts[] = {
        {"_OPEN_READ", PATHGATE_FS_OPEN_READ},     {"_OPEN_WRITE", PATHGATE_FS_OPEN_WRITE},
        {"_OPEN_APPEND", PATHGATE_FS_OPEN_APPEND}, {"_OPEN_CREATE", PATHGATE_FS_OPEN_CREATE},
        {"_OPEN_EXCL", PATHGATE_FS_OPEN_EXCL},     {"_OPEN_TRUNCATE", PATHGATE_FS_OPEN_TRUNCATE},
    };
    for (size_t i = 0; i < sizeof consts / sizeof consts[0]; i++)
        if (PyModule_AddIntConstant(module, consts[i].name, consts[i].value) < 0)
            return -1;
    return 0;
}
