/*
 * fs.c - the file operations of docs/spec.md section 7 as private functions
 * of pathgate._core, used by pathgate.backend.Backend:
 *
 *   _fs_ls(owner, path, *, info=False, metadata=True, limit=None) -> list[dict]
 *   _fs_read(owner, path, offset, limit)      -> dict
 *   _fs_write(owner, path, content)           -> str (address)
 *   _fs_edit(owner, path, old, new, all)      -> (str, int)
 *   _fs_delete(owner, path)                   -> str
 *   _fs_grep(owner, pattern, path, glob, max) -> (list[dict], bool)
 *   _fs_glob(owner, pattern, path, metadata=False) -> list[dict]
 *   _fs_upload(owner, files)                  -> list[str | None]
 *   _fs_download(owner, paths)                -> list[(bytes | None, str | None)]
 *
 * owner is a Resolver or a Session (relative paths then resolve against its
 * cwd). A failure raises pathgate.Error with the core's message, .kind and
 * .code; upload/download answer per item with the deepagents error codes.
 * The GIL is released around every core call; arguments stay referenced by
 * the caller (and buffers are held) while it runs.
 */
#include "module.h"
#include "fields.h"

typedef struct owner {
    pathgate_resolver *resolver;
    pathgate_fs_options opts;
} owner;

static int owner_arg(pg_state *st, PyObject *obj, owner *o) {
    pathgate_fs_options init = PATHGATE_FS_OPTIONS_INIT;
    o->opts = init;
    if (pg_is_resolver(st, obj)) {
        o->resolver = ((pg_resolver_object *)obj)->resolver;
        return 0;
    }
    if (Py_IS_TYPE(obj, (PyTypeObject *)st->SessionType)) {
        o->resolver = NULL;
        o->opts.session = ((pg_session_object *)obj)->session;
        return 0;
    }
    PyErr_SetString(PyExc_TypeError, "owner must be Resolver or Session");
    return -1;
}

/* A flag given by keyword: sets flag in o's options when obj is true
 * (NULL or None: left unset); -1 when its truth cannot be read. */
static int flag_opt(owner *o, PyObject *obj, unsigned int flag) {
    int v = obj == NULL || obj == Py_None ? 0 : PyObject_IsTrue(obj);
    if (v > 0)
        o->opts.flags |= flag;
    return v < 0 ? -1 : 0;
}

/* The scale options given by keyword (NULL or None: the default). */
static int scale_opts(owner *o, PyObject *regex, PyObject *ignore_case, PyObject *threads,
                      PyObject *max_file_size) {
    if (flag_opt(o, regex, PATHGATE_FS_REGEX) < 0 ||
        flag_opt(o, ignore_case, PATHGATE_FS_IGNORE_CASE) < 0)
        return -1;
    if (threads != NULL && threads != Py_None) {
        long t = PyLong_AsLong(threads);
        if (t == -1 && PyErr_Occurred())
            return -1;
        if (t < 0 || t > 1024) {
            PyErr_SetString(PyExc_ValueError, "threads must be between 0 (every core) and 1024");
            return -1;
        }
        o->opts.threads = (unsigned int)t;
    }
    if (max_file_size != NULL && max_file_size != Py_None) {
        unsigned long long m = PyLong_AsUnsignedLongLong(max_file_size);
        if (m == (unsigned long long)-1 && PyErr_Occurred())
            return -1;
        if (m == 0) {
            PyErr_SetString(PyExc_ValueError, "max_file_size must be > 0");
            return -1;
        }
        o->opts.max_file_size = m;
        o->opts.grep_max_file_size = m;
    }
    return 0;
}

/* {"incomplete": bool, "unreadable_dirs": int, ...} of a walk. */
static PyObject *walk_info(int incomplete, size_t unreadable_dirs, size_t unreadable_files,
                           size_t skipped_names, size_t skipped_large, size_t files_scanned) {
    PyObject *d = PyDict_New();
    if (d == NULL)
        return NULL;
    PyObject *v[6] = {PyBool_FromLong(incomplete),         PyLong_FromSize_t(unreadable_dirs),
                      PyLong_FromSize_t(unreadable_files), PyLong_FromSize_t(skipped_names),
                      PyLong_FromSize_t(skipped_large),    PyLong_FromSize_t(files_scanned)};
    static const char *const keys[6] = {"incomplete",    "unreadable_dirs", "unreadable_files",
                                        "skipped_names", "skipped_large",   "files_scanned"};
    int bad = 0;
    for (int i = 0; i < 6; i++) {
        if (v[i] == NULL || PyDict_SetItemString(d, keys[i], v[i]) < 0)
            bad = 1;
        Py_XDECREF(v[i]);
    }
    if (bad)
        Py_CLEAR(d);
    return d;
}

/* Optional text (None = NULL). */
static int opt_text(PyObject *obj, const char **text, Py_ssize_t *len, PyObject **holder,
                    const char *what) {
    *holder = NULL;
    if (obj == NULL || obj == Py_None) {
        *text = NULL;
        *len = 0;
        return 0;
    }
    return pg_text(obj, text, len, holder, what);
}

static PyObject *fail(pg_state *st, int rc, const pathgate_error *err) {
    return pg_raise(st, st->Error, rc, err);
}

PG_PY_DICT_FN(fileinfo_dict, PG_FILEINFO_FIELDS, pathgate_fs_info)
PG_PY_DICT_FN(grepmatch_dict, PG_GREPMATCH_FIELDS, pathgate_fs_match)
PG_PY_DICT_FN(read_dict, PG_READ_FIELDS, pathgate_fs_read_result)
PG_PY_DICT_FN(stat_dict, PG_STAT_FIELDS, pathgate_fs_stat_result)
static const char *const fileinfo_names[] = {PG_FILEINFO_FIELDS(PG_PY_NAME, _)};
static const char *const grepmatch_names[] = {PG_GREPMATCH_FIELDS(PG_PY_NAME, _)};
static const char *const read_names[] = {PG_READ_FIELDS(PG_PY_NAME, _)};
static const char *const stat_names[] = {PG_STAT_FIELDS(PG_PY_NAME, _)};

/* FileInfo dicts of a list (disposes it). */
/* A limit given by keyword: the most items converted (None: all). */
static int limit_arg(PyObject *obj, size_t *limit) {
    *limit = (size_t)-1;
    if (obj == NULL || obj == Py_None)
        return 0;
    Py_ssize_t v = PyLong_AsSsize_t(obj);
    if (v == -1 && PyErr_Occurred())
        return -1;
    if (v < 0) {
        PyErr_SetString(PyExc_ValueError, "limit must not be negative");
        return -1;
    }
    *limit = (size_t)v;
    return 0;
}

