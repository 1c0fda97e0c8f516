/*
 * resolver.c - pathgate.Resolver and pathgate.VisibilityResolution
 * (docs/spec.md sections 4-5).
 *
 * A Resolver owns a pathgate_resolver: its roots and mods are opened once
 * at construction and every decision is the core's. The GIL is released
 * around construction and resolve (they touch the filesystem); the core
 * resolver is internally locked, so one Resolver may be shared by any
 * number of threads. Resolution failures are results, never exceptions.
 */
#include "module.h"
#include "policy.h"

#define PG_RESOLVER(o) (((pg_resolver_object *)(o))->resolver)

/* --------------------------------------------------- VisibilityResolution */

PyObject *pg_resolution_wrap_owned(pg_state *st, pathgate_resolution *res, PyObject *owner) {
    PyObject *self = pg_resolution_wrap(st, res);
    if (self != NULL && owner != NULL && ((pg_resolution_object *)self)->ok)
        ((pg_ref_object *)((pg_resolution_object *)self)->ref)->owner = Py_NewRef(owner);
    return self;
}

PyObject *pg_resolution_wrap(pg_state *st, pathgate_resolution *res) {
    pg_resolution_object *self =
        (pg_resolution_object *)PyType_GenericAlloc((PyTypeObject *)st->ResolutionType, 0);
    if (self == NULL)
        goto fail;
    self->ok = res->ok;
    if (res->ok) {
        pathgate_ref *ref = res->ref;
        res->ref = NULL; /* taken */
        if ((self->ref = pg_ref_wrap(st, ref)) == NULL)
            goto fail;
        self->root_category = res->root_category == NULL ? Py_NewRef(Py_None)
                                                         : PyUnicode_FromString(res->root_category);
        self->mod_name =
            res->mod_name == NULL ? Py_NewRef(Py_None) : PyUnicode_FromString(res->mod_name);
        if (self->root_category == NULL || self->mod_name == NULL)
            goto fail;
        self->relative_path = pg_native_str(res->relative_path, strlen(res->relative_path));
        if (self->relative_path == NULL)
            goto fail;
        self->exists = PyBool_FromLong(res->exists);
        self->error_message = Py_NewRef(Py_None);
    } else {
        self->ref = Py_NewRef(Py_None);
        self->root_category = Py_NewRef(Py_None);
        self->mod_name = Py_NewRef(Py_None);
        self->relative_path = Py_NewRef(Py_None);
        self->exists = Py_NewRef(Py_None);
        self->error_message = PyUnicode_FromString(res->error_message);
        if (self->error_message == NULL)
            goto fail;
    }
    if ((size_t)res->reason < (size_t)PATHGATE__REASON_LAST)
        self->reason = Py_NewRef(PyTuple_GetItem(st->reasons, (Py_ssize_t)res->reason));
    else
        self->reason = PyUnicode_FromString(pathgate_reason_name(res->reason));
    if (self->reason == NULL)
        goto fail;
    pathgate_resolution_dispose(res);
    return (PyObject *)self;
fail:
    pathgate_resolution_dispose(res);
    Py_XDECREF((PyObject *)self);
    return NULL;
}

static void resolution_dealloc(PyObject *op) {
    pg_resolution_object *self = (pg_resolution_object *)op;
    Py_CLEAR(self->ref);
    Py_CLEAR(self->root_category);
    Py_CLEAR(self->mod_name);
    Py_CLEAR(self->relative_path);
    Py_CLEAR(self->exists);
    Py_CLEAR(self->error_message);
    Py_CLEAR(self->reason);
    pg_free_instance(op);
}

#define PG_RES(o) ((pg_resolution_object *)(o))

static PyObject *resolution_get_ok(PyObject *self, void *closure) {
    (void)closure;
    return PyBool_FromLong(PG_RES(self)->ok);
}

/* The object fields, in repr/equality order, by offset. */
static const struct {
    const char *name;
    size_t offset;
} resolution_fields[] = {
    {"ref", offsetof(pg_resolution_object, ref)},
    {"root_category", offsetof(pg_resolution_object, root_category)},
    {"relative_path", offsetof(pg_resolution_object, relative_path)},
    {"exists", offsetof(pg_resolution_object, exists)},
    {"error_message", offsetof(pg_resolution_object, error_message)},
    {"reason", offsetof(pg_resolution_object, reason)},
    {"mod_name", offsetof(pg_resolution_object, mod_name)},
};
#define PG_NFIELDS (sizeof resolution_fields / sizeof resolution_fields[0])

