/*
 * args.c - the binder of ../arg_spec.h for Python: pg_args_parse checks a
 * fast call's arguments against a description and converts them into the
 * holder; pg_args_release drops everything the holder keeps for the core
 * call (UTF-8 copies, buffers, snapshots of sequences, arrays) in one call.
 */
#include "module.h"

/* Something the core's view of the arguments points into. */
static int keep(pg_args *h, PyObject *obj) {
    if (obj == NULL)
        return 0;
    if (h->nkeep == h->capkeep) {
        size_t cap = h->capkeep ? 2 * h->capkeep : 8;
        PyObject **k = PyMem_Realloc(h->keep, cap * sizeof *k);
        if (k == NULL) {
            Py_DECREF(obj);
            PyErr_NoMemory();
            return -1;
        }
        h->keep = k;
        h->capkeep = cap;
    }
    h->keep[h->nkeep++] = obj;
    return 0;
}

/* A buffer of obj (released with the holder). */
static int view(pg_args *h, PyObject *obj, const char **data, size_t *len) {
    if (h->nviews == h->capviews) {
        size_t cap = h->capviews ? 2 * h->capviews : 4;
        Py_buffer *v = PyMem_Realloc(h->views, cap * sizeof *v);
        if (v == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        h->views = v;
        h->capviews = cap;
    }
    Py_buffer *v = &h->views[h->nviews];
    if (PyObject_GetBuffer(obj, v, PyBUF_SIMPLE) < 0)
        return -1;
    h->nviews++;
    *data = v->buf;
    *len = (size_t)v->len;
    return 0;
}

/* Zeroed PyMem for n elements of size (at least one), freed with h. */
static void *array(pg_args *h, size_t n, size_t size) {
    void *p = PyMem_Calloc(n ? n : 1, size);
    if (p == NULL) {
        PyErr_NoMemory();
        return NULL;
    }
    h->mem[h->nmem++] = p;
    return p;
}

static int text(pg_args *h, PyObject *obj, const char **s, size_t *len, const char *what) {
    PyObject *holder;
    Py_ssize_t n;
    if (pg_text(obj, s, &n, &holder, what) < 0)
        return -1;
    *len = (size_t)n;
    return keep(h, holder);
}

/* Content to write: str (UTF-8) or any bytes-like object. */
static int content(pg_args *h, PyObject *obj, const char **s, size_t *len, const char *what) {
    if (PyUnicode_Check(obj)) {
        Py_ssize_t n;
        *s = PyUnicode_AsUTF8AndSize(obj, &n);
        *len = (size_t)n;
        return *s == NULL ? -1 : 0;
    }
    if (PyObject_CheckBuffer(obj))
        return view(h, obj, s, len);
    PyObject *name = PyType_GetName(Py_TYPE(obj));
    if (name != NULL) {
        PyErr_Format(PyExc_TypeError, "%s must be str or bytes, not %U", what, name);
        Py_DECREF(name);
    }
    return -1;
}

/* A list argument as a tuple (a snapshot: the list may change while the
 * GIL is released), kept by h; a str or bytes is refused. */
static PyObject *sequence(pg_args *h, PyObject *obj, const char *what) {
    if (PyUnicode_Check(obj) || PyBytes_Check(obj) || !PySequence_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "%s must be a sequence", what);
        return NULL;
    }
    PyObject *t = PySequence_Tuple(obj);
    if (t == NULL || keep(h, t) < 0)
        return NULL;
    if (PyTuple_Size(t) > PG_LIST_MAX) {
        PyErr_Format(PyExc_ValueError, "%s has too many entries", what);
        return NULL;
    }
    return t;
}

/* One (path, content) pair of an upload, or (old, new[, replace_all]). */
static PyObject *entry(pg_args *h, PyObject *e, Py_ssize_t lo, Py_ssize_t hi, const char *msg) {
    if (!PyTuple_Check(e) && !PyList_Check(e)) {
        PyErr_SetString(PyExc_TypeError, msg);
        return NULL;
    }
    PyObject *t = PySequence_Tuple(e);
    if (t == NULL || keep(h, t) < 0)
        return NULL;
    if (PyTuple_Size(t) < lo || PyTuple_Size(t) > hi) {
        PyErr_SetString(PyExc_TypeError, msg);
        return NULL;
    }
    return t;
}

