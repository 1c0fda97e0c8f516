/*
 * session.c - pathgate.Session (docs/spec.md section 6): a home root and a
 * working-directory stack of canonical addresses over one Resolver, and
 * pathgate.SessionState, the (home, cwd, depth) snapshot get() returns.
 *
 * Refusals (unknown key, subdirectory cd, overflow, not a directory,
 * invalid address) raise pathgate.SessionError with the core's kind and
 * message; `already in ...` and `Stack is empty, ...` are ordinary return
 * values. The GIL is released around push and resolve (they touch the
 * filesystem); the core session has its own lock.
 */
#include "module.h"

#define PG_SESSION(o) (((pg_session_object *)(o))->session)

/* --------------------------------------------------------- SessionState */

typedef struct {
    PyObject_HEAD PyObject *home;
    PyObject *cwd;
    PyObject *depth;
} pg_state_object;

static void state_dealloc(PyObject *op) {
    pg_state_object *self = (pg_state_object *)op;
    Py_CLEAR(self->home);
    Py_CLEAR(self->cwd);
    Py_CLEAR(self->depth);
    pg_free_instance(op);
}

static PyObject *state_get_home(PyObject *self, void *closure) {
    (void)closure;
    return Py_NewRef(((pg_state_object *)self)->home);
}
static PyObject *state_get_cwd(PyObject *self, void *closure) {
    (void)closure;
    return Py_NewRef(((pg_state_object *)self)->cwd);
}
static PyObject *state_get_depth(PyObject *self, void *closure) {
    (void)closure;
    return Py_NewRef(((pg_state_object *)self)->depth);
}

static PyObject *state_tuple(PyObject *op) {
    pg_state_object *self = (pg_state_object *)op;
    return PyTuple_Pack(3, self->home, self->cwd, self->depth);
}

static PyObject *state_repr(PyObject *op) {
    pg_state_object *self = (pg_state_object *)op;
    return PyUnicode_FromFormat("SessionState(home=%R, cwd=%R, depth=%R)", self->home, self->cwd,
                                self->depth);
}

static Py_hash_t state_hash(PyObject *self) {
    PyObject *t = state_tuple(self);
    if (t == NULL)
        return -1;
    Py_hash_t h = PyObject_Hash(t);
    Py_DECREF(t);
    return h;
}

static PyObject *state_richcompare(PyObject *self, PyObject *other, int op) {
    if ((op != Py_EQ && op != Py_NE) || !Py_IS_TYPE(other, Py_TYPE(self)))
        Py_RETURN_NOTIMPLEMENTED;
    PyObject *a = state_tuple(self);
    PyObject *b = a == NULL ? NULL : state_tuple(other);
    PyObject *r = b == NULL ? NULL : PyObject_RichCompare(a, b, op);
    Py_XDECREF(a);
    Py_XDECREF(b);
    return r;
}

static PyGetSetDef state_getset[] = {
    {"home", state_get_home, NULL, "The home root address (root:<key>).", NULL},
    {"cwd", state_get_cwd, NULL, "The working directory (top of the stack, or home).", NULL},
    {"depth", state_get_depth, NULL, "The number of pushed directories.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot state_slots[] = {
    {Py_tp_doc, "A consistent snapshot of a Session: home, cwd, depth."},
    {Py_tp_dealloc, state_dealloc},
    {Py_tp_repr, state_repr},
    {Py_tp_hash, state_hash},
    {Py_tp_richcompare, state_richcompare},
    {Py_tp_getset, state_getset},
    {0, NULL},
};

static PyType_Spec state_spec = {
    .name = "pathgate.SessionState",
    .basicsize = sizeof(pg_state_object),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_IMMUTABLETYPE | Py_TPFLAGS_DISALLOW_INSTANTIATION,
    .slots = state_slots,
};

/* -------------------------------------------------------------- Session */

static PyObject *session_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    static char *kwlist[] = {"resolver", "home", NULL};
    pg_state *st = pg_state_of_type(type);
    PyObject *resolver, *home_obj = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|O:Session", kwlist, &resolver, &home_obj))
        return NULL;
    if (!pg_is_resolver(st, resolver)) {
        PyErr_SetString(PyExc_TypeError, "resolver must be Resolver");
        return NULL;
    }
    const char *home = NULL;
    Py_ssize_t home_len = 0;
    PyObject *holder = NULL;
    if (home_obj != Py_None && pg_text(home_obj, &home, &home_len, &holder, "home") < 0)
        return NULL;
    pathgate_session *session = NULL;
    pathgate_error err = PATHGATE_ERROR_INIT;
    int rc = pathgate_session_new(&session, ((pg_resolver_object *)resolver)->resolver, home,
                                  (size_t)home_len, &err);
    Py_XDECREF(holder);
    if (rc < 0)
        return pg_raise(st, st->SessionError, rc, &err);
    pg_session_object *self = (pg_session_object *)PyType_GenericAlloc(type, 0);
    if (self == NULL) {
        pathgate_session_free(session);
        return NULL;
    }
    self->session = session;
    self->resolver = Py_NewRef(resolver);
    return (PyObject *)self;
}

