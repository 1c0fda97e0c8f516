/*
 * util.h - shared glue of the Lua 5.4 module "pathgate": argument checks,
 * the error convention, object boxes and the per-state scratch buffer.
 *
 * Conventions of the binding (docs/lua.md):
 *  - expected failures return `nil, message, code` (code = pathgate_errname);
 *  - misuse (wrong type, unknown option, a closed object) raises through
 *    luaL_argerror / luaL_typeerror;
 *  - PATHGATE_ENOMEM raises, as Lua itself does on memory exhaustion;
 *  - no C statics: everything per state lives in the Lua registry or in
 *    the upvalue shared by every function of the module (the scratch).
 */
#ifndef PATHGATE_LUA_UTIL_H
#define PATHGATE_LUA_UTIL_H

#include <lauxlib.h>
#include <lua.h>

#include "pathgate/pathgate.h"

#include "arg_spec.h"

/*
 * Argument errors that name the method: luaL_argerror says '?' when the
 * call carries no name (pcall(r.read, r, 5), a tail call, a call from C);
 * these find the running function in the module's tables instead
 * ("bad argument #2 to 'read'"). The macros route every use in the
 * binding (luaL_argcheck and luaL_argexpected included) through them.
 */
int pg_argerror(lua_State *L, int arg, const char *extramsg);
int pg_typeerror(lua_State *L, int arg, const char *tname);
void pg_checktype(lua_State *L, int arg, int t);
lua_Integer pg_checkinteger(lua_State *L, int arg);
lua_Integer pg_optinteger(lua_State *L, int arg, lua_Integer def);
#define luaL_argerror pg_argerror
#define luaL_typeerror pg_typeerror
#define luaL_checktype pg_checktype
#define luaL_checkinteger pg_checkinteger
#define luaL_optinteger pg_optinteger

/* Metatable names (also the __name shown by luaL_typeerror). */
#define PG_URI_MT "pathgate.PathUri"
#define PG_LEGACY_MT "pathgate.LegacyAppPathString"
#define PG_REF_MT "pathgate.VisibilityRef"
#define PG_RESOLUTION_MT "pathgate.VisibilityResolution"
#define PG_RESOLVER_MT "pathgate.Resolver"
#define PG_SESSION_MT "pathgate.Session"
#define PG_BUFPAIR_MT "pathgate.bufpair"
#define PG_SCRATCH_MT "pathgate.scratch"

/* The classes of userdata; their metatables are found through the scratch
 * (below) rather than by name in the registry, which keeps the type check
 * of every call to a pointer comparison. */
typedef enum pg_class {
    PG_URI,
    PG_LEGACY,
    PG_REF,
    PG_RESOLUTION,
    PG_RESOLVER,
    PG_SESSION,
    PG_BUFPAIR,
    PG_NCLASSES
} pg_class;

/* Metatable name of each class (index: pg_class). */
extern const char *const pg_class_name[PG_NCLASSES];

/* Every object is a full userdata starting with its core pointer;
 * NULL once closed (by __close, __gc or :close()). */
typedef struct pg_box {
    void *ptr;
} pg_box;

/*
 * Per-state scratch, the upvalue of every function of the module: a buffer
 * a core call fills and the binding copies into a Lua string at once. If
 * that copy raises (memory), the buffer stays here and is freed by the next
 * use or when the state closes, so nothing leaks. lua_pushlstring copies
 * before any GC step can run a finalizer, so a finalizer re-entering the
 * module cannot clobber a buffer still being read.
 */
typedef struct pg_scratch {
    pathgate_buf buf;
    /* Identity of each class's metatable in this state; the metatables
     * themselves are the scratch's user values 1..PG_NCLASSES. */
    const void *mt[PG_NCLASSES];
} pg_scratch;

static inline pg_scratch *pg_scratch_get(lua_State *L)
{
    return (pg_scratch *)lua_touserdata(L, lua_upvalueindex(1));
}

/* A strict string argument (numbers are not converted): raises otherwise. */
const char *pg_checktext(lua_State *L, int arg, size_t *len);

/* A convention argument: "posix", "windows", or nil/none (when optional)
 * for PATHGATE_CONVENTION_NONE. Anything else raises. */
pathgate_convention pg_optconvention(lua_State *L, int arg);
pathgate_convention pg_checkconvention(lua_State *L, int arg);

