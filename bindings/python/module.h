/*
 * module.h - shared declarations of the CPython extension pathgate._core.
 *
 * Thin glue over libpathgate (docs/spec.md section 8): every file converts
 * arguments, calls one core function, converts the result and maps errors.
 *
 * Stable ABI: every source includes this header first, so Py_LIMITED_API is
 * defined once, here, before Python.h (3.11: the module is built as
 * *.abi3.so and runs on any CPython >= 3.11).
 *
 * Adding a source file (e.g. fs.c):
 *   1. write `int pg_fs_init(PyObject *module, pg_state *st)` that creates
 *      its types with PyType_FromModuleAndSpec, stores them in the state and
 *      adds them to the module (return 0, or -1 with an exception set);
 *   2. add `X(fs)` to PG_MODULE_PARTS below (and, if it keeps objects in
 *      the module state, their names to PG_STATE_OBJECTS).
 * The exec slot runs the parts in the order listed.
 */
#ifndef PATHGATE_PY_MODULE_H
#define PATHGATE_PY_MODULE_H

#ifndef PATHGATE_PY_FULL_API /* -DPATHGATE_PYTHON_ABI3=OFF, for measuring */
#define Py_LIMITED_API 0x030B0000
#endif
#define PY_SSIZE_T_CLEAN
#include <Python.h>

/* Under the 3.11 limited API Python.h includes none of these. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pathgate/pathgate.h"

#include "arg_spec.h"

/* The parts of the module, in initialisation order: X(name) calls
 * pg_<name>_init(module, state) from the exec slot. */
#define PG_MODULE_PARTS(X)                                                                         \
    X(errors)                                                                                      \
    X(uri)                                                                                         \
    X(legacy)                                                                                      \
    X(ref)                                                                                         \
    X(resolver)                                                                                    \
    X(session)                                                                                     \
    X(fs)                                                                                          \
    X(handle)                                                                                      \
    X(toolkit)                                                                                     \
    X(walk)                                                                                        \
    X(exec)                                                                                        \
    X(edit_tools)

/* Every strong reference the module state holds (traversed and cleared as
 * one array). */
#define PG_STATE_OBJECTS(X)                                                                        \
    X(Error)        /* pathgate.Error(ValueError) */                                               \
    X(PathError)    /* pathgate.PathError(Error) */                                                \
    X(SessionError) /* pathgate.SessionError(Error) */                                             \
    X(PathUriType)                                                                                 \
    X(LegacyType)                                                                                  \
    X(RefType)                                                                                     \
    X(ResolutionType)                                                                              \
    X(ResolverType)                                                                                \
    X(SessionType)                                                                                 \
    X(SessionStateType)                                                                            \
    X(str_posix)   /* "posix" */                                                                   \
    X(str_windows) /* "windows" */                                                                 \
    X(str_kind)    /* "kind" */                                                                    \
    X(str_code)    /* "code" */                                                                    \
    X(reasons)     /* tuple of reason names, indexed by pathgate_reason */                         \
    X(path_class)  /* pathlib.Path, imported on first use */

typedef struct pg_state {
#define PG_X_FIELD(name) PyObject *name;
    PG_STATE_OBJECTS(PG_X_FIELD)
#undef PG_X_FIELD
} pg_state;

#define PG_STATE_COUNT (sizeof(pg_state) / sizeof(PyObject *))

/* ----------------------------------------------------------- instances */

typedef struct {
    PyObject_HEAD pathgate_uri *uri;
    PyObject *str; /* the URI string, created on first use */
} pg_uri_object;

typedef struct {
    PyObject_HEAD pathgate_legacy *path;
    PyObject *text; /* the str the caller gave (str() returns it) */
} pg_legacy_object;

typedef struct {
    PyObject_HEAD pathgate_ref *ref;
    /* the Resolver whose resolve minted it (kept alive by it), or NULL (a
     * rebuilt ref): its token goes back there when the ref is freed */
    PyObject *owner;
} pg_ref_object;

typedef struct {
    PyObject_HEAD PyObject *ref; /* VisibilityRef or None */
    PyObject *root_category;     /* str or None */
    PyObject *mod_name;          /* str or None */
    PyObject *relative_path;     /* str or None */
    PyObject *exists;            /* bool, or None on failure */
    PyObject *error_message;     /* str or None */
    PyObject *reason;            /* str */
    int ok;
} pg_resolution_object;

typedef struct {
    PyObject_HEAD pathgate_resolver *resolver;
    struct pg_audit *audit; /* the audit callable (policy.h), or NULL */
    /* a subroot's: the Resolver or Session it was made from, whose audit
     * callable the subroot's events go to (kept alive as long as it) */
    PyObject *parent;
} pg_resolver_object;

typedef struct {
    PyObject_HEAD pathgate_session *session;
    PyObject *resolver; /* the Resolver, kept alive while the session is */
} pg_session_object;

/* ------------------------------------------------------------- parts */

#define PG_X_DECLARE(name) int pg_##name##_init(PyObject *module, pg_state *st);
PG_MODULE_PARTS(PG_X_DECLARE)
#undef PG_X_DECLARE

/* ----------------------------------------------------------- helpers */

