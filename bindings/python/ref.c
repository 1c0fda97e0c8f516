/*
 * ref.c - pathgate.VisibilityRef over pathgate_ref (docs/spec.md section 5):
 * an immutable (token, canonical address) pair that holds no host path.
 * str() is the address, repr() `VisibilityRef(<address>)`; equal when
 * token and address are. Constructible from Python (deserialisation,
 * forged refs in tests): no registry is consulted until a Resolver is
 * asked about it.
 */
#include "module.h"

#define PG_REF(o) (((pg_ref_object *)(o))->ref)

PyObject *pg_ref_wrap(pg_state *st, pathgate_ref *ref) {
    pg_ref_object *self = (pg_ref_object *)PyType_GenericAlloc((PyTypeObject *)st->RefType, 0);
    if (self == NULL) {
        pathgate_ref_free(ref);
        return NULL;
    }
    self->ref = ref;
    return (PyObject *)self;
}

static PyObject *ref_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    static char *kwlist[] = {"token", "session_abs", NULL};
    pg_state *st = pg_state_of_type(type);
    PyObject *token_obj, *address_obj;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO:VisibilityRef", kwlist, &token_obj,
                                     &address_obj))
        return NULL;
    const char *token, *address;
    Py_ssize_t token_len, address_len;
    PyObject *token_holder, *address_holder;
    if (pg_text(token_obj, &token, &token_len, &token_holder, "token") < 0)
        return NULL;
    if (pg_text(address_obj, &address, &address_len, &address_holder, "session_abs") < 0) {
        Py_XDECREF(token_holder);
        return NULL;
    }
    pathgate_ref *ref = NULL;
    pathgate_error err = PATHGATE_ERROR_INIT;
    int rc =
        pathgate_ref_new(&ref, token, (size_t)token_len, address, (size_t)address_len, NULL, &err);
    Py_XDECREF(token_holder);
    Py_XDECREF(address_holder);
    if (rc < 0)
        return pg_raise(st, st->Error, rc, &err);
    return pg_ref_wrap(st, ref);
}

/* A minted ref gives its token back to its resolver when it goes (by
 * reference count or by the cycle collector): a program that drops its
 * resolutions never fills the registry. */
static void ref_release(PyObject *self) {
    pg_ref_object *o = (pg_ref_object *)self;
    if (o->owner != NULL && o->ref != NULL)
        pathgate_resolver_release(((pg_resolver_object *)o->owner)->resolver, o->ref);
    Py_CLEAR(o->owner);
}

static void ref_dealloc(PyObject *self) {
    PyObject_GC_UnTrack(self);
    ref_release(self);
    pathgate_ref_free(PG_REF(self));
    pg_free_instance(self);
}

static int ref_traverse(PyObject *self, visitproc visit, void *arg) {
    Py_VISIT(Py_TYPE(self));
    Py_VISIT(((pg_ref_object *)self)->owner);
    return 0;
}

static int ref_clear(PyObject *self) {
    ref_release(self);
    return 0;
}

static PyObject *ref_get_token(PyObject *self, void *closure) {
    (void)closure;
    size_t len;
    const char *s = pathgate_ref_token(PG_REF(self), &len);
    return PyUnicode_FromStringAndSize(s, (Py_ssize_t)len);
}

static PyObject *ref_str(PyObject *self) {
    size_t len;
    const char *s = pathgate_ref_address(PG_REF(self), &len);
    return PyUnicode_FromStringAndSize(s, (Py_ssize_t)len);
}

static PyObject *ref_get_session_abs(PyObject *self, void *closure) {
    (void)closure;
    return ref_str(self);
}

static PyObject *ref_repr(PyObject *self) {
    size_t len;
    const char *s = pathgate_ref_address(PG_REF(self), &len);
    return PyUnicode_FromFormat("VisibilityRef(%s)", s);
}

static Py_hash_t ref_hash(PyObject *self) {
    Py_hash_t h = (Py_hash_t)pathgate_ref_hash(PG_REF(self));
    return h == -1 ? -2 : h;
}

static PyObject *ref_richcompare(PyObject *self, PyObject *other, int op) {
    if ((op != Py_EQ && op != Py_NE) || !pg_is_ref(pg_state_of(self), other))
        Py_RETURN_NOTIMPLEMENTED;
    int eq = pathgate_ref_equal(PG_REF(self), PG_REF(other));
    return PyBool_FromLong(op == Py_EQ ? eq : !eq);
}

static PyObject *ref_reduce(PyObject *self, PyObject *unused) {
    (void)unused;
    PyObject *token = ref_get_token(self, NULL);
    PyObject *address = token == NULL ? NULL : ref_str(self);
    PyObject *res =
        address == NULL ? NULL : Py_BuildValue("(O(OO))", Py_TYPE(self), token, address);
    Py_XDECREF(token);
    Py_XDECREF(address);
    return res;
}

static PyGetSetDef ref_getset[] = {
    {"token", ref_get_token, NULL, "The UUID4 token (lowercase, 36 characters).", NULL},
    {"session_abs", ref_get_session_abs, NULL,
     "The canonical address (root:<key>/<rel> or mod:<Name>/<rel>).", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMethodDef ref_methods[] = {
    {"__reduce__", PG_METH(ref_reduce), METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot ref_slots[] = {
    {Py_tp_doc, "VisibilityRef(token, session_abs)\n--\n\n"
                "An opaque reference to a resolved file: a UUID4 token and the\n"
                "canonical address. Holds no host path; safe to log and serialise.\n"
                "Only the Resolver that minted the token maps it to a file."},
    {Py_tp_new, ref_new},
    {Py_tp_dealloc, ref_dealloc},
    {Py_tp_traverse, ref_traverse},
    {Py_tp_clear, ref_clear},
    {Py_tp_repr, ref_repr},
    {Py_tp_str, ref_str},
    {Py_tp_hash, ref_hash},
    {Py_tp_richcompare, ref_richcompare},
    {Py_tp_getset, ref_getset},
    {Py_tp_methods, ref_methods},
    {0, NULL},
};

static PyType_Spec ref_spec = {
    .name = "pathgate.VisibilityRef",
    .basicsize = sizeof(pg_ref_object),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_IMMUTABLETYPE | Py_TPFLAGS_HAVE_GC,
    .slots = ref_slots,
};

int pg_ref_init(PyObject *module, pg_state *st) {
    st->RefType = pg_add_type(module, &ref_spec);
    return st->RefType == NULL ? -1 : 0;
}
