/*
 * resolver.c - pathgate.Resolver and its results, pathgate.VisibilityResolution
 * (docs/spec.md sections 4-5).
 *
 *   Resolver{roots = {key = dir, ...}, mods = {Name = dir, ...}, max_tokens = n,
 *            read_only = {name, ...}, deny_read = {...}, deny_write = {...},
 *            presets = {...}, audit = function, audit_door = "lua"}  (policy.c)
 *       -> resolver | nil, msg, code         (roots/mods: map, sorted by
 *          name, or a list {{key, dir}, ...} keeping its order)
 *   r:resolve(text [, {require_exists = bool, base = addr | ref}]) -> resolution
 *   r:host_path(ref) -> string | nil
 *   r:host_path_of(text [, opts]) -> string | nil, msg, code  (no token held)
 *   r:address_of(native) -> address | nil, msg, code  (native_prefixes = {[prefix] = address})
 *   r:release(ref)   -> boolean
 *   r:count(), #r    -> live tokens
 *   r:roots(), r:mods() -> configured keys / names, in order
 *   r:restrict{...}, r:policy_check(text)               (policy.c)
 *   r:close()
 *
 * A resolution is a record read by field (and by pairs): ok, ref,
 * root_category, mod_name, relative_path, exists, error_message, reason. It is built at once from
 * the core resolution, which is then disposed: the record owns no C memory
 * (no finalizer) and stays valid whatever happens to its resolver or ref.
 */
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* -------------------------------------------------------- resolutions */

/* The record's C part; its strings and ref are user values. */
typedef struct pg_record {
    int ok;
    int exists;
    pathgate_reason reason;
} pg_record;

enum {
    UV_REF = 1,
    UV_RELATIVE_PATH,
    UV_ROOT_CATEGORY,
    UV_MOD_NAME,
    UV_ERROR_MESSAGE,
    UV_COUNT = UV_ERROR_MESSAGE
};

void pg_resolution_begin(lua_State *L)
{
    /* The ref box has no metatable (so no finalizer) until it holds a ref. */
    pg_box *ref = (pg_box *)lua_newuserdatauv(L, sizeof(pg_box), 1); /* 1: its resolver */
    ref->ptr = NULL;
    pg_record *rec = (pg_record *)lua_newuserdatauv(L, sizeof(pg_record), UV_COUNT);
    memset(rec, 0, sizeof *rec);
    pg_pushmetatable(L, PG_RESOLUTION);
    lua_setmetatable(L, -2);
}

/* Copies s (NUL-terminated, at most cap - 1 bytes kept) into buf. */
static size_t copy_bounded(char *buf, size_t cap, const char *s)
{
    size_t n = s ? strnlen(s, cap - 1) : 0;
    memcpy(buf, s ? s : "", n);
    buf[n] = '\0';
    return n;
}

int pg_resolution_finish(lua_State *L, int rc, pathgate_resolution *res, const pathgate_error *err)
{
    return pg_resolution_finish_owned(L, rc, res, err, 0);
}

int pg_resolution_finish_owned(lua_State *L, int rc, pathgate_resolution *res,
                               const pathgate_error *err, int owner)
{
    if (rc != 0) {
        lua_pop(L, 2);
        return pg_fail(L, rc, err);
    }
    /* Stack: ref box (-2), record (-1). Nothing below allocates until the
     * core resolution is disposed. */
    pg_record *rec = (pg_record *)lua_touserdata(L, -1);
    rec->ok = res->ok;
    rec->exists = res->exists;
    rec->reason = res->reason;
    char rel[PATHGATE_PATH_MAX + 1], msg[PATHGATE_ERROR_TEXT_LENGTH];
    size_t rel_len = 0, msg_len = 0;
    /* root and mod live in the resolver, an argument of the call */
    const char *root = NULL, *mod = NULL;
    if (res->ok) {
        pg_box *ref = (pg_box *)lua_touserdata(L, -2);
        ref->ptr = res->ref;
        res->ref = NULL;
        rel_len = copy_bounded(rel, sizeof rel, res->relative_path);
        root = res->root_category;
        mod = res->mod_name;
    } else {
        msg_len = copy_bounded(msg, sizeof msg, res->error_message);
    }
    pathgate_resolution_dispose(res); /* relative_path pointed into the ref */
    if (rec->ok) {
        lua_rotate(L, -2, 1); /* record, ref box */
        if (owner) {          /* before the finalizer is set: a raise here leaks nothing */
            lua_pushvalue(L, owner);
            lua_setiuservalue(L, -2, 1);
        }
        pg_pushmetatable(L, PG_REF);
        lua_setmetatable(L, -2);
        lua_setiuservalue(L, -2, UV_REF);
        lua_pushlstring(L, rel, rel_len);
        lua_setiuservalue(L, -2, UV_RELATIVE_PATH);
        if (root) {
            lua_pushstring(L, root);
            lua_setiuservalue(L, -2, UV_ROOT_CATEGORY);
        }
        if (mod) {
            lua_pushstring(L, mod);
            lua_setiuservalue(L, -2, UV_MOD_NAME);
        }
    } else {
        lua_pushlstring(L, msg, msg_len);
        lua_setiuservalue(L, -2, UV_ERROR_MESSAGE);
        lua_remove(L, -2); /* the unused ref box */
    }
    return 1;
}

