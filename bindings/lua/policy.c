/*
 * policy.c - the policy of a pathgate.Resolver (docs/policy.md), for Lua:
 *
 *   Resolver{..., deny_read = {pattern, ...}, deny_write = {...},
 *            presets = {"vcs", "secrets", "agent-config"},
 *            audit = function(event) end, audit_door = "lua"}
 *   r:restrict{deny_read = {...}, deny_write = {...}, presets = {...},
 *              source = "label"}                -> true | nil, msg, code
 *   r:policy_check(text) -> {denied = "read"|"write"|nil, rule =, source =}
 *                           | nil, msg, code
 *
 * The audit function gets one table per decision: time (seconds, float),
 * door, operation, role, address, outcome, reason, rule, source, count,
 * host_path and ip (the operator's: never show them to an agent). It runs on a
 * Lua thread of its own (made with the resolver), inside lua_pcall, so
 * whatever it does (an error, a yield) never crosses the core: an error is
 * reported with lua_warning and otherwise ignored. The core calls it on
 * the thread of the call being judged, which is this state's.
 */
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* ------------------------------------------------------------- lists */

/* The list at option `name` of the table at idx as an array (a userdata
 * pushed on the stack, kept by the caller) of strings that live in the
 * table. NULL when absent. Raises on misuse. */
static const char **option_list(lua_State *L, int idx, const char *name, size_t *count)
{
    *count = 0;
    int t = lua_getfield(L, idx, name);
    if (t == LUA_TNIL) {
        lua_pop(L, 1);
        lua_pushnil(L); /* keeps the stack shape */
        return NULL;
    }
    if (t != LUA_TTABLE)
        luaL_error(L, "option '%s' must be a list of strings", name);
    int list = lua_gettop(L);
    size_t n = (size_t)lua_rawlen(L, list);
    const char **items = (const char **)lua_newuserdatauv(L, (n ? n : 1) * sizeof *items, 0);
    for (size_t k = 0; k < n; k++) {
        lua_rawgeti(L, list, (lua_Integer)k + 1);
        size_t len;
        if (lua_type(L, -1) != LUA_TSTRING)
            luaL_error(L, "option '%s': entry %d is not a string", name, (int)k + 1);
        items[k] = lua_tolstring(L, -1, &len);
        if (memchr(items[k], '\0', len))
            luaL_error(L, "option '%s': entry %d holds a NUL byte", name, (int)k + 1);
        lua_pop(L, 1);
    }
    lua_remove(L, list); /* the strings live on in the option table */
    *count = n;
    return items;
}

/* -------------------------------------------------------------- audit */

static void set_string(lua_State *T, const char *key, const char *value)
{
    if (!value)
        return;
    lua_pushstring(T, value);
    lua_setfield(T, -2, key);
}

/* Runs in lua_pcall on the audit thread: (event, audit) as light
 * userdata. */
static int audit_body(lua_State *T)
{
    const pathgate_audit_event *e = lua_touserdata(T, 1);
    const struct pg_lua_audit *a = lua_touserdata(T, 2);
    lua_rawgeti(T, LUA_REGISTRYINDEX, a->fn_ref);
    lua_createtable(T, 0, 12);
    lua_pushnumber(T, (lua_Number)e->time_sec + (lua_Number)e->time_nsec / 1e9);
    lua_setfield(T, -2, "time");
    set_string(T, "door", e->door);
    set_string(T, "operation", e->operation);
    set_string(T, "role", e->role);
    set_string(T, "address", e->address);
    set_string(T, "outcome", e->outcome);
    set_string(T, "reason", e->reason);
    set_string(T, "rule", e->rule);
    set_string(T, "source", e->source);
    lua_pushinteger(T, (lua_Integer)e->count);
    lua_setfield(T, -2, "count");
    set_string(T, "host_path", e->host_path);
    set_string(T, "ip", e->ip);
    if (e->version >= 2 && e->protections) { /* a command's */
        lua_pushinteger(T, (lua_Integer)e->protections);
        lua_setfield(T, -2, "protections");
    }
    if (e->version >= 2 && e->exit_status >= 0) {
        lua_pushinteger(T, (lua_Integer)e->exit_status);
        lua_setfield(T, -2, "exit_status");
    }
    lua_call(T, 1, 0);
    return 0;
}

static void audit_call(const pathgate_audit_event *event, void *ctx)
{
    struct pg_lua_audit *a = ctx;
    lua_State *T = a->T;
    if (!T) /* not attached yet, or released */
        return;
    int top = lua_gettop(T);
    /* pushing a C function and two light userdata allocates nothing */
    lua_pushcfunction(T, audit_body);
    lua_pushlightuserdata(T, (void *)event);
    lua_pushlightuserdata(T, a);
    if (lua_pcall(T, 2, 0, 0) != LUA_OK) {
        const char *msg = lua_tostring(T, -1);
        lua_warning(T, "pathgate: the audit function failed: ", 1);
        lua_warning(T, msg ? msg : "(not a string)", 0);
    }
    lua_settop(T, top);
}

void pg_audit_prepare(lua_State *L, int idx, pathgate_resolver_options *opts, pg_resolver *r)
{
    opts->audit_door = "lua";
    int t = lua_getfield(L, idx, "audit_door");
    if (t == LUA_TSTRING) {
        size_t len;
        opts->audit_door = lua_tolstring(L, -1, &len);
        if (memchr(opts->audit_door, '\0', len))
            luaL_argerror(L, idx, "option 'audit_door' holds a NUL byte");
    } else if (t != LUA_TNIL) {
        luaL_argerror(L, idx, "option 'audit_door' must be a string");
    }
    lua_pop(L, 1); /* the string lives on in the option table */
    t = lua_getfield(L, idx, "audit");
    lua_pop(L, 1);
    if (t == LUA_TNIL)
        return;
    if (t != LUA_TFUNCTION)
        luaL_argerror(L, idx, "option 'audit' must be a function");
    r->audit.T = NULL;
    r->audit.fn_ref = r->audit.thread_ref = LUA_NOREF;
    opts->audit = audit_call;
    opts->audit_ctx = &r->audit;
}

