/*
 * uri.c - pathgate.PathUri: an immutable file: URI (docs/uri.md).
 *
 *   PathUri.parse(text)               -> uri | nil, msg, code
 *   PathUri.from_native(text [, conv]) -> uri | nil, msg, code
 *   uri:convention()   "posix" | "windows" | nil
 *   uri:is_opaque()    boolean
 *   uri:parent()       uri | nil (at a root, opaque)
 *   uri:basename()     string | nil
 *   uri:starts_with(base)   boolean
 *   uri:relative_to(base)   string | nil (not contained)
 *   uri:join(text), uri:join_descendant(text)  -> uri | nil, msg, code
 *   uri:to_native([conv]), uri:to_host_path()   -> string | nil, msg, code
 *   uri:display()      string
 *   uri:ancestors()    { uri, parent, ..., root }
 *   uri:lexical_depth() integer | nil;  uri:overlaps(other) boolean | nil
 *   uri:encoded_path(), uri:decoded_path_bytes()   string
 *   uri:join_bytes(bytes)                          -> uri | nil, msg, code
 *   uri:validate_config([conv]), uri:validate_glob_directory([conv])
 *                                                  -> true | nil, msg, code
 *   uri:to_config_path([conv])                     -> string | nil, msg, code
 *   pathgate.path_segments(text, conv) -> { segments }
 *   pathgate.home_relative_suffix(text, conv) -> string | nil
 *   pathgate.normalize_windows_device_path(text) -> string | nil
 *   pathgate.platform_convention(os_name) -> "posix" | "windows" | nil
 *   tostring(uri) is the URI string; == compares as the core does.
 */
#include "util.h"

pathgate_uri *pg_checkuri(lua_State *L, int arg)
{
    return (pathgate_uri *)pg_checkobj(L, arg, PG_URI);
}

pg_box *pg_newuri(lua_State *L)
{
    return pg_newbox(L, sizeof(pg_box), 0, PG_URI);
}

static int uri_parse(lua_State *L)
{
    size_t len;
    const char *text = pg_checktext(L, 1, &len);
    pathgate_error err = PATHGATE_ERROR_INIT;
    pg_box *box = pg_newuri(L);
    int rc = pathgate_uri_parse((pathgate_uri **)&box->ptr, text, len, NULL, &err);
    return pg_commit(L, rc, &err);
}

static int uri_from_native(lua_State *L)
{
    size_t len;
    const char *text = pg_checktext(L, 1, &len);
    pathgate_convention conv = pg_optconvention(L, 2);
    pathgate_error err = PATHGATE_ERROR_INIT;
    pg_box *box = pg_newuri(L);
    int rc = pathgate_uri_from_native((pathgate_uri **)&box->ptr, text, len, conv, NULL, &err);
    return pg_commit(L, rc, &err);
}

static int uri_convention(lua_State *L)
{
    pg_pushconvention(L, pathgate_uri_convention(pg_checkuri(L, 1)));
    return 1;
}

static int uri_is_opaque(lua_State *L)
{
    lua_pushboolean(L, pathgate_uri_is_opaque(pg_checkuri(L, 1)));
    return 1;
}

static int uri_parent(lua_State *L)
{
    pathgate_uri *uri = pg_checkuri(L, 1);
    pathgate_error err = PATHGATE_ERROR_INIT;
    pg_box *box = pg_newuri(L);
    int rc = pathgate_uri_parent((pathgate_uri **)&box->ptr, uri, &err);
    if (rc == 0 && !box->ptr) {
        lua_pushnil(L); /* at a root: no parent */
        return 1;
    }
    return pg_commit(L, rc, &err);
}

static int uri_basename(lua_State *L)
{
    pathgate_uri *uri = pg_checkuri(L, 1);
    pathgate_buf *buf = &pg_scratch_get(L)->buf;
    pathgate_error err = PATHGATE_ERROR_INIT;
    pathgate_buf_dispose(buf);
    return pg_bufresult(L, pathgate_uri_basename(buf, uri, &err), buf, &err);
}

