/*
 * fs.c - the file operations of docs/fs.md as private functions of
 * pathgate._core, used by pathgate.backend.Backend: _fs_<name> for each
 * operation of ../fs_ops.h, which describes its arguments and its core
 * call; here only the runner, the results as Python objects, and _FsIter
 * (the iterator of _fs_grep_iter and _fs_glob_iter). Signatures: the
 * method table below and python/pathgate/_core.pyi.
 *
 * owner, the first argument, is a Resolver or a Session (relative paths
 * then resolve against its cwd). A failure raises pathgate.Error with the
 * core's message, .kind and .code; upload/download answer per item with
 * the deepagents error codes. The GIL is released around every core call;
 * the argument holder keeps what the core reads until it returns.
 */
#include "module.h"
#include "fields.h"
#include "fs_ops.h"

PG_PY_DICT_FN(fileinfo_dict, PG_FILEINFO_FIELDS, pathgate_fs_info)
PG_PY_DICT_FN(grepmatch_dict, PG_GREPMATCH_FIELDS, pathgate_fs_match)
PG_PY_DICT_FN(read_dict, PG_READ_FIELDS, pathgate_fs_read_result)
PG_PY_DICT_FN(stat_dict, PG_STAT_FIELDS, pathgate_fs_stat_result)
static const char *const fileinfo_names[] = {PG_FILEINFO_FIELDS(PG_PY_NAME, _)};
static const char *const grepmatch_names[] = {PG_GREPMATCH_FIELDS(PG_PY_NAME, _)};
static const char *const read_names[] = {PG_READ_FIELDS(PG_PY_NAME, _)};
static const char *const stat_names[] = {PG_STAT_FIELDS(PG_PY_NAME, _)};

/* FileInfo dicts of infos, or GrepMatch dicts of matches (the other NULL). */
static PyObject *dict_list(const pathgate_fs_info *infos, const pathgate_fs_match *matches,
                           size_t count) {
    pg_conv cv;
    PyObject *out = NULL;
    int rc = matches ? pg_conv_init(&cv, PG_NAMES(grepmatch_names), 0)
                     : pg_conv_init(&cv, PG_NAMES(fileinfo_names), 0);
    if (rc == 0 && (out = PyList_New((Py_ssize_t)count)) != NULL) {
        for (size_t i = 0; i < count; i++) {
            PyObject *d =
                matches ? grepmatch_dict(&cv, &matches[i]) : fileinfo_dict(&cv, &infos[i]);
            if (d == NULL) {
                Py_CLEAR(out);
                break;
            }
            PyList_SetItem(out, (Py_ssize_t)i, d); /* steals */
        }
    }
    pg_conv_dispose(&cv);
    return out;
}

/* {"incomplete": bool, "unreadable_dirs": int, ...}: what a walk left out. */
static PyObject *walk_info(int incomplete, size_t unreadable_dirs, size_t unreadable_files,
                           size_t skipped_names, size_t skipped_large, size_t files_scanned,
                           size_t skipped_denied) {
    return Py_BuildValue("{s:N,s:n,s:n,s:n,s:n,s:n,s:n}", "incomplete", PyBool_FromLong(incomplete),
                         "unreadable_dirs", (Py_ssize_t)unreadable_dirs, "unreadable_files",
                         (Py_ssize_t)unreadable_files, "skipped_names", (Py_ssize_t)skipped_names,
                         "skipped_large", (Py_ssize_t)skipped_large, "files_scanned",
                         (Py_ssize_t)files_scanned, "skipped_denied", (Py_ssize_t)skipped_denied);
}

static PyObject *list_info(const pathgate_fs_list *l) {
    PyObject *d =
        walk_info(l->incomplete, l->unreadable_dirs, 0, l->skipped_names, 0, 0, l->skipped_denied);
    if (d != NULL && l->truncated && PyDict_SetItemString(d, "depth_limited", Py_True) < 0)
        Py_CLEAR(d);
    return d;
}