static int list(pg_args *h, const pg_arg *arg, pg_val *v, PyObject *obj) {
    PyObject *seq = sequence(h, obj, arg->name);
    if (seq == NULL)
        return -1;
    size_t n = v->n = (size_t)PyTuple_Size(seq);
    for (size_t i = 0; i < n; i++) {
        PyObject *e = PyTuple_GetItem(seq, (Py_ssize_t)i), *t;
        switch (arg->kind) {
        case PG_TEXTS:
            if ((!v->texts && !(v->texts = array(h, n, sizeof *v->texts))) ||
                (!v->lens && !(v->lens = array(h, n, sizeof *v->lens))) ||
                text(h, e, &v->texts[i], &v->lens[i], "pattern") < 0)
                return -1;
            break;
        case PG_PATHS:
            if ((!v->items && !(v->items = array(h, n, sizeof *v->items))) ||
                text(h, e, &v->items[i].path, &v->items[i].path_len, "path") < 0)
                return -1;
            break;
        case PG_ITEMS:
            if ((!v->items && !(v->items = array(h, n, sizeof *v->items))) ||
                (!v->codes && !(v->codes = array(h, n, sizeof *v->codes))) ||
                !(t = entry(h, e, 2, 2, "files must hold (path, bytes) pairs")) ||
                text(h, PyTuple_GetItem(t, 0), &v->items[i].path, &v->items[i].path_len, "path") <
                    0 ||
                content(h, PyTuple_GetItem(t, 1), (const char **)&v->items[i].data,
                        &v->items[i].size, "file content") < 0)
                return -1;
            break;
        case PG_INTS: {
            if (!v->ints && !(v->ints = array(h, n, sizeof *v->ints)))
                return -1;
            if (!PyLong_Check(e)) {
                PyErr_Format(PyExc_TypeError, "%s must hold integers", arg->name);
                return -1;
            }
            long long x = PyLong_AsLongLong(e);
            if (x == -1 && PyErr_Occurred())
                return -1;
            v->ints[i] = (int64_t)x;
            break;
        }
        default: { /* PG_EDITS */
            pathgate_fs_edit_op *op;
            if ((!v->edits && !(v->edits = array(h, n, sizeof *v->edits))) ||
                !(t = entry(h, e, 2, 3, "each edit must be (old, new[, replace_all])")))
                return -1;
            op = &v->edits[i];
            if (text(h, PyTuple_GetItem(t, 0), &op->old_text, &op->old_len, "old") < 0 ||
                text(h, PyTuple_GetItem(t, 1), &op->new_text, &op->new_len, "new") < 0 ||
                (PyTuple_Size(t) == 3 &&
                 (op->replace_all = PyObject_IsTrue(PyTuple_GetItem(t, 2))) < 0))
                return -1;
        }
        }
    }
    return 0;
}

/* Converts one given argument (obj) of spec into h. */
static int convert(pg_args *h, pg_spec spec, size_t i, PyObject *obj) {
    const pg_arg *arg = &spec.args[i];
    pg_val *v = &h->a.v[i];
    if (obj == Py_None && !pg_is_truth(arg->kind) && !(arg->where & PG_REQ))
        return 0; /* the default */
    if (pg_is_list(arg->kind))
        return list(h, arg, v, obj);
    if (pg_is_text(arg->kind)) {
        const char *s;
        size_t len;
        if ((arg->kind == PG_CONTENT ? content : text)(h, obj, &s, &len, arg->name) < 0)
            return -1;
        pg_argv_text(&h->a, spec.args, i, s, len);
        return 0;
    }
    long long n = pg_is_truth(arg->kind) ? PyObject_IsTrue(obj) : PyLong_AsLongLong(obj);
    if (n == -1 && PyErr_Occurred())
        return -1;
    const char *bad = pg_argv_number(&h->a, spec.args, i, n);
    if (bad != NULL)
        PyErr_Format(PyExc_ValueError, "%s %s", arg->name, bad);
    return bad ? -1 : 0;
}

static int owner(pg_state *st, PyObject *obj, pg_argv *a) {
    if (pg_is_resolver(st, obj)) {
        a->resolver = ((pg_resolver_object *)obj)->resolver;
        return 0;
    }
    if (Py_IS_TYPE(obj, (PyTypeObject *)st->SessionType)) {
        a->opts.session = ((pg_session_object *)obj)->session;
        return 0;
    }
    PyErr_SetString(PyExc_TypeError, "owner must be Resolver or Session");
    return -1;
}

int pg_args_parse(pg_args *h, PyObject *module, const char *fname, pg_spec spec,
                  PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    memset(h, 0, sizeof *h);
    pg_argv_init(&h->a, spec);
    const char *names[PG_ARGS_MAX + 1] = {NULL};
    PyObject *given[PG_ARGS_MAX + 1];
    Py_ssize_t maxpos = 1, required = 1;
    for (size_t i = 0; i < spec.n; i++) {
        names[i + 1] = spec.args[i].name;
        if (maxpos == (Py_ssize_t)i + 1 && (spec.args[i].where & (PG_POS | PG_PYPOS)))
            maxpos++;
        if (required == (Py_ssize_t)i + 1 && (spec.args[i].where & PG_REQ))
            required++;
    }
    if (pg_bind(fname, args, nargs, kwnames, names, (Py_ssize_t)spec.n + 1, maxpos, required,
                given) < 0 ||
        owner(PyModule_GetState(module), given[0], &h->a) < 0)
        return -1;
    h->owner = given[0];
    for (size_t i = 0; i < spec.n; i++) {
        if (given[i + 1] != NULL && convert(h, spec, i, given[i + 1]) < 0) {
            pg_args_release(h);
            return -1;
        }
    }
    return 0;
}

void pg_args_release(pg_args *h) {
    for (size_t i = 0; i < h->nviews; i++)
        PyBuffer_Release(&h->views[i]);
    for (size_t i = 0; i < h->nkeep; i++)
        Py_DECREF(h->keep[i]);
    for (size_t i = 0; i < h->nmem; i++)
        PyMem_Free(h->mem[i]);
    PyMem_Free(h->views);
    PyMem_Free(h->keep);
    h->nviews = h->nkeep = h->nmem = h->capviews = h->capkeep = 0;
    h->views = NULL;
    h->keep = NULL;
}