/* Pushes a convention name or nil. */
void pg_pushconvention(lua_State *L, pathgate_convention convention);

/* The userdata at arg when it is of class cls, else NULL. */
void *pg_testudata(lua_State *L, int arg, pg_class cls);
/* The same, raising luaL_typeerror's "pathgate.X expected, got Y". */
void *pg_checkudata(lua_State *L, int arg, pg_class cls);
/* The open object's core pointer at arg; raises on a wrong type and on a
 * closed object ("attempt to use a closed pathgate.X"). */
void *pg_checkobj(lua_State *L, int arg, pg_class cls);

/* Pushes a new userdata box of `size` bytes (zeroed, nuv user values) and
 * then its metatable, so that a core constructor can fill box->ptr and
 * pg_commit() attach the metatable without allocating anything in between
 * (a raise can never leak the core object). */
pg_box *pg_newbox(lua_State *L, size_t size, int nuv, pg_class cls);
/* Pushes the metatable of cls. */
void pg_pushmetatable(lua_State *L, pg_class cls);
/* After pg_newbox: on rc == 0 attaches the metatable (box on top, return
 * 1); otherwise drops box and metatable and returns pg_fail(). */
int pg_commit(lua_State *L, int rc, const pathgate_error *err);

/* Failure convention: raises on PATHGATE_ENOMEM, otherwise pushes nil,
 * message (err's, or pathgate_strerror) and pathgate_errname(rc); returns 3. */
int pg_fail(lua_State *L, int rc, const pathgate_error *err);

/* Pushes the scratch buffer's string (nil when absent) and disposes it. */
void pg_pushbuf(lua_State *L, pathgate_buf *buf);

/* Result of a core call filling the scratch buffer: string (or nil when
 * absent) and 1, or pg_fail(). */
int pg_bufresult(lua_State *L, int rc, pathgate_buf *buf, const pathgate_error *err);

/* __tostring of a closed object: "<name> (closed)"; returns 1. */
int pg_pushclosed(lua_State *L, pg_class cls);

/* Shared __gc/__close helper: runs fn(box->ptr) once and clears it. */
void pg_closebox(lua_State *L, int arg, pg_class cls, void (*fn)(void *));

/* Creates the metatable of cls with the given metamethods and an __index
 * table of methods, every function getting the scratch (at scratch_idx) as
 * its upvalue, and records it in the scratch. Leaves the stack unchanged. */
void pg_newclass(lua_State *L, int scratch_idx, pg_class cls, const luaL_Reg *meta,
                 const luaL_Reg *methods);

/* Builds the class table module[name] holding `statics` (upvalue: the
 * scratch), callable through `call` when not NULL. */
void pg_newclasstable(lua_State *L, int module_idx, int scratch_idx, const char *name,
                      const luaL_Reg *statics, lua_CFunction call);

/*
 * The parts of the module (one source file each), in the order
 * luaopen_pathgate opens them: X(name) calls pg_open_<name>(L, module_idx,
 * scratch_idx). fs and exec come after resolver and session, whose
 * classes they add methods to. Adding a part: write its pg_open_<name>
 * and list it here.
 */
#define PG_MODULE_PARTS(X)                                                                         \
    X(uri)                                                                                         \
    X(legacy)                                                                                      \
    X(ref)                                                                                         \
    X(resolver)                                                                                    \
    X(session)                                                                                     \
    X(fs)                                                                                          \
    X(handle)                                                                                      \
    X(walk)                                                                                        \
    X(toolkit)                                                                                     \
    X(exec)                                                                                        \
    X(edit_tools)
#define PG_X_DECLARE(name) void pg_open_##name(lua_State *L, int module_idx, int scratch_idx);
PG_MODULE_PARTS(PG_X_DECLARE)
#undef PG_X_DECLARE

/* Checks the arguments of a method (self: a Resolver or a Session, at 1)
 * against spec and converts them into a (args.c, ../arg_spec.h); raises on
 * misuse. */
void pg_args_check(lua_State *L, pg_argv *a, pg_spec spec);
/* The owner (self at 1) only, into a emptied: for methods that check their
 * other arguments themselves (handle.c, walk.c, toolkit.c). */
void pg_args_owner(lua_State *L, pg_argv *a);