static PyObject *matches_info(const pathgate_fs_matches *m) {
    return walk_info(m->incomplete, m->unreadable_dirs, m->unreadable_files, m->skipped_names,
                     m->skipped_large, m->files_scanned, m->skipped_denied);
}

/* A result dict of read or stat. */
static PyObject *record(const char *const *names, size_t n, const pathgate_fs_read_result *read,
                        const pathgate_fs_stat_result *stat) {
    pg_conv cv;
    PyObject *d = NULL;
    if (pg_conv_init(&cv, names, n, 1) == 0)
        d = read ? read_dict(&cv, read) : stat_dict(&cv, stat);
    pg_conv_dispose(&cv);
    return d;
}

/* The deepagents error code of a per-item failure, or None. */
static PyObject *op_error(int code) {
    const char *e = pathgate_fs_operation_error(code);
    return e ? PyUnicode_FromString(e) : Py_NewRef(Py_None);
}

/* The bytes of a core buffer, copied from its end a MiB at a time while the
 * buffer shrinks behind the copy, so that a long answer (head or tail up to
 * the size cap) is never held twice. Disposes of buf. */
static PyObject *bytes_of_buf(pathgate_buf *buf) {
    size_t n = buf->len;
    PyObject *b = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)n);
    if (b == NULL) {
        pathgate_buf_dispose(buf);
        return NULL;
    }
    char *dst = PyBytes_AsString(b);
    const size_t step = (size_t)1 << 20;
    while (n > step && buf->alloc.realloc) {
        memcpy(dst + n - step, buf->ptr + n - step, step);
        n -= step;
        char *p = buf->alloc.realloc(buf->ptr, n, buf->alloc.ctx);
        if (p)
            buf->ptr = p;
    }
    if (n)
        memcpy(dst, buf->ptr, n);
    pathgate_buf_dispose(buf);
    return b;
}

/* Returns a list of n converted items; item(i) gives a new reference or NULL. */
#define PG_RETURN_LIST(n, item)                                                                    \
    do {                                                                                           \
        PyObject *l_ = PyList_New((Py_ssize_t)(n));                                                \
        for (size_t i = 0; l_ != NULL && i < (n); i++) {                                           \
            PyObject *x_ = (item);                                                                 \
            if (x_ == NULL)                                                                        \
                Py_CLEAR(l_);                                                                      \
            else                                                                                   \
                PyList_SetItem(l_, (Py_ssize_t)i, x_);                                             \
        }                                                                                          \
        return l_;                                                                                 \
    } while (0)

static PyObject *blob(const pathgate_fs_blob *b) {
    return Py_BuildValue(
        "(NN)",
        b->code ? Py_NewRef(Py_None)
                : PyBytes_FromStringAndSize((const char *)b->data, (Py_ssize_t)b->size),
        op_error(b->code));
}

static PyObject *make_iter(PyObject *module, PyObject *owner_obj, pathgate_fs_iter *it,
                           int is_grep);

