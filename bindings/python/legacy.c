/*
 * legacy.c - pathgate.LegacyAppPathString over pathgate_legacy (docs/spec.md
 * section 3): wraps any text unvalidated; conversions fail closed, UI
 * rendering never fails. Immutable; str() is exactly the text given.
 */
#include "module.h"

#define PG_LEGACY(o) (((pg_legacy_object *)(o))->path)

static PyObject *legacy_wrap(PyTypeObject *type, pathgate_legacy *path, PyObject *text) {
    pg_legacy_object *self = (pg_legacy_object *)PyType_GenericAlloc(type, 0);
    if (self == NULL) {
        pathgate_legacy_free(path);
        Py_DECREF(text);
        return NULL;
    }
    self->path = path;
    self->text = text;
    return (PyObject *)self;
}

static PyObject *legacy_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    static char *kwlist[] = {"text", NULL};
    pg_state *st = pg_state_of_type(type);
    PyObject *obj;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O:LegacyAppPathString", kwlist, &obj))
        return NULL;
    const char *text;
    Py_ssize_t len;
    PyObject *holder;
    if (pg_text(obj, &text, &len, &holder, "text") < 0)
        return NULL;
    pathgate_legacy *path = NULL;
    pathgate_error err = PATHGATE_ERROR_INIT;
    int rc = pathgate_legacy_new(&path, text, (size_t)len, NULL, &err);
    Py_XDECREF(holder);
    if (rc < 0)
        return pg_raise(st, st->PathError, rc, &err);
    return legacy_wrap(type, path, Py_NewRef(obj));
}

static void legacy_dealloc(PyObject *self) {
    pathgate_legacy_free(PG_LEGACY(self));
    Py_CLEAR(((pg_legacy_object *)self)->text);
    pg_free_instance(self);
}

static PyObject *legacy_to_uri(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                               PyObject *kwnames) {
    static const char *const names[] = {"convention"};
    pg_state *st = pg_state_of(self);
    PyObject *a[1];
    if (pg_bind("to_uri", args, nargs, kwnames, names, 1, 1, 0, a) < 0)
        return NULL;
    pathgate_convention conv;
    if (pg_convention_arg(st, a[0], &conv) < 0)
        return NULL;
    pathgate_uri *uri = NULL;
    pathgate_error err = PATHGATE_ERROR_INIT;
    int rc = pathgate_legacy_to_uri(&uri, PG_LEGACY(self), conv, &err);
    if (rc < 0)
        return pg_raise(st, st->PathError, rc, &err);
    return pg_uri_wrap(st, uri);
}

static PyObject *legacy_from_uri(PyObject *cls, PyObject *const *args, Py_ssize_t nargs,
                                 PyObject *kwnames) {
    static const char *const names[] = {"uri", "convention"};
    PyTypeObject *type = (PyTypeObject *)cls;
    pg_state *st = pg_state_of_type(type);
    PyObject *a[2];
    if (pg_bind("from_uri", args, nargs, kwnames, names, 2, 2, 1, a) < 0)
        return NULL;
    if (!pg_is_uri(st, a[0])) {
        PyErr_SetString(PyExc_TypeError, "uri must be PathUri");
        return NULL;
    }
    pathgate_convention conv;
    if (pg_convention_arg(st, a[1], &conv) < 0)
        return NULL;
    pathgate_legacy *path = NULL;
    pathgate_error err = PATHGATE_ERROR_INIT;
    int rc = pathgate_legacy_from_uri(&path, ((pg_uri_object *)a[0])->uri, conv, &err);
    if (rc < 0)
        return pg_raise(st, st->PathError, rc, &err);
    size_t len;
    const char *text = pathgate_legacy_text(path, &len);
    PyObject *str = pg_native_str(text, len);
    if (str == NULL) {
        pathgate_legacy_free(path);
        return NULL;
    }
    return legacy_wrap(type, path, str);
}

static PyObject *legacy_render_for_ui(PyObject *self, PyObject *unused) {
    (void)unused;
    pg_state *st = pg_state_of(self);
    pathgate_buf buf = PATHGATE_BUF_INIT;
    int rc = pathgate_legacy_render_for_ui(&buf, PG_LEGACY(self));
    if (rc < 0)
        return pg_raise(st, st->PathError, rc, NULL);
    return pg_buf_to_native(&buf);
}

static PyObject *legacy_resolve_against(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                        PyObject *kwnames) {
    static const char *const names[] = {"cwd", "home"};
    pg_state *st = pg_state_of(self);
    PyObject *a[2];
    if (pg_bind("resolve_against", args, nargs, kwnames, names, 2, 2, 1, a) < 0)
        return NULL;
    if (!pg_is_uri(st, a[0]) || (a[1] != NULL && a[1] != Py_None && !pg_is_uri(st, a[1]))) {
        PyErr_SetString(PyExc_TypeError, "cwd must be PathUri and home PathUri or None");
        return NULL;
    }
    const pathgate_uri *home =
        (a[1] == NULL || a[1] == Py_None) ? NULL : ((pg_uri_object *)a[1])->uri;
    pathgate_uri *uri = NULL;
    pathgate_error err = PATHGATE_ERROR_INIT;
    int rc = pathgate_legacy_resolve_against(&uri, PG_LEGACY(self), ((pg_uri_object *)a[0])->uri,
                                             home, &err);
    if (rc < 0)
        return pg_raise(st, st->PathError, rc, &err);
    return pg_uri_wrap(st, uri);
}