static PyObject *resolution_field(PyObject *self, size_t i) {
    return *(PyObject **)((char *)self + resolution_fields[i].offset);
}

static PyObject *resolution_get_field(PyObject *self, void *closure) {
    return Py_NewRef(resolution_field(self, (size_t)(uintptr_t)closure));
}

static PyObject *resolution_repr(PyObject *op) {
    pg_resolution_object *self = (pg_resolution_object *)op;
    return PyUnicode_FromFormat("VisibilityResolution(ok=%s, ref=%R, root_category=%R, "
                                "mod_name=%R, relative_path=%R, exists=%R, error_message=%R, "
                                "reason=%R)",
                                self->ok ? "True" : "False", self->ref, self->root_category,
                                self->mod_name, self->relative_path, self->exists,
                                self->error_message, self->reason);
}

/* (ok, ref, root_category, ...) */
static PyObject *resolution_tuple(PyObject *self) {
    PyObject *t = PyTuple_New(1 + PG_NFIELDS);
    if (t == NULL)
        return NULL;
    PyTuple_SetItem(t, 0, PyBool_FromLong(PG_RES(self)->ok));
    for (size_t i = 0; i < PG_NFIELDS; i++)
        PyTuple_SetItem(t, (Py_ssize_t)i + 1, Py_NewRef(resolution_field(self, i)));
    return t;
}

static Py_hash_t resolution_hash(PyObject *self) {
    PyObject *t = resolution_tuple(self);
    if (t == NULL)
        return -1;
    Py_hash_t h = PyObject_Hash(t);
    Py_DECREF(t);
    return h;
}

static PyObject *resolution_richcompare(PyObject *self, PyObject *other, int op) {
    if ((op != Py_EQ && op != Py_NE) || !Py_IS_TYPE(other, Py_TYPE(self)))
        Py_RETURN_NOTIMPLEMENTED;
    PyObject *a = resolution_tuple(self);
    PyObject *b = a == NULL ? NULL : resolution_tuple(other);
    PyObject *r = b == NULL ? NULL : PyObject_RichCompare(a, b, op);
    Py_XDECREF(a);
    Py_XDECREF(b);
    return r;
}