static int uri_starts_with(lua_State *L)
{
    pathgate_uri *uri = pg_checkuri(L, 1);
    pathgate_uri *base = pg_checkuri(L, 2);
    lua_pushboolean(L, pathgate_uri_starts_with(uri, base) == 1);
    return 1;
}

static int uri_relative_to(lua_State *L)
{
    pathgate_uri *uri = pg_checkuri(L, 1);
    pathgate_uri *base = pg_checkuri(L, 2);
    pathgate_buf *buf = &pg_scratch_get(L)->buf;
    pathgate_error err = PATHGATE_ERROR_INIT;
    pathgate_buf_dispose(buf);
    return pg_bufresult(L, pathgate_uri_relative_to(buf, uri, base, &err), buf, &err);
}

static int uri_join(lua_State *L)
{
    pathgate_uri *uri = pg_checkuri(L, 1);
    size_t len;
    const char *text = pg_checktext(L, 2, &len);
    pathgate_error err = PATHGATE_ERROR_INIT;
    pg_box *box = pg_newuri(L);
    int rc = pathgate_uri_join((pathgate_uri **)&box->ptr, uri, text, len, &err);
    return pg_commit(L, rc, &err);
}

static int uri_join_descendant(lua_State *L)
{
    pathgate_uri *uri = pg_checkuri(L, 1);
    size_t len;
    const char *text = pg_checktext(L, 2, &len);
    pathgate_error err = PATHGATE_ERROR_INIT;
    pg_box *box = pg_newuri(L);
    int rc = pathgate_uri_join_descendant((pathgate_uri **)&box->ptr, uri, text, len, &err);
    return pg_commit(L, rc, &err);
}

static int uri_to_native(lua_State *L)
{
    pathgate_uri *uri = pg_checkuri(L, 1);
    pathgate_convention conv = pg_optconvention(L, 2);
    pathgate_buf *buf = &pg_scratch_get(L)->buf;
    pathgate_error err = PATHGATE_ERROR_INIT;
    pathgate_buf_dispose(buf);
    return pg_bufresult(L, pathgate_uri_to_native(buf, uri, conv, &err), buf, &err);
}

static int uri_to_host_path(lua_State *L)
{
    pathgate_uri *uri = pg_checkuri(L, 1);
    pathgate_buf *buf = &pg_scratch_get(L)->buf;
    pathgate_error err = PATHGATE_ERROR_INIT;
    pathgate_buf_dispose(buf);
    return pg_bufresult(L, pathgate_uri_to_host_path(buf, uri, &err), buf, &err);
}

static int uri_display(lua_State *L)
{
    pathgate_uri *uri = pg_checkuri(L, 1);
    pathgate_buf *buf = &pg_scratch_get(L)->buf;
    pathgate_buf_dispose(buf);
    return pg_bufresult(L, pathgate_uri_display(buf, uri), buf, NULL);
}

/* ------------------------------------------- Codex's further operations */

static int uri_ancestors(lua_State *L)
{
    pathgate_uri *uri = pg_checkuri(L, 1);
    lua_newtable(L);
    /* the URI itself, then each parent up to the root (docs/uri.md): one
     * walk, each ancestor the parent of the one before, as Python's */
    const pathgate_uri *prev = uri;
    for (lua_Integer i = 1;; i++) {
        pathgate_error err = PATHGATE_ERROR_INIT;
        pg_box *box = pg_newuri(L);
        int rc = i == 1 ? pathgate_uri_dup((pathgate_uri **)&box->ptr, uri, &err)
                        : pathgate_uri_parent((pathgate_uri **)&box->ptr, prev, &err);
        if (rc == 0 && !box->ptr) {
            lua_pop(L, 2); /* past the root */
            return 1;
        }
        if (rc != 0)
            return pg_commit(L, rc, &err);
        lua_setmetatable(L, -2);
        prev = box->ptr; /* alive in the table */
        lua_rawseti(L, -2, i);
    }
}

