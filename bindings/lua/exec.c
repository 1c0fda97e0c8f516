/*
 * exec.c - contained command execution (docs/spec.md section 7b; docs/exec.md) as methods of
 * Resolver and Session:
 *
 *   r:execute(command [, opts])  -> {output=, exit_code=, truncated=,
 *   s:execute(command [, opts])      timed_out=, landlock_abi=,
 *                                    protections={name=true, ...},
 *                                    quarantined={address, ...}}
 *                                   | nil, message, code
 *   opts: cwd (canonical address; default the first root, or the session's
 *         cwd), timeout (seconds > 0; default 120), output_cap (bytes > 0;
 *         default 100000), allow_network, allow_unconfined (booleans),
 *         env (table KEY = "value", merged over the defaults),
 *         max_processes, max_memory, max_cpu_seconds, max_file_size,
 *         tmp_size (integers > 0; default: docs/exec.md), home (a
 *         canonical address of a directory in a writable base; default a
 *         private home), allow_domains (a sequence of host patterns: the
 *         network allowlist, docs/exec.md "Network"), toolchains (a
 *         sequence of host directories shown read-only, docs/exec.md
 *         "Toolchains of the host"), toolchains_at_host_path (boolean),
 *         id_range ("none" or {first, count}: the host ids a root caller's
 *         command's ids 1.. map to, docs/exec.md "Ownership changes
 *         inside"; default root's /etc/subuid entry, else a dedicated range;
 *         a caller other than root: its own subordinate ids),
 *         _test_no_landlock, _test_no_namespaces, _test_no_idmap (booleans) and
 *         _test_abi_cap (integer >= 0), for tests only.
 *   pathgate.exec_protections -> { name, ... } (every protection name, in
 *         the order of their bits: ../result_fields.h)
 *
 * The call is synchronous for its own state and shares nothing with other
 * states: everything it needs lives on this state's stack or in the core.
 */
#include <string.h>

#include "exec_opts.h"
#include "result_fields.h"
#include "util.h"

/* id_range: "none" or {first, count} (count >= 2): the value on top. */
static void opt_id_range(lua_State *L, int tbl, pathgate_exec_options *o)
{
    const char *msg = "option 'id_range' must be \"none\" or {first, count} (count >= 2)";
    if (lua_type(L, -1) == LUA_TSTRING) {
        if (strcmp(lua_tostring(L, -1), "none") != 0)
            luaL_argerror(L, tbl, msg);
        o->id_range_first = 0;
        o->id_range_count = 1;
        return;
    }
    if (lua_type(L, -1) != LUA_TTABLE || lua_rawlen(L, -1) != 2)
        luaL_argerror(L, tbl, msg);
    lua_Integer v[2];
    for (int i = 0; i < 2; i++) {
        int isnum = 0;
        lua_rawgeti(L, -1 - i, i + 1);
        v[i] = lua_tointegerx(L, -1, &isnum);
        if (!isnum)
            luaL_argerror(L, tbl, msg);
    }
    lua_pop(L, 2);
    if (v[0] < 0 || v[0] > 0xFFFFFFFELL || v[1] < 2 || v[1] > 0xFFFFFFFFLL)
        luaL_argerror(L, tbl, msg);
    o->id_range_first = (unsigned int)v[0];
    o->id_range_count = (unsigned int)v[1];
}

static unsigned long long optlimit(lua_State *L, int tbl, const char *k, unsigned long long max)
{
    int isnum = 0;
    lua_Integer v = lua_tointegerx(L, -1, &isnum);
    if (!isnum || v <= 0 || (unsigned long long)v > max)
        luaL_argerror(L, tbl, lua_pushfstring(L, "option '%s' must be an integer > 0", k));
    return (unsigned long long)v;
}

static int optbool(lua_State *L, int tbl, const char *k)
{
    if (!lua_isboolean(L, -1))
        luaL_argerror(
            L, tbl,
            lua_pushfstring(L, "option '%s' must be a boolean, got %s", k, luaL_typename(L, -1)));
    return lua_toboolean(L, -1);
}