static void session_dealloc(PyObject *op) {
    pg_session_object *self = (pg_session_object *)op;
    pathgate_session_free(self->session); /* before its resolver goes */
    Py_CLEAR(self->resolver);
    pg_free_instance(op);
}

static PyObject *session_message(pg_state *st, int rc, pathgate_buf *buf,
                                 const pathgate_error *err) {
    if (rc < 0) {
        pathgate_buf_dispose(buf);
        return pg_raise(st, st->SessionError, rc, err);
    }
    return pg_buf_to_native(buf);
}

static PyObject *session_pwd(PyObject *self, PyObject *unused) {
    (void)unused;
    pathgate_buf buf = PATHGATE_BUF_INIT;
    pathgate_error err = PATHGATE_ERROR_INIT;
    int rc = pathgate_session_pwd(&buf, PG_SESSION(self), &err);
    return session_message(pg_state_of(self), rc, &buf, &err);
}

static PyObject *session_cd(PyObject *self, PyObject *arg) {
    const char *text;
    Py_ssize_t len;
    PyObject *holder;
    if (pg_text(arg, &text, &len, &holder, "text") < 0)
        return NULL;
    pathgate_buf buf = PATHGATE_BUF_INIT;
    pathgate_error err = PATHGATE_ERROR_INIT;
    int rc = pathgate_session_cd(&buf, PG_SESSION(self), text, (size_t)len, &err);
    Py_XDECREF(holder);
    return session_message(pg_state_of(self), rc, &buf, &err);
}

static PyObject *session_push(PyObject *self, PyObject *arg) {
    const char *text;
    Py_ssize_t len;
    PyObject *holder;
    if (pg_host_text(arg, &text, &len, &holder, "text") < 0)
        return NULL;
    pathgate_buf buf = PATHGATE_BUF_INIT;
    pathgate_error err = PATHGATE_ERROR_INIT;
    int rc;
    pathgate_session *session = PG_SESSION(self);
    Py_BEGIN_ALLOW_THREADS
    rc = pathgate_session_push(&buf, session, text, (size_t)len, &err);
    Py_END_ALLOW_THREADS
    Py_XDECREF(holder);
    return session_message(pg_state_of(self), rc, &buf, &err);
}

static PyObject *session_pop(PyObject *self, PyObject *unused) {
    (void)unused;
    pathgate_buf buf = PATHGATE_BUF_INIT;
    pathgate_error err = PATHGATE_ERROR_INIT;
    int rc = pathgate_session_pop(&buf, PG_SESSION(self), &err);
    return session_message(pg_state_of(self), rc, &buf, &err);
}

static PyObject *session_get(PyObject *self, PyObject *unused) {
    (void)unused;
    pg_state *st = pg_state_of(self);
    pathgate_buf home = PATHGATE_BUF_INIT, cwd = PATHGATE_BUF_INIT;
    size_t depth = 0;
    pathgate_error err = PATHGATE_ERROR_INIT;
    int rc = pathgate_session_get(&home, &cwd, &depth, PG_SESSION(self), &err);
    if (rc < 0) {
        pathgate_buf_dispose(&home);
        pathgate_buf_dispose(&cwd);
        return pg_raise(st, st->SessionError, rc, &err);
    }
    pg_state_object *state =
        (pg_state_object *)PyType_GenericAlloc((PyTypeObject *)st->SessionStateType, 0);
    if (state == NULL) {
        pathgate_buf_dispose(&home);
        pathgate_buf_dispose(&cwd);
        return NULL;
    }
    state->home = pg_buf_to_native(&home);
    state->cwd = pg_buf_to_native(&cwd);
    state->depth = PyLong_FromSize_t(depth);
    if (state->home == NULL || state->cwd == NULL || state->depth == NULL) {
        Py_DECREF(state);
        return NULL;
    }
    return (PyObject *)state;
}