static int uri_lexical_depth(lua_State *L)
{
    size_t depth;
    if (pathgate_uri_lexical_depth(&depth, pg_checkuri(L, 1)))
        lua_pushinteger(L, (lua_Integer)depth);
    else
        lua_pushnil(L);
    return 1;
}

static int uri_encoded_path(lua_State *L)
{
    size_t len;
    const char *p = pathgate_uri_encoded_path(pg_checkuri(L, 1), &len);
    lua_pushlstring(L, p, len);
    return 1;
}

static int uri_decoded_path_bytes(lua_State *L)
{
    pathgate_uri *uri = pg_checkuri(L, 1);
    pathgate_buf *buf = &pg_scratch_get(L)->buf;
    pathgate_error err = PATHGATE_ERROR_INIT;
    pathgate_buf_dispose(buf);
    return pg_bufresult(L, pathgate_uri_decoded_path(buf, uri, &err), buf, &err);
}

static int uri_overlaps(lua_State *L)
{
    int ov = pathgate_uri_overlaps(pg_checkuri(L, 1), pg_checkuri(L, 2));
    if (ov < 0)
        lua_pushnil(L);
    else
        lua_pushboolean(L, ov);
    return 1;
}

static int uri_join_bytes(lua_State *L)
{
    pathgate_uri *uri = pg_checkuri(L, 1);
    size_t len;
    const char *text = luaL_checklstring(L, 2, &len);
    pathgate_error err = PATHGATE_ERROR_INIT;
    pg_box *box = pg_newuri(L);
    int rc = pathgate_uri_join_bytes((pathgate_uri **)&box->ptr, uri, text, len, &err);
    return pg_commit(L, rc, &err);
}

/* conv NONE (absent) = the URI's own */
static pathgate_convention conv_or_own(lua_State *L, int arg, pathgate_uri *uri)
{
    pathgate_convention c = pg_optconvention(L, arg);
    return c == PATHGATE_CONVENTION_NONE ? pathgate_uri_convention(uri) : c;
}

static int uri_check(lua_State *L,
                     int (*fn)(const pathgate_uri *, pathgate_convention, pathgate_error *))
{
    pathgate_uri *uri = pg_checkuri(L, 1);
    pathgate_error err = PATHGATE_ERROR_INIT;
    int rc = fn(uri, conv_or_own(L, 2, uri), &err);
    if (rc)
        return pg_fail(L, rc, &err);
    lua_pushboolean(L, 1);
    return 1;
}

static int uri_validate_config(lua_State *L)
{
    return uri_check(L, pathgate_uri_validate_config);
}

static int uri_validate_glob_directory(lua_State *L)
{
    return uri_check(L, pathgate_uri_validate_glob_directory);
}

static int uri_to_config_path(lua_State *L)
{
    pathgate_uri *uri = pg_checkuri(L, 1);
    pathgate_convention conv = pg_optconvention(L, 2);
    pathgate_buf *buf = &pg_scratch_get(L)->buf;
    pathgate_error err = PATHGATE_ERROR_INIT;
    pathgate_buf_dispose(buf);
    return pg_bufresult(L, pathgate_uri_to_config_path(buf, uri, conv, &err), buf, &err);
}

/* ------------------------------------------------- module functions */

static int mod_path_segments(lua_State *L)
{
    size_t len, pos = 0, n;
    const char *text = luaL_checklstring(L, 1, &len);
    pathgate_convention conv = pg_checkconvention(L, 2);
    const char *seg;
    lua_newtable(L);
    for (lua_Integer i = 1; pathgate_path_segment_next(&seg, &n, text, len, conv, &pos); i++) {
        lua_pushlstring(L, seg, n);
        lua_rawseti(L, -2, i);
    }
    return 1;
}

static int mod_home_relative_suffix(lua_State *L)
{
    size_t len, n;
    const char *text = luaL_checklstring(L, 1, &len), *suf;
    pathgate_convention conv = pg_checkconvention(L, 2);
    if (pathgate_home_relative_suffix(&suf, &n, text, len, conv))
        lua_pushlstring(L, suf, n);
    else
        lua_pushnil(L);
    return 1;
}

