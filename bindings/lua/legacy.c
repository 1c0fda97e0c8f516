/*
 * legacy.c - pathgate.LegacyAppPathString: the native path text legacy
 * clients send and expect back (docs/spec.md section 3).
 *
 *   LegacyAppPathString(text)                 -> legacy (any bytes)
 *   LegacyAppPathString.from_uri(uri [, conv]) -> legacy | nil, msg, code
 *   p:to_uri([conv])                -> uri | nil, msg, code
 *   p:render_for_ui()               -> string (never fails)
 *   p:resolve_against(cwd [, home]) -> uri | nil, msg, code
 *   p:infer_convention()            -> "posix" | "windows" | nil
 *   tostring(p) is the text; == compares the texts byte for byte.
 */
#include <string.h>

#include "util.h"

static pathgate_legacy *checklegacy(lua_State *L, int arg)
{
    return (pathgate_legacy *)pg_checkobj(L, arg, PG_LEGACY);
}

static int legacy_new(lua_State *L)
{
    lua_remove(L, 1); /* the class table (__call) */
    size_t len;
    const char *text = pg_checktext(L, 1, &len);
    pathgate_error err = PATHGATE_ERROR_INIT;
    pg_box *box = pg_newbox(L, sizeof(pg_box), 0, PG_LEGACY);
    int rc = pathgate_legacy_new((pathgate_legacy **)&box->ptr, text, len, NULL, &err);
    return pg_commit(L, rc, &err);
}

static int legacy_from_uri(lua_State *L)
{
    pathgate_uri *uri = pg_checkuri(L, 1);
    pathgate_convention conv = pg_optconvention(L, 2);
    pathgate_error err = PATHGATE_ERROR_INIT;
    pg_box *box = pg_newbox(L, sizeof(pg_box), 0, PG_LEGACY);
    int rc = pathgate_legacy_from_uri((pathgate_legacy **)&box->ptr, uri, conv, &err);
    return pg_commit(L, rc, &err);
}

static int legacy_to_uri(lua_State *L)
{
    pathgate_legacy *p = checklegacy(L, 1);
    pathgate_convention conv = pg_optconvention(L, 2);
    pathgate_error err = PATHGATE_ERROR_INIT;
    pg_box *box = pg_newuri(L);
    int rc = pathgate_legacy_to_uri((pathgate_uri **)&box->ptr, p, conv, &err);
    return pg_commit(L, rc, &err);
}

static int legacy_render_for_ui(lua_State *L)
{
    pathgate_legacy *p = checklegacy(L, 1);
    pathgate_buf *buf = &pg_scratch_get(L)->buf;
    pathgate_buf_dispose(buf);
    return pg_bufresult(L, pathgate_legacy_render_for_ui(buf, p), buf, NULL);
}

static int legacy_resolve_against(lua_State *L)
{
    pathgate_legacy *p = checklegacy(L, 1);
    pathgate_uri *cwd = pg_checkuri(L, 2);
    pathgate_uri *home = lua_isnoneornil(L, 3) ? NULL : pg_checkuri(L, 3);
    pathgate_error err = PATHGATE_ERROR_INIT;
    pg_box *box = pg_newuri(L);
    int rc = pathgate_legacy_resolve_against((pathgate_uri **)&box->ptr, p, cwd, home, &err);
    return pg_commit(L, rc, &err);
}

static int legacy_resolve_config(lua_State *L)
{
    pathgate_legacy *p = checklegacy(L, 1);
    pathgate_uri *base = lua_isnoneornil(L, 2) ? NULL : pg_checkuri(L, 2);
    pathgate_uri *home = lua_isnoneornil(L, 3) ? NULL : pg_checkuri(L, 3);
    pathgate_convention conv = pg_optconvention(L, 4);
    pathgate_error err = PATHGATE_ERROR_INIT;
    pg_box *box = pg_newuri(L);
    int rc = pathgate_legacy_resolve_config((pathgate_uri **)&box->ptr, p, base, home, conv, &err);
    return pg_commit(L, rc, &err);
}

static int legacy_infer_convention(lua_State *L)
{
    pg_pushconvention(L, pathgate_legacy_infer_convention(checklegacy(L, 1)));
    return 1;
}

static int legacy_tostring(lua_State *L)
{
    pg_box *box = (pg_box *)pg_checkudata(L, 1, PG_LEGACY);
    if (!box->ptr)
        return pg_pushclosed(L, PG_LEGACY);
    size_t len;
    const char *s = pathgate_legacy_text(box->ptr, &len);
    lua_pushlstring(L, s, len);
    return 1;
}

static int legacy_eq(lua_State *L)
{
    pg_box *a = (pg_box *)pg_testudata(L, 1, PG_LEGACY);
    pg_box *b = (pg_box *)pg_testudata(L, 2, PG_LEGACY);
    int eq = 0;
    if (a && b && a->ptr && b->ptr) {
        size_t la, lb;
        const char *sa = pathgate_legacy_text(a->ptr, &la);
        const char *sb = pathgate_legacy_text(b->ptr, &lb);
        eq = la == lb && memcmp(sa, sb, la) == 0;
    }
    lua_pushboolean(L, eq);
    return 1;
}

static void legacy_free(void *p)
{
    pathgate_legacy_free(p);
}

static int legacy_close(lua_State *L)
{
    pg_closebox(L, 1, PG_LEGACY, legacy_free);
    return 0;
}

void pg_open_legacy(lua_State *L, int module_idx, int scratch_idx)
{
    static const luaL_Reg meta[] = {
        {"__tostring", legacy_tostring}, {"__eq", legacy_eq}, {"__gc", legacy_close},
        {"__close", legacy_close},       {NULL, NULL},
    };
    static const luaL_Reg methods[] = {
        {"to_uri", legacy_to_uri},
        {"render_for_ui", legacy_render_for_ui},
        {"resolve_against", legacy_resolve_against},
        {"infer_convention", legacy_infer_convention},
        {"resolve_config", legacy_resolve_config},
        {NULL, NULL},
    };
    static const luaL_Reg statics[] = {
        {"from_uri", legacy_from_uri},
        {NULL, NULL},
    };
    pg_newclass(L, scratch_idx, PG_LEGACY, meta, methods);
    pg_newclasstable(L, module_idx, scratch_idx, "LegacyAppPathString", statics, legacy_new);
}
