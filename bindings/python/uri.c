/*
 * uri.c - pathgate.PathUri over pathgate_uri (docs/uri.md).
 *
 * Immutable: created only by parse / from_native and by the methods that
 * derive a new URI; no attribute can be set. str() is the URI string,
 * == and hash() follow the core (Windows: decoded ASCII case-insensitive).
 * Its calls, properties and the path-text functions come from
 * ../uri_ops.h, the table Lua's PathUri is made of too.
 */
#include "module.h"
#include "uri_ops.h"

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

/* ------------------------------------------------------------ the runner */

/* The Python parameters of each argument kind (../uri_ops.h): names (NULL
 * positional-only), how many may be positional, how many are required. */
typedef struct {
    const char *names[2];
    Py_ssize_t n, maxpos, required;
} uri_params;

static uri_params params_of(const pg_uri_op *op) {
    switch (op->in) {
    case PG_UI_NONE:
        return (uri_params){{NULL, NULL}, 0, 0, 0};
    case PG_UI_CONV:
        return (uri_params){{"convention", NULL}, 1, 1, 0};
    case PG_UI_TEXT_CONV:
        return (uri_params){{NULL, "convention"}, 2, 2, 1};
    case PG_UI_TEXT_CONV_REQ:
        return (uri_params){{NULL, "convention"}, 2, 2, 2};
    default: /* one positional-only argument */
        return (uri_params){{NULL, NULL}, 1, 1, 1};
    }
}

/* Reads the arguments of op into *in (holder keeps text alive). -1 with an
 * exception set. */
static int uri_args(pg_state *st, const pg_uri_op *op, PyObject *const *a, pg_uri_in *in,
                    PyObject **holder) {
    Py_ssize_t len = 0;
    switch (op->in) {
    case PG_UI_NONE:
        return 0;
    case PG_UI_URI:
        if (uri_arg(st, a[0], op->arg) < 0)
            return -1;
        in->other = PG_URI(a[0]);
        return 0;
    case PG_UI_CONV:
        return pg_convention_arg(st, a[0], &in->conv);
    case PG_UI_BYTES:
    case PG_UI_TEXT_OR_BYTES:
        if (PyBytes_Check(a[0])) { /* raw native bytes (POSIX file names) */
            char *bytes;
            if (PyBytes_AsStringAndSize(a[0], &bytes, &len) < 0)
                return -1;
            in->text = bytes;
            in->len = (size_t)len;
            in->is_bytes = 1;
            return 0;
        }
        if (op->in == PG_UI_BYTES) {
            PyObject *name = PyType_GetName(Py_TYPE(a[0]));
            if (name != NULL) {
                PyErr_Format(PyExc_TypeError, "%s must be bytes, not %U", op->arg, name);
                Py_DECREF(name);
            }
            return -1;
        }
        break;
    case PG_UI_OPT_TEXT:
        if (a[0] == Py_None)
            return 0;
        break;
    case PG_UI_TEXT_CONV:
    case PG_UI_TEXT_CONV_REQ:
        if (pg_convention_arg(st, a[1], &in->conv) < 0)
            return -1;
        if (op->in == PG_UI_TEXT_CONV_REQ && in->conv == PATHGATE_CONVENTION_NONE) {
            pg_raise(st, st->Error, PATHGATE_EINVAL, NULL);
            return -1;
        }
        break;
    default: /* TEXT */
        break;
    }
    if (pg_text(a[0], &in->text, &len, holder, op->arg) < 0)
        return -1;
    in->len = (size_t)len;
    return 0;
}

/* Runs op for self (a PathUri, or NULL for a class method or a module
 * function) and converts its answer by its kind. */