static PyGetSetDef resolution_getset[] = {
    {"ok", resolution_get_ok, NULL, "True when the input resolved.", NULL},
    {"ref", resolution_get_field, NULL, "The VisibilityRef on success, else None.",
     (void *)(uintptr_t)0},
    {"root_category", resolution_get_field, NULL,
     "The root key for root: addresses; None for mod: and on failure.", (void *)(uintptr_t)1},
    {"mod_name", resolution_get_field, NULL,
     "The mod's name for mod: addresses; None for root: and on failure.", (void *)(uintptr_t)6},
    {"relative_path", resolution_get_field, NULL,
     "The normalised <rel> ('' at the base) on success, else None.", (void *)(uintptr_t)2},
    {"exists", resolution_get_field, NULL,
     "Whether the target existed at resolve time (success only, else None).", (void *)(uintptr_t)3},
    {"error_message", resolution_get_field, NULL,
     "On failure exactly 'Invalid path / not found' or the capacity message;\n"
     "None on success.",
     (void *)(uintptr_t)4},
    {"reason", resolution_get_field, NULL,
     "Machine-readable reason for host-side logs: 'ok', 'syntax',\n"
     "'unknown_root', 'escapes_root', 'not_found', 'capacity', ...",
     (void *)(uintptr_t)5},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot resolution_slots[] = {
    {Py_tp_doc, "The result of Resolver.resolve / Session.resolve: ok, ref,\n"
                "root_category, mod_name, relative_path, exists, error_message, reason."},
    {Py_tp_dealloc, resolution_dealloc},
    {Py_tp_repr, resolution_repr},
    {Py_tp_hash, resolution_hash},
    {Py_tp_richcompare, resolution_richcompare},
    {Py_tp_getset, resolution_getset},
    {0, NULL},
};

static PyType_Spec resolution_spec = {
    .name = "pathgate.VisibilityResolution",
    .basicsize = sizeof(pg_resolution_object),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_IMMUTABLETYPE | Py_TPFLAGS_DISALLOW_INSTANTIATION,
    .slots = resolution_slots,
};

/* -------------------------------------------------------------- Resolver */

/* Fills specs[0..n) from a mapping name -> host directory; the text lives
 * in objects appended to `keep`. */
static int resolver_bases(PyObject *mapping, const char *what, pathgate_base_spec **specs,
                          size_t *n, PyObject *keep) {
    *specs = NULL;
    *n = 0;
    if (mapping == NULL || mapping == Py_None)
        return 0;
    if (!PyMapping_Check(mapping) || PyUnicode_Check(mapping)) {
        PyErr_Format(PyExc_TypeError, "%s must be a mapping of name to directory", what);
        return -1;
    }
    PyObject *items = PyMapping_Items(mapping);
    if (items == NULL) {
        if (PyErr_ExceptionMatches(PyExc_AttributeError)) {
            PyErr_Clear();
            PyErr_Format(PyExc_TypeError, "%s must be a mapping of name to directory", what);
        }
        return -1;
    }
    Py_ssize_t count = PyList_Size(items);
    *specs = PyMem_Calloc(count > 0 ? (size_t)count : 1, sizeof **specs);
    if (*specs == NULL) {
        Py_DECREF(items);
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *item = PyList_GetItem(items, i);
        if (item == NULL || !PyTuple_Check(item) || PyTuple_Size(item) != 2) {
            PyErr_Format(PyExc_TypeError, "%s.items() must give (name, directory) pairs", what);
            goto fail;
        }
        PyObject *key = PyTuple_GetItem(item, 0), *dir = PyTuple_GetItem(item, 1);
        const char *name, *path;
        Py_ssize_t name_len, path_len;
        PyObject *name_holder, *path_holder;
        if (pg_text(key, &name, &name_len, &name_holder, "a root key or mod name") < 0)
            goto fail;
        if (PyList_Append(keep, name_holder != NULL ? name_holder : key) < 0) {
            Py_XDECREF(name_holder);
            goto fail;
        }
        Py_XDECREF(name_holder);
        if (pg_host_text(dir, &path, &path_len, &path_holder, "a directory") < 0)
            goto fail;
        if (PyList_Append(keep, path_holder != NULL ? path_holder : dir) < 0) {
            Py_XDECREF(path_holder);
            goto fail;
        }
        Py_XDECREF(path_holder);
        (*specs)[i].name = name;
        (*specs)[i].name_len = (size_t)name_len;
        (*specs)[i].dir = path;
        (*specs)[i].dir_len = (size_t)path_len;
        (*specs)[i].flags = 0;
    }
    *n = (size_t)count;
    Py_DECREF(items);
    return 0;
fail:
    Py_DECREF(items);
    PyMem_Free(*specs);
    *specs = NULL;
    return -1;
}

/* The names of the iterable read_only (root keys, mod names, or base
 * addresses) as a C array for pathgate_resolver_options.read_only; the
 * core marks the bases and refuses a name that is no base, so that a typo
 * never leaves a base writable. The strings live as long as `keep`. */
static int resolver_read_only(PyObject *read_only, const char ***names, size_t *count,
                              PyObject *keep) {
    *names = NULL;
    *count = 0;
    if (read_only == NULL || read_only == Py_None)
        return 0;
    if (PyUnicode_Check(read_only)) {
        PyErr_SetString(PyExc_TypeError, "read_only must be an iterable of root keys or mod names");
        return -1;
    }
    PyObject *seq = PySequence_List(read_only);
    if (seq == NULL)
        return -1;
    Py_ssize_t n = PyList_Size(seq);
    if (PyList_Append(keep, seq) < 0) {
        Py_DECREF(seq);
        return -1;
    }
    Py_DECREF(seq); /* kept alive by keep */
    *names = PyMem_Calloc((size_t)n + 1, sizeof **names);
    if (*names == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        const char *name;
        Py_ssize_t len;
        PyObject *holder;
        if (pg_text(PyList_GetItem(seq, i), &name, &len, &holder, "a root key or mod name") < 0)
            return -1;
        if (holder != NULL) {
            int rc = PyList_Append(keep, holder);
            Py_DECREF(holder);
            if (rc < 0)
                return -1;
        }
        if (memchr(name, '\0', (size_t)len) != NULL) {
            PyErr_SetString(PyExc_ValueError, "read_only: a name must not contain a NUL character");
            return -1;
        }
        (*names)[i] = name;
    }
    *count = (size_t)n;
    return 0;
}

/* native_prefixes: a mapping of native prefix -> canonical address, as a C
 * array for pathgate_resolver_options.native_prefixes (the core checks
 * them). The strings live as long as `keep`. */
static int resolver_native_prefixes(PyObject *obj, pathgate_native_prefix **out, size_t *count,
                                    PyObject *keep) {
    *out = NULL;
    *count = 0;
    if (obj == NULL || obj == Py_None)
        return 0;
    if (!PyDict_Check(obj) && (!PyMapping_Check(obj) || PySequence_Check(obj))) {
        PyErr_SetString(PyExc_TypeError,
                        "native_prefixes must be a mapping of native prefix -> address");
        return -1;
    }
    PyObject *items = PyMapping_Items(obj);
    if (items == NULL)
        return -1;
    int rc = PyList_Append(keep, items);
    Py_DECREF(items); /* kept alive by keep */
    if (rc < 0)
        return -1;
    Py_ssize_t n = PyList_Size(items);
    *out = PyMem_Calloc((size_t)n + 1, sizeof **out);
    if (*out == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *pair = PyList_GetItem(items, i);
        const char *text[2];
        Py_ssize_t len[2];
        for (int k = 0; k < 2; k++) {
            PyObject *holder;
            if (!PyTuple_Check(pair) || PyTuple_Size(pair) != 2 ||
                pg_text(PyTuple_GetItem(pair, k), &text[k], &len[k], &holder,
                        k ? "a native prefix's address" : "a native prefix") < 0)
                return -1;
            if (holder != NULL) {
                rc = PyList_Append(keep, holder);
                Py_DECREF(holder);
                if (rc < 0)
                    return -1;
            }
        }
        (*out)[i] = (pathgate_native_prefix){text[0], (size_t)len[0], text[1], (size_t)len[1]};
    }
    *count = (size_t)n;
    return 0;
}

static PyObject *resolver_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    static char *kwlist[] = {"roots",      "mods",    "max_tokens", "read_only",  "deny_read",
                             "deny_write", "presets", "audit",      "audit_door", "native_prefixes",
                             NULL};
    pg_state *st = pg_state_of_type(type);
    PyObject *roots_obj = NULL, *mods_obj = NULL, *read_only = NULL, *prefixes_obj = NULL;
    PyObject *deny_read = NULL, *deny_write = NULL, *presets = NULL, *audit = NULL, *door = NULL;
    Py_ssize_t max_tokens = PATHGATE_MAX_TOKENS_DEFAULT;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|OOn$OOOOOOO:Resolver", kwlist, &roots_obj,
                                     &mods_obj, &max_tokens, &read_only, &deny_read, &deny_write,
                                     &presets, &audit, &door, &prefixes_obj))
        return NULL;
    if (max_tokens < 1) {
        pathgate_error err = {PATHGATE_ECONFIG, "max_tokens must be at least 1"};
        return pg_raise(st, st->Error, PATHGATE_ECONFIG, &err);
    }
    PyObject *keep = PyList_New(0);
    if (keep == NULL)
        return NULL;
    pathgate_base_spec *roots = NULL, *mods = NULL;
    const char **read_only_names = NULL;
    pathgate_native_prefix *prefixes = NULL;
    pathgate_resolver_options opts = PATHGATE_RESOLVER_OPTIONS_INIT;
    PyObject *result = NULL;
    pg_audit *audit_ctx = NULL;
    if (resolver_bases(roots_obj, "roots", &roots, &opts.nroots, keep) < 0 ||
        resolver_bases(mods_obj, "mods", &mods, &opts.nmods, keep) < 0 ||
        resolver_read_only(read_only, &read_only_names, &opts.nread_only, keep) < 0 ||
        resolver_native_prefixes(prefixes_obj, &prefixes, &opts.nnative_prefixes, keep) < 0 ||
        pg_policy_options(&opts, deny_read, deny_write, presets, audit, door, &audit_ctx, keep) < 0)
        goto done;
    opts.read_only = read_only_names;
    opts.native_prefixes = prefixes;
    opts.roots = roots;
    opts.mods = mods;
    opts.max_tokens = (size_t)max_tokens;
    pathgate_resolver *resolver = NULL;
    pathgate_error err = PATHGATE_ERROR_INIT;
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = pathgate_resolver_new(&resolver, &opts, &err);
    Py_END_ALLOW_THREADS
    if (rc < 0) {
        pg_raise(st, st->Error, rc, &err);
        goto done;
    }
    pg_resolver_object *self = (pg_resolver_object *)PyType_GenericAlloc(type, 0);
    if (self == NULL) {
        pathgate_resolver_free(resolver);
        goto done;
    }
    self->resolver = resolver;
    self->audit = audit_ctx;
    audit_ctx = NULL;
    result = (PyObject *)self;
    /* a hidden path git tracks is in the history: said at set-up */
    if (opts.ndeny_read || opts.npresets) {
        if (pg_resolver_warn_tracked(result) < 0)
            Py_CLEAR(result);
    }