/* The Python value of a successful call's result (see pg_result_kind). */
static PyObject *result(PyObject *module, pg_args *h, pg_result_kind kind, pg_result *r) {
    const pg_argv *a = &h->a;
    /* a list is converted up to the call's limit (PG_LIMIT) */
    size_t listed = r->list.count < a->limit ? r->list.count : a->limit;
    PyObject *truncated = r->list.truncated || r->matches.truncated ? Py_True : Py_False;
    switch (kind) {
    case PG_R_ADDR:
        return pg_buf_to_native(&r->buf);
    case PG_R_ADDR_COUNT:
        return Py_BuildValue("(Nn)", pg_buf_to_native(&r->buf), (Py_ssize_t)r->count);
    case PG_R_ADDR_DIFF:
        return Py_BuildValue("(NN)", pg_buf_to_native(&r->buf),
                             PyUnicode_DecodeUTF8(r->buf2.ptr ? r->buf2.ptr : "",
                                                  (Py_ssize_t)r->buf2.len, "replace"));
    case PG_R_BYTES:
        return bytes_of_buf(&r->buf);
    case PG_R_LIST:
        if (a->want_info)
            return Py_BuildValue("(NN)", dict_list(r->list.items, NULL, listed),
                                 list_info(&r->list));
        return dict_list(r->list.items, NULL, listed);
    case PG_R_TREE:
        return Py_BuildValue("(NO)", dict_list(r->list.items, NULL, listed), truncated);
    case PG_R_MATCHES:
        if (a->want_info)
            return Py_BuildValue("(NON)", dict_list(NULL, r->matches.items, r->matches.count),
                                 truncated, matches_info(&r->matches));
        return Py_BuildValue("(NO)", dict_list(NULL, r->matches.items, r->matches.count),
                             truncated);
    case PG_R_READ:
        return record(PG_NAMES(read_names), &r->read, NULL);
    case PG_R_STAT:
        return record(PG_NAMES(stat_names), NULL, &r->stat);
    case PG_R_CODES:
        PG_RETURN_LIST(a->v[0].n, op_error(a->v[0].codes[i]));
    case PG_R_BLOBS:
        PG_RETURN_LIST(r->blobs.count, blob(&r->blobs.items[i]));
    default: { /* the iterators */
        pathgate_fs_iter *it = r->iter;
        r->iter = NULL;
        return make_iter(module, h->owner, it, kind == PG_R_GREP_ITER);
    }
    }
}

/* Every _fs_<name>: arguments, the core call without the GIL, result. */
static PyObject *run(PyObject *module, const char *fname, const pg_fs_op *op, PyObject *const *args,
                     Py_ssize_t nargs, PyObject *kwnames) {
    pg_args h;
    if (pg_args_parse(&h, module, fname, op->spec, args, nargs, kwnames) < 0)
        return NULL;
    pg_result r;
    pg_result_init(&r);
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = op->call(&h.a, &r);
    Py_END_ALLOW_THREADS
    pg_state *st = PyModule_GetState(module);
    PyObject *out =
        rc < 0 ? pg_raise(st, st->Error, rc, &h.a.err) : result(module, &h, op->result, &r);
    pg_result_dispose(&r);
    pg_args_release(&h);
    return out;
}

#define PG_PY_RUN(name)                                                                            \
    static PyObject *fs_##name(PyObject *m, PyObject *const *args, Py_ssize_t n, PyObject *kw) {   \
        return run(m, "_fs_" #name, &pg_op_##name, args, n, kw);                                   \
    }
PG_FS_OPS(PG_PY_RUN)

/* ----------------------------------------------------------- iterators */

/* pathgate._core._FsIter: a grep or glob pulled one result at a time; the
 * walk runs on a core thread at most a few batches ahead. */
typedef struct {
    PyObject_HEAD pathgate_fs_iter *it;
    PyObject *owner; /* keeps the Resolver or Session alive */
    int is_grep;
    int done;
} fs_iter_object;

static void iter_close_now(fs_iter_object *self) {
    pathgate_fs_iter *it = self->it;
    self->it = NULL;
    if (it != NULL) {
        Py_BEGIN_ALLOW_THREADS
        pathgate_fs_iter_free(it);
        Py_END_ALLOW_THREADS
    }
}

static void iter_dealloc(PyObject *obj) {
    fs_iter_object *self = (fs_iter_object *)obj;
    iter_close_now(self);
    Py_CLEAR(self->owner);
    pg_free_instance(obj);
}

static PyObject *iter_next(PyObject *obj) {
    fs_iter_object *self = (fs_iter_object *)obj;
    if (self->it == NULL || self->done)
        return NULL;
    const pathgate_fs_match *m = NULL;
    const pathgate_fs_info *info = NULL;
    pathgate_error err = PATHGATE_ERROR_INIT;
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = self->is_grep ? pathgate_fs_iter_next_match(&m, self->it, &err)
                       : pathgate_fs_iter_next_info(&info, self->it, &err);
    Py_END_ALLOW_THREADS
    if (rc <= 0) {
        self->done = 1;
        return rc < 0 ? pg_raise(pg_state_of(obj), pg_state_of(obj)->Error, rc, &err) : NULL;
    }
    PyObject *l = dict_list(info, m, 1), *d = NULL;
    if (l != NULL)
        d = Py_NewRef(PyList_GetItem(l, 0));
    Py_XDECREF(l);
    return d;
}