static int mod_normalize_windows_device_path(lua_State *L)
{
    size_t len;
    const char *text = luaL_checklstring(L, 1, &len);
    pathgate_buf *buf = &pg_scratch_get(L)->buf;
    pathgate_error err = PATHGATE_ERROR_INIT;
    pathgate_buf_dispose(buf);
    return pg_bufresult(L, pathgate_normalize_windows_device_path(buf, text, len, &err), buf, &err);
}

static int mod_platform_convention(lua_State *L)
{
    size_t len = 0;
    const char *name = luaL_optlstring(L, 1, NULL, &len);
    pg_pushconvention(L, pathgate_platform_convention(name, len));
    return 1;
}

static int uri_tostring(lua_State *L)
{
    pg_box *box = (pg_box *)pg_checkudata(L, 1, PG_URI);
    if (!box->ptr)
        return pg_pushclosed(L, PG_URI);
    size_t len;
    const char *s = pathgate_uri_string(box->ptr, &len);
    lua_pushlstring(L, s, len);
    return 1;
}

static int uri_eq(lua_State *L)
{
    /* Either operand may be of another type: then they differ. */
    pg_box *a = (pg_box *)pg_testudata(L, 1, PG_URI);
    pg_box *b = (pg_box *)pg_testudata(L, 2, PG_URI);
    /* A closed URI equals nothing but itself (raw equality, no __eq). */
    lua_pushboolean(L, a && b && a->ptr && b->ptr && pathgate_uri_equal(a->ptr, b->ptr));
    return 1;
}

static void uri_free(void *p)
{
    pathgate_uri_free(p);
}

static int uri_close(lua_State *L)
{
    pg_closebox(L, 1, PG_URI, uri_free);
    return 0;
}

void pg_open_uri(lua_State *L, int module_idx, int scratch_idx)
{
    static const luaL_Reg meta[] = {
        {"__tostring", uri_tostring}, {"__eq", uri_eq}, {"__gc", uri_close},
        {"__close", uri_close},       {NULL, NULL},
    };
    static const luaL_Reg methods[] = {
        {"convention", uri_convention},
        {"is_opaque", uri_is_opaque},
        {"parent", uri_parent},
        {"basename", uri_basename},
        {"starts_with", uri_starts_with},
        {"relative_to", uri_relative_to},
        {"join", uri_join},
        {"join_descendant", uri_join_descendant},
        {"to_native", uri_to_native},
        {"to_host_path", uri_to_host_path},
        {"display", uri_display},
        {"ancestors", uri_ancestors},
        {"lexical_depth", uri_lexical_depth},
        {"encoded_path", uri_encoded_path},
        {"decoded_path_bytes", uri_decoded_path_bytes},
        {"overlaps", uri_overlaps},
        {"join_bytes", uri_join_bytes},
        {"validate_config", uri_validate_config},
        {"validate_glob_directory", uri_validate_glob_directory},
        {"to_config_path", uri_to_config_path},
        {NULL, NULL},
    };
    static const luaL_Reg functions[] = {
        {"path_segments", mod_path_segments},
        {"home_relative_suffix", mod_home_relative_suffix},
        {"normalize_windows_device_path", mod_normalize_windows_device_path},
        {"platform_convention", mod_platform_convention},
        {NULL, NULL},
    };
    static const luaL_Reg statics[] = {
        {"parse", uri_parse},
        {"from_native", uri_from_native},
        {NULL, NULL},
    };
    pg_newclass(L, scratch_idx, PG_URI, meta, methods);
    pg_newclasstable(L, module_idx, scratch_idx, "PathUri", statics, NULL);
    for (const luaL_Reg *f = functions; f->name; f++) {
        lua_pushvalue(L, scratch_idx);
        lua_pushcclosure(L, f->func, 1);
        lua_setfield(L, module_idx, f->name);
    }
}
