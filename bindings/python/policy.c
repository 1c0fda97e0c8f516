/*
 * policy.c - the policy of a pathgate.Resolver (docs/policy.md): glue for
 * the constructor's deny_read / deny_write / presets / audit / audit_door,
 * Resolver.restrict, Resolver.policy_check and the audit callback. Every
 * decision is the core's (pathgate/policy.h).
 */
#include "policy.h"

/* ------------------------------------------------------- string lists */

/* The iterable of str obj as a NULL-ended C array (PyMem) of UTF-8
 * strings living in `keep`; *n its length. None/NULL is the empty list.
 * A str itself is refused (a pattern is not a list of patterns). */
static int str_list(PyObject *obj, const char *what, const char ***out, size_t *n, PyObject *keep) {
    *out = NULL;
    *n = 0;
    if (obj == NULL || obj == Py_None)
        return 0;
    if (PyUnicode_Check(obj) || PyBytes_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "%s must be an iterable of str, not a single str", what);
        return -1;
    }
    PyObject *seq = PySequence_List(obj);
    if (seq == NULL) {
        if (PyErr_ExceptionMatches(PyExc_TypeError)) {
            PyErr_Clear();
            PyErr_Format(PyExc_TypeError, "%s must be an iterable of str", what);
        }
        return -1;
    }
    int rc = PyList_Append(keep, seq);
    Py_DECREF(seq); /* kept alive by keep */
    if (rc < 0)
        return -1;
    Py_ssize_t count = PyList_Size(seq);
    *out = PyMem_Calloc((size_t)count + 1, sizeof **out);
    if (*out == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < count; i++) {
        const char *text;
        Py_ssize_t len;
        PyObject *holder;
        if (pg_text(PyList_GetItem(seq, i), &text, &len, &holder, what) < 0)
            return -1;
        if (holder != NULL) {
            rc = PyList_Append(keep, holder);
            Py_DECREF(holder);
            if (rc < 0)
                return -1;
        }
        if (memchr(text, '\0', (size_t)len) != NULL) {
            PyErr_Format(PyExc_ValueError, "%s: an entry must not contain a NUL character", what);
            return -1;
        }
        (*out)[i] = text;
    }
    *n = (size_t)count;
    return 0;
}

void pg_policy_options_free(pathgate_resolver_options *opts) {
    PyMem_Free((void *)opts->deny_read);
    PyMem_Free((void *)opts->deny_write);
    PyMem_Free((void *)opts->presets);
    opts->deny_read = opts->deny_write = opts->presets = NULL;
}

void pg_audit_free(pg_audit *a) {
    if (a == NULL)
        return;
    Py_XDECREF(a->fn);
    PyMem_Free(a);
}