/* The first `limit` items as dicts (disposes l). */
static PyObject *list_to_py(pathgate_fs_list *l, size_t limit) {
    pg_conv cv;
    PyObject *out = NULL;
    size_t count = l->count < limit ? l->count : limit;
    if (pg_conv_init(&cv, PG_NAMES(fileinfo_names), 0) == 0 &&
        (out = PyList_New((Py_ssize_t)count)) != NULL) {
        for (size_t i = 0; i < count; i++) {
            PyObject *d = fileinfo_dict(&cv, &l->items[i]);
            if (d == NULL) {
                Py_CLEAR(out);
                break;
            }
            PyList_SetItem(out, (Py_ssize_t)i, d); /* steals */
        }
    }
    pg_conv_dispose(&cv);
    pathgate_fs_list_dispose(l);
    return out;
}

/* The list, or (list, info) when asked for (disposes l). */
static PyObject *with_info(pathgate_fs_list *l, int want_info, size_t limit) {
    PyObject *info =
        want_info ? walk_info(l->incomplete, l->unreadable_dirs, 0, l->skipped_names, 0, 0) : NULL;
    if (want_info && info == NULL) {
        pathgate_fs_list_dispose(l);
        return NULL;
    }
    if (want_info && l->truncated && PyDict_SetItemString(info, "depth_limited", Py_True) < 0) {
        Py_DECREF(info);
        pathgate_fs_list_dispose(l);
        return NULL;
    }
    PyObject *list = list_to_py(l, limit);
    if (!want_info || list == NULL) {
        Py_XDECREF(info);
        return list;
    }
    PyObject *t = PyTuple_Pack(2, list, info);
    Py_DECREF(list);
    Py_DECREF(info);
    return t;
}

/* ------------------------------------------------------------------ ls */

static PyObject *fs_ls(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                       PyObject *kwnames) {
    pg_state *st = PyModule_GetState(module);
    static const char *const names[] = {NULL, "path", "info", "metadata", "limit"};
    PyObject *a[5];
    if (pg_bind("_fs_ls", args, nargs, kwnames, names, 5, 2, 1, a) < 0)
        return NULL;
    int want_info = 0, metadata = 1;
    size_t limit;
    if (a[2] != NULL && (want_info = PyObject_IsTrue(a[2])) < 0)
        return NULL;
    if (limit_arg(a[4], &limit) < 0)
        return NULL;
    if (a[3] != NULL && (metadata = PyObject_IsTrue(a[3])) < 0)
        return NULL;
    owner o;
    const char *path;
    Py_ssize_t len;
    PyObject *holder;
    if (owner_arg(st, a[0], &o) < 0)
        return NULL;
    if (!metadata)
        o.opts.flags |= PATHGATE_FS_NO_METADATA;
    if (opt_text(a[1], &path, &len, &holder, "path") < 0)
        return NULL;
    pathgate_fs_list l = PATHGATE_FS_LIST_INIT;
    pathgate_error err = PATHGATE_ERROR_INIT;
    int rc;
    Py_BEGIN_ALLOW_THREADS rc = pathgate_fs_ls(&l, o.resolver, path, (size_t)len, &o.opts, &err);
    Py_END_ALLOW_THREADS Py_XDECREF(holder);
    if (rc < 0)
        return fail(st, rc, &err);
    return with_info(&l, want_info, limit);
}

/* ---------------------------------------------------------------- read */

static PyObject *fs_read(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                         PyObject *kwnames) {
    pg_state *st = PyModule_GetState(module);
    static const char *const names[] = {NULL, "path", "offset", "limit", "max_file_size"};
    PyObject *a[5];
    if (pg_bind("_fs_read", args, nargs, kwnames, names, 5, 4, 2, a) < 0)
        return NULL;
    owner o;
    if (owner_arg(st, a[0], &o) < 0 || scale_opts(&o, NULL, NULL, NULL, a[4]) < 0)
        return NULL;
    long long offset = 0, limit = PATHGATE_FS_READ_LIMIT_DEFAULT;
    if (a[2] != NULL && a[2] != Py_None && (offset = PyLong_AsLongLong(a[2])) == -1 &&
        PyErr_Occurred())
        return NULL;
    if (a[3] != NULL && a[3] != Py_None && (limit = PyLong_AsLongLong(a[3])) == -1 &&
        PyErr_Occurred())
        return NULL;
    const char *path;
    Py_ssize_t len;
    PyObject *holder;
    if (pg_text(a[1], &path, &len, &holder, "path") < 0)
        return NULL;
    pathgate_fs_read_result r;
    pathgate_error err = PATHGATE_ERROR_INIT;
    int rc;
    Py_BEGIN_ALLOW_THREADS rc =
        pathgate_fs_read(&r, o.resolver, path, (size_t)len, offset, limit, &o.opts, &err);
    Py_END_ALLOW_THREADS Py_XDECREF(holder);
    if (rc < 0)
        return fail(st, rc, &err);
    pg_conv cv;
    PyObject *d = pg_conv_init(&cv, PG_NAMES(read_names), 1) == 0 ? read_dict(&cv, &r) : NULL;
    pg_conv_dispose(&cv);
    pathgate_fs_read_result_dispose(&r);
    return d;
}

/* ------------------------------------------------- write, edit, delete */

/* Content: str (UTF-8) or any bytes-like object. view->obj is set when a
 * buffer was taken (release it). */
static int content_arg(PyObject *obj, const char **data, Py_ssize_t *len, PyObject **holder,
                       Py_buffer *view) {
    *holder = NULL;
    view->obj = NULL;
    if (PyUnicode_Check(obj)) {
        *data = PyUnicode_AsUTF8AndSize(obj, len);
        return *data == NULL ? -1 : 0;
    }
    if (PyObject_CheckBuffer(obj)) {
        if (PyObject_GetBuffer(obj, view, PyBUF_SIMPLE) < 0)
            return -1;
        *data = view->buf;
        *len = view->len;
        return 0;
    }
    PyObject *name = PyType_GetName(Py_TYPE(obj));
    if (name != NULL) {
        PyErr_Format(PyExc_TypeError, "content must be str or bytes, not %U", name);
        Py_DECREF(name);
    }
    return -1;
}

