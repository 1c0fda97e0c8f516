/*
 * walk.c - the directory iterators of fs_toolkit.h as private functions of
 * pathgate._core, for Backend.scandir and Backend.walk:
 *
 *   _fs_scandir(owner, path) -> _Scandir: iterator of (name, address, kind)
 *                               kind: "file", "directory", "symlink", "other"
 *   _fs_walk(owner, path, bottom_up=False) -> _Walk: iterator of
 *                               (address, dirnames, filenames)
 *
 * _Walk keeps the dirnames list it last handed out: when the next step
 * comes (top down) and the list was changed, only the names left in it are
 * entered, as with os.walk. Both have close() and .skipped (and
 * .skipped_denied) / stats(). A
 * bad start raises pathgate.Error; the GIL is released around the core.
 */
#include "module.h"

/* ------------------------------------------------------------ _Scandir */

typedef struct {
    PyObject_HEAD pathgate_fs_scandir *dir;
    PyObject *owner;
} scandir_object;

static void scandir_close_now(scandir_object *self) {
    pathgate_fs_scandir_free(self->dir);
    self->dir = NULL;
}

static void scandir_dealloc(PyObject *obj) {
    scandir_object *self = (scandir_object *)obj;
    scandir_close_now(self);
    Py_CLEAR(self->owner);
    pg_free_instance(obj);
}

static const char *kind_name(pathgate_fs_type t) {
    return t == PATHGATE_FS_TYPE_FILE        ? "file"
           : t == PATHGATE_FS_TYPE_DIRECTORY ? "directory"
           : t == PATHGATE_FS_TYPE_SYMLINK   ? "symlink"
                                             : "other";
}

static PyObject *scandir_next(PyObject *obj) {
    scandir_object *self = (scandir_object *)obj;
    if (self->dir == NULL)
        return NULL;
    const pathgate_fs_dirent *e = NULL;
    pathgate_error err = PATHGATE_ERROR_INIT;
    int rc = pathgate_fs_scandir_next(&e, self->dir, &err); /* no system call */
    if (rc <= 0) {
        if (rc < 0)
            return pg_raise(pg_state_of(obj), pg_state_of(obj)->Error, rc, &err);
        return NULL; /* the listing stays for .skipped; close() frees it */
    }
    return Py_BuildValue("(NNs)", PyUnicode_DecodeUTF8(e->name, (Py_ssize_t)e->name_len, NULL),
                         PyUnicode_DecodeUTF8(e->path, (Py_ssize_t)e->path_len, NULL),
                         kind_name(e->type));
}

static PyObject *scandir_close(PyObject *obj, PyObject *unused) {
    (void)unused;
    scandir_close_now((scandir_object *)obj);
    Py_RETURN_NONE;
}

static PyObject *scandir_skipped(PyObject *obj, void *closure) {
    (void)closure;
    return PyLong_FromSize_t(pathgate_fs_scandir_skipped(((scandir_object *)obj)->dir));
}

static PyObject *scandir_skipped_denied(PyObject *obj, void *closure) {
    (void)closure;
    return PyLong_FromSize_t(pathgate_fs_scandir_skipped_denied(((scandir_object *)obj)->dir));
}

