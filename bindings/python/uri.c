/*
 * uri.c - pathgate.PathUri over pathgate_uri (docs/uri.md).
 *
 * Immutable: created only by parse / from_native and by the methods that
 * derive a new URI; no attribute can be set. str() is the URI string,
 * == and hash() follow the core (Windows: decoded ASCII case-insensitive).
 */
#include "module.h"

#define PG_URI(o) (((pg_uri_object *)(o))->uri)

PyObject *pg_uri_wrap(pg_state *st, pathgate_uri *uri) {
    pg_uri_object *self = (pg_uri_object *)PyType_GenericAlloc((PyTypeObject *)st->PathUriType, 0);
    if (self == NULL) {
        pathgate_uri_free(uri);
        return NULL;
    }
    self->uri = uri;
    self->str = NULL;
    return (PyObject *)self;
}

static void uri_dealloc(PyObject *self) {
    pathgate_uri_free(PG_URI(self));
    Py_CLEAR(((pg_uri_object *)self)->str);
    pg_free_instance(self);
}

/* A PathUri argument, or TypeError. */
static int uri_arg(pg_state *st, PyObject *obj, const char *what) {
    if (pg_is_uri(st, obj))
        return 0;
    PyObject *name = PyType_GetName(Py_TYPE(obj));
    if (name != NULL) {
        PyErr_Format(PyExc_TypeError, "%s must be PathUri, not %U", what, name);
        Py_DECREF(name);
    }
    return -1;
}

/* ------------------------------------------------------------ creators */

static PyObject *uri_parse(PyObject *cls, PyObject *const *args, Py_ssize_t nargs) {
    pg_state *st = pg_state_of_type((PyTypeObject *)cls);
    if (nargs != 1) {
        PyErr_Format(PyExc_TypeError, "parse() takes exactly one argument (%zd given)", nargs);
        return NULL;
    }
    const char *text;
    Py_ssize_t len;
    PyObject *holder;
    if (pg_text(args[0], &text, &len, &holder, "text") < 0)
        return NULL;
    pathgate_uri *uri = NULL;
    pathgate_error err = PATHGATE_ERROR_INIT;
    int rc = pathgate_uri_parse(&uri, text, (size_t)len, NULL, &err);
    Py_XDECREF(holder);
    if (rc < 0)
        return pg_raise(st, st->PathError, rc, &err);
    return pg_uri_wrap(st, uri);
}

static PyObject *uri_from_native(PyObject *cls, PyObject *const *args, Py_ssize_t nargs,
                                 PyObject *kwnames) {
    static const char *const names[] = {NULL, "convention"};
    pg_state *st = pg_state_of_type((PyTypeObject *)cls);
    PyObject *a[2];
    if (pg_bind("from_native", args, nargs, kwnames, names, 2, 2, 1, a) < 0)
        return NULL;
    pathgate_convention conv;
    if (pg_convention_arg(st, a[1], &conv) < 0)
        return NULL;
    const char *text;
    Py_ssize_t len;
    PyObject *holder;
    if (pg_text(a[0], &text, &len, &holder, "text") < 0)
        return NULL;
    pathgate_uri *uri = NULL;
    pathgate_error err = PATHGATE_ERROR_INIT;
    int rc = pathgate_uri_from_native(&uri, text, (size_t)len, conv, NULL, &err);
    Py_XDECREF(holder);
    if (rc < 0)
        return pg_raise(st, st->PathError, rc, &err);
    return pg_uri_wrap(st, uri);
}

/* ---------------------------------------------------------- properties */

static PyObject *uri_get_convention(PyObject *self, void *closure) {
    (void)closure;
    return pg_convention_obj(pg_state_of(self), pathgate_uri_convention(PG_URI(self)));
}

static PyObject *uri_get_is_opaque(PyObject *self, void *closure) {
    (void)closure;
    return PyBool_FromLong(pathgate_uri_is_opaque(PG_URI(self)));
}

static PyObject *uri_get_parent(PyObject *self, void *closure) {
    (void)closure;
    pg_state *st = pg_state_of(self);
    pathgate_uri *parent = NULL;
    pathgate_error err = PATHGATE_ERROR_INIT;
    int rc = pathgate_uri_parent(&parent, PG_URI(self), &err);
    if (rc < 0)
        return pg_raise(st, st->PathError, rc, &err);
    if (parent == NULL)
        Py_RETURN_NONE;
    return pg_uri_wrap(st, parent);
}