static PyObject *fs_write(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                          PyObject *kwnames) {
    pg_state *st = PyModule_GetState(module);
    static const char *const names[] = {NULL, "path", "content"};
    PyObject *a[3];
    if (pg_bind("_fs_write", args, nargs, kwnames, names, 3, 3, 3, a) < 0)
        return NULL;
    owner o;
    const char *path, *data;
    Py_ssize_t len, dlen;
    PyObject *holder, *dholder;
    Py_buffer view;
    if (owner_arg(st, a[0], &o) < 0 || pg_text(a[1], &path, &len, &holder, "path") < 0)
        return NULL;
    if (content_arg(a[2], &data, &dlen, &dholder, &view) < 0) {
        Py_XDECREF(holder);
        return NULL;
    }
    pathgate_buf out = PATHGATE_BUF_INIT;
    pathgate_error err = PATHGATE_ERROR_INIT;
    int rc;
    Py_BEGIN_ALLOW_THREADS rc =
        pathgate_fs_write(&out, o.resolver, path, (size_t)len, data, (size_t)dlen, &o.opts, &err);
    Py_END_ALLOW_THREADS Py_XDECREF(holder);
    if (view.obj != NULL)
        PyBuffer_Release(&view);
    if (rc < 0)
        return fail(st, rc, &err);
    return pg_buf_to_native(&out);
}

static PyObject *fs_edit(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                         PyObject *kwnames) {
    pg_state *st = PyModule_GetState(module);
    static const char *const names[] = {NULL, "path", "old", "new", "replace_all"};
    PyObject *a[5];
    if (pg_bind("_fs_edit", args, nargs, kwnames, names, 5, 5, 4, a) < 0)
        return NULL;
    owner o;
    if (owner_arg(st, a[0], &o) < 0)
        return NULL;
    int all = 0;
    if (a[4] != NULL && (all = PyObject_IsTrue(a[4])) < 0)
        return NULL;
    const char *path, *old_s, *new_s;
    Py_ssize_t len, old_len, new_len;
    PyObject *h1 = NULL, *h2 = NULL, *h3 = NULL;
    if (pg_text(a[1], &path, &len, &h1, "path") < 0 ||
        pg_text(a[2], &old_s, &old_len, &h2, "old_string") < 0 ||
        pg_text(a[3], &new_s, &new_len, &h3, "new_string") < 0) {
        Py_XDECREF(h1);
        Py_XDECREF(h2);
        return NULL;
    }
    pathgate_buf out = PATHGATE_BUF_INIT;
    size_t n = 0;
    pathgate_error err = PATHGATE_ERROR_INIT;
    int rc;
    Py_BEGIN_ALLOW_THREADS rc =
        pathgate_fs_edit(&out, &n, o.resolver, path, (size_t)len, old_s, (size_t)old_len, new_s,
                         (size_t)new_len, all, &o.opts, &err);
    Py_END_ALLOW_THREADS Py_XDECREF(h1);
    Py_XDECREF(h2);
    Py_XDECREF(h3);
    if (rc < 0)
        return fail(st, rc, &err);
    PyObject *addr = pg_buf_to_native(&out);
    if (addr == NULL)
        return NULL;
    PyObject *count = PyLong_FromSize_t(n);
    if (count == NULL) {
        Py_DECREF(addr);
        return NULL;
    }
    PyObject *t = PyTuple_Pack(2, addr, count);
    Py_DECREF(addr);
    Py_DECREF(count);
    return t;
}

static PyObject *fs_delete(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                           PyObject *kwnames) {
    pg_state *st = PyModule_GetState(module);
    static const char *const names[] = {NULL, "path"};
    PyObject *a[2];
    if (pg_bind("_fs_delete", args, nargs, kwnames, names, 2, 2, 2, a) < 0)
        return NULL;
    owner o;
    const char *path;
    Py_ssize_t len;
    PyObject *holder;
    if (owner_arg(st, a[0], &o) < 0 || pg_text(a[1], &path, &len, &holder, "path") < 0)
        return NULL;
    pathgate_buf out = PATHGATE_BUF_INIT;
    pathgate_error err = PATHGATE_ERROR_INIT;
    int rc;
    Py_BEGIN_ALLOW_THREADS rc =
        pathgate_fs_delete(&out, o.resolver, path, (size_t)len, &o.opts, &err);
    Py_END_ALLOW_THREADS Py_XDECREF(holder);
    if (rc < 0)
        return fail(st, rc, &err);
    return pg_buf_to_native(&out);
}

/* ---------------------------------------------------------- grep, glob */

/* The arguments _fs_grep and _fs_grep_iter share, a[0..8]: owner,
 * pattern, path, glob, max_count, regex, ignore_case, threads,
 * max_file_size. The texts stay valid until grep_args_release. */
typedef struct grep_args {
    owner o;
    size_t max;
    const char *pat, *path, *glob;
    Py_ssize_t plen, len, glen;
    PyObject *h[3];
} grep_args;

static void grep_args_release(grep_args *g) {
    for (int i = 0; i < 3; i++)
        Py_CLEAR(g->h[i]);
}

static int grep_args_from(pg_state *st, PyObject *const *a, grep_args *g) {
    memset(g, 0, sizeof *g);
    if (owner_arg(st, a[0], &g->o) < 0 || scale_opts(&g->o, a[5], a[6], a[7], a[8]) < 0)
        return -1;
    g->max = PATHGATE_FS_NO_LIMIT;
    if (a[4] != NULL && a[4] != Py_None) {
        long long v = PyLong_AsLongLong(a[4]);
        if (v == -1 && PyErr_Occurred())
            return -1;
        if (v < 0) {
            PyErr_SetString(PyExc_ValueError, "max_count must be >= 0");
            return -1;
        }
        g->max = (size_t)v;
    }
    if (pg_text(a[1], &g->pat, &g->plen, &g->h[0], "pattern") < 0 ||
        opt_text(a[2], &g->path, &g->len, &g->h[1], "path") < 0 ||
        opt_text(a[3], &g->glob, &g->glen, &g->h[2], "glob") < 0) {
        grep_args_release(g);
        return -1;
    }
    return 0;
}