void pg_audit_attach(lua_State *L, int idx, pg_resolver *r)
{
    if (lua_getfield(L, idx, "audit") != LUA_TFUNCTION) {
        lua_pop(L, 1);
        return;
    }
    r->audit.fn_ref = luaL_ref(L, LUA_REGISTRYINDEX); /* pops the function */
    lua_State *T = lua_newthread(L);
    r->audit.thread_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    r->audit.T = T;
}

void pg_audit_release(lua_State *L, pg_resolver *r)
{
    lua_State *S = r->audit.T ? r->audit.T : L;
    if (!S)
        return;
    luaL_unref(S, LUA_REGISTRYINDEX, r->audit.fn_ref);
    luaL_unref(S, LUA_REGISTRYINDEX, r->audit.thread_ref);
    r->audit.fn_ref = r->audit.thread_ref = LUA_NOREF;
    r->audit.T = NULL;
}

const char **pg_policy_list(lua_State *L, int idx, const char *name, size_t *count)
{
    return option_list(L, idx, name, count);
}

/* ------------------------------------------------------------ methods */

int pg_resolver_restrict(lua_State *L)
{
    pg_resolver *r = pg_checkresolver(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    lua_settop(L, 2);
    lua_pushnil(L);
    while (lua_next(L, 2)) {
        const char *k = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : NULL;
        if (!k || (strcmp(k, "deny_read") && strcmp(k, "deny_write") && strcmp(k, "presets") &&
                   strcmp(k, "source")))
            luaL_argerror(L, 2,
                          lua_pushfstring(L, "unknown option '%s'", k ? k : luaL_typename(L, -2)));
        lua_pop(L, 1);
    }
    pathgate_policy_options p = PATHGATE_POLICY_OPTIONS_INIT;
    p.deny_read = option_list(L, 2, "deny_read", &p.ndeny_read);    /* 3 */
    p.deny_write = option_list(L, 2, "deny_write", &p.ndeny_write); /* 4 */
    p.presets = option_list(L, 2, "presets", &p.npresets);          /* 5 */
    int t = lua_getfield(L, 2, "source");                           /* 6 */
    if (t == LUA_TSTRING) {
        size_t len;
        p.source = lua_tolstring(L, 6, &len);
        if (memchr(p.source, '\0', len))
            luaL_argerror(L, 2, "option 'source' holds a NUL byte");
    } else if (t != LUA_TNIL) {
        luaL_argerror(L, 2, "option 'source' must be a string");
    }
    pathgate_error err = {0, ""};
    int rc = pathgate_resolver_restrict(r->ptr, &p, &err);
    if (rc < 0)
        return pg_fail(L, rc, &err);
    lua_pushboolean(L, 1);
    return 1;
}

int pg_resolver_policy_check(lua_State *L)
{
    pg_resolver *r = pg_checkresolver(L, 1);
    size_t len;
    const char *text = pg_checktext(L, 2, &len);
    pathgate_policy_verdict v;
    pathgate_error err = {0, ""};
    int rc = pathgate_resolver_policy_check(&v, r->ptr, text, len, &err);
    if (rc < 0)
        return pg_fail(L, rc, &err);
    lua_createtable(L, 0, 3);
    set_string(L, "denied",
               (v.denied & PATHGATE_POLICY_DENY_READ)    ? "read"
               : (v.denied & PATHGATE_POLICY_DENY_WRITE) ? "write"
                                                         : NULL);
    set_string(L, "rule", v.rule);
    set_string(L, "source", v.source);
    return 1;
}

/* r:policy_tracked() -> {address, ...}: the paths git tracks that the
 * policy hides. The addresses are gathered in C first: nothing of Lua's
 * runs (or raises) inside the core. */
typedef struct tracked_buf {
    char *p;
    size_t len, cap;
    int failed;
} tracked_buf;

static void tracked_add(void *ctx, const char *address)
{
    tracked_buf *b = ctx;
    size_t n = strlen(address) + 1;
    if (b->failed)
        return;
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 1024;
        while (cap < b->len + n)
            cap *= 2;
        char *np = realloc(b->p, cap);
        if (!np) {
            b->failed = 1;
            return;
        }
        b->p = np;
        b->cap = cap;
    }
    memcpy(b->p + b->len, address, n);
    b->len += n;
}

int pg_resolver_policy_tracked(lua_State *L)
{
    pg_resolver *r = pg_checkresolver(L, 1);
    tracked_buf b = {NULL, 0, 0, 0};
    pathgate_error err = {0, ""};
    long n = pathgate_resolver_policy_tracked(r->ptr, tracked_add, &b, &err);
    if (n < 0 || b.failed) {
        free(b.p);
        return n < 0 ? pg_fail(L, (int)n, &err) : luaL_error(L, "out of memory");
    }
    lua_createtable(L, (int)(n > 0 ? n : 0), 0);
    lua_Integer i = 1;
    for (size_t at = 0; at < b.len; at += strlen(b.p + at) + 1) {
        lua_pushstring(L, b.p + at);
        lua_rawseti(L, -2, i++);
    }
    free(b.p);
    return 1;
}