static PyObject *uri_get_basename(PyObject *self, void *closure) {
    (void)closure;
    pg_state *st = pg_state_of(self);
    pathgate_buf buf = PATHGATE_BUF_INIT;
    pathgate_error err = PATHGATE_ERROR_INIT;
    int rc = pathgate_uri_basename(&buf, PG_URI(self), &err);
    if (rc < 0)
        return pg_raise(st, st->PathError, rc, &err);
    return pg_buf_to_native(&buf);
}

/* ------------------------------------------------------------- methods */

static PyObject *uri_starts_with(PyObject *self, PyObject *base) {
    if (uri_arg(pg_state_of(self), base, "base") < 0)
        return NULL;
    return PyBool_FromLong(pathgate_uri_starts_with(PG_URI(self), PG_URI(base)));
}

static PyObject *uri_relative_to(PyObject *self, PyObject *base) {
    pg_state *st = pg_state_of(self);
    if (uri_arg(st, base, "base") < 0)
        return NULL;
    pathgate_buf buf = PATHGATE_BUF_INIT;
    pathgate_error err = PATHGATE_ERROR_INIT;
    int rc = pathgate_uri_relative_to(&buf, PG_URI(self), PG_URI(base), &err);
    if (rc < 0)
        return pg_raise(st, st->PathError, rc, &err);
    return pg_buf_to_native(&buf);
}

typedef int (*uri_join_fn)(pathgate_uri **, const pathgate_uri *, const char *, size_t,
                           pathgate_error *);

static PyObject *uri_join_with(PyObject *self, PyObject *arg, uri_join_fn fn) {
    pg_state *st = pg_state_of(self);
    const char *text;
    Py_ssize_t len;
    PyObject *holder;
    if (pg_text(arg, &text, &len, &holder, "text") < 0)
        return NULL;
    pathgate_uri *uri = NULL;
    pathgate_error err = PATHGATE_ERROR_INIT;
    int rc = fn(&uri, PG_URI(self), text, (size_t)len, &err);
    Py_XDECREF(holder);
    if (rc < 0)
        return pg_raise(st, st->PathError, rc, &err);
    return pg_uri_wrap(st, uri);
}

static PyObject *uri_join(PyObject *self, PyObject *arg) {
    if (PyBytes_Check(arg)) { /* raw native bytes (POSIX file names) */
        pg_state *st = pg_state_of(self);
        char *bytes;
        Py_ssize_t n;
        if (PyBytes_AsStringAndSize(arg, &bytes, &n) < 0)
            return NULL;
        pathgate_uri *uri = NULL;
        pathgate_error err;
        int rc = pathgate_uri_join_bytes(&uri, PG_URI(self), bytes, (size_t)n, &err);
        if (rc < 0)
            return pg_raise(st, st->PathError, rc, &err);
        return pg_uri_wrap(st, uri);
    }
    return uri_join_with(self, arg, pathgate_uri_join);
}

static PyObject *uri_join_descendant(PyObject *self, PyObject *arg) {
    return uri_join_with(self, arg, pathgate_uri_join_descendant);
}

typedef int (*uri_render_fn)(pathgate_buf *, const pathgate_uri *, pathgate_convention,
                             pathgate_error *);

/* A method taking one `convention` argument and answering text rendered by
 * fn: to_native, to_config_path. */
static PyObject *uri_render_with(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                 PyObject *kwnames, const char *method, uri_render_fn fn) {
    static const char *const names[] = {"convention"};
    pg_state *st = pg_state_of(self);
    PyObject *a[1];
    if (pg_bind(method, args, nargs, kwnames, names, 1, 1, 0, a) < 0)
        return NULL;
    pathgate_convention conv;
    if (pg_convention_arg(st, a[0], &conv) < 0)
        return NULL;
    pathgate_buf buf = PATHGATE_BUF_INIT;
    pathgate_error err = PATHGATE_ERROR_INIT;
    int rc = fn(&buf, PG_URI(self), conv, &err);
    if (rc < 0)
        return pg_raise(st, st->PathError, rc, &err);
    return pg_buf_to_native(&buf);
}

static PyObject *uri_to_native(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                               PyObject *kwnames) {
    return uri_render_with(self, args, nargs, kwnames, "to_native", pathgate_uri_to_native);
}