static PyObject *fs_grep(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                         PyObject *kwnames) {
    pg_state *st = PyModule_GetState(module);
    static const char *const names[] = {
        NULL,    "pattern",     "path",    "glob",          "max_count",
        "regex", "ignore_case", "threads", "max_file_size", "info"};
    PyObject *a[10];
    if (pg_bind("_fs_grep", args, nargs, kwnames, names, 10, 5, 2, a) < 0)
        return NULL;
    int want_info = 0;
    if (a[9] != NULL && (want_info = PyObject_IsTrue(a[9])) < 0)
        return NULL;
    grep_args g;
    if (grep_args_from(st, a, &g) < 0)
        return NULL;
    pathgate_fs_matches m = PATHGATE_FS_MATCHES_INIT;
    pathgate_error err = PATHGATE_ERROR_INIT;
    int rc;
    Py_BEGIN_ALLOW_THREADS rc =
        pathgate_fs_grep(&m, g.o.resolver, g.pat, (size_t)g.plen, g.path, (size_t)g.len, g.glob,
                         (size_t)g.glen, g.max, &g.o.opts, &err);
    Py_END_ALLOW_THREADS grep_args_release(&g);
    if (rc < 0)
        return fail(st, rc, &err);
    pg_conv cv;
    PyObject *list = pg_conv_init(&cv, PG_NAMES(grepmatch_names), 0) == 0
                         ? PyList_New((Py_ssize_t)m.count)
                         : NULL;
    for (size_t i = 0; list != NULL && i < m.count; i++) {
        PyObject *d = grepmatch_dict(&cv, &m.items[i]);
        if (d == NULL) {
            Py_CLEAR(list);
            break;
        }
        PyList_SetItem(list, (Py_ssize_t)i, d);
    }
    pg_conv_dispose(&cv);
    int truncated = m.truncated;
    PyObject *info = want_info ? walk_info(m.incomplete, m.unreadable_dirs, m.unreadable_files,
                                           m.skipped_names, m.skipped_large, m.files_scanned)
                               : NULL;
    pathgate_fs_matches_dispose(&m);
    if (list == NULL || (want_info && info == NULL)) {
        Py_XDECREF(list);
        Py_XDECREF(info);
        return NULL;
    }
    PyObject *t = want_info ? PyTuple_Pack(3, list, truncated ? Py_True : Py_False, info)
                            : PyTuple_Pack(2, list, truncated ? Py_True : Py_False);
    Py_DECREF(list);
    Py_XDECREF(info);
    return t;
}

static PyObject *fs_glob(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                         PyObject *kwnames) {
    pg_state *st = PyModule_GetState(module);
    static const char *const names[] = {NULL,      "pattern", "path",    "metadata",
                                        "threads", "info",    "basename"};
    PyObject *a[7];
    if (pg_bind("_fs_glob", args, nargs, kwnames, names, 7, 3, 2, a) < 0)
        return NULL;
    owner o;
    if (owner_arg(st, a[0], &o) < 0 || scale_opts(&o, NULL, NULL, a[4], NULL) < 0)
        return NULL;
    int want_info = 0;
    if (a[5] != NULL && (want_info = PyObject_IsTrue(a[5])) < 0)
        return NULL;
    if (flag_opt(&o, a[3], PATHGATE_FS_METADATA) < 0 ||
        flag_opt(&o, a[6], PATHGATE_FS_GLOB_BASENAME) < 0)
        return NULL;
    const char *pat, *path;
    Py_ssize_t plen, len;
    PyObject *h1 = NULL, *h2 = NULL;
    if (pg_text(a[1], &pat, &plen, &h1, "pattern") < 0 ||
        opt_text(a[2], &path, &len, &h2, "path") < 0) {
        Py_XDECREF(h1);
        return NULL;
    }
    pathgate_fs_list l = PATHGATE_FS_LIST_INIT;
    pathgate_error err = PATHGATE_ERROR_INIT;
    int rc;
    Py_BEGIN_ALLOW_THREADS rc =
        pathgate_fs_glob(&l, o.resolver, pat, (size_t)plen, path, (size_t)len, &o.opts, &err);
    Py_END_ALLOW_THREADS Py_XDECREF(h1);
    Py_XDECREF(h2);
    if (rc < 0)
        return fail(st, rc, &err);
    return with_info(&l, want_info, (size_t)-1);
}

/* ---------------------------------------------------- upload, download */

static PyObject *op_error(int code) {
    const char *e = pathgate_fs_operation_error(code);
    return e ? PyUnicode_FromString(e) : Py_NewRef(Py_None);
}

static PyObject *fs_upload(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                           PyObject *kwnames) {
    pg_state *st = PyModule_GetState(module);
    static const char *const names[] = {NULL, "files"};
    PyObject *a[2];
    if (pg_bind("_fs_upload", args, nargs, kwnames, names, 2, 2, 2, a) < 0)
        return NULL;
    owner o;
    if (owner_arg(st, a[0], &o) < 0)
        return NULL;
    /* a snapshot of the items: the list may change while the GIL is out */
    PyObject *seq = PySequence_Tuple(a[1]);
    if (seq == NULL)
        return NULL;
    Py_ssize_t n = PyTuple_Size(seq);
    pathgate_fs_item *items = PyMem_Calloc((size_t)(n ? n : 1), sizeof *items);
    Py_buffer *views = PyMem_Calloc((size_t)(n ? n : 1), sizeof *views);
    PyObject **holders = PyMem_Calloc((size_t)(n ? n : 1), sizeof *holders);
    PyObject **pairs = PyMem_Calloc((size_t)(n ? n : 1), sizeof *pairs);
    int *codes = PyMem_Calloc((size_t)(n ? n : 1), sizeof *codes);
    PyObject *result = NULL;
    Py_ssize_t ready = 0;
    if (!items || !views || !holders || !pairs || !codes) {
        PyErr_NoMemory();
        goto done;
    }
    for (; ready < n; ready++) {
        PyObject *pair = PySequence_Tuple(PyTuple_GetItem(seq, ready));
        if (pair == NULL)
            goto done;
        pairs[ready] = pair;
        if (PyTuple_Size(pair) != 2) {
            PyErr_SetString(PyExc_TypeError, "files must hold (path, bytes) pairs");
            goto done;
        }
        const char *p;
        Py_ssize_t plen;
        if (pg_text(PyTuple_GetItem(pair, 0), &p, &plen, &holders[ready], "path") < 0)
            goto done;
        PyObject *data = PyTuple_GetItem(pair, 1);
        if (!PyObject_CheckBuffer(data)) {
            PyErr_SetString(PyExc_TypeError, "file content must be bytes");
            goto done;
        }
        if (PyObject_GetBuffer(data, &views[ready], PyBUF_SIMPLE) < 0)
            goto done;
        items[ready].path = p;
        items[ready].path_len = (size_t)plen;
        items[ready].data = views[ready].buf;
        items[ready].size = (size_t)views[ready].len;
    }
    pathgate_error err = PATHGATE_ERROR_INIT;
    int rc;
    Py_BEGIN_ALLOW_THREADS rc =
        pathgate_fs_upload(codes, o.resolver, items, (size_t)n, &o.opts, &err);
    Py_END_ALLOW_THREADS if (rc < 0) {
        fail(st, rc, &err);
        goto done;
    }
    if ((result = PyList_New(n)) == NULL)
        goto done;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *e = op_error(codes[i]);
        if (e == NULL) {
            Py_CLEAR(result);
            goto done;
        }
        PyList_SetItem(result, i, e);
    }