static PyObject *legacy_resolve_config(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                       PyObject *kwnames) {
    static const char *const names[] = {"base", "home", "convention"};
    pg_state *st = pg_state_of(self);
    PyObject *a[3];
    if (pg_bind("resolve_config", args, nargs, kwnames, names, 3, 3, 1, a) < 0)
        return NULL;
    if ((a[0] != Py_None && !pg_is_uri(st, a[0])) ||
        (a[1] != NULL && a[1] != Py_None && !pg_is_uri(st, a[1]))) {
        PyErr_SetString(PyExc_TypeError, "base and home must be PathUri or None");
        return NULL;
    }
    pathgate_convention conv;
    if (pg_convention_arg(st, a[2], &conv) < 0)
        return NULL;
    const pathgate_uri *base = a[0] == Py_None ? NULL : ((pg_uri_object *)a[0])->uri;
    const pathgate_uri *home =
        (a[1] == NULL || a[1] == Py_None) ? NULL : ((pg_uri_object *)a[1])->uri;
    pathgate_uri *uri = NULL;
    pathgate_error err;
    int rc = pathgate_legacy_resolve_config(&uri, PG_LEGACY(self), base, home, conv, &err);
    if (rc < 0)
        return pg_raise(st, st->PathError, rc, &err);
    return pg_uri_wrap(st, uri);
}

static PyObject *legacy_infer_convention(PyObject *self, PyObject *unused) {
    (void)unused;
    return pg_convention_obj(pg_state_of(self), pathgate_legacy_infer_convention(PG_LEGACY(self)));
}

static PyObject *legacy_reduce(PyObject *self, PyObject *unused) {
    (void)unused;
    return Py_BuildValue("(O(O))", (PyObject *)Py_TYPE(self), ((pg_legacy_object *)self)->text);
}

static PyObject *legacy_str(PyObject *self) {
    return Py_NewRef(((pg_legacy_object *)self)->text);
}

static PyObject *legacy_repr(PyObject *self) {
    return PyUnicode_FromFormat("LegacyAppPathString(%R)", ((pg_legacy_object *)self)->text);
}

static Py_hash_t legacy_hash(PyObject *self) {
    return PyObject_Hash(((pg_legacy_object *)self)->text);
}

static PyObject *legacy_richcompare(PyObject *self, PyObject *other, int op) {
    if ((op != Py_EQ && op != Py_NE) || !Py_IS_TYPE(other, Py_TYPE(self)))
        Py_RETURN_NOTIMPLEMENTED;
    return PyObject_RichCompare(((pg_legacy_object *)self)->text, ((pg_legacy_object *)other)->text,
                                op);
}

static PyMethodDef legacy_methods[] = {
    {"to_uri", PG_METH(legacy_to_uri), METH_FASTCALL | METH_KEYWORDS,
     "to_uri($self, /, convention=None)\n--\n\n"
     "Parse the absolute text as a PathUri ('posix', 'windows', or None to\n"
     "infer). Fail-closed: PathError names the text and the convention."},
    {"from_uri", PG_METH(legacy_from_uri), METH_FASTCALL | METH_KEYWORDS | METH_CLASS,
     "from_uri($type, /, uri, convention=None)\n--\n\n"
     "Render a PathUri as native text of the convention (None = the URI's\n"
     "own) for a legacy client. Raises PathError."},
    {"render_for_ui", PG_METH(legacy_render_for_ui), METH_NOARGS,
     "render_for_ui($self, /)\n--\n\n"
     "Text for a UI; never fails (invalid UTF-8 becomes U+FFFD, control\n"
     "characters are escaped)."},
    {"resolve_against", PG_METH(legacy_resolve_against), METH_FASTCALL | METH_KEYWORDS,
     "resolve_against($self, /, cwd, home=None)\n--\n\n"
     "Resolve the text the way an executor would, against the PathUri cwd\n"
     "(and home for ~). Raises PathError."},
    {"resolve_config", PG_METH(legacy_resolve_config), METH_FASTCALL | METH_KEYWORDS,
     "resolve_config($self, /, base, home=None, convention=None)\n--\n\n"
     "Resolve a path written in a configuration file using only what is\n"
     "given: '~' against home, relative text against base, absolute text as\n"
     "itself (convention None = base's, else home's). No trailing separator,\n"
     "drive letters upper-cased, glob characters kept literally; anything\n"
     "without one lossless native spelling raises PathError."},
    {"infer_convention", PG_METH(legacy_infer_convention), METH_NOARGS,
     "infer_convention($self, /)\n--\n\n"
     "'windows' for X:\\, X:/ or a leading \\\\; 'posix' for a leading /;\n"
     "None otherwise."},
    {"__reduce__", PG_METH(legacy_reduce), METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot legacy_slots[] = {
    {Py_tp_doc, "LegacyAppPathString(text)\n--\n\n"
                "The native path string a legacy client sends and expects back.\n"
                "Any text is accepted unvalidated; str() returns it unchanged."},
    {Py_tp_new, legacy_new},
    {Py_tp_dealloc, legacy_dealloc},
    {Py_tp_repr, legacy_repr},
    {Py_tp_str, legacy_str},
    {Py_tp_hash, legacy_hash},
    {Py_tp_richcompare, legacy_richcompare},
    {Py_tp_methods, legacy_methods},
    {0, NULL},
};

static PyType_Spec legacy_spec = {
    .name = "pathgate.LegacyAppPathString",
    .basicsize = sizeof(pg_legacy_object),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_IMMUTABLETYPE,
    .slots = legacy_slots,
};

int pg_legacy_init(PyObject *module, pg_state *st) {
    st->LegacyType = pg_add_type(module, &legacy_spec);
    return st->LegacyType == NULL ? -1 : 0;
}