static PyObject *uri_to_host_path(PyObject *self, PyObject *unused) {
    (void)unused;
    pg_state *st = pg_state_of(self);
    pathgate_buf buf = PATHGATE_BUF_INIT;
    pathgate_error err = PATHGATE_ERROR_INIT;
    int rc = pathgate_uri_to_host_path(&buf, PG_URI(self), &err);
    if (rc < 0)
        return pg_raise(st, st->PathError, rc, &err);
    return pg_buf_to_path(st, &buf);
}

static PyObject *uri_display(PyObject *self, PyObject *unused) {
    (void)unused;
    pg_state *st = pg_state_of(self);
    pathgate_buf buf = PATHGATE_BUF_INIT;
    int rc = pathgate_uri_display(&buf, PG_URI(self));
    if (rc < 0)
        return pg_raise(st, st->PathError, rc, NULL);
    return pg_buf_to_native(&buf);
}

/* ------------------------------------------- Codex's further operations */

static PyObject *uri_get_lexical_depth(PyObject *self, void *closure) {
    (void)closure;
    size_t depth;
    if (!pathgate_uri_lexical_depth(&depth, PG_URI(self)))
        Py_RETURN_NONE;
    return PyLong_FromSize_t(depth);
}

static PyObject *uri_get_encoded_path(PyObject *self, void *closure) {
    (void)closure;
    size_t len;
    const char *p = pathgate_uri_encoded_path(PG_URI(self), &len);
    return PyUnicode_DecodeUTF8(p, (Py_ssize_t)len, "strict");
}

static PyObject *uri_get_decoded_path_bytes(PyObject *self, void *closure) {
    (void)closure;
    pg_state *st = pg_state_of(self);
    pathgate_buf buf = PATHGATE_BUF_INIT;
    pathgate_error err;
    int rc = pathgate_uri_decoded_path(&buf, PG_URI(self), &err);
    if (rc < 0)
        return pg_raise(st, st->PathError, rc, &err);
    PyObject *b = PyBytes_FromStringAndSize(buf.ptr, (Py_ssize_t)buf.len);
    pathgate_buf_dispose(&buf);
    return b;
}

static PyObject *uri_ancestors(PyObject *self, PyObject *unused) {
    (void)unused;
    pg_state *st = pg_state_of(self);
    PyObject *list = PyList_New(0);
    if (list == NULL)
        return NULL;
    pathgate_uri *cur = NULL;
    pathgate_error err;
    int rc = pathgate_uri_dup(&cur, PG_URI(self), &err);
    while (rc == 0 && cur != NULL) {
        pathgate_uri *up = NULL;
        rc = pathgate_uri_parent(&up, cur, &err);
        PyObject *item = pg_uri_wrap(st, cur); /* takes cur */
        if (item == NULL || PyList_Append(list, item) < 0) {
            Py_XDECREF(item);
            pathgate_uri_free(up);
            Py_DECREF(list);
            return NULL;
        }
        Py_DECREF(item);
        cur = up;
    }
    if (rc < 0) {
        Py_DECREF(list);
        return pg_raise(st, st->PathError, rc, &err);
    }
    PyObject *it = PyObject_GetIter(list);
    Py_DECREF(list);
    return it;
}

static PyObject *uri_overlaps(PyObject *self, PyObject *other) {
    if (uri_arg(pg_state_of(self), other, "other") < 0)
        return NULL;
    int ov = pathgate_uri_overlaps(PG_URI(self), PG_URI(other));
    if (ov < 0)
        Py_RETURN_NONE;
    return PyBool_FromLong(ov);
}

typedef int (*uri_check_fn)(const pathgate_uri *, pathgate_convention, pathgate_error *);

static PyObject *uri_check_with(PyObject *self, PyObject *arg, uri_check_fn fn) {
    pg_state *st = pg_state_of(self);
    pathgate_convention conv;
    if (pg_convention_arg(st, arg, &conv) < 0)
        return NULL;
    if (conv == PATHGATE_CONVENTION_NONE)
        conv = pathgate_uri_convention(PG_URI(self));
    pathgate_error err;
    int rc = fn(PG_URI(self), conv, &err);
    if (rc < 0)
        return pg_raise(st, st->PathError, rc, &err);
    Py_RETURN_NONE;
}

static PyObject *uri_validate_config(PyObject *self, PyObject *arg) {
    return uri_check_with(self, arg, pathgate_uri_validate_config);
}

static PyObject *uri_validate_glob_directory(PyObject *self, PyObject *arg) {
    return uri_check_with(self, arg, pathgate_uri_validate_glob_directory);
}