static PyObject *iter_close(PyObject *obj, PyObject *unused) {
    (void)unused;
    iter_close_now((fs_iter_object *)obj);
    ((fs_iter_object *)obj)->done = 1;
    Py_RETURN_NONE;
}

/* {"truncated":, "incomplete":, counts...} once the iterator is exhausted,
 * else None. */
static PyObject *iter_summary(PyObject *obj, PyObject *unused) {
    (void)unused;
    fs_iter_object *self = (fs_iter_object *)obj;
    if (self->it == NULL || !self->done)
        Py_RETURN_NONE;
    const pathgate_fs_matches *m = pathgate_fs_iter_grep_summary(self->it);
    const pathgate_fs_list *l = pathgate_fs_iter_glob_summary(self->it);
    PyObject *d = self->is_grep ? matches_info(m)
                                : walk_info(l->incomplete, l->unreadable_dirs, 0, l->skipped_names,
                                            0, 0, l->skipped_denied);
    int truncated = self->is_grep ? m->truncated : l->truncated;
    if (d != NULL && PyDict_SetItemString(d, "truncated", truncated ? Py_True : Py_False) < 0)
        Py_CLEAR(d);
    return d;
}

static PyObject *iter_files_scanned(PyObject *obj, PyObject *unused) {
    (void)unused;
    fs_iter_object *self = (fs_iter_object *)obj;
    return PyLong_FromUnsignedLongLong(self->it ? pathgate_fs_iter_files_scanned(self->it) : 0);
}