done:
    pg_audit_free(audit_ctx);
    pg_policy_options_free(&opts);
    PyMem_Free(roots);
    PyMem_Free(mods);
    PyMem_Free((void *)read_only_names);
    PyMem_Free(prefixes);
    Py_DECREF(keep);
    return result;
}

static void resolver_dealloc(PyObject *self) {
    PyObject_GC_UnTrack(self);
    pathgate_resolver_free(PG_RESOLVER(self));
    pg_audit_free(((pg_resolver_object *)self)->audit); /* after: no event outlives it */
    Py_CLEAR(((pg_resolver_object *)self)->parent);     /* so does a subroot's parent */
    pg_free_instance(self);
}

/* The audit callable may refer back to the resolver: the GC sees it. */
static int resolver_traverse(PyObject *self, visitproc visit, void *arg) {
    Py_VISIT(Py_TYPE(self));
    pg_audit *a = ((pg_resolver_object *)self)->audit;
    if (a != NULL)
        Py_VISIT(a->fn);
    Py_VISIT(((pg_resolver_object *)self)->parent);
    return 0;
}

/* A subroot's parent is not cleared here: its core resolver calls the
 * parent's audit callable until it is freed; clearing the callables
 * (here and in the parent) breaks any cycle. */
static int resolver_clear(PyObject *self) {
    pg_audit *a = ((pg_resolver_object *)self)->audit;
    if (a != NULL) /* events from now on call None, reported unraisable */
        Py_CLEAR(a->fn);
    return 0;
}