static PyObject *uri_to_config_path(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                    PyObject *kwnames) {
    return uri_render_with(self, args, nargs, kwnames, "to_config_path",
                           pathgate_uri_to_config_path);
}

/* ------------------------------------------------- module functions */

static PyObject *mod_path_segments(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                                   PyObject *kwnames) {
    static const char *const names[] = {NULL, "convention"};
    pg_state *st = PyModule_GetState(module);
    PyObject *a[2];
    if (pg_bind("path_segments", args, nargs, kwnames, names, 2, 2, 2, a) < 0)
        return NULL;
    pathgate_convention conv;
    if (pg_convention_arg(st, a[1], &conv) < 0)
        return NULL;
    if (conv == PATHGATE_CONVENTION_NONE)
        return pg_raise(st, st->Error, PATHGATE_EINVAL, NULL);
    const char *text;
    Py_ssize_t len;
    PyObject *holder;
    if (pg_text(a[0], &text, &len, &holder, "text") < 0)
        return NULL;
    PyObject *list = PyList_New(0);
    size_t pos = 0, n;
    const char *seg;
    while (list != NULL && pathgate_path_segment_next(&seg, &n, text, (size_t)len, conv, &pos)) {
        PyObject *item = pg_native_str(seg, n);
        if (item == NULL || PyList_Append(list, item) < 0)
            Py_CLEAR(list);
        Py_XDECREF(item);
    }
    Py_XDECREF(holder);
    return list;
}

static PyObject *mod_home_relative_suffix(PyObject *module, PyObject *const *args, Py_ssize_t nargs,
                                          PyObject *kwnames) {
    static const char *const names[] = {NULL, "convention"};
    pg_state *st = PyModule_GetState(module);
    PyObject *a[2];
    if (pg_bind("home_relative_suffix", args, nargs, kwnames, names, 2, 2, 2, a) < 0)
        return NULL;
    pathgate_convention conv;
    if (pg_convention_arg(st, a[1], &conv) < 0)
        return NULL;
    if (conv == PATHGATE_CONVENTION_NONE)
        return pg_raise(st, st->Error, PATHGATE_EINVAL, NULL);
    const char *text, *suf;
    Py_ssize_t len;
    size_t n;
    PyObject *holder, *res;
    if (pg_text(a[0], &text, &len, &holder, "text") < 0)
        return NULL;
    if (pathgate_home_relative_suffix(&suf, &n, text, (size_t)len, conv))
        res = pg_native_str(suf, n);
    else
        res = Py_NewRef(Py_None);
    Py_XDECREF(holder);
    return res;
}

static PyObject *mod_normalize_windows_device_path(PyObject *module, PyObject *arg) {
    pg_state *st = PyModule_GetState(module);
    const char *text;
    Py_ssize_t len;
    PyObject *holder;
    if (pg_text(arg, &text, &len, &holder, "text") < 0)
        return NULL;
    pathgate_buf buf = PATHGATE_BUF_INIT;
    pathgate_error err;
    int rc = pathgate_normalize_windows_device_path(&buf, text, (size_t)len, &err);
    Py_XDECREF(holder);
    if (rc < 0)
        return pg_raise(st, st->PathError, rc, &err);
    return pg_buf_to_native(&buf);
}

static PyObject *mod_platform_convention(PyObject *module, PyObject *arg) {
    pg_state *st = PyModule_GetState(module);
    if (arg == Py_None)
        Py_RETURN_NONE;
    const char *text;
    Py_ssize_t len;
    PyObject *holder;
    if (pg_text(arg, &text, &len, &holder, "os_name") < 0)
        return NULL;
    pathgate_convention c = pathgate_platform_convention(text, (size_t)len);
    Py_XDECREF(holder);
    return pg_convention_obj(st, c);
}