static pg_record *checkresolution(lua_State *L, int arg)
{
    return (pg_record *)pg_checkudata(L, arg, PG_RESOLUTION);
}

/* The fields of a record, in the order pairs() gives them. */
static const char *const resolution_keys[] = {
    "ok", "ref", "root_category", "mod_name", "relative_path", "exists", "error_message", "reason"};
#define PG_NKEYS (sizeof resolution_keys / sizeof resolution_keys[0])

/* Pushes field k of the record at 1 (nil when absent). */
static void push_field(lua_State *L, const pg_record *rec, size_t k)
{
    static const int uv[PG_NKEYS] = {
        0, UV_REF, UV_ROOT_CATEGORY, UV_MOD_NAME, UV_RELATIVE_PATH, 0, UV_ERROR_MESSAGE, 0};
    if (uv[k])
        lua_getiuservalue(L, 1, uv[k]);
    else if (k == 0)
        lua_pushboolean(L, rec->ok);
    else if (k == 5 && rec->ok)
        lua_pushboolean(L, rec->exists);
    else if (k == 7)
        lua_pushstring(L, pathgate_reason_name(rec->reason));
    else
        lua_pushnil(L);
}

/* The index of the key at idx among the fields, or PG_NKEYS. */
static size_t key_index(lua_State *L, int idx)
{
    const char *k = lua_type(L, idx) == LUA_TSTRING ? lua_tostring(L, idx) : NULL;
    size_t i = 0;
    while (k && i < PG_NKEYS && strcmp(k, resolution_keys[i]) != 0)
        i++;
    return k ? i : PG_NKEYS;
}

static int resolution_index(lua_State *L)
{
    pg_record *rec = checkresolution(L, 1);
    size_t k = key_index(L, 2);
    if (k == PG_NKEYS) /* like a table: other keys are nil */
        lua_pushnil(L);
    else
        push_field(L, rec, k);
    return 1;
}

/* next(res, key) over the fields present, in order. */
static int resolution_next(lua_State *L)
{
    pg_record *rec = checkresolution(L, 1);
    size_t k = lua_isnil(L, 2) ? 0 : key_index(L, 2) + 1;
    for (; k < PG_NKEYS; k++) {
        push_field(L, rec, k);
        if (!lua_isnil(L, -1)) {
            lua_pushstring(L, resolution_keys[k]);
            lua_insert(L, -2);
            return 2;
        }
        lua_pop(L, 1);
    }
    lua_pushnil(L);
    return 1;
}

/* pairs(res): the record's fields, as a table's would be. */
static int resolution_pairs(lua_State *L)
{
    checkresolution(L, 1);
    lua_pushvalue(L, lua_upvalueindex(1)); /* the scratch */
    lua_pushcclosure(L, resolution_next, 1);
    lua_pushvalue(L, 1);
    lua_pushnil(L);
    return 3;
}

static int resolution_tostring(lua_State *L)
{
    pg_record *rec = checkresolution(L, 1);
    if (!rec->ok) {
        lua_getiuservalue(L, 1, UV_ERROR_MESSAGE);
        lua_pushfstring(L, "VisibilityResolution(ok=false, error_message=\"%s\", reason=%s)",
                        lua_tostring(L, -1), pathgate_reason_name(rec->reason));
        return 1;
    }
    lua_getiuservalue(L, 1, UV_REF);
    pg_box *ref = (pg_box *)lua_touserdata(L, -1);
    lua_pushfstring(L, "VisibilityResolution(ok=true, ref=%s, exists=%s)",
                    ref && ref->ptr ? pathgate_ref_address(ref->ptr, NULL) : "(closed)",
                    rec->exists ? "true" : "false");
    return 1;
}