done:
    for (Py_ssize_t i = 0; views && i < n; i++)
        if (views[i].obj != NULL)
            PyBuffer_Release(&views[i]);
    for (Py_ssize_t i = 0; holders && pairs && i < n; i++) {
        Py_XDECREF(holders[i]);
        Py_XDECREF(pairs[i]);
    }
    PyMem_Free(items);
    PyMem_Free(views);
    PyMem_Free(holders);
    PyMem_Free(pairs);
    PyMem_Free(codes);
    Py_DECREF(seq);
    return result;
}

static PyObject *fs_download(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                             PyObject *kwnames) {
    pg_state *st = PyModule_GetState(module);
    static const char *const names[] = {NULL, "paths", "max_file_size"};
    PyObject *a[3];
    if (pg_bind("_fs_download", args, nargs, kwnames, names, 3, 2, 2, a) < 0)
        return NULL;
    owner o;
    if (owner_arg(st, a[0], &o) < 0 || scale_opts(&o, NULL, NULL, NULL, a[2]) < 0)
        return NULL;
    PyObject *seq = PySequence_Tuple(a[1]);
    if (seq == NULL)
        return NULL;
    Py_ssize_t n = PyTuple_Size(seq);
    pathgate_fs_item *items = PyMem_Calloc((size_t)(n ? n : 1), sizeof *items);
    PyObject **holders = PyMem_Calloc((size_t)(n ? n : 1), sizeof *holders);
    PyObject *result = NULL;
    pathgate_fs_blobs b = PATHGATE_FS_BLOBS_INIT;
    if (!items || !holders) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        const char *p;
        Py_ssize_t plen;
        if (pg_text(PyTuple_GetItem(seq, i), &p, &plen, &holders[i], "path") < 0)
            goto done;
        items[i].path = p;
        items[i].path_len = (size_t)plen;
    }
    pathgate_error err = PATHGATE_ERROR_INIT;
    int rc;
    Py_BEGIN_ALLOW_THREADS rc =
        pathgate_fs_download(&b, o.resolver, items, (size_t)n, &o.opts, &err);
    Py_END_ALLOW_THREADS if (rc < 0) {
        fail(st, rc, &err);
        goto done;
    }
    if ((result = PyList_New(n)) == NULL)
        goto done;
    for (Py_ssize_t i = 0; i < n; i++) {
        const pathgate_fs_blob *x = &b.items[i];
        PyObject *data = x->code == 0
                             ? PyBytes_FromStringAndSize((const char *)x->data, (Py_ssize_t)x->size)
                             : Py_NewRef(Py_None);
        PyObject *e = op_error(x->code);
        PyObject *t = (data && e) ? PyTuple_Pack(2, data, e) : NULL;
        Py_XDECREF(data);
        Py_XDECREF(e);
        if (t == NULL) {
            Py_CLEAR(result);
            goto done;
        }
        PyList_SetItem(result, i, t);
    }
done:
    pathgate_fs_blobs_dispose(&b);
    for (Py_ssize_t i = 0; holders && i < n; i++)
        Py_XDECREF(holders[i]);
    PyMem_Free(items);
    PyMem_Free(holders);
    Py_DECREF(seq);
    return result;
}

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
        Py_BEGIN_ALLOW_THREADS pathgate_fs_iter_free(it);
        Py_END_ALLOW_THREADS
    }
}

static void iter_dealloc(PyObject *obj) {
    fs_iter_object *self = (fs_iter_object *)obj;
    PyTypeObject *tp = Py_TYPE(obj);
    iter_close_now(self);
    Py_CLEAR(self->owner);
    freefunc f = (freefunc)PyType_GetSlot(tp, Py_tp_free);
    f(obj);
    Py_DECREF(tp);
}