/* The base argument of resolve: a canonical address (str), a
 * VisibilityRef (its address) or None. */
static int resolver_base_arg(pg_state *st, PyObject *obj, const char **text, Py_ssize_t *len,
                             PyObject **holder) {
    *holder = NULL;
    *text = NULL;
    *len = 0;
    if (obj == NULL || obj == Py_None)
        return 0;
    if (pg_is_ref(st, obj)) {
        size_t n;
        *text = pathgate_ref_address(((pg_ref_object *)obj)->ref, &n);
        *len = (Py_ssize_t)n;
        return 0;
    }
    if (!PyUnicode_Check(obj)) {
        PyErr_SetString(PyExc_TypeError, "base must be str, VisibilityRef or None");
        return -1;
    }
    return pg_text(obj, text, len, holder, "base");
}

/* The arguments resolve and host_path_of share: (text, /, *,
 * require_exists=True, base=None) into opts and text. On success the caller
 * releases both holders (either may be NULL); on failure nothing is held. */
typedef struct {
    const char *text;
    Py_ssize_t len;
    PyObject *text_holder, *base_holder;
} resolve_args;

static int resolve_bind(pg_state *st, const char *name, PyObject *const *args, Py_ssize_t nargs,
                        PyObject *kwnames, pathgate_resolve_options *opts, resolve_args *out) {
    static const char *const names[] = {NULL, "require_exists", "base"};
    PyObject *a[3];
    if (pg_bind(name, args, nargs, kwnames, names, 3, 1, 1, a) < 0)
        return -1;
    if (a[1] != NULL && (opts->require_exists = PyObject_IsTrue(a[1])) < 0)
        return -1;
    Py_ssize_t base_len;
    if (resolver_base_arg(st, a[2], &opts->base, &base_len, &out->base_holder) < 0)
        return -1;
    opts->base_len = (size_t)base_len;
    if (pg_host_text(a[0], &out->text, &out->len, &out->text_holder, "text") < 0) {
        Py_XDECREF(out->base_holder);
        return -1;
    }
    return 0;
}