/* __close of a resolution (`local res <close> = r:resolve(...)`): closes
 * its ref, which gives the token back. Without it the ref's own __gc does
 * the same when the last reference to the ref goes. */
static int resolution_close(lua_State *L)
{
    checkresolution(L, 1);
    if (lua_getiuservalue(L, 1, UV_REF) == LUA_TUSERDATA)
        pg_ref_close_at(L, lua_gettop(L));
    return 0;
}

/* ---------------------------------------------------------- options */

static int optboolean(lua_State *L, int idx, int arg, const char *name)
{
    if (!lua_isboolean(L, idx)) {
        lua_pushfstring(L, "option '%s' must be a boolean, got %s", name, luaL_typename(L, idx));
        luaL_argerror(L, arg, lua_tostring(L, -1));
    }
    return lua_toboolean(L, idx);
}

void pg_resolve_options(lua_State *L, int arg, pathgate_resolve_options *opts, int allow_base)
{
    pathgate_resolve_options init = PATHGATE_RESOLVE_OPTIONS_INIT;
    *opts = init;
    if (lua_isnoneornil(L, arg))
        return;
    luaL_checktype(L, arg, LUA_TTABLE);
    arg = lua_absindex(L, arg);
    lua_pushnil(L);
    while (lua_next(L, arg)) {
        const char *k = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : NULL;
        if (k && strcmp(k, "require_exists") == 0) {
            opts->require_exists = optboolean(L, -1, arg, k);
        } else if (k && allow_base && strcmp(k, "base") == 0) {
            /* The string (or ref) stays alive in the options table. */
            if (lua_type(L, -1) == LUA_TSTRING)
                opts->base = lua_tolstring(L, -1, &opts->base_len);
            else if (pg_testudata(L, -1, PG_REF))
                opts->base = pathgate_ref_address(pg_checkref(L, lua_gettop(L)), &opts->base_len);
            else
                luaL_argerror(L, arg,
                              lua_pushfstring(L, "option 'base' must be a string or %s, got %s",
                                              PG_REF_MT, luaL_typename(L, -1)));
        } else {
            luaL_argerror(L, arg,
                          lua_pushfstring(L, "unknown option '%s'", k ? k : luaL_typename(L, -2)));
        }
        lua_pop(L, 1);
    }
}

/* --------------------------------------------------------- resolvers */

void pg_resolver_release_core(pg_resolver *r)
{
    if (r->closed && r->sessions == 0 && r->ptr) {
        pathgate_resolver_free(r->ptr);
        r->ptr = NULL;
        pg_audit_release(NULL, r); /* no event can come any more */
    }
}

static int cmp_spec(const void *a, const void *b)
{
    const pathgate_base_spec *x = a, *y = b;
    size_t n = x->name_len < y->name_len ? x->name_len : y->name_len;
    int c = memcmp(x->name, y->name, n);
    if (c)
        return c;
    return (x->name_len > y->name_len) - (x->name_len < y->name_len);
}

static const char *specstring(lua_State *L, int idx, int arg, const char *what, size_t *len)
{
    if (lua_type(L, idx) != LUA_TSTRING)
        luaL_argerror(
            L, arg, lua_pushfstring(L, "%s: expected string, got %s", what, luaL_typename(L, idx)));
    return lua_tolstring(L, idx, len);
}

/*
 * Reads the table at idx (roots or mods) into a spec array (a userdata left
 * on the stack, so it is collected whatever raises). The strings stay
 * alive in the caller's table for the whole construction.
 */