/* The state of the module that defined `type` (a final heap type). */
static inline pg_state *pg_state_of_type(PyTypeObject *type) {
    return (pg_state *)PyType_GetModuleState(type);
}
static inline pg_state *pg_state_of(PyObject *self) {
    return pg_state_of_type(Py_TYPE(self));
}

/* Creates a final, immutable heap type from spec and adds it to module;
 * returns a new reference stored by the caller in the state. */
PyObject *pg_add_type(PyObject *module, PyType_Spec *spec);

/* Frees instance memory and drops the heap-type reference (tp_dealloc
 * epilogue for every type here). */
void pg_free_instance(PyObject *self);

/* Text argument for the core: a str becomes its UTF-8 bytes (lone
 * surrogates from os.fsdecode map back to their bytes, others to
 * ill-formed UTF-8 that the core rejects). *holder keeps what *text points
 * into (NULL or a bytes object: Py_XDECREF it). -1 with TypeError set when
 * obj is not a str. `what` names the argument in the message. */
int pg_text(PyObject *obj, const char **text, Py_ssize_t *len, PyObject **holder, const char *what);
/* Like pg_text, but also accepts bytes and os.PathLike (a host path). */
int pg_host_text(PyObject *obj, const char **text, Py_ssize_t *len, PyObject **holder,
                 const char *what);
/* Native text from the core -> str (os.fsdecode rule: a byte that is not
 * UTF-8 becomes a lone surrogate). */
PyObject *pg_native_str(const char *text, size_t len);
/* Consumes buf: str of its contents, or None when absent. */
PyObject *pg_buf_to_native(pathgate_buf *buf);
/* None -> NONE; "posix" / "windows" -> the convention; TypeError or
 * pathgate.Error otherwise. */
int pg_convention_arg(pg_state *st, PyObject *obj, pathgate_convention *out);
/* The convention as "posix" / "windows", or None. New reference. */
PyObject *pg_convention_obj(pg_state *st, pathgate_convention c);
/* pathlib.Path(str) for native text (consumes buf; None when absent). */
PyObject *pg_buf_to_path(pg_state *st, pathgate_buf *buf);

/* Raises `cls` (Error, PathError or SessionError) for a core error:
 * MemoryError for ENOMEM; otherwise cls(message) with .kind =
 * pathgate_errname(code) and .code = code. Returns NULL. */
PyObject *pg_raise(pg_state *st, PyObject *cls, int code, const pathgate_error *err);

/* Wraps a core URI in a new PathUri (takes ownership; frees it on
 * failure). */
PyObject *pg_uri_wrap(pg_state *st, pathgate_uri *uri);
/* Wraps a core ref in a new VisibilityRef (takes ownership). */
PyObject *pg_ref_wrap(pg_state *st, pathgate_ref *ref);
/* Builds a VisibilityResolution from a core resolution (disposes it). */
PyObject *pg_resolution_wrap(pg_state *st, pathgate_resolution *res);
/* The same, its ref owned by the Resolver `owner` (a pg_resolver_object):
 * the token is released when the ref is garbage-collected. */
PyObject *pg_resolution_wrap_owned(pg_state *st, pathgate_resolution *res, PyObject *owner);

static inline int pg_is_uri(pg_state *st, PyObject *obj) {
    return Py_IS_TYPE(obj, (PyTypeObject *)st->PathUriType);
}
static inline int pg_is_ref(pg_state *st, PyObject *obj) {
    return Py_IS_TYPE(obj, (PyTypeObject *)st->RefType);
}
static inline int pg_is_resolver(pg_state *st, PyObject *obj) {
    return Py_IS_TYPE(obj, (PyTypeObject *)st->ResolverType);
}

/* Binds the arguments of a METH_FASTCALL|METH_KEYWORDS call to the n
 * parameters described by names[]: names[i] NULL = positional-only; the
 * first `maxpos` may be given positionally, the rest only by keyword; the
 * first `required` must be given. out[i] receives a borrowed reference or
 * stays NULL. TypeError (naming fname) on any mismatch. */
int pg_bind(const char *fname, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
            const char *const *names, Py_ssize_t n, Py_ssize_t maxpos, Py_ssize_t required,
            PyObject **out);

/*
 * The argument holder of one wrapped call (args.c, ../arg_spec.h):
 * pg_args_parse checks the arguments of a fast call (the owner, a Resolver
 * or a Session, first and positional-only; then spec's arguments) and
 * converts them into h->a (0, or -1 with an exception and nothing held);
 * pg_args_release drops what h keeps for the core call. fname names the
 * function in messages.
 */
typedef struct pg_args {
    pg_argv a;
    PyObject *owner; /* borrowed */
    PyObject **keep;
    size_t nkeep, capkeep;
    Py_buffer *views;
    size_t nviews, capviews;
    void *mem[2 * PG_ARGS_MAX];
    size_t nmem;
} pg_args;
int pg_args_parse(pg_args *h, PyObject *module, const char *fname, pg_spec spec,
                  PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);
void pg_args_release(pg_args *h);

/* Casts a fast-call function for PyMethodDef. */
#define PG_METH(f) ((PyCFunction)(void (*)(void))(f))

#endif /* PATHGATE_PY_MODULE_H */