static void resolve_args_release(resolve_args *a) {
    Py_XDECREF(a->base_holder);
    Py_XDECREF(a->text_holder);
}

static PyObject *resolver_resolve(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                  PyObject *kwnames) {
    pg_state *st = pg_state_of(self);
    pathgate_resolve_options opts = PATHGATE_RESOLVE_OPTIONS_INIT;
    resolve_args a;
    if (resolve_bind(st, "resolve", args, nargs, kwnames, &opts, &a) < 0)
        return NULL;
    pathgate_resolution res = PATHGATE_RESOLUTION_INIT;
    pathgate_error err = PATHGATE_ERROR_INIT;
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = pathgate_resolver_resolve(&res, PG_RESOLVER(self), a.text, (size_t)a.len, &opts, &err);
    Py_END_ALLOW_THREADS
    resolve_args_release(&a);
    if (rc < 0)
        return pg_raise(st, st->Error, rc, &err);
    return pg_resolution_wrap_owned(st, &res, self);
}

static int ref_arg(pg_state *st, PyObject *obj) {
    if (pg_is_ref(st, obj))
        return 0;
    PyErr_SetString(PyExc_TypeError, "ref must be VisibilityRef");
    return -1;
}

static PyObject *resolver_host_path(PyObject *self, PyObject *ref) {
    pg_state *st = pg_state_of(self);
    if (ref_arg(st, ref) < 0)
        return NULL;
    pathgate_buf buf = PATHGATE_BUF_INIT;
    pathgate_error err = PATHGATE_ERROR_INIT;
    int rc =
        pathgate_resolver_host_path(&buf, PG_RESOLVER(self), ((pg_ref_object *)ref)->ref, &err);
    if (rc < 0)
        return pg_raise(st, st->Error, rc, &err);
    return pg_buf_to_path(st, &buf);
}

/* host_path_of(text, /, *, require_exists=True, base=None): one call, no
 * token held (pathgate_resolver_host_path_of); refused input raises. */
static PyObject *resolver_host_path_of(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                       PyObject *kwnames) {
    pg_state *st = pg_state_of(self);
    pathgate_resolve_options opts = PATHGATE_RESOLVE_OPTIONS_INIT;
    resolve_args a;
    if (resolve_bind(st, "host_path_of", args, nargs, kwnames, &opts, &a) < 0)
        return NULL;
    pathgate_buf buf = PATHGATE_BUF_INIT;
    pathgate_error err = PATHGATE_ERROR_INIT;
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = pathgate_resolver_host_path_of(&buf, NULL, PG_RESOLVER(self), a.text, (size_t)a.len, &opts,
                                        &err);
    Py_END_ALLOW_THREADS
    resolve_args_release(&a);
    if (rc < 0)
        return pg_raise(st, rc == PATHGATE_EINVALIDPATH ? st->PathError : st->Error, rc, &err);
    return pg_buf_to_path(st, &buf);
}

/* address_of(native, /) -> str: the canonical address of a native path
 * (pathgate_resolver_address_of); PathError when no prefix or base holds it. */
static PyObject *resolver_address_of(PyObject *self, PyObject *arg) {
    pg_state *st = pg_state_of(self);
    const char *text;
    Py_ssize_t len;
    PyObject *holder;
    if (pg_host_text(arg, &text, &len, &holder, "native") < 0)
        return NULL;
    pathgate_buf buf = PATHGATE_BUF_INIT;
    pathgate_error err = PATHGATE_ERROR_INIT;
    int rc = pathgate_resolver_address_of(&buf, PG_RESOLVER(self), text, (size_t)len, &err);
    Py_XDECREF(holder);
    if (rc < 0)
        return pg_raise(st, rc == PATHGATE_EINVALIDPATH ? st->PathError : st->Error, rc, &err);
    PyObject *s = PyUnicode_FromStringAndSize(buf.ptr, (Py_ssize_t)buf.len);
    pathgate_buf_dispose(&buf);
    return s;
}

