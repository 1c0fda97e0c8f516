/*
 * module.c - luaopen_pathgate, the only symbol the module exports.
 *
 * `local pathgate = require "pathgate"` sets no global: it returns a table
 * of class tables (PathUri, LegacyAppPathString, VisibilityRef, Resolver,
 * Session) and the version. Every metatable lives in this state's
 * registry and every function shares this state's scratch as upvalue, so
 * two Lua states in one process share nothing.
 */
#include <string.h>

#include "util.h"

static int scratch_gc(lua_State *L)
{
    pg_scratch *s = (pg_scratch *)luaL_checkudata(L, 1, PG_SCRATCH_MT);
    pathgate_buf_dispose(&s->buf);
    return 0;
}

__attribute__((visibility("default"))) int luaopen_pathgate(lua_State *L);
void pg_open_fs(lua_State *L, int module_idx, int scratch_idx);   /* fs.c */
void pg_open_exec(lua_State *L, int module_idx, int scratch_idx); /* exec.c */

int luaopen_pathgate(lua_State *L)
{
    lua_settop(L, 0);
    lua_createtable(L, 0, 8); /* 1: the module */

    /* 2: the scratch, with one user value per class metatable */
    pg_scratch *s = (pg_scratch *)lua_newuserdatauv(L, sizeof *s, PG_NCLASSES);
    memset(s, 0, sizeof *s);
    pathgate_buf init = PATHGATE_BUF_INIT;
    s->buf = init;
    luaL_newmetatable(L, PG_SCRATCH_MT);
    lua_pushcfunction(L, scratch_gc);
    lua_setfield(L, -2, "__gc");
    lua_setmetatable(L, 2);

    pg_open_uri(L, 1, 2);
    pg_open_legacy(L, 1, 2);
    pg_open_ref(L, 1, 2);
    pg_open_resolver(L, 1, 2);
    pg_open_session(L, 1, 2);
    pg_open_fs(L, 1, 2);   /* after resolver and session: adds their file operations */
    pg_open_exec(L, 1, 2); /* after resolver and session: adds their execute */

    lua_pushstring(L, pathgate_version());
    lua_setfield(L, 1, "version");
    lua_settop(L, 1);
    return 1;
}