static PyObject *iter_next(PyObject *obj) {
    fs_iter_object *self = (fs_iter_object *)obj;
    if (self->it == NULL || self->done)
        return NULL;
    const pathgate_fs_match *m = NULL;
    const pathgate_fs_info *info = NULL;
    pathgate_error err = PATHGATE_ERROR_INIT;
    int rc;
    Py_BEGIN_ALLOW_THREADS rc = self->is_grep ? pathgate_fs_iter_next_match(&m, self->it, &err)
                                              : pathgate_fs_iter_next_info(&info, self->it, &err);
    Py_END_ALLOW_THREADS if (rc == 0) {
        self->done = 1;
        return NULL;
    }
    if (rc < 0) {
        self->done = 1;
        return fail(pg_state_of(obj), rc, &err);
    }
    pg_conv cv;
    PyObject *d = NULL;
    if (m != NULL) {
        if (pg_conv_init(&cv, PG_NAMES(grepmatch_names), 0) == 0)
            d = grepmatch_dict(&cv, m);
    } else if (pg_conv_init(&cv, PG_NAMES(fileinfo_names), 0) == 0) {
        d = fileinfo_dict(&cv, info);
    }
    pg_conv_dispose(&cv);
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
    PyObject *d;
    int truncated;
    if (self->is_grep) {
        const pathgate_fs_matches *m = pathgate_fs_iter_grep_summary(self->it);
        d = walk_info(m->incomplete, m->unreadable_dirs, m->unreadable_files, m->skipped_names,
                      m->skipped_large, m->files_scanned);
        truncated = m->truncated;
    } else {
        const pathgate_fs_list *l = pathgate_fs_iter_glob_summary(self->it);
        d = walk_info(l->incomplete, l->unreadable_dirs, 0, l->skipped_names, 0, 0);
        truncated = l->truncated;
    }
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

static PyObject *make_iter(PyObject *module, PyObject *owner_obj, pathgate_fs_iter *it,
                           int is_grep) {
    PyObject *type = PyObject_GetAttrString(module, "_FsIter");
    if (type == NULL) {
        pathgate_fs_iter_free(it);
        return NULL;
    }
    allocfunc alloc = (allocfunc)PyType_GetSlot((PyTypeObject *)type, Py_tp_alloc);
    fs_iter_object *self = (fs_iter_object *)alloc((PyTypeObject *)type, 0);
    Py_DECREF(type);
    if (self == NULL) {
        pathgate_fs_iter_free(it);
        return NULL;
    }
    self->it = it;
    self->owner = Py_NewRef(owner_obj);
    self->is_grep = is_grep;
    self->done = 0;
    return (PyObject *)self;
}

static PyObject *fs_grep_iter(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                              PyObject *kwnames) {
    pg_state *st = PyModule_GetState(module);
    static const char *const names[] = {NULL,          "pattern",   "path",
                                        "glob",        "max_count", "regex",
                                        "ignore_case", "threads",   "max_file_size"};
    PyObject *a[9];
    if (pg_bind("_fs_grep_iter", args, nargs, kwnames, names, 9, 5, 2, a) < 0)
        return NULL;
    grep_args g;
    if (grep_args_from(st, a, &g) < 0)
        return NULL;
    pathgate_fs_iter *it = NULL;
    pathgate_error err = PATHGATE_ERROR_INIT;
    int rc =
        pathgate_fs_grep_iter_new(&it, g.o.resolver, g.pat, (size_t)g.plen, g.path, (size_t)g.len,
                                  g.glob, (size_t)g.glen, g.max, &g.o.opts, &err);
    grep_args_release(&g);
    if (rc < 0)
        return fail(st, rc, &err);
    return make_iter(module, a[0], it, 1);
}

static PyObject *fs_glob_iter(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                              PyObject *kwnames) {
    pg_state *st = PyModule_GetState(module);
    static const char *const names[] = {NULL, "pattern", "path", "metadata", "threads"};
    PyObject *a[5];
    if (pg_bind("_fs_glob_iter", args, nargs, kwnames, names, 5, 3, 2, a) < 0)
        return NULL;
    owner o;
    if (owner_arg(st, a[0], &o) < 0 || scale_opts(&o, NULL, NULL, a[4], NULL) < 0)
        return NULL;
    if (flag_opt(&o, a[3], PATHGATE_FS_METADATA) < 0)
        return NULL;
    const char *pat, *path;
    Py_ssize_t plen, len;
    PyObject *h1 = NULL, *h2 = NULL;
    if (pg_text(a[1], &pat, &plen, &h1, "pattern") < 0 ||
        opt_text(a[2], &path, &len, &h2, "path") < 0) {
        Py_XDECREF(h1);
        return NULL;
    }
    pathgate_fs_iter *it = NULL;
    pathgate_error err = PATHGATE_ERROR_INIT;
    int rc = pathgate_fs_glob_iter_new(&it, o.resolver, pat, (size_t)plen, path, (size_t)len,
                                       &o.opts, &err);
    Py_XDECREF(h1);
    Py_XDECREF(h2);
    if (rc < 0)
        return fail(st, rc, &err);
    return make_iter(module, a[0], it, 0);
}

/* ---------------------------------------------------------------- init */

#define PG_FS_METH(name, doc)                                                                      \
    { "_fs_" #name, PG_METH(fs_##name), METH_FASTCALL | METH_KEYWORDS, PyDoc_STR(doc) }

static PyMethodDef fs_methods[] = {
    PG_FS_METH(ls, "_fs_ls(owner, path, *, info=False, metadata=True) -> list of FileInfo "
                   "dicts (metadata=False: path and is_dir only, no stat per entry)"),
    PG_FS_METH(read, "_fs_read(owner, path, offset=0, limit=2000) -> dict"),
    PG_FS_METH(write, "_fs_write(owner, path, content) -> address"),
    PG_FS_METH(edit, "_fs_edit(owner, path, old, new, replace_all=False) -> (address, count)"),
    PG_FS_METH(delete, "_fs_delete(owner, path) -> address"),
    PG_FS_METH(grep,
               "_fs_grep(owner, pattern, path=None, glob=None, max_count=None, *, regex=False, "
               "ignore_case=False, threads=None, max_file_size=None, info=False) -> "
               "(matches, truncated[, info])"),
    PG_FS_METH(glob, "_fs_glob(owner, pattern, path=None, *, metadata=False, threads=None, "
                     "info=False, basename=False) -> list of FileInfo dicts (or (list, info))"),
    PG_FS_METH(grep_iter, "_fs_grep_iter(owner, pattern, path=None, glob=None, max_count=None, *, "
                          "regex=False, ignore_case=False, threads=None, max_file_size=None) -> "
                          "iterator of GrepMatch dicts"),
    PG_FS_METH(glob_iter, "_fs_glob_iter(owner, pattern, path=None, *, metadata=False, "
                          "threads=None) -> iterator of FileInfo dicts"),
    PG_FS_METH(upload, "_fs_upload(owner, files) -> list of error codes or None"),
    PG_FS_METH(download, "_fs_download(owner, paths) -> list of (bytes or None, error or None)"),
    {NULL, NULL, 0, NULL},
};

static int pg_fs_mcp_init(PyObject *module);

int pg_fs_init(PyObject *module, pg_state *st) {
    (void)st;
    if (PyModule_AddFunctions(module, fs_methods) < 0 || pg_fs_mcp_init(module) < 0)
        return -1;
    PyObject *iter_type = pg_add_type(module, &iter_spec);
    if (iter_type == NULL)
        return -1;
    Py_DECREF(iter_type); /* the module keeps it as _FsIter */
    return PyModule_AddIntConstant(module, "_FS_READ_LIMIT_DEFAULT",
                                   PATHGATE_FS_READ_LIMIT_DEFAULT);
}

/* ------------------------------------------------------------------
 * The operations of the MCP server (docs/mcp.md):
 *
 *   _fs_mkdir(owner, path, parents=False)        -> str (address)
 *   _fs_move(owner, source, destination)         -> str (destination)
 *   _fs_stat(owner, path)                        -> dict
 *   _fs_edits(owner, path, edits, dry_run=False, max_file_size=None)
 *       -> (str, str diff); edits: sequence of (old, new) or (old, new, replace_all)
 *   _fs_head(owner, path, lines=None, max_file_size=None) -> bytes (None: all)
 *   _fs_tail(owner, path, lines, max_file_size=None)      -> bytes
 *   _fs_tree(owner, path, excludes=(), limit=None) -> (list[dict], bool)
 *       (limit: at most that many items are converted; None: all)
 */

static PyObject *addr_result(pg_state *st, int rc, pathgate_buf *out, const pathgate_error *err) {
    if (rc < 0) {
        pathgate_buf_dispose(out);
        return fail(st, rc, err);
    }
    return pg_buf_to_native(out);
}

static PyObject *fs_mkdir(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                          PyObject *kwnames) {
    pg_state *st = PyModule_GetState(module);
    static const char *const names[] = {NULL, "path", "parents"};
    PyObject *a[3];
    if (pg_bind("_fs_mkdir", args, nargs, kwnames, names, 3, 3, 2, a) < 0)
        return NULL;
    owner o;
    int parents = 0;
    if (owner_arg(st, a[0], &o) < 0 || (a[2] && (parents = PyObject_IsTrue(a[2])) < 0))
        return NULL;
    const char *path;
    Py_ssize_t len;
    PyObject *holder;
    if (pg_text(a[1], &path, &len, &holder, "path") < 0)
        return NULL;
    pathgate_buf out = PATHGATE_BUF_INIT;
    pathgate_error err = PATHGATE_ERROR_INIT;
    int rc;
    Py_BEGIN_ALLOW_THREADS rc =
        pathgate_fs_mkdir(&out, o.resolver, path, (size_t)len, parents, &o.opts, &err);
    Py_END_ALLOW_THREADS Py_XDECREF(holder);
    return addr_result(st, rc, &out, &err);
}

static PyObject *fs_move(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                         PyObject *kwnames) {
    pg_state *st = PyModule_GetState(module);
    static const char *const names[] = {NULL, "source", "destination"};
    PyObject *a[3];
    if (pg_bind("_fs_move", args, nargs, kwnames, names, 3, 3, 3, a) < 0)
        return NULL;
    owner o;
    if (owner_arg(st, a[0], &o) < 0)
        return NULL;
    const char *src, *dst;
    Py_ssize_t slen, dlen;
    PyObject *h1 = NULL, *h2 = NULL;
    if (pg_text(a[1], &src, &slen, &h1, "source") < 0)
        return NULL;
    if (pg_text(a[2], &dst, &dlen, &h2, "destination") < 0) {
        Py_XDECREF(h1);
        return NULL;
    }
    pathgate_buf out = PATHGATE_BUF_INIT;
    pathgate_error err = PATHGATE_ERROR_INIT;
    int rc;
    Py_BEGIN_ALLOW_THREADS rc =
        pathgate_fs_move(&out, o.resolver, src, (size_t)slen, dst, (size_t)dlen, &o.opts, &err);
    Py_END_ALLOW_THREADS Py_XDECREF(h1);
    Py_XDECREF(h2);
    return addr_result(st, rc, &out, &err);
}

static PyObject *fs_stat(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                         PyObject *kwnames) {
    pg_state *st = PyModule_GetState(module);
    static const char *const names[] = {NULL, "path"};
    PyObject *a[2];
    if (pg_bind("_fs_stat", args, nargs, kwnames, names, 2, 2, 2, a) < 0)
        return NULL;
    owner o;
    if (owner_arg(st, a[0], &o) < 0)
        return NULL;
    const char *path;
    Py_ssize_t len;
    PyObject *holder;
    if (pg_text(a[1], &path, &len, &holder, "path") < 0)
        return NULL;
    pathgate_fs_stat_result r = PATHGATE_FS_STAT_RESULT_INIT;
    pathgate_error err = PATHGATE_ERROR_INIT;
    int rc;
    Py_BEGIN_ALLOW_THREADS rc = pathgate_fs_stat(&r, o.resolver, path, (size_t)len, &o.opts, &err);
    Py_END_ALLOW_THREADS Py_XDECREF(holder);
    if (rc < 0)
        return fail(st, rc, &err);
    pg_conv cv;
    PyObject *d = pg_conv_init(&cv, PG_NAMES(stat_names), 1) == 0 ? stat_dict(&cv, &r) : NULL;
    pg_conv_dispose(&cv);
    pathgate_fs_stat_result_dispose(&r);
    return d;
}

static PyObject *fs_edits(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                          PyObject *kwnames) {
    pg_state *st = PyModule_GetState(module);
    static const char *const names[] = {NULL, "path", "edits", "dry_run", "max_file_size"};
    PyObject *a[5];
    if (pg_bind("_fs_edits", args, nargs, kwnames, names, 5, 4, 3, a) < 0)
        return NULL;
    owner o;
    int dry = 0;
    if (owner_arg(st, a[0], &o) < 0 || (a[3] && (dry = PyObject_IsTrue(a[3])) < 0) ||
        scale_opts(&o, NULL, NULL, NULL, a[4]) < 0)
        return NULL;
    const char *path;
    Py_ssize_t len;
    PyObject *holder;
    if (pg_text(a[1], &path, &len, &holder, "path") < 0)
        return NULL;
    PyObject *seq = PySequence_Tuple(a[2]);
    if (seq == NULL) {
        Py_XDECREF(holder);
        return NULL;
    }
    Py_ssize_t n = PyTuple_Size(seq);
    pathgate_fs_edit_op *ops = PyMem_Calloc((size_t)(n ? n : 1), sizeof *ops);
    PyObject **holders = PyMem_Calloc((size_t)(2 * n + 1), sizeof *holders);
    PyObject *result = NULL;
    if (!ops || !holders) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *e = PyTuple_GetItem(seq, i);
        if (!PyTuple_Check(e) || PyTuple_Size(e) < 2 || PyTuple_Size(e) > 3) {
            PyErr_SetString(PyExc_TypeError, "each edit must be (old, new[, replace_all])");
            goto done;
        }
        Py_ssize_t ol, nl;
        if (pg_text(PyTuple_GetItem(e, 0), &ops[i].old_text, &ol, &holders[2 * i], "old") < 0 ||
            pg_text(PyTuple_GetItem(e, 1), &ops[i].new_text, &nl, &holders[2 * i + 1], "new") < 0)
            goto done;
        ops[i].old_len = (size_t)ol;
        ops[i].new_len = (size_t)nl;
        if (PyTuple_Size(e) == 3 &&
            (ops[i].replace_all = PyObject_IsTrue(PyTuple_GetItem(e, 2))) < 0)
            goto done;
    }
    pathgate_buf out = PATHGATE_BUF_INIT, diff = PATHGATE_BUF_INIT;
    pathgate_error err = PATHGATE_ERROR_INIT;
    int rc;
    Py_BEGIN_ALLOW_THREADS rc = pathgate_fs_edits(&out, &diff, o.resolver, path, (size_t)len, ops,
                                                  (size_t)n, dry, &o.opts, &err);
    Py_END_ALLOW_THREADS if (rc < 0) {
        fail(st, rc, &err);
        goto done;
    }
    PyObject *addr = PyUnicode_DecodeUTF8(out.ptr, (Py_ssize_t)out.len, "replace");
    PyObject *d = PyUnicode_DecodeUTF8(diff.ptr ? diff.ptr : "", (Py_ssize_t)diff.len, "replace");
    pathgate_buf_dispose(&out);
    pathgate_buf_dispose(&diff);
    if (addr && d)
        result = PyTuple_Pack(2, addr, d);
    Py_XDECREF(addr);
    Py_XDECREF(d);
done:
    for (Py_ssize_t i = 0; holders && i < 2 * n; i++)
        Py_XDECREF(holders[i]);
    PyMem_Free(ops);
    PyMem_Free(holders);
    Py_DECREF(seq);
    Py_XDECREF(holder);
    return result;
}

/* The bytes of a core buffer, copied from its end a MiB at a time while the
 * buffer shrinks behind the copy, so that a long answer (up to the size
 * cap) is never held twice. Disposes of out. */
static PyObject *bytes_of_buf(pathgate_buf *out) {
    size_t n = out->len;
    PyObject *b = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)n);
    if (b == NULL) {
        pathgate_buf_dispose(out);
        return NULL;
    }
    char *dst = PyBytes_AsString(b);
    const size_t step = (size_t)1 << 20;
    while (n > step && out->alloc.realloc) {
        memcpy(dst + n - step, out->ptr + n - step, step);
        n -= step;
        char *p = out->alloc.realloc(out->ptr, n, out->alloc.ctx);
        if (p)
            out->ptr = p;
    }
    if (n)
        memcpy(dst, out->ptr, n);
    pathgate_buf_dispose(out);
    return b;
}