static PyObject *resolver_release(PyObject *self, PyObject *ref) {
    if (ref_arg(pg_state_of(self), ref) < 0)
        return NULL;
    return PyBool_FromLong(
        pathgate_resolver_release(PG_RESOLVER(self), ((pg_ref_object *)ref)->ref) == 1);
}

static Py_ssize_t resolver_len(PyObject *self) {
    return (Py_ssize_t)pathgate_resolver_token_count(PG_RESOLVER(self));
}

typedef size_t (*base_count_fn)(const pathgate_resolver *);
typedef const char *(*base_name_fn)(const pathgate_resolver *, size_t);

static PyObject *resolver_names(PyObject *self, base_count_fn count, base_name_fn name) {
    const pathgate_resolver *r = PG_RESOLVER(self);
    size_t n = count(r);
    PyObject *t = PyTuple_New((Py_ssize_t)n);
    for (size_t i = 0; t != NULL && i < n; i++) {
        PyObject *s = PyUnicode_FromString(name(r, i));
        if (s == NULL || PyTuple_SetItem(t, (Py_ssize_t)i, s) < 0)
            Py_CLEAR(t);
    }
    return t;
}

static PyObject *resolver_get_roots(PyObject *self, void *closure) {
    (void)closure;
    return resolver_names(self, pathgate_resolver_root_count, pathgate_resolver_root_key);
}

static PyObject *resolver_get_mods(PyObject *self, void *closure) {
    (void)closure;
    return resolver_names(self, pathgate_resolver_mod_count, pathgate_resolver_mod_name);
}

static PyObject *resolver_repr(PyObject *self) {
    PyObject *roots = resolver_get_roots(self, NULL);
    PyObject *mods = roots == NULL ? NULL : resolver_get_mods(self, NULL);
    PyObject *r = mods == NULL ? NULL
                               : PyUnicode_FromFormat("<pathgate.Resolver roots=%R mods=%R "
                                                      "live_tokens=%zd>",
                                                      roots, mods, resolver_len(self));
    Py_XDECREF(roots);
    Py_XDECREF(mods);
    return r;
}