static PyMethodDef uri_module_functions[] = {
    {"path_segments", PG_METH(mod_path_segments), METH_FASTCALL | METH_KEYWORDS,
     "path_segments(text, /, convention)\n--\n\n"
     "Native path text split the way the convention does, empty segments\n"
     "kept: 'posix' on '/' only ('/a' gives ['', 'a']), 'windows' on '/'\n"
     "and '\\' (the drive a segment of its own)."},
    {"home_relative_suffix", PG_METH(mod_home_relative_suffix), METH_FASTCALL | METH_KEYWORDS,
     "home_relative_suffix(text, /, convention)\n--\n\n"
     "What follows '~' in '~', '~/x' (and '~\\x' under 'windows'): '' or\n"
     "'/x'; None for any other text ('~user/x')."},
    {"normalize_windows_device_path", PG_METH(mod_normalize_windows_device_path), METH_O,
     "normalize_windows_device_path(text, /)\n--\n\n"
     "The plain form of a Windows device alias: '\\\\?\\D:\\x' -> 'D:\\x',\n"
     "'\\\\?\\UNC\\s\\sh\\x' -> '\\\\s\\sh\\x' (also '\\\\.\\'); None for other text."},
    {"platform_convention", PG_METH(mod_platform_convention), METH_O,
     "platform_convention(os_name, /)\n--\n\n"
     "'posix' for 'linux' and 'macos', 'windows' for 'windows', None for\n"
     "anything else."},
    {NULL, NULL, 0, NULL},
};

static PyObject *uri_str(PyObject *self) {
    pg_uri_object *u = (pg_uri_object *)self;
    if (u->str == NULL) {
        size_t len;
        const char *s = pathgate_uri_string(u->uri, &len);
        u->str = pg_native_str(s, len);
        if (u->str == NULL)
            return NULL;
    }
    return Py_NewRef(u->str);
}

static PyObject *uri_reduce(PyObject *self, PyObject *unused) {
    (void)unused;
    PyObject *parse = PyObject_GetAttrString((PyObject *)Py_TYPE(self), "parse");
    PyObject *s = parse == NULL ? NULL : uri_str(self);
    PyObject *res = s == NULL ? NULL : Py_BuildValue("(O(O))", parse, s);
    Py_XDECREF(parse);
    Py_XDECREF(s);
    return res;
}

/* ------------------------------------------------------------- protocol */

static PyObject *uri_repr(PyObject *self) {
    PyObject *s = uri_str(self);
    if (s == NULL)
        return NULL;
    PyObject *r = PyUnicode_FromFormat("PathUri(%R)", s);
    Py_DECREF(s);
    return r;
}

static Py_hash_t uri_hash(PyObject *self) {
    Py_hash_t h = (Py_hash_t)pathgate_uri_hash(PG_URI(self));
    return h == -1 ? -2 : h;
}

static PyObject *uri_richcompare(PyObject *self, PyObject *other, int op) {
    if ((op != Py_EQ && op != Py_NE) || !pg_is_uri(pg_state_of(self), other))
        Py_RETURN_NOTIMPLEMENTED;
    int eq = pathgate_uri_equal(PG_URI(self), PG_URI(other));
    return PyBool_FromLong(op == Py_EQ ? eq : !eq);
}