static PyMethodDef scandir_methods[] = {
    {"close", scandir_close, METH_NOARGS, "Closes the directory."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef scandir_getset[] = {
    {"skipped", scandir_skipped, NULL, "Names no address can spell, left out.", NULL},
    {"skipped_denied", scandir_skipped_denied, NULL,
     "Entries the host's policy hides (docs/policy.md), left out.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot scandir_slots[] = {
    {Py_tp_doc, "One directory's entries (internal: Backend.scandir wraps it)."},
    {Py_tp_dealloc, scandir_dealloc},
    {Py_tp_iter, PyObject_SelfIter},
    {Py_tp_iternext, scandir_next},
    {Py_tp_methods, scandir_methods},
    {Py_tp_getset, scandir_getset},
    {0, NULL},
};

static PyType_Spec scandir_spec = {
    .name = "pathgate._core._Scandir",
    .basicsize = sizeof(scandir_object),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_IMMUTABLETYPE | Py_TPFLAGS_DISALLOW_INSTANTIATION,
    .slots = scandir_slots,
};

/* A new instance of the module's type `name` (its first fields zeroed). */
static PyObject *new_of(PyObject *module, const char *name) {
    PyObject *type = PyObject_GetAttrString(module, name);
    allocfunc alloc = type ? (allocfunc)PyType_GetSlot((PyTypeObject *)type, Py_tp_alloc) : NULL;
    PyObject *self = alloc ? alloc((PyTypeObject *)type, 0) : NULL;
    Py_XDECREF(type);
    return self;
}

static const pg_arg scandir_args[] = {{"path", PG_TEXT, PG_POS | PG_REQ, 0}};

static PyObject *fs_scandir(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                            PyObject *kwnames) {
    pg_spec spec = PG_SPEC(scandir_args);
    pg_args h;
    if (pg_args_parse(&h, module, "_fs_scandir", spec, args, nargs, kwnames) < 0)
        return NULL;
    pg_argv *a = &h.a;
    pathgate_fs_scandir *dir = NULL;
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = pathgate_fs_scandir_open(&dir, a->resolver, PG_TXT(a, 0), &a->opts, &a->err);
    Py_END_ALLOW_THREADS
    pg_state *st = PyModule_GetState(module);
    PyObject *out = NULL;
    if (rc < 0) {
        pg_raise(st, st->Error, rc, &a->err);
    } else {
        scandir_object *self = (scandir_object *)new_of(module, "_Scandir");
        if (self == NULL) {
            pathgate_fs_scandir_free(dir);
        } else {
            self->dir = dir;
            self->owner = Py_NewRef(h.owner);
            out = (PyObject *)self;
        }
    }
    pg_args_release(&h);
    return out;
}

/* --------------------------------------------------------------- _Walk */

typedef struct {
    PyObject_HEAD pathgate_fs_walk *walk;
    PyObject *owner;
    PyObject *dirs;      /* the dirnames list last handed out (top down) */
    PyObject *dirs_orig; /* what it held then (a tuple) */
    int bottom_up;
    int busy; /* a step is running (without the GIL) */
} walk_object;

static void walk_close_now(walk_object *self) {
    if (self->busy)
        return; /* the running step frees it when it sees walk gone */
    pathgate_fs_walk *w = self->walk;
    self->walk = NULL;
    if (w != NULL) {
        Py_BEGIN_ALLOW_THREADS
        pathgate_fs_walk_free(w);
        Py_END_ALLOW_THREADS
    }
    Py_CLEAR(self->dirs);
    Py_CLEAR(self->dirs_orig);
}

static void walk_dealloc(PyObject *obj) {
    walk_object *self = (walk_object *)obj;
    walk_close_now(self);
    Py_CLEAR(self->owner);
    pg_free_instance(obj);
}

/* A list of n names. */
static PyObject *names(const char *const *s, const size_t *lens, size_t n) {
    PyObject *l = PyList_New((Py_ssize_t)n);
    for (size_t i = 0; l != NULL && i < n; i++) {
        PyObject *x = PyUnicode_DecodeUTF8(s[i], (Py_ssize_t)lens[i], NULL);
        if (x == NULL)
            Py_CLEAR(l);
        else
            PyList_SetItem(l, (Py_ssize_t)i, x);
    }
    return l;
}

/* Top down: when the caller changed the dirnames it was given, the walk
 * enters only the names left in it. 0 or -1. */
static int apply_prune(walk_object *self) {
    PyObject *list = self->dirs, *orig = self->dirs_orig;
    if (list == NULL)
        return 0;
    Py_ssize_t n = PyList_Size(list);
    if (n < 0)
        return -1;
    int same = n == PyTuple_Size(orig);
    for (Py_ssize_t i = 0; same && i < n; i++)
        same = PyList_GetItem(list, i) == PyTuple_GetItem(orig, i);
    if (same)
        return 0;
    const char **keep = PyMem_Calloc((size_t)n + 1, sizeof *keep);
    size_t *lens = PyMem_Calloc((size_t)n + 1, sizeof *lens);
    int rc = keep && lens ? 0 : (PyErr_NoMemory(), -1);
    for (Py_ssize_t i = 0; rc == 0 && i < n; i++) {
        PyObject *x = PyList_GetItem(list, i);
        Py_ssize_t len;
        keep[i] = PyUnicode_Check(x) ? PyUnicode_AsUTF8AndSize(x, &len) : NULL;
        if (keep[i] == NULL) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_TypeError, "dirnames must hold str");
            rc = -1;
        } else {
            lens[i] = (size_t)len;
        }
    }
    pathgate_error err = PATHGATE_ERROR_INIT;
    if (rc == 0 && pathgate_fs_walk_prune(self->walk, keep, lens, (size_t)n, &err) < 0) {
        pg_state *st = pg_state_of((PyObject *)self);
        pg_raise(st, st->Error, err.code, &err);
        rc = -1;
    }
    PyMem_Free(keep);
    PyMem_Free(lens);
    return rc;
}

static PyObject *walk_next(PyObject *obj) {
    walk_object *self = (walk_object *)obj;
    if (self->walk == NULL)
        return NULL;
    if (apply_prune(self) < 0)
        return NULL;
    Py_CLEAR(self->dirs);
    Py_CLEAR(self->dirs_orig);
    const pathgate_fs_walk_dir *d = NULL;
    pathgate_error err = PATHGATE_ERROR_INIT;
    int rc;
    if (self->busy) {
        PyErr_SetString(PyExc_RuntimeError, "the walk is being stepped by another thread");
        return NULL;
    }
    self->busy = 1;
    Py_BEGIN_ALLOW_THREADS
    rc = pathgate_fs_walk_next(&d, self->walk, &err);
    Py_END_ALLOW_THREADS
    self->busy = 0;
    if (rc <= 0) {
        if (rc < 0)
            return pg_raise(pg_state_of(obj), pg_state_of(obj)->Error, rc, &err);
        return NULL; /* stats stay readable until close() */
    }
    PyObject *dirs = names(d->dirs, d->dir_lens, d->ndirs);
    PyObject *files = dirs ? names(d->files, d->file_lens, d->nfiles) : NULL;
    PyObject *path = files ? PyUnicode_DecodeUTF8(d->path, (Py_ssize_t)d->path_len, NULL) : NULL;
    if (path == NULL) {
        Py_XDECREF(dirs);
        Py_XDECREF(files);
        return NULL;
    }
    if (!self->bottom_up) {
        self->dirs_orig = PyList_AsTuple(dirs);
        if (self->dirs_orig == NULL) {
            Py_DECREF(dirs);
            Py_DECREF(files);
            Py_DECREF(path);
            return NULL;
        }
        self->dirs = Py_NewRef(dirs);
    }
    return Py_BuildValue("(NNN)", path, dirs, files);
}

static PyObject *walk_close(PyObject *obj, PyObject *unused) {
    (void)unused;
    if (((walk_object *)obj)->busy) {
        PyErr_SetString(PyExc_RuntimeError, "the walk is being stepped by another thread");
        return NULL;
    }
    walk_close_now((walk_object *)obj);
    Py_RETURN_NONE;
}

static PyObject *walk_stats(PyObject *obj, PyObject *unused) {
    (void)unused;
    size_t unreadable, skipped;
    int truncated;
    const pathgate_fs_walk *w = ((walk_object *)obj)->walk;
    pathgate_fs_walk_stats(w, &unreadable, &skipped, &truncated);
    return Py_BuildValue("{s:n,s:n,s:O,s:n}", "unreadable_dirs", (Py_ssize_t)unreadable,
                         "skipped_names", (Py_ssize_t)skipped, "depth_limited",
                         truncated ? Py_True : Py_False, "skipped_denied",
                         (Py_ssize_t)pathgate_fs_walk_skipped_denied(w));
}

static PyMethodDef walk_methods[] = {
    {"close", walk_close, METH_NOARGS, "Stops the walk and closes its directories."},
    {"stats", walk_stats, METH_NOARGS,
     "What was left out so far: {unreadable_dirs, skipped_names, depth_limited, "
     "skipped_denied}."},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot walk_slots[] = {
    {Py_tp_doc, "A walk, one directory at a time (internal: Backend.walk wraps it)."},
    {Py_tp_dealloc, walk_dealloc},
    {Py_tp_iter, PyObject_SelfIter},
    {Py_tp_iternext, walk_next},
    {Py_tp_methods, walk_methods},
    {0, NULL},
};

static PyType_Spec walk_spec = {
    .name = "pathgate._core._Walk",
    .basicsize = sizeof(walk_object),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_IMMUTABLETYPE | Py_TPFLAGS_DISALLOW_INSTANTIATION,
    .slots = walk_slots,
};

static const pg_arg walk_args[] = {{"path", PG_TEXT, PG_POS | PG_REQ, 0},
                                   {"bottom_up", PG_BOOL, PG_POS, 0}};

static PyObject *fs_walk(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                         PyObject *kwnames) {
    pg_spec spec = PG_SPEC(walk_args);
    pg_args h;
    if (pg_args_parse(&h, module, "_fs_walk", spec, args, nargs, kwnames) < 0)
        return NULL;
    pg_argv *a = &h.a;
    pathgate_fs_walk *w = NULL;
    int bottom_up = (int)a->v[1].i;
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = pathgate_fs_walk_open(&w, a->resolver, PG_TXT(a, 0),
                               bottom_up ? PATHGATE_FS_WALK_BOTTOM_UP : PATHGATE_FS_WALK_TOP_DOWN,
                               &a->opts, &a->err);
    Py_END_ALLOW_THREADS
    pg_state *st = PyModule_GetState(module);
    PyObject *out = NULL;
    if (rc < 0) {
        pg_raise(st, st->Error, rc, &a->err);
    } else {
        walk_object *self = (walk_object *)new_of(module, "_Walk");
        if (self == NULL) {
            pathgate_fs_walk_free(w);
        } else {
            self->walk = w;
            self->owner = Py_NewRef(h.owner);
            self->bottom_up = bottom_up;
            out = (PyObject *)self;
        }
    }
    pg_args_release(&h);
    return out;
}

/* ---------------------------------------------------------------- init */

static PyMethodDef walk_module_methods[] = {
    {"_fs_scandir", PG_METH(fs_scandir), METH_FASTCALL | METH_KEYWORDS,
     PyDoc_STR("_fs_scandir(owner, path) -> iterator of (name, address, kind)")},
    {"_fs_walk", PG_METH(fs_walk), METH_FASTCALL | METH_KEYWORDS,
     PyDoc_STR("_fs_walk(owner, path, bottom_up=False) -> iterator of (address, dirnames, "
               "filenames)")},
    {NULL, NULL, 0, NULL},
};

int pg_walk_init(PyObject *module, pg_state *st) {
    (void)st;
    if (PyModule_AddFunctions(module, walk_module_methods) < 0)
        return -1;
    PyObject *t1 = pg_add_type(module, &scandir_spec);
    if (t1 == NULL)
        return -1;
    Py_DECREF(t1);
    PyObject *t2 = pg_add_type(module, &walk_spec);
    if (t2 == NULL)
        return -1;
    Py_DECREF(t2);
    return 0;
}