static pathgate_base_spec *collect(lua_State *L, int idx, int arg, const char *what, size_t *count)
{
    size_t n = 0;
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        n++;
        lua_pop(L, 1);
    }
    pathgate_base_spec *specs =
        (pathgate_base_spec *)lua_newuserdatauv(L, (n ? n : 1) * sizeof *specs, 0);
    memset(specs, 0, (n ? n : 1) * sizeof *specs);
    size_t listlen = lua_rawlen(L, idx);
    if (listlen > 0) { /* list form {{name, dir}, ...}: order kept */
        if (listlen != n)
            luaL_argerror(L, arg,
                          lua_pushfstring(L, "%s: mixes list entries and named entries", what));
        for (size_t i = 0; i < n; i++) {
            if (lua_rawgeti(L, idx, (lua_Integer)i + 1) != LUA_TTABLE)
                luaL_argerror(
                    L, arg,
                    lua_pushfstring(L, "%s[%d]: expected {name, directory}", what, (int)i + 1));
            lua_rawgeti(L, -1, 1);
            specs[i].name = specstring(L, -1, arg, what, &specs[i].name_len);
            lua_rawgeti(L, -2, 2);
            specs[i].dir = specstring(L, -1, arg, what, &specs[i].dir_len);
            lua_pop(L, 3);
        }
    } else { /* map form {name = dir}: sorted by name for a fixed order */
        size_t i = 0;
        lua_pushnil(L);
        while (lua_next(L, idx)) {
            if (lua_type(L, -2) != LUA_TSTRING)
                luaL_argerror(L, arg,
                              lua_pushfstring(L, "%s: names must be strings, got %s", what,
                                              luaL_typename(L, -2)));
            specs[i].name = lua_tolstring(L, -2, &specs[i].name_len);
            specs[i].dir = specstring(L, -1, arg, what, &specs[i].dir_len);
            i++;
            lua_pop(L, 1);
        }
        qsort(specs, n, sizeof *specs, cmp_spec);
    }
    *count = n;
    return specs;
}

/* The names of the list in option read_only (root keys, mod names, or
 * base addresses) for pathgate_resolver_options.read_only: an array left
 * on the stack as a userdata; the strings stay alive in the option table.
 * The core marks the bases and refuses a name that is no base. */
static const char **read_only_names(lua_State *L, size_t *count)
{
    *count = 0;
    int t = lua_getfield(L, 1, "read_only");
    if (t == LUA_TNIL) {
        lua_pop(L, 1);
        return NULL;
    }
    if (t != LUA_TTABLE)
        luaL_argerror(L, 1, "option 'read_only' must be a list of names");
    int idx = lua_gettop(L);
    size_t n = (size_t)lua_rawlen(L, idx);
    const char **names = (const char **)lua_newuserdatauv(L, (n ? n : 1) * sizeof *names, 0);
    for (size_t k = 0; k < n; k++) {
        lua_rawgeti(L, idx, (lua_Integer)k + 1);
        size_t len;
        names[k] = specstring(L, -1, 1, "read_only", &len);
        if (memchr(names[k], '\0', len))
            luaL_argerror(L, 1, "read_only: a name must not contain a NUL byte");
        lua_pop(L, 1);
    }
    lua_remove(L, idx); /* the userdata stays; the list lives on in option 1 */
    *count = n;
    return names;
}

/* Option native_prefixes ({[prefix] = address, ...}) as an array for
 * pathgate_resolver_options.native_prefixes: a userdata left on the stack;
 * the strings stay alive in the option table. The core checks them. */
static pathgate_native_prefix *native_prefixes(lua_State *L, size_t *count)
{
    *count = 0;
    int t = lua_getfield(L, 1, "native_prefixes");
    if (t == LUA_TNIL) {
        lua_pop(L, 1);
        return NULL;
    }
    if (t != LUA_TTABLE)
        luaL_argerror(L, 1, "option 'native_prefixes' must be a table {[prefix] = address}");
    int idx = lua_gettop(L);
    size_t n = 0;
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        n++;
        lua_pop(L, 1);
    }
    pathgate_native_prefix *p =
        (pathgate_native_prefix *)lua_newuserdatauv(L, (n ? n : 1) * sizeof *p, 0);
    memset(p, 0, (n ? n : 1) * sizeof *p);
    size_t i = 0;
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        p[i].prefix = specstring(L, -2, 1, "native_prefixes", &p[i].prefix_len);
        p[i].address = specstring(L, -1, 1, "native_prefixes", &p[i].address_len);
        i++;
        lua_pop(L, 1);
    }
    lua_remove(L, idx); /* the userdata stays; the table lives on in option 1 */
    *count = n;
    return p;
}