/* Shared by the parts. */
pathgate_uri *pg_checkuri(lua_State *L, int arg);
/* Pushes a new PathUri box for a core call to fill (see pg_newbox). */
pg_box *pg_newuri(lua_State *L);
pathgate_ref *pg_checkref(lua_State *L, int arg);
/* Takes ownership of ref (never NULL) into a new VisibilityRef; on a raise
 * the caller still owns it, so call it only while ref is owned elsewhere. */
void pg_pushref_from(lua_State *L, pathgate_ref **ref);
/* Closes the VisibilityRef at idx: its token goes back to the resolver
 * that minted it (when that one is still open), then the ref is freed. */
void pg_ref_close_at(lua_State *L, int idx);

/*
 * Resolutions (resolver.c). A resolution record owns no C memory: on
 * success it holds its VisibilityRef and Lua strings, so it needs no
 * finalizer and never points into a resolver or a ref that may be gone.
 *   pg_resolution_begin(L) pushes the (still empty) ref and record boxes,
 *   then a core resolve fills a local pathgate_resolution, and
 *   pg_resolution_finish() moves its ref into the ref box, copies the
 *   strings, disposes it and leaves the record on top (or returns
 *   pg_fail() when rc < 0). Nothing can raise while the core resolution
 *   still owns memory, so nothing leaks.
 */
void pg_resolution_begin(lua_State *L);
int pg_resolution_finish(lua_State *L, int rc, pathgate_resolution *res, const pathgate_error *err);
/* The same, the ref remembering the resolver box at owner (an absolute
 * index): its __gc and __close give the token back (ref.c). */
int pg_resolution_finish_owned(lua_State *L, int rc, pathgate_resolution *res,
                               const pathgate_error *err, int owner);
/* Parses an options table of resolve(): require_exists (boolean) and,
 * when allow_base, base (string or VisibilityRef). Raises on misuse. */
void pg_resolve_options(lua_State *L, int arg, pathgate_resolve_options *opts, int allow_base);

/* Resolver boxes (resolver.c), shared with session.c. */
typedef struct pg_resolver {
    pathgate_resolver *ptr;
    int closed;      /* closed from Lua: methods raise */
    size_t sessions; /* live sessions using ptr: freed when 0 and closed */
    /* the audit function (policy.c): the core's audit_ctx, so it lives in
     * the box, which outlives the core resolver */
    struct pg_lua_audit {
        lua_State *T; /* the thread the function runs on */
        int fn_ref;   /* registry refs of the function and of T */
        int thread_ref;
    } audit;
} pg_resolver;
pg_resolver *pg_checkresolver(lua_State *L, int arg);
/* Frees the core resolver when it is closed and no session uses it. */
void pg_resolver_release_core(pg_resolver *r);

/* The policy (policy.c). Before the core resolver is made: the lists of
 * option `name` of the table at idx (an array pushed on the stack; NULL and
 * nil when absent), then the audit options into opts (nothing pushed);
 * after: the audit function attached to the box; and released with the
 * core resolver. */
const char **pg_policy_list(lua_State *L, int idx, const char *name, size_t *count);
void pg_audit_prepare(lua_State *L, int idx, pathgate_resolver_options *opts, pg_resolver *r);
void pg_audit_attach(lua_State *L, int idx, pg_resolver *r);
void pg_audit_release(lua_State *L, pg_resolver *r);
int pg_resolver_restrict(lua_State *L);
int pg_resolver_policy_check(lua_State *L);
int pg_resolver_policy_tracked(lua_State *L);

/* The kinds of ../result_fields.h as Lua values (util.c), and the field
 * setter its descriptions expand with: the field is set on the table at
 * the top of the stack when present (absent = nil). */
void pg_push_STR(lua_State *L, const char *s, size_t len);
void pg_push_CSTR(lua_State *L, const char *s, size_t unused);
void pg_push_BOOL(lua_State *L, int v, size_t unused);
void pg_push_INT(lua_State *L, int v, size_t unused);
void pg_push_UINT(lua_State *L, uint64_t v, size_t unused);
#define PG_LUA_FIELD(name, kind, value, aux, present)                                              \
    if (present) {                                                                                 \
        pg_push_##kind(L, value, aux);                                                             \
        lua_setfield(L, -2, #name);                                                                \
    }

#endif