static PyMethodDef iter_methods[] = {
    {"files_scanned", iter_files_scanned, METH_NOARGS,
     "Files grep has searched so far (progress)."},
    {"close", iter_close, METH_NOARGS, "Stops the walk now."},
    {"summary", iter_summary, METH_NOARGS,
     "After the last item: {truncated, incomplete, unreadable_dirs, ...}; else None."},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot iter_slots[] = {
    {Py_tp_doc, "A grep or glob pulled one result at a time (internal)."},
    {Py_tp_dealloc, iter_dealloc},
    {Py_tp_iter, PyObject_SelfIter},
    {Py_tp_iternext, iter_next},
    {Py_tp_methods, iter_methods},
    {0, NULL},
};

static PyType_Spec iter_spec = {
    .name = "pathgate._core._FsIter",
    .basicsize = sizeof(fs_iter_object),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_IMMUTABLETYPE | Py_TPFLAGS_DISALLOW_INSTANTIATION,
    .slots = iter_slots,
};

/* Takes it (freed on failure). */
static PyObject *make_iter(PyObject *module, PyObject *owner_obj, pathgate_fs_iter *it,
                           int is_grep) {
    PyObject *type = PyObject_GetAttrString(module, "_FsIter");
    allocfunc alloc = type ? (allocfunc)PyType_GetSlot((PyTypeObject *)type, Py_tp_alloc) : NULL;
    fs_iter_object *self = alloc ? (fs_iter_object *)alloc((PyTypeObject *)type, 0) : NULL;
    Py_XDECREF(type);
    if (self == NULL) {
        pathgate_fs_iter_free(it);
        return NULL;
    }
    self->it = it;
    self->owner = Py_NewRef(owner_obj);
    self->is_grep = is_grep;
    return (PyObject *)self;
}

/* ---------------------------------------------------------------- init */

/* The text signature (what inspect.signature and the stubs' check read)
 * after the owner, and what the call answers. */
#define PG_FS_METH(name, sig, doc)                                                                 \
    {                                                                                              \
        "_fs_" #name, PG_METH(fs_##name), METH_FASTCALL | METH_KEYWORDS,                           \
            PyDoc_STR("_fs_" #name "($module, owner, /, " sig ")\n--\n\n" doc)                     \
    }

static PyMethodDef fs_methods[] = {
    PG_FS_METH(ls, "path=None, *, metadata=True, info=False, limit=None",
               "FileInfo dicts, or (list, info); metadata=False: path and is_dir only; "
               "limit: the first that many."),
    PG_FS_METH(read, "path, offset=0, limit=2000, *, max_file_size=None, keep_crlf=False",
               "The read dict: a line window, or the whole file as base64."),
    PG_FS_METH(read_bytes, "path, *, max_file_size=None", "The whole file's bytes."),
    PG_FS_METH(write, "path, content", "The address written."),
    PG_FS_METH(edit, "path, old, new, replace_all=False, *, dry_run=False",
               "(address, occurrences)."),
    PG_FS_METH(delete, "path", "The address deleted."),
    PG_FS_METH(grep,
               "pattern, path=None, glob=None, max_count=None, *, regex=False, "
               "ignore_case=False, threads=None, max_file_size=None, all_bases=False, info=False",
               "(GrepMatch dicts, truncated[, info])."),
    PG_FS_METH(glob,
               "pattern, path=None, *, metadata=False, threads=None, basename=False, info=False",
               "FileInfo dicts, or (list, info)."),
    PG_FS_METH(grep_iter,
               "pattern, path=None, glob=None, max_count=None, *, regex=False, "
               "ignore_case=False, threads=None, max_file_size=None, all_bases=False",
               "An _FsIter of GrepMatch dicts."),
    PG_FS_METH(glob_iter, "pattern, path=None, *, metadata=False, threads=None, basename=False",
               "An _FsIter of FileInfo dicts."),
    PG_FS_METH(upload, "files", "Per (path, bytes) pair: None or deepagents' error code."),
    PG_FS_METH(download, "paths, *, max_file_size=None",
               "Per path: (bytes or None, None or deepagents' error code)."),
    PG_FS_METH(mkdir, "path, parents=True", "The address of the directory."),
    PG_FS_METH(move, "source, destination", "The destination address."),
    PG_FS_METH(stat, "path", "The stat dict."),
    PG_FS_METH(edits, "path, edits, dry_run=False, *, lenient=False, max_file_size=None",
               "(address, unified diff); edits: (old, new[, replace_all]) tuples."),
    PG_FS_METH(head, "path, lines=None, *, max_file_size=None",
               "The first lines' bytes (None: all)."),
    PG_FS_METH(tail, "path, lines=None, *, max_file_size=None",
               "The last lines' bytes (None: all)."),
    PG_FS_METH(tree, "path, excludes=(), *, limit=None",
               "(FileInfo dicts, truncated); limit: the first that many."),
    PG_FS_METH(copy, "source, destination, *, replace=False", "The destination address."),
    PG_FS_METH(link, "source, destination", "The address of the new hard link."),
    PG_FS_METH(symlink, "target, path", "The address of the symbolic link."),
    PG_FS_METH(readlink, "path", "The link's target text."),
    PG_FS_METH(chmod, "path, mode", "The address changed."),
    PG_FS_METH(remove_tree, "path", "The address removed."),
    PG_FS_METH(lstat, "path", "The stat dict (a symbolic link not followed)."),
    {NULL, NULL, 0, NULL},
};

int pg_fs_init(PyObject *module, pg_state *st) {
    (void)st;
    if (PyModule_AddFunctions(module, fs_methods) < 0)
        return -1;
    PyObject *iter_type = pg_add_type(module, &iter_spec);
    if (iter_type == NULL)
        return -1;
    Py_DECREF(iter_type); /* the module keeps it as _FsIter */
    return PyModule_AddIntConstant(module, "_FS_READ_LIMIT_DEFAULT",
                                   PATHGATE_FS_READ_LIMIT_DEFAULT);
}