/* "KEY=VALUE" strings for the env table at `tbl`, pushed on the stack,
 * then a userdata holding the NULL-terminated array of pointers to them
 * (on top). Everything stays on the stack for the whole call. */
static const char *const *push_env(lua_State *L, int opts_idx, int tbl)
{
    int first = lua_gettop(L) + 1, n = 0;
    lua_pushnil(L);
    while (lua_next(L, tbl)) {
        size_t klen = 0, vlen = 0;
        const char *k = lua_type(L, -2) == LUA_TSTRING ? lua_tolstring(L, -2, &klen) : NULL;
        const char *v = lua_type(L, -1) == LUA_TSTRING ? lua_tolstring(L, -1, &vlen) : NULL;
        if (!k || !v || klen == 0 || strlen(k) != klen || strlen(v) != vlen || strchr(k, '='))
            luaL_argerror(L, opts_idx,
                          "option 'env' must map names (no '=' or NUL) to strings (no NUL)");
        lua_pop(L, 1);
        luaL_checkstack(L, 2, "too many environment entries");
        lua_pushfstring(L, "%s=%s", k, v);
        lua_insert(L, -2); /* keep the key on top for lua_next */
        n++;
    }
    const char **arr = (const char **)lua_newuserdatauv(L, sizeof(char *) * ((size_t)n + 1), 0);
    for (int i = 0; i < n; i++)
        arr[i] = lua_tostring(L, first + i);
    arr[n] = NULL;
    return arr;
}

/* allow_domains, toolchains: the sequence at idx (strings, no NUL) as a
 * NULL-terminated array in a userdata pushed on the stack (the strings
 * stay alive in the sequence, itself in the options table). */
static const char **push_strings(lua_State *L, int opts_idx, int idx, const char *what)
{
    lua_Integer n = luaL_len(L, idx);
    if (n < 0 || n > 100000)
        luaL_argerror(L, opts_idx, lua_pushfstring(L, "option '%s' is too long", what));
    const char **arr = (const char **)lua_newuserdatauv(L, sizeof(char *) * ((size_t)n + 1), 0);
    for (lua_Integer i = 1; i <= n; i++) {
        size_t len;
        if (lua_rawgeti(L, idx, i) != LUA_TSTRING)
            luaL_argerror(L, opts_idx,
                          lua_pushfstring(L, "option '%s' must be a sequence of strings", what));
        const char *s = lua_tolstring(L, -1, &len);
        if (strlen(s) != len)
            luaL_argerror(L, opts_idx, lua_pushfstring(L, "option '%s' holds a NUL byte", what));
        arr[i - 1] = s;
        lua_pop(L, 1);
    }
    arr[n] = NULL;
    return arr;
}

/* Reads the options table at `arg` into *o, each key by its entry of
 * ../exec_opts.h (the table Python's _execute reads too). Raises on misuse. May push
 * values (the env strings) that must stay on the stack during the call. */