static PyObject *uri_run(pg_state *st, const pg_uri_op *op, PyObject *self, PyObject *const *args,
                         Py_ssize_t nargs, PyObject *kwnames) {
    uri_params p = params_of(op);
    PyObject *a[2];
    if (pg_bind(op->name, args, nargs, kwnames, p.names, p.n, p.maxpos, p.required, a) < 0)
        return NULL;
    pg_uri_in in = {self ? PG_URI(self) : NULL, NULL, 0, 0, NULL, PATHGATE_CONVENTION_NONE};
    pathgate_buf buf = PATHGATE_BUF_INIT;
    pg_uri_out out = {NULL, &buf, 0, 0, PATHGATE_CONVENTION_NONE, NULL, 0, 0, PATHGATE_ERROR_INIT};
    PyObject *holder = NULL, *res = NULL;
    if (uri_args(st, op, a, &in, &holder) < 0)
        goto done;
    if (op->out == PG_UO_URIS) { /* the receiver, then each parent of the one before */
        PyObject *list = PyList_New(0);
        pathgate_uri *cur = NULL;
        int rc = list == NULL ? PATHGATE_ENOMEM : pathgate_uri_dup(&cur, in.self, &out.err);
        while (list != NULL && rc == 0 && cur != NULL) {
            in.self = cur;
            out.uri = NULL;
            rc = op->call(&in, &out);
            PyObject *item = pg_uri_wrap(st, cur); /* takes cur */
            if (item == NULL || PyList_Append(list, item) < 0) {
                Py_XDECREF(item);
                pathgate_uri_free(out.uri);
                Py_CLEAR(list);
                break;
            }
            Py_DECREF(item);
            cur = out.uri;
        }
        if (list != NULL && rc < 0) {
            Py_CLEAR(list);
            pg_raise(st, st->PathError, rc, &out.err);
        }
        if (list != NULL) {
            res = PyObject_GetIter(list);
            Py_DECREF(list);
        }
        goto done;
    }
    if (op->out == PG_UO_TEXTS) {
        res = PyList_New(0);
        int rc;
        while (res != NULL && (rc = op->call(&in, &out)) > 0) {
            PyObject *item = pg_native_str(out.view, out.view_len);
            if (item == NULL || PyList_Append(res, item) < 0)
                Py_CLEAR(res);
            Py_XDECREF(item);
        }
        goto done;
    }
    int rc = op->call(&in, &out);
    if (rc < 0) {
        pathgate_uri_free(out.uri);
        res = pg_raise(st, st->PathError, rc, &out.err);
        goto done;
    }
    switch (op->out) {
    case PG_UO_URI:
        res = out.uri == NULL ? Py_NewRef(Py_None) : pg_uri_wrap(st, out.uri);
        break;
    case PG_UO_TEXT:
        res = pg_buf_to_native(&buf);
        break;
    case PG_UO_HOST_PATH:
        res = pg_buf_to_path(st, &buf);
        break;
    case PG_UO_BYTES:
        res = PyBytes_FromStringAndSize(buf.ptr, (Py_ssize_t)buf.len);
        break;
    case PG_UO_BOOL:
        res = PyBool_FromLong(out.flag);
        break;
    case PG_UO_TRI:
        res = rc ? PyBool_FromLong(out.flag) : Py_NewRef(Py_None);
        break;
    case PG_UO_SIZE:
        res = rc ? PyLong_FromSize_t(out.n) : Py_NewRef(Py_None);
        break;
    case PG_UO_CONV:
        res = pg_convention_obj(st, out.conv);
        break;
    case PG_UO_VIEW:
        res = rc ? pg_native_str(out.view, out.view_len) : Py_NewRef(Py_None);
        break;
    default: /* OK */
        res = Py_NewRef(Py_None);
        break;
    }
done:
    pathgate_buf_dispose(&buf);
    Py_XDECREF(holder);
    return res;
}

/* A property of the table (its closure the op). */
static PyObject *uri_getter(PyObject *self, void *closure) {
    return uri_run(pg_state_of(self), (const pg_uri_op *)closure, self, NULL, 0, NULL);
}

/* One C function per call of the table (receiver: the PathUri, the class
 * or the module). */
#define PG_PY_URI_FN(name)                                                                         \
    static PyObject *uri_fn_##name(PyObject *recv, PyObject *const *args, Py_ssize_t nargs,        \
                                   PyObject *kwnames) {                                            \
        const pg_uri_op *op = &pg_uri_op_##name;                                                   \
        if (op->form == PG_UF_CLASS)                                                               \
            return uri_run(pg_state_of_type((PyTypeObject *)recv), op, NULL, args, nargs,          \
                           kwnames);                                                               \
        if (op->form == PG_UF_MODULE)                                                              \
            return uri_run(PyModule_GetState(recv), op, NULL, args, nargs, kwnames);               \
        return uri_run(pg_state_of(recv), op, recv, args, nargs, kwnames);                         \
    }
PG_URI_OPS(PG_PY_URI_FN)
#undef PG_PY_URI_FN

static const struct {
    const pg_uri_op *op;
    PyCFunction fn; /* METH_FASTCALL | METH_KEYWORDS */
} uri_ops[] = {
#define PG_PY_URI_ENTRY(name) {&pg_uri_op_##name, PG_METH(uri_fn_##name)},
    PG_URI_OPS(PG_PY_URI_ENTRY)
#undef PG_PY_URI_ENTRY
};

/* The table's calls by where they live, filled by pg_uri_init. */
static PyGetSetDef uri_getset[PG_URI_OP_COUNT + 1];
static PyMethodDef uri_methods[PG_URI_OP_COUNT + 2];
static PyMethodDef uri_module_functions[PG_URI_OP_COUNT + 1];

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
    size_t ng = 0, nm = 0, nf = 0;
    for (size_t i = 0; i < PG_URI_OP_COUNT; i++) {
        const pg_uri_op *op = uri_ops[i].op;
        PyMethodDef m = {op->name, uri_ops[i].fn, METH_FASTCALL | METH_KEYWORDS, op->doc};
        if (op->form == PG_UF_GETTER) {
            PyGetSetDef g = {op->name, uri_getter, NULL, op->doc, (void *)op};
            uri_getset[ng++] = g;
        } else if (op->form == PG_UF_MODULE) {
            uri_module_functions[nf++] = m;
        } else {
            if (op->form == PG_UF_CLASS)
                m.ml_flags |= METH_CLASS;
            uri_methods[nm++] = m;
        }
    }
    PyMethodDef reduce = {"__reduce__", PG_METH(uri_reduce), METH_NOARGS, NULL};
    uri_methods[nm++] = reduce;
    st->PathUriType = pg_add_type(module, &uri_spec);
    if (st->PathUriType == NULL)
        return -1;
    return PyModule_AddFunctions(module, uri_module_functions);
}