static PyObject *session_resolve(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                 PyObject *kwnames) {
    static const char *const names[] = {NULL, "require_exists"};
    pg_state *st = pg_state_of(self);
    PyObject *a[2];
    if (pg_bind("resolve", args, nargs, kwnames, names, 2, 1, 1, a) < 0)
        return NULL;
    int require_exists = 1;
    if (a[1] != NULL && (require_exists = PyObject_IsTrue(a[1])) < 0)
        return NULL;
    const char *text;
    Py_ssize_t len;
    PyObject *holder;
    if (pg_host_text(a[0], &text, &len, &holder, "text") < 0)
        return NULL;
    pathgate_resolution res = PATHGATE_RESOLUTION_INIT;
    pathgate_error err = PATHGATE_ERROR_INIT;
    int rc;
    pathgate_session *session = PG_SESSION(self);
    Py_BEGIN_ALLOW_THREADS
    rc = pathgate_session_resolve(&res, session, text, (size_t)len, require_exists, &err);
    Py_END_ALLOW_THREADS
    Py_XDECREF(holder);
    if (rc < 0)
        return pg_raise(st, st->Error, rc, &err);
    return pg_resolution_wrap_owned(st, &res, ((pg_session_object *)self)->resolver);
}

static PyObject *session_get_resolver(PyObject *self, void *closure) {
    (void)closure;
    return Py_NewRef(((pg_session_object *)self)->resolver);
}

static PyObject *session_repr(PyObject *self) {
    PyObject *state = session_get(self, NULL);
    if (state == NULL)
        return NULL;
    pg_state_object *s = (pg_state_object *)state;
    PyObject *r = PyUnicode_FromFormat("<pathgate.Session home=%R cwd=%R depth=%R>", s->home,
                                       s->cwd, s->depth);
    Py_DECREF(state);
    return r;
}

static PyGetSetDef session_getset[] = {
    {"resolver", session_get_resolver, NULL, "The Resolver this session belongs to.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMethodDef session_methods[] = {
    {"pwd", PG_METH(session_pwd), METH_NOARGS,
     "pwd($self, /)\n--\n\nThe working directory's canonical address."},
    {"cd", PG_METH(session_cd), METH_O,
     "cd($self, text, /)\n--\n\n"
     "Set the home root (root:<key> or <key>) and clear the stack; returns\n"
     "the new home. SessionError for an unknown key or a subdirectory."},
    {"push", PG_METH(session_push), METH_O,
     "push($self, text, /)\n--\n\n"
     "Enter an existing directory (relative text is relative to the cwd);\n"
     "returns the new cwd, or 'already in <address>'. SessionError on a\n"
     "refusal (the stack is then unchanged)."},
    {"pop", PG_METH(session_pop), METH_NOARGS,
     "pop($self, /)\n--\n\n"
     "Restore the previous cwd and return it; on an empty stack returns\n"
     "'Stack is empty, already at initial directory: <address>'."},
    {"get", PG_METH(session_get), METH_NOARGS,
     "get($self, /)\n--\n\nA SessionState snapshot (home, cwd, depth)."},
    {"resolve", PG_METH(session_resolve), METH_FASTCALL | METH_KEYWORDS,
     "resolve($self, text, /, *, require_exists=True)\n--\n\n"
     "Resolver.resolve with the session's cwd as base."},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot session_slots[] = {
    {Py_tp_doc, "Session(resolver, home=None)\n--\n\n"
                "A home root (default: the resolver's first root) and a stack of\n"
                "working directories, as canonical addresses. Never changes the\n"
                "process working directory."},
    {Py_tp_new, session_new},
    {Py_tp_dealloc, session_dealloc},
    {Py_tp_repr, session_repr},
    {Py_tp_getset, session_getset},
    {Py_tp_methods, session_methods},
    {0, NULL},
};

static PyType_Spec session_spec = {
    .name = "pathgate.Session",
    .basicsize = sizeof(pg_session_object),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_IMMUTABLETYPE,
    .slots = session_slots,
};

int pg_session_init(PyObject *module, pg_state *st) {
    st->SessionStateType = pg_add_type(module, &state_spec);
    if (st->SessionStateType == NULL)
        return -1;
    st->SessionType = pg_add_type(module, &session_spec);
    return st->SessionType == NULL ? -1 : 0;
}