static PyObject *head_tail(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                           PyObject *kwnames, int tail) {
    pg_state *st = PyModule_GetState(module);
    static const char *const names[] = {NULL, "path", "lines", "max_file_size"};
    PyObject *a[4];
    if (pg_bind(tail ? "_fs_tail" : "_fs_head", args, nargs, kwnames, names, 4, 3, 2, a) < 0)
        return NULL;
    owner o;
    if (owner_arg(st, a[0], &o) < 0 || scale_opts(&o, NULL, NULL, NULL, a[3]) < 0)
        return NULL;
    size_t lines = PATHGATE_FS_NO_LIMIT;
    if (a[2] && a[2] != Py_None) {
        if (!PyLong_Check(a[2])) {
            PyErr_SetString(PyExc_TypeError, "lines must be an int or None");
            return NULL;
        }
        long long v = PyLong_AsLongLong(a[2]);
        if (v == -1 && PyErr_Occurred())
            return NULL;
        if (v < 0) {
            PyErr_SetString(PyExc_ValueError, "lines must not be negative");
            return NULL;
        }
        lines = (size_t)v;
    }
    const char *path;
    Py_ssize_t len;
    PyObject *holder;
    if (pg_text(a[1], &path, &len, &holder, "path") < 0)
        return NULL;
    pathgate_buf out = PATHGATE_BUF_INIT;
    pathgate_error err = PATHGATE_ERROR_INIT;
    int rc;
    Py_BEGIN_ALLOW_THREADS rc =
        tail ? pathgate_fs_tail(&out, o.resolver, path, (size_t)len, lines, &o.opts, &err)
             : pathgate_fs_head(&out, o.resolver, path, (size_t)len, lines, &o.opts, &err);
    Py_END_ALLOW_THREADS Py_XDECREF(holder);
    if (rc < 0)
        return fail(st, rc, &err);
    return bytes_of_buf(&out);
}