static PyGetSetDef resolver_getset[] = {
    {"roots", resolver_get_roots, NULL, "The configured root keys, in order.", NULL},
    {"mods", resolver_get_mods, NULL, "The configured mod names, in order.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMethodDef resolver_methods[] = {
    {"resolve", PG_METH(resolver_resolve), METH_FASTCALL | METH_KEYWORDS,
     "resolve($self, text, /, *, require_exists=True, base=None)\n--\n\n"
     "Resolve a canonical address (root:<key>/<rel>, mod:<Name>/<rel>), a\n"
     "legacy alias, a file:// URI or a host path inside a base, or relative\n"
     "text against base (a canonical address or VisibilityRef). Every\n"
     "success mints a new token. Returns a VisibilityResolution; failures\n"
     "are results (ok=False), not exceptions."},
    {"host_path", PG_METH(resolver_host_path), METH_O,
     "host_path($self, ref, /)\n--\n\n"
     "The pathlib.Path of a ref this resolver minted (live, address\n"
     "matching its record); None for a forged, released or foreign ref."},
    {"host_path_of", PG_METH(resolver_host_path_of), METH_FASTCALL | METH_KEYWORDS,
     "host_path_of($self, text, /, *, require_exists=True, base=None)\n--\n\n"
     "The pathlib.Path of text, resolved as resolve() does, in one call\n"
     "that holds no token. Raises pathgate.PathError ('Invalid path / not\n"
     "found') where resolve() would fail. The path is the host's: never\n"
     "show it to an agent."},
    {"address_of", PG_METH(resolver_address_of), METH_O,
     "address_of($self, native, /)\n--\n\n"
     "The canonical address of a native path: through the longest declared\n"
     "native prefix (native_prefixes=, e.g. a Windows path read on Linux),\n"
     "else through the base whose directory holds it. Lexical: nothing is\n"
     "opened and no token is held. Raises pathgate.PathError ('Invalid\n"
     "path / not found') when no prefix or base holds it."},
    {"release", PG_METH(resolver_release), METH_O,
     "release($self, ref, /)\n--\n\n"
     "Free the ref's token; True when it was live here."},
    PG_POLICY_METHODS{NULL, NULL, 0, NULL},
};

static PyType_Slot resolver_slots[] = {
    {Py_tp_doc, "Resolver(roots, mods=None, max_tokens=10000, *, read_only=None, "
                "deny_read=None,\ndeny_write=None, presets=None, audit=None, "
                "audit_door='python')\n--\n\n"
                "Resolves agent-named paths strictly inside the configured roots\n"
                "(key -> directory) and mods (name -> directory); directories may be\n"
                "str or os.PathLike; read_only names the roots and mods (by key,\n"
                "name or address) whose files, by whatever address they are reached,\n"
                "file operations and commands may read but never write. Raises\n"
                "pathgate.Error (kind 'invalid_config' or\n"
                "'io_error') for a bad configuration. len() is the number of live\n"
                "tokens. Safe to share between threads.\n\n"
                "deny_read / deny_write: gitignore-style patterns no operation may\n"
                "read (hidden: 'Invalid path / not found') / change; presets: 'vcs',\n"
                "'secrets', 'agent-config'; audit: called with a dict per decision\n"
                "(door audit_door). See docs/policy.md."},
    {Py_tp_new, resolver_new},
    {Py_tp_dealloc, resolver_dealloc},
    {Py_tp_traverse, resolver_traverse},
    {Py_tp_clear, resolver_clear},
    {Py_tp_repr, resolver_repr},
    {Py_mp_length, resolver_len},
    {Py_tp_getset, resolver_getset},
    {Py_tp_methods, resolver_methods},
    {0, NULL},
};

static PyType_Spec resolver_spec = {
    .name = "pathgate.Resolver",
    .basicsize = sizeof(pg_resolver_object),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_IMMUTABLETYPE | Py_TPFLAGS_HAVE_GC,
    .slots = resolver_slots,
};

/* Why dir may not be the implicit root (the core's words), or None; a
 * directory that cannot be opened raises pathgate.Error (io_error). */
static PyObject *pg_implicit_root_refusal(PyObject *module, PyObject *dir) {
    pg_state *st = PyModule_GetState(module);
    const char *text;
    Py_ssize_t len;
    PyObject *holder;
    if (pg_host_text(dir, &text, &len, &holder, "directory") < 0)
        return NULL;
    if ((size_t)len != strlen(text)) {
        Py_XDECREF(holder);
        PyErr_SetString(PyExc_ValueError, "embedded null byte");
        return NULL;
    }
    PyObject *result = NULL;
    pathgate_error err = PATHGATE_ERROR_INIT;
    int rc = pathgate_implicit_root_check(text, &err);
    if (rc == PATHGATE_ECONFIG)
        result = PyUnicode_FromString(err.message);
    else if (rc < 0)
        pg_raise(st, st->Error, rc, &err);
    else
        result = Py_NewRef(Py_None);
    Py_XDECREF(holder);
    return result;
}

static PyMethodDef resolver_module_methods[] = {
    {"_implicit_root_refusal", pg_implicit_root_refusal, METH_O,
     "_implicit_root_refusal(directory, /)\n--\n\n"
     "Why directory may not be the implicit root ('the filesystem root', 'a home\n"
     "directory', 'an ancestor of a home directory'), or None."},
    {NULL, NULL, 0, NULL},
};

int pg_resolver_init(PyObject *module, pg_state *st) {
    if (PyModule_AddFunctions(module, resolver_module_methods) < 0)
        return -1;
    st->reasons = PyTuple_New(PATHGATE__REASON_LAST);
    if (st->reasons == NULL)
        return -1;
    for (int i = 0; i < PATHGATE__REASON_LAST; i++) {
        PyObject *s = PyUnicode_InternFromString(pathgate_reason_name((pathgate_reason)i));
        if (s == NULL || PyTuple_SetItem(st->reasons, i, s) < 0)
            return -1;
    }
    st->ResolutionType = pg_add_type(module, &resolution_spec);
    if (st->ResolutionType == NULL)
        return -1;
    st->ResolverType = pg_add_type(module, &resolver_spec);
    return st->ResolverType == NULL ? -1 : 0;
}