static void exec_options(lua_State *L, int arg, pathgate_exec_options *o)
{
    pathgate_exec_options init = PATHGATE_EXEC_OPTIONS_INIT;
    *o = init;
    if (lua_isnoneornil(L, arg))
        return;
    luaL_checktype(L, arg, LUA_TTABLE);
    arg = lua_absindex(L, arg);
    int has_env = 0, has_domains = 0, has_tools = 0;
    lua_pushnil(L);
    while (lua_next(L, arg)) {
        size_t klen = 0;
        const char *k = lua_type(L, -2) == LUA_TSTRING ? lua_tolstring(L, -2, &klen) : NULL;
        int id = k ? pg_exec_opt_find(k, klen) : -1;
        if (id < 0)
            luaL_argerror(L, arg,
                          lua_pushfstring(L, "unknown option '%s'", k ? k : luaL_typename(L, -2)));
        const pg_exec_opt *x = &pg_exec_opts[id];
        switch (x->kind) {
        case PG_XO_TEXT: {
            size_t len;
            if (lua_type(L, -1) != LUA_TSTRING)
                luaL_argerror(L, arg, lua_pushfstring(L, "option '%s' must be a string", k));
            const char *v = lua_tolstring(L, -1, &len); /* alive in the table */
            pg_exec_opt_set_text(o, (pg_exec_opt_id)id, v, len);
            break;
        }
        case PG_XO_SECONDS: {
            int isnum = 0;
            lua_Number t = lua_tonumberx(L, -1, &isnum);
            if (!isnum || !(t > 0) || t > PG_XO_SECONDS_MAX)
                luaL_argerror(L, arg,
                              lua_pushfstring(L, "option '%s' must be a number of seconds > 0", k));
            pg_exec_opt_set_seconds(o, (double)t);
            break;
        }
        case PG_XO_CAP: {
            int isnum = 0;
            lua_Integer cap = lua_tointegerx(L, -1, &isnum);
            if (!isnum || cap <= 0)
                luaL_argerror(L, arg, lua_pushfstring(L, "option '%s' must be an integer > 0", k));
            pg_exec_opt_set_num(o, (pg_exec_opt_id)id, (unsigned long long)cap);
            break;
        }
        case PG_XO_BOOL:
        case PG_XO_FLAG:
            pg_exec_opt_set_num(o, (pg_exec_opt_id)id, (unsigned long long)optbool(L, arg, k));
            break;
        case PG_XO_LIMIT:
            pg_exec_opt_set_num(o, (pg_exec_opt_id)id, optlimit(L, arg, k, x->arg));
            break;
        case PG_XO_ABI_CAP: {
            int isnum = 0;
            lua_Integer v = lua_tointegerx(L, -1, &isnum);
            if (!isnum || v < 0 || (unsigned long long)v > x->arg)
                luaL_argerror(
                    L, arg,
                    lua_pushfstring(L, "option '%s' must be an integer 0..%d", k, (int)x->arg));
            pg_exec_opt_set_num(o, (pg_exec_opt_id)id, (unsigned long long)v);
            break;
        }
        case PG_XO_ENV:
            if (lua_type(L, -1) != LUA_TTABLE)
                luaL_argerror(L, arg, lua_pushfstring(L, "option '%s' must be a table", k));
            has_env = 1;
            break;
            break;
        case PG_XO_LIST:
            if (lua_type(L, -1) != LUA_TTABLE)
                luaL_argerror(L, arg,
                              lua_pushfstring(L, "option '%s' must be a sequence of strings", k));
            if (id == PG_XO_allow_domains)
                has_domains = 1;
            else
                has_tools = 1;
            break;
        case PG_XO_ID_RANGE:
            opt_id_range(L, arg, o);
            break;
        }
        lua_pop(L, 1);
    }
    if (has_env) {
        lua_getfield(L, arg, "env");
        o->env = push_env(L, arg, lua_gettop(L));
    }
    if (has_domains) {
        lua_getfield(L, arg, "allow_domains");
        o->allow_domains = push_strings(L, arg, lua_gettop(L), "allow_domains");
    }
    if (has_tools) {
        lua_getfield(L, arg, "toolchains");
        o->toolchains = push_strings(L, arg, lua_gettop(L), "toolchains");
    }
}

static void push_protections(lua_State *L, unsigned int bits);

/* Pushes the result table; the output moves through the scratch buffer so
 * that a raise while copying it leaks nothing. */
static int push_result(lua_State *L, int rc, pathgate_exec_result *res, const pathgate_error *err)
{
    if (rc != 0)
        return pg_fail(L, rc, err);
    pathgate_buf *buf = &pg_scratch_get(L)->buf;
    pathgate_buf_dispose(buf);
    *buf = res->output;
    pathgate_buf none = PATHGATE_BUF_INIT;
    res->output = none;
    /* the fields of result_fields.h, the output read from the scratch */
    pathgate_exec_result view = *res;
    view.output = *buf;
    const pathgate_exec_result *e = &view;
    lua_createtable(L, 0, PG_FIELD_COUNT(PG_EXEC_FIELDS));
    PG_EXEC_FIELDS(PG_LUA_FIELD, e)
    pathgate_buf_dispose(buf);
    push_protections(L, res->protections);
    lua_setfield(L, -2, "protections");
    /* the addresses of links it planted at protected names, quarantined
     * when it ended (docs/exec.md "Planted links") */
    lua_createtable(L, (int)res->nquarantined, 0);
    const char *q = res->quarantined.ptr;
    for (size_t i = 0; q && i < res->nquarantined; i++) {
        size_t n = strlen(q);
        lua_pushlstring(L, q, n);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
        q += n + 1;
    }
    lua_setfield(L, -2, "quarantined");
    return 1;
}