static PyObject *fs_head(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                         PyObject *kwnames) {
    return head_tail(module, args, nargs, kwnames, 0);
}

static PyObject *fs_tail(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                         PyObject *kwnames) {
    return head_tail(module, args, nargs, kwnames, 1);
}

static PyObject *fs_tree(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                         PyObject *kwnames) {
    pg_state *st = PyModule_GetState(module);
    static const char *const names[] = {NULL, "path", "excludes", "limit"};
    PyObject *a[4];
    if (pg_bind("_fs_tree", args, nargs, kwnames, names, 4, 3, 2, a) < 0)
        return NULL;
    owner o;
    size_t limit;
    if (owner_arg(st, a[0], &o) < 0 || limit_arg(a[3], &limit) < 0)
        return NULL;
    PyObject *seq = a[2] && a[2] != Py_None ? PySequence_Tuple(a[2]) : PyTuple_New(0);
    if (seq == NULL)
        return NULL;
    Py_ssize_t n = PyTuple_Size(seq);
    const char **ex = PyMem_Calloc((size_t)(n ? n : 1), sizeof *ex);
    size_t *exl = PyMem_Calloc((size_t)(n ? n : 1), sizeof *exl);
    PyObject **holders = PyMem_Calloc((size_t)(n + 1), sizeof *holders);
    PyObject *result = NULL, *ph = NULL;
    if (!ex || !exl || !holders) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_ssize_t l;
        if (pg_text(PyTuple_GetItem(seq, i), &ex[i], &l, &holders[i], "exclude pattern") < 0)
            goto done;
        exl[i] = (size_t)l;
    }
    const char *path;
    Py_ssize_t len;
    if (pg_text(a[1], &path, &len, &ph, "path") < 0)
        goto done;
    pathgate_fs_list l = PATHGATE_FS_LIST_INIT;
    pathgate_error err = PATHGATE_ERROR_INIT;
    int rc;
    Py_BEGIN_ALLOW_THREADS rc =
        pathgate_fs_tree(&l, o.resolver, path, (size_t)len, ex, exl, (size_t)n, &o.opts, &err);
    Py_END_ALLOW_THREADS if (rc < 0) {
        fail(st, rc, &err);
        goto done;
    }
    int truncated = l.truncated;
    PyObject *items = list_to_py(&l, limit);
    if (items) {
        result = Py_BuildValue("(OO)", items, truncated ? Py_True : Py_False);
        Py_DECREF(items);
    }
done:
    for (Py_ssize_t i = 0; holders && i < n; i++)
        Py_XDECREF(holders[i]);
    Py_XDECREF(ph);
    PyMem_Free(ex);
    PyMem_Free(exl);
    PyMem_Free(holders);
    Py_DECREF(seq);
    return result;
}

static PyMethodDef fs_mcp_methods[] = {
    PG_FS_METH(mkdir, "_fs_mkdir(owner, path, parents=False) -> address"),
    PG_FS_METH(move, "_fs_move(owner, source, destination) -> destination address"),
    PG_FS_METH(stat, "_fs_stat(owner, path) -> dict"),
    PG_FS_METH(edits, "_fs_edits(owner, path, edits, dry_run=False, max_file_size=None) -> "
                      "(address, diff)"),
    PG_FS_METH(head, "_fs_head(owner, path, lines=None, max_file_size=None) -> bytes"),
    PG_FS_METH(tail, "_fs_tail(owner, path, lines=None, max_file_size=None) -> bytes"),
    PG_FS_METH(tree, "_fs_tree(owner, path, excludes=(), limit=None) -> (list of FileInfo dicts, "
                     "truncated)"),
    {NULL, NULL, 0, NULL},
};

static int pg_fs_mcp_init(PyObject *module) {
    return PyModule_AddFunctions(module, fs_mcp_methods);
}