int pg_policy_options(pathgate_resolver_options *opts, PyObject *deny_read, PyObject *deny_write,
                      PyObject *presets, PyObject *audit, PyObject *audit_door, pg_audit **out,
                      PyObject *keep) {
    *out = NULL;
    if (str_list(deny_read, "deny_read", (const char ***)&opts->deny_read, &opts->ndeny_read,
                 keep) < 0 ||
        str_list(deny_write, "deny_write", (const char ***)&opts->deny_write, &opts->ndeny_write,
                 keep) < 0 ||
        str_list(presets, "presets", (const char ***)&opts->presets, &opts->npresets, keep) < 0)
        return -1;
    opts->audit_door = "python";
    if (audit_door != NULL && audit_door != Py_None) {
        const char *door;
        Py_ssize_t len;
        PyObject *holder;
        if (pg_text(audit_door, &door, &len, &holder, "audit_door") < 0)
            return -1;
        if (holder != NULL) {
            int rc = PyList_Append(keep, holder);
            Py_DECREF(holder);
            if (rc < 0)
                return -1;
        }
        if (memchr(door, '\0', (size_t)len) != NULL) {
            PyErr_SetString(PyExc_ValueError, "audit_door must not contain a NUL character");
            return -1;
        }
        opts->audit_door = door;
    }
    if (audit != NULL && audit != Py_None) {
        if (!PyCallable_Check(audit)) {
            PyErr_SetString(PyExc_TypeError, "audit must be a callable taking one dict, or None");
            return -1;
        }
        pg_audit *a = PyMem_Calloc(1, sizeof *a);
        if (a == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        a->fn = Py_NewRef(audit);
        opts->audit = pg_audit_call;
        opts->audit_ctx = a;
        *out = a;
    }
    return 0;
}

/* -------------------------------------------------------------- audit */

static int set_str(PyObject *d, const char *key, const char *value) {
    PyObject *v = value ? PyUnicode_DecodeUTF8(value, (Py_ssize_t)strlen(value), "replace")
                        : Py_NewRef(Py_None);
    if (v == NULL)
        return -1;
    int rc = PyDict_SetItemString(d, key, v);
    Py_DECREF(v);
    return rc;
}

/* {"time": float, "door", "operation", "role", "address", "outcome",
 * "reason", "rule", "source", "count": int, "host_path", "ip"}, and for a
 * command "protections": int and (its end) "exit_status": int */
static PyObject *event_dict(const pathgate_audit_event *e) {
    PyObject *d = PyDict_New();
    if (d == NULL)
        return NULL;
    PyObject *t = PyFloat_FromDouble((double)e->time_sec + (double)e->time_nsec / 1e9);
    PyObject *c = PyLong_FromUnsignedLongLong((unsigned long long)e->count);
    int bad = t == NULL || c == NULL || PyDict_SetItemString(d, "time", t) < 0 ||
              set_str(d, "door", e->door) < 0 || set_str(d, "operation", e->operation) < 0 ||
              set_str(d, "role", e->role) < 0 || set_str(d, "address", e->address) < 0 ||
              set_str(d, "outcome", e->outcome) < 0 || set_str(d, "reason", e->reason) < 0 ||
              set_str(d, "rule", e->rule) < 0 || set_str(d, "source", e->source) < 0 ||
              PyDict_SetItemString(d, "count", c) < 0 || set_str(d, "ip", e->ip) < 0;
    /* the operator's host path, as a host path is decoded everywhere */
    if (!bad) {
        PyObject *h =
            e->host_path ? pg_native_str(e->host_path, strlen(e->host_path)) : Py_NewRef(Py_None);
        bad = h == NULL || PyDict_SetItemString(d, "host_path", h) < 0;
        Py_XDECREF(h);
    }
    /* a command's (operation "execute"): protections bits, exit status */
    if (!bad && e->version >= 2 && e->protections) {
        PyObject *p = PyLong_FromUnsignedLong(e->protections);
        bad = p == NULL || PyDict_SetItemString(d, "protections", p) < 0;
        Py_XDECREF(p);
    }
    if (!bad && e->version >= 2 && e->exit_status >= 0) {
        PyObject *x = PyLong_FromLong(e->exit_status);
        bad = x == NULL || PyDict_SetItemString(d, "exit_status", x) < 0;
        Py_XDECREF(x);
    }
    Py_XDECREF(t);
    Py_XDECREF(c);
    if (bad)
        Py_CLEAR(d);
    return d;
}

void pg_audit_call(const pathgate_audit_event *event, void *ctx) {
    pg_audit *a = ctx;
    /* the core calls back on the thread of the call, which released the
     * GIL around it (or holds it: Ensure nests) */
    PyGILState_STATE g = PyGILState_Ensure();
    if (a->fn == NULL) { /* cleared by the GC with its resolver */
        PyGILState_Release(g);
        return;
    }
    PyObject *d = event_dict(event);
    PyObject *r = d ? PyObject_CallFunctionObjArgs(a->fn, d, NULL) : NULL;
    if (r == NULL)
        PyErr_WriteUnraisable(a->fn);
    Py_XDECREF(r);
    Py_XDECREF(d);
    PyGILState_Release(g);
}

/* ------------------------------------------------------------ methods */

#define PG_RESOLVER_OF(o) (((pg_resolver_object *)(o))->resolver)

PyObject *pg_resolver_restrict(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                               PyObject *kwnames) {
    static const char *const names[] = {"deny_read", "deny_write", "presets", "source"};
    pg_state *st = pg_state_of(self);
    PyObject *a[4];
    if (pg_bind("restrict", args, nargs, kwnames, names, 4, 0, 0, a) < 0)
        return NULL;
    PyObject *keep = PyList_New(0);
    if (keep == NULL)
        return NULL;
    pathgate_resolver_options lists = PATHGATE_RESOLVER_OPTIONS_INIT;
    pathgate_policy_options p = PATHGATE_POLICY_OPTIONS_INIT;
    PyObject *result = NULL;
    if (str_list(a[0], "deny_read", (const char ***)&lists.deny_read, &lists.ndeny_read, keep) <
            0 ||
        str_list(a[1], "deny_write", (const char ***)&lists.deny_write, &lists.ndeny_write, keep) <
            0 ||
        str_list(a[2], "presets", (const char ***)&lists.presets, &lists.npresets, keep) < 0)
        goto done;
    if (a[3] != NULL && a[3] != Py_None) {
        Py_ssize_t len;
        PyObject *holder;
        if (pg_text(a[3], &p.source, &len, &holder, "source") < 0)
            goto done;
        if (holder != NULL) {
            int rc = PyList_Append(keep, holder);
            Py_DECREF(holder);
            if (rc < 0)
                goto done;
        }
        if (memchr(p.source, '\0', (size_t)len) != NULL) {
            PyErr_SetString(PyExc_ValueError, "source must not contain a NUL character");
            goto done;
        }
    }
    p.deny_read = lists.deny_read;
    p.ndeny_read = lists.ndeny_read;
    p.deny_write = lists.deny_write;
    p.ndeny_write = lists.ndeny_write;
    p.presets = lists.presets;
    p.npresets = lists.npresets;
    pathgate_error err = PATHGATE_ERROR_INIT;
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = pathgate_resolver_restrict(PG_RESOLVER_OF(self), &p, &err);
    Py_END_ALLOW_THREADS
    if (rc < 0)
        pg_raise(st, st->Error, rc, &err);
    else
        result = Py_NewRef(Py_None);
done:
    pg_policy_options_free(&lists);
    Py_DECREF(keep);
    return result;
}

PyObject *pg_resolver_policy_check(PyObject *self, PyObject *text_obj) {
    pg_state *st = pg_state_of(self);
    const char *text;
    Py_ssize_t len;
    PyObject *holder;
    if (pg_host_text(text_obj, &text, &len, &holder, "text") < 0)
        return NULL;
    pathgate_policy_verdict v;
    pathgate_error err = PATHGATE_ERROR_INIT;
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = pathgate_resolver_policy_check(&v, PG_RESOLVER_OF(self), text, (size_t)len, &err);
    Py_END_ALLOW_THREADS
    Py_XDECREF(holder);
    if (rc < 0)
        return pg_raise(st, st->Error, rc, &err);
    PyObject *d = PyDict_New();
    if (d == NULL)
        return NULL;
    const char *denied = (v.denied & PATHGATE_POLICY_DENY_READ)    ? "read"
                         : (v.denied & PATHGATE_POLICY_DENY_WRITE) ? "write"
                                                                   : NULL;
    if (set_str(d, "denied", denied) < 0 || set_str(d, "rule", v.rule) < 0 ||
        set_str(d, "source", v.source) < 0)
        Py_CLEAR(d);
    return d;
}

/* Resolver.policy_tracked(): the addresses of the paths git tracks that
 * the policy hides (pathgate_resolver_policy_tracked). */
static void tracked_add(void *ctx, const char *address) {
    PyObject *list = ctx;
    if (PyErr_Occurred())
        return;
    PyObject *s = PyUnicode_DecodeUTF8(address, (Py_ssize_t)strlen(address), "surrogateescape");
    if (s != NULL) {
        PyList_Append(list, s);
        Py_DECREF(s);
    }
}

PyObject *pg_resolver_policy_tracked(PyObject *self, PyObject *Py_UNUSED(ignored)) {
    pg_state *st = pg_state_of(self);
    PyObject *list = PyList_New(0);
    if (list == NULL)
        return NULL;
    pathgate_error err = PATHGATE_ERROR_INIT;
    long n = pathgate_resolver_policy_tracked(PG_RESOLVER_OF(self), tracked_add, list, &err);
    if (PyErr_Occurred()) {
        Py_DECREF(list);
        return NULL;
    }
    if (n < 0) {
        Py_DECREF(list);
        return pg_raise(st, st->Error, (int)n, &err);
    }
    return list;
}

/* The set-up warning: git tracks paths the new resolver hides. */
int pg_resolver_warn_tracked(PyObject *self) {
    PyObject *found = pg_resolver_policy_tracked(self, NULL);
    if (found == NULL)
        return -1;
    Py_ssize_t n = PyList_Size(found);
    int rc = 0;
    if (n > 0)
        rc = PyErr_WarnFormat(PyExc_UserWarning, 1,
                              "git tracks %zd path(s) the policy hides (first: %U): their content "
                              "is in the history, where the rule does not reach (docs/policy.md, "
                              "\"Secrets in git history\"; preset vcs-history)",
                              n, PyList_GetItem(found, 0));
    Py_DECREF(found);
    return rc;
}
