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

#ifdef _WIN32
__declspec(dllexport) int luaopen_pathgate(lua_State *L);
#else
__attribute__((visibility("default"))) int luaopen_pathgate(lua_State *L);
#endif

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

#define PG_X_OPEN(name) pg_open_##name(L, 1, 2);
    PG_MODULE_PARTS(PG_X_OPEN)
#undef PG_X_OPEN

    lua_pushstring(L, pathgate_version());
    lua_setfield(L, 1, "version");
    lua_settop(L, 1);
    return 1;
}