static int resolver_new(lua_State *L)
{
    lua_remove(L, 1); /* the class table (__call) */
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_settop(L, 1);
    lua_pushnil(L);
    while (lua_next(L, 1)) {
        const char *k = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : NULL;
        if (!k || (strcmp(k, "roots") && strcmp(k, "mods") && strcmp(k, "max_tokens") &&
                   strcmp(k, "read_only") && strcmp(k, "deny_read") && strcmp(k, "deny_write") &&
                   strcmp(k, "presets") && strcmp(k, "audit") && strcmp(k, "audit_door") &&
                   strcmp(k, "native_prefixes")))
            luaL_argerror(L, 1,
                          lua_pushfstring(L, "unknown option '%s'", k ? k : luaL_typename(L, -2)));
        lua_pop(L, 1);
    }
    pathgate_resolver_options opts = PATHGATE_RESOLVER_OPTIONS_INIT;

    if (lua_getfield(L, 1, "roots") != LUA_TTABLE && !lua_isnil(L, 2)) /* 2 */
        luaL_argerror(L, 1, "option 'roots' must be a table");
    if (lua_getfield(L, 1, "mods") != LUA_TTABLE && !lua_isnil(L, 3)) /* 3 */
        luaL_argerror(L, 1, "option 'mods' must be a table");
    lua_getfield(L, 1, "max_tokens"); /* 4 */
    if (!lua_isnil(L, 4)) {
        int isint = 0;
        lua_Integer n = lua_type(L, 4) == LUA_TNUMBER ? lua_tointegerx(L, 4, &isint) : 0;
        if (!isint || n < 1)
            luaL_argerror(L, 1, "option 'max_tokens' must be a positive integer");
        opts.max_tokens = (size_t)n;
    }
    pathgate_base_spec *roots = NULL, *mods = NULL;
    if (!lua_isnil(L, 2))
        roots = collect(L, 2, 1, "roots", &opts.nroots);
    if (!lua_isnil(L, 3))
        mods = collect(L, 3, 1, "mods", &opts.nmods);
    opts.roots = roots;
    opts.mods = mods;
    opts.read_only = read_only_names(L, &opts.nread_only);
    opts.native_prefixes = native_prefixes(L, &opts.nnative_prefixes);
    opts.deny_read = pg_policy_list(L, 1, "deny_read", &opts.ndeny_read);
    opts.deny_write = pg_policy_list(L, 1, "deny_write", &opts.ndeny_write);
    opts.presets = pg_policy_list(L, 1, "presets", &opts.npresets);

    pathgate_error err = PATHGATE_ERROR_INIT;
    pg_resolver *r = (pg_resolver *)pg_newbox(L, sizeof(pg_resolver), 0, PG_RESOLVER);
    pg_audit_prepare(L, 1, &opts, r);
    int rc = pathgate_resolver_new(&r->ptr, &opts, &err);
    int n = pg_commit(L, rc, &err);
    if (rc == 0)
        pg_audit_attach(L, 1, r);
    return n;
}

static int resolver_resolve(lua_State *L)
{
    pg_resolver *r = pg_checkresolver(L, 1);
    size_t len;
    const char *text = pg_checktext(L, 2, &len);
    pathgate_resolve_options opts;
    pg_resolve_options(L, 3, &opts, 1);
    pathgate_error err = PATHGATE_ERROR_INIT;
    pathgate_resolution res = PATHGATE_RESOLUTION_INIT;
    pg_resolution_begin(L);
    int rc = pathgate_resolver_resolve(&res, r->ptr, text, len, &opts, &err);
    return pg_resolution_finish_owned(L, rc, &res, &err, 1);
}

static int resolver_host_path(lua_State *L)
{
    pg_resolver *r = pg_checkresolver(L, 1);
    pathgate_ref *ref = pg_checkref(L, 2);
    pathgate_buf *buf = &pg_scratch_get(L)->buf;
    pathgate_error err = PATHGATE_ERROR_INIT;
    pathgate_buf_dispose(buf);
    return pg_bufresult(L, pathgate_resolver_host_path(buf, r->ptr, ref, &err), buf, &err);
}

/* r:host_path_of(text [, opts]) -> string | nil, msg, code: one call,
 * no token held (pathgate_resolver_host_path_of). */
static int resolver_host_path_of(lua_State *L)
{
    pg_resolver *r = pg_checkresolver(L, 1);
    size_t len;
    const char *text = pg_checktext(L, 2, &len);
    pathgate_resolve_options opts;
    pg_resolve_options(L, 3, &opts, 1);
    pathgate_buf *buf = &pg_scratch_get(L)->buf;
    pathgate_error err = PATHGATE_ERROR_INIT;
    pathgate_buf_dispose(buf);
    int rc = pathgate_resolver_host_path_of(buf, NULL, r->ptr, text, len, &opts, &err);
    return pg_bufresult(L, rc, buf, &err);
}

