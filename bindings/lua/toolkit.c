/*
 * toolkit.c - the toolkit calls of fs_toolkit.h that do not fit the table
 * of ../fs_ops.h, as methods of Resolver and Session objects:
 *
 *   obj:exists(path), obj:isdir(path), obj:isfile(path) -> boolean
 *       (symlinks inside the base followed; false for anything invalid)
 *   obj:utime(path [, atime [, mtime]]) -> address | nil, message, code
 *       as lfs.touch: seconds (numbers, fractions kept); no atime: now;
 *       no mtime: atime
 *   obj:subroot(path [, key]) -> Resolver | nil, message, code
 *
 * (copy, link, symlink, readlink, chmod, remove_tree and lstat are rows of
 * ../fs_toolkit_ops.h, run by fs.c.)
 */
#include <string.h>

#include "util.h"

static int exists_as(lua_State *L, int want)
{
    size_t len;
    const char *path = pg_checktext(L, 2, &len);
    luaL_argcheck(L, lua_isnoneornil(L, 3), 3, "no more arguments expected");
    pg_argv a;
    pg_args_owner(L, &a);
    pathgate_fs_type type = 0;
    int rc = pathgate_fs_exists(&type, a.resolver, path, len, &a.opts, &a.err);
    if (rc < 0)
        return pg_fail(L, rc, &a.err);
    lua_pushboolean(L, want ? (int)type == want : type != 0);
    return 1;
}

static int t_exists(lua_State *L)
{
    return exists_as(L, 0);
}

static int t_isdir(lua_State *L)
{
    return exists_as(L, PATHGATE_FS_TYPE_DIRECTORY);
}

static int t_isfile(lua_State *L)
{
    return exists_as(L, PATHGATE_FS_TYPE_FILE);
}

/* A time argument in seconds. */
static pathgate_fs_time time_arg(lua_State *L, int arg)
{
    pathgate_fs_time t;
    lua_Number v = luaL_checknumber(L, arg);
    luaL_argcheck(L, v == v && v > -9.2e18 && v < 9.2e18, arg, "time out of range");
    int64_t sec = (int64_t)v;
    if ((lua_Number)sec > v) /* toward minus infinity */
        sec--;
    t.sec = sec;
    t.nsec = (long)((v - (lua_Number)sec) * 1e9);
    if (t.nsec > 999999999L)
        t.nsec = 999999999L;
    return t;
}

static int t_utime(lua_State *L)
{
    size_t len;
    const char *path = pg_checktext(L, 2, &len);
    luaL_argcheck(L, lua_isnoneornil(L, 5), 5, "no more arguments expected");
    pathgate_fs_time times[2];
    if (lua_isnoneornil(L, 3)) {
        times[0].sec = times[1].sec = 0;
        times[0].nsec = times[1].nsec = PATHGATE_FS_TIME_NOW;
    } else {
        times[0] = time_arg(L, 3);
        times[1] = lua_isnoneornil(L, 4) ? times[0] : time_arg(L, 4);
    }
    pg_argv a;
    pg_args_owner(L, &a);
    pathgate_buf out = PATHGATE_BUF_INIT;
    int rc = pathgate_fs_utime(&out, a.resolver, path, len, times, &a.opts, &a.err);
    if (rc < 0)
        return pg_fail(L, rc, &a.err);
    pg_pushbuf(L, &out);
    return 1;
}

static int t_subroot(lua_State *L)
{
    size_t len, klen = 0;
    const char *path = pg_checktext(L, 2, &len);
    const char *key = lua_isnoneornil(L, 3) ? NULL : pg_checktext(L, 3, &klen);
    luaL_argcheck(L, lua_isnoneornil(L, 4), 4, "no more arguments expected");
    pg_argv a;
    pg_args_owner(L, &a);
    pg_resolver *r = (pg_resolver *)pg_newbox(L, sizeof(pg_resolver), 1, PG_RESOLVER);
    /* the subroot's audit events go to the function of the box it was
     * made from (the session's): that box lives as long as the subroot */
    if (pg_testudata(L, 1, PG_SESSION))
        lua_getiuservalue(L, 1, 1);
    else
        lua_pushvalue(L, 1);
    lua_setiuservalue(L, -3, 1);
    int rc = pathgate_fs_subroot(&r->ptr, a.resolver, path, len, key, klen, &a.opts, &a.err);
    return pg_commit(L, rc, &a.err);
}

void pg_open_toolkit(lua_State *L, int module_idx, int scratch_idx)
{
    (void)module_idx;
    static const luaL_Reg methods[] = {{"exists", t_exists},   {"isdir", t_isdir},
                                       {"isfile", t_isfile},   {"utime", t_utime},
                                       {"subroot", t_subroot}, {NULL, NULL}};
    const pg_class classes[] = {PG_RESOLVER, PG_SESSION};
    for (size_t i = 0; i < 2; i++) {
        lua_getiuservalue(L, scratch_idx, (int)classes[i] + 1); /* its metatable */
        lua_getfield(L, -1, "__index");
        lua_pushvalue(L, scratch_idx);
        luaL_setfuncs(L, methods, 1);
        lua_pop(L, 2);
    }
}
