/*
 * policy.h - the policy of a pathgate.Resolver (docs/policy.md): the
 * deny_read / deny_write / presets / audit / audit_door arguments of the
 * constructor, Resolver.restrict and Resolver.policy_check, and the audit
 * callback that calls the Python callable with a dict. policy.c.
 */
#ifndef PATHGATE_PY_POLICY_H
#define PATHGATE_PY_POLICY_H

#include "module.h"

/* What the Resolver holds for its audit callable (the core's audit_ctx):
 * freed after the core resolver, so that no event outlives it. */
typedef struct pg_audit {
    PyObject *fn; /* strong */
} pg_audit;

/* Fills the policy fields of opts (version 3) from the constructor's
 * arguments (each may be NULL or None); the strings live in `keep` and in
 * arrays freed by pg_policy_options_free. *audit gets a new pg_audit when
 * `audit` is a callable. -1 with an exception set. */
int pg_policy_options(pathgate_resolver_options *opts, PyObject *deny_read, PyObject *deny_write,
                      PyObject *presets, PyObject *audit, PyObject *audit_door, pg_audit **out,
                      PyObject *keep);
void pg_policy_options_free(pathgate_resolver_options *opts);
void pg_audit_free(pg_audit *a);

/* The core's audit callback: calls a->fn(dict) with the GIL held; an
 * exception it raises goes to sys.unraisablehook. */
void pg_audit_call(const pathgate_audit_event *event, void *ctx);

/* Resolver.restrict(*, deny_read=None, deny_write=None, presets=None,
 * source=None) and Resolver.policy_check(text). */
PyObject *pg_resolver_restrict(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                               PyObject *kwnames);
PyObject *pg_resolver_policy_check(PyObject *self, PyObject *text);
/* Resolver.policy_tracked(), and the warning a new resolver gives. */
PyObject *pg_resolver_policy_tracked(PyObject *self, PyObject *unused);
int pg_resolver_warn_tracked(PyObject *self);

#define PG_POLICY_METHODS                                                                          \
    {"restrict", PG_METH(pg_resolver_restrict), METH_FASTCALL | METH_KEYWORDS,                     \
     "restrict($self, /, *, deny_read=None, deny_write=None, presets=None, source=None)\n--\n\n"   \
     "Add rules to this resolver's policy (docs/policy.md): they only ever\n"                      \
     "tighten it, for every user of the resolver, at once. source labels\n"                        \
     "them in audit events (default 'restrict'). Raises pathgate.Error\n"                          \
     "(kind 'invalid_config') for a bad pattern, preset or base, adding\n"                         \
     "nothing."},                                                                                  \
        {"policy_check", PG_METH(pg_resolver_policy_check), METH_O,                                \
         "policy_check($self, text, /)\n--\n\n"                                                    \
         "What the policy says about an address (any spelling; a symlink is\n"                     \
         "judged by where it leads too): a dict with 'denied' (None, 'read':\n"                    \
         "hidden and unwritable, or 'write': read-only), 'rule' and 'source'.\n"                   \
         "Raises pathgate.Error (kind 'invalid_path') for text naming no\n"                        \
         "address. Not an audit event."},                                                          \
        {"policy_tracked", PG_METH(pg_resolver_policy_tracked), METH_NOARGS,                       \
         "policy_tracked($self, /)\n--\n\n"                                                        \
         "The addresses of the paths git tracks (the index of the repository\n"                    \
         "at the top of each base) that the policy hides: their content is in\n"                   \
         "the history (docs/policy.md, 'Secrets in git history'). Each is an\n"                    \
         "audit event (operation 'git_index', outcome 'tracked')."},

#endif