/* r:address_of(native) -> address | nil, msg, code (lexical, no token). */
static int resolver_address_of(lua_State *L)
{
    pg_resolver *r = pg_checkresolver(L, 1);
    size_t len;
    const char *text = pg_checktext(L, 2, &len);
    pathgate_buf *buf = &pg_scratch_get(L)->buf;
    pathgate_error err = PATHGATE_ERROR_INIT;
    pathgate_buf_dispose(buf);
    return pg_bufresult(L, pathgate_resolver_address_of(buf, r->ptr, text, len, &err), buf, &err);
}

static int resolver_release(lua_State *L)
{
    pg_resolver *r = pg_checkresolver(L, 1);
    lua_pushboolean(L, pathgate_resolver_release(r->ptr, pg_checkref(L, 2)) == 1);
    return 1;
}

static int resolver_count(lua_State *L)
{
    pg_resolver *r = pg_checkresolver(L, 1);
    lua_pushinteger(L, (lua_Integer)pathgate_resolver_token_count(r->ptr));
    return 1;
}

static int resolver_roots(lua_State *L)
{
    pg_resolver *r = pg_checkresolver(L, 1);
    size_t n = pathgate_resolver_root_count(r->ptr);
    lua_createtable(L, (int)n, 0);
    for (size_t i = 0; i < n; i++) {
        lua_pushstring(L, pathgate_resolver_root_key(r->ptr, i));
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    return 1;
}

static int resolver_mods(lua_State *L)
{
    pg_resolver *r = pg_checkresolver(L, 1);
    size_t n = pathgate_resolver_mod_count(r->ptr);
    lua_createtable(L, (int)n, 0);
    for (size_t i = 0; i < n; i++) {
        lua_pushstring(L, pathgate_resolver_mod_name(r->ptr, i));
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    return 1;
}

static int resolver_tostring(lua_State *L)
{
    pg_resolver *r = (pg_resolver *)pg_checkudata(L, 1, PG_RESOLVER);
    if (r->closed || !r->ptr) {
        return pg_pushclosed(L, PG_RESOLVER);
    }
    lua_pushfstring(L, "pathgate.Resolver (%d roots, %d mods, %d tokens)",
                    (int)pathgate_resolver_root_count(r->ptr),
                    (int)pathgate_resolver_mod_count(r->ptr),
                    (int)pathgate_resolver_token_count(r->ptr));
    return 1;
}

/* __close, __gc and :close(): idempotent. Sessions still using the core
 * resolver keep it until the last of them is freed (session.c). */
static int resolver_close(lua_State *L)
{
    pg_resolver *r = (pg_resolver *)pg_checkudata(L, 1, PG_RESOLVER);
    r->closed = 1;
    pg_resolver_release_core(r);
    return 0;
}

void pg_open_resolver(lua_State *L, int module_idx, int scratch_idx)
{
    static const luaL_Reg res_meta[] = {
        {"__index", resolution_index},
        {"__pairs", resolution_pairs},
        {"__tostring", resolution_tostring},
        {"__close", resolution_close},
        {NULL, NULL},
    };
    static const luaL_Reg meta[] = {
        {"__tostring", resolver_tostring},
        {"__len", resolver_count},
        {"__gc", resolver_close},
        {"__close", resolver_close},
        {NULL, NULL},
    };
    static const luaL_Reg methods[] = {
        {"resolve", resolver_resolve},
        {"host_path", resolver_host_path},
        {"host_path_of", resolver_host_path_of},
        {"address_of", resolver_address_of},
        {"release", resolver_release},
        {"count", resolver_count},
        {"roots", resolver_roots},
        {"mods", resolver_mods},
        {"close", resolver_close},
        {"restrict", pg_resolver_restrict},
        {"policy_check", pg_resolver_policy_check},
        {"policy_tracked", pg_resolver_policy_tracked},
        {NULL, NULL},
    };
    pg_newclass(L, scratch_idx, PG_RESOLUTION, res_meta, NULL);
    pg_newclass(L, scratch_idx, PG_RESOLVER, meta, methods);
    pg_newclasstable(L, module_idx, scratch_idx, "Resolver", NULL, resolver_new);
}