/* {name = true, ...} of the PATHGATE_EXEC_PROT_* bits in bits (names from
 * ../result_fields.h). */
static void push_protections(lua_State *L, unsigned int bits)
{
    lua_createtable(L, 0, 8);
    for (size_t i = 0; i < PG_PROTECTION_COUNT; i++) {
        if (bits & pg_protections[i].bit) {
            lua_pushboolean(L, 1);
            lua_setfield(L, -2, pg_protections[i].name);
        }
    }
}

/* pathgate.exec_capabilities(): what this build's commands can get, as
 * protections names ({} when it has no commands). */
static int module_exec_capabilities(lua_State *L)
{
    push_protections(L, pathgate_exec_capabilities());
    return 1;
}

static int resolver_execute(lua_State *L)
{
    pg_resolver *r = pg_checkresolver(L, 1);
    size_t len;
    const char *command = pg_checktext(L, 2, &len);
    pathgate_exec_options o;
    exec_options(L, 3, &o);
    pathgate_exec_result res = PATHGATE_EXEC_RESULT_INIT;
    pathgate_error err = PATHGATE_ERROR_INIT;
    int rc = pathgate_exec_run(&res, r->ptr, command, len, &o, &err);
    return push_result(L, rc, &res, &err);
}

static int session_execute(lua_State *L)
{
    pathgate_session *s = (pathgate_session *)pg_checkobj(L, 1, PG_SESSION);
    lua_getiuservalue(L, 1, 1);
    pg_resolver *r = (pg_resolver *)lua_touserdata(L, -1);
    if (!r || r->closed)
        luaL_argerror(L, 1, "the session's " PG_RESOLVER_MT " is closed");
    lua_pop(L, 1);
    size_t len;
    const char *command = pg_checktext(L, 2, &len);
    pathgate_exec_options o;
    exec_options(L, 3, &o);
    pathgate_exec_result res = PATHGATE_EXEC_RESULT_INIT;
    pathgate_error err = PATHGATE_ERROR_INIT;
    int rc = pathgate_exec_run_session(&res, s, command, len, &o, &err);
    return push_result(L, rc, &res, &err);
}

/* Adds `execute` to the method table (__index) of cls. */
static void add_method(lua_State *L, int scratch_idx, pg_class cls, lua_CFunction fn)
{
    lua_getiuservalue(L, scratch_idx, (int)cls + 1); /* the metatable */
    lua_getfield(L, -1, "__index");
    luaL_checktype(L, -1, LUA_TTABLE);
    lua_pushvalue(L, scratch_idx);
    lua_pushcclosure(L, fn, 1);
    lua_setfield(L, -2, "execute");
    lua_pop(L, 2);
}

void pg_open_exec(lua_State *L, int module_idx, int scratch_idx)
{
    lua_pushcfunction(L, module_exec_capabilities);
    lua_setfield(L, module_idx, "exec_capabilities");
    add_method(L, scratch_idx, PG_RESOLVER, resolver_execute);
    add_method(L, scratch_idx, PG_SESSION, session_execute);
    /* pathgate.exec_protections: every name a result's protections may hold */
    lua_createtable(L, (int)PG_PROTECTION_COUNT, 0);
    for (size_t i = 0; i < PG_PROTECTION_COUNT; i++) {
        lua_pushstring(L, pg_protections[i].name);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    lua_setfield(L, module_idx, "exec_protections");
}