static PyGetSetDef uri_getset[] = {
    {"convention", uri_get_convention, NULL,
     "'posix' or 'windows', inferred from the spelling; None only for an\n"
     "opaque URI whose payload names neither.",
     NULL},
    {"is_opaque", uri_get_is_opaque, NULL,
     "True for the file:///%00/bad/path/<base64url> fallback form.", NULL},
    {"parent", uri_get_parent, NULL,
     "The parent PathUri (no trailing '/'); None at a root (/, a drive, a\n"
     "UNC share) and for an opaque URI.",
     NULL},
    {"basename", uri_get_basename, NULL,
     "The decoded last segment, a drive or share included ('C:' for\n"
     "file:///C:/); None for file:///, file://server/ and an opaque URI.",
     NULL},
    {"lexical_depth", uri_get_lexical_depth, NULL,
     "The number of segments below the root (the drive or share counts);\n"
     "None for an opaque URI or when a segment holds an encoded separator.",
     NULL},
    {"encoded_path", uri_get_encoded_path, NULL,
     "The percent-encoded path without the authority ('/share/x' for\n"
     "file://server/share/x).",
     NULL},
    {"decoded_path_bytes", uri_get_decoded_path_bytes, NULL,
     "The path decoded once, as bytes (no UTF-8 check).", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMethodDef uri_methods[] = {
    {"parse", PG_METH(uri_parse), METH_FASTCALL | METH_CLASS,
     "parse($type, text, /)\n--\n\n"
     "Parse a file: URI (scheme file only; no credentials, port, query or\n"
     "fragment). Raises PathError."},
    {"from_native", PG_METH(uri_from_native), METH_FASTCALL | METH_KEYWORDS | METH_CLASS,
     "from_native($type, text, /, convention=None)\n--\n\n"
     "Convert an absolute native path ('posix', 'windows', or None to infer\n"
     "it from the text) to a PathUri. Paths with no honest URI form become\n"
     "the opaque form. Raises PathError."},
    {"starts_with", PG_METH(uri_starts_with), METH_O,
     "starts_with($self, base, /)\n--\n\n"
     "True when this URI lies at or under base (segment-wise)."},
    {"relative_to", PG_METH(uri_relative_to), METH_O,
     "relative_to($self, base, /)\n--\n\n"
     "The decoded path below base joined with the native separator ('' when\n"
     "equal), or None when not contained."},
    {"join", PG_METH(uri_join), METH_O,
     "join($self, text, /)\n--\n\n"
     "Join model-supplied text (relative or absolute, any OS) using this\n"
     "URI's convention; bytes are raw native bytes (a POSIX base only when\n"
     "they are not UTF-8). Raises PathError."},
    {"ancestors", PG_METH(uri_ancestors), METH_NOARGS,
     "ancestors($self, /)\n--\n\n"
     "An iterator over this URI and each parent up to the root."},
    {"overlaps", PG_METH(uri_overlaps), METH_O,
     "overlaps($self, other, /)\n--\n\n"
     "True when either URI starts with the other, False when neither does,\n"
     "None when unknown (either has no lexical_depth). Symmetric."},
    {"validate_config", PG_METH(uri_validate_config), METH_O,
     "validate_config($self, convention, /)\n--\n\n"
     "None when this URI has a lossless native spelling usable in a\n"
     "configuration of the convention (None = its own); PathError otherwise."},
    {"validate_glob_directory", PG_METH(uri_validate_glob_directory), METH_O,
     "validate_glob_directory($self, convention, /)\n--\n\n"
     "validate_config, and no glob character (nor '\\' under POSIX) in its\n"
     "native text; PathError otherwise."},
    {"to_config_path", PG_METH(uri_to_config_path), METH_FASTCALL | METH_KEYWORDS,
     "to_config_path($self, /, convention=None)\n--\n\n"
     "Native text of a resolved configuration path (a UNC share root keeps\n"
     "its trailing '\\'). Raises PathError."},
    {"join_descendant", PG_METH(uri_join_descendant), METH_O,
     "join_descendant($self, text, /)\n--\n\n"
     "Join, then require the result to stay under this URI (PathError\n"
     "kind 'not_descendant' otherwise)."},
    {"to_native", PG_METH(uri_to_native), METH_FASTCALL | METH_KEYWORDS,
     "to_native($self, /, convention=None)\n--\n\n"
     "Native text for a convention (None = the inferred one). Raises\n"
     "PathError ('incompatible_convention', 'opaque')."},
    {"to_host_path", PG_METH(uri_to_host_path), METH_NOARGS,
     "to_host_path($self, /)\n--\n\n"
     "A pathlib.Path usable on this machine; PathError unless the URI's\n"
     "convention is the host's (fail-closed)."},
    {"display", PG_METH(uri_display), METH_NOARGS,
     "display($self, /)\n--\n\n"
     "Text for a UI (never fails): the native rendering, lossy (%2F decodes,\n"
     "bad UTF-8 is U+FFFD, an opaque payload is decoded), control characters\n"
     "escaped; the URI when there is none."},
    {"__reduce__", PG_METH(uri_reduce), METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot uri_slots[] = {
    {Py_tp_doc, "An immutable absolute location as a file: URI.\n\n"
                "Create one with PathUri.parse(text) or PathUri.from_native(text)."},
    {Py_tp_dealloc, uri_dealloc},
    {Py_tp_repr, uri_repr},
    {Py_tp_str, uri_str},
    {Py_tp_hash, uri_hash},
    {Py_tp_richcompare, uri_richcompare},
    {Py_tp_getset, uri_getset},
    {Py_tp_methods, uri_methods},
    {0, NULL},
};

static PyType_Spec uri_spec = {
    .name = "pathgate.PathUri",
    .basicsize = sizeof(pg_uri_object),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_IMMUTABLETYPE | Py_TPFLAGS_DISALLOW_INSTANTIATION,
    .slots = uri_slots,
};

int pg_uri_init(PyObject *module, pg_state *st) {
    st->PathUriType = pg_add_type(module, &uri_spec);
    if (st->PathUriType == NULL)
        return -1;
    return PyModule_AddFunctions(module, uri_module_functions);
}
