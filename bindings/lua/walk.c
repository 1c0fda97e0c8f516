/*
 * walk.c - the directory iterators of fs_toolkit.h as methods of Resolver
 * and Session objects:
 *
 *   for e in obj:scandir(path) do ... end
 *       e = {name=, path= (the address), kind= "file"|"directory"|"symlink"|
 *       "other"}; e.size asks the filesystem on demand (a symlink inside
 *       followed; nil when there is nothing to ask)
 *   for dir, dirs, files in obj:walk(path [, {topdown = false}]) do ... end
 *       one directory per step (its address, then the names of its
 *       subdirectories and of its files, sorted); top down, removing names
 *       from dirs prunes them, as os.walk does
 *
 * Both return the step, nil, nil and a closing value (for the generic
 * for's to-be-closed slot: leaving the loop closes the directories; so
 * does collection). A bad start raises with pathgate's message, as
 * io.lines does; misuse raises.
 */
#include <string.h>

#include "util.h"

#define PG_DIRITER_MT "pathgate.fs.diriter"

typedef struct diriter {
    pathgate_fs_scandir *dir;
    pathgate_fs_walk *walk;
    int bottom_up;
} diriter;

static int diriter_close(lua_State *L)
{
    diriter *it = (diriter *)lua_touserdata(L, 1);
    if (it) {
        pathgate_fs_scandir_free(it->dir);
        pathgate_fs_walk_free(it->walk);
        it->dir = NULL;
        it->walk = NULL;
    }
    return 0;
}

/* Pushes a closed iterator userdata with user values: 1 the owner, 2 the
 * dirs table last handed out, 3 its names as they were. */
static diriter *new_diriter(lua_State *L)
{
    diriter *it = (diriter *)lua_newuserdatauv(L, sizeof *it, 3);
    memset(it, 0, sizeof *it);
    if (luaL_newmetatable(L, PG_DIRITER_MT)) {
        lua_pushcfunction(L, diriter_close);
        lua_setfield(L, -2, "__gc");
        lua_pushcfunction(L, diriter_close);
        lua_setfield(L, -2, "__close");
    }
    lua_setmetatable(L, -2);
    lua_pushvalue(L, 1);
    lua_setiuservalue(L, -2, 1);
    return it;
}

/* Returns step (a closure over the iterator at ud), nil, nil, iterator. */
static int push_loop(lua_State *L, int ud, lua_CFunction step, int nup)
{
    lua_pushvalue(L, ud);
    lua_insert(L, -1 - nup);
    lua_pushcclosure(L, step, 1 + nup);
    lua_pushnil(L);
    lua_pushnil(L);
    lua_pushvalue(L, ud);
    return 4;
}

static const char *kind_name(pathgate_fs_type t)
{
    return t == PATHGATE_FS_TYPE_FILE        ? "file"
           : t == PATHGATE_FS_TYPE_DIRECTORY ? "directory"
           : t == PATHGATE_FS_TYPE_SYMLINK   ? "symlink"
                                             : "other";
}

/* ------------------------------------------------------------- scandir */

/* __index of the entries of one scandir: size (and address) on demand.
 * Upvalues: 1 the module's scratch, 2 the iterator userdata (its user
 * value 1 is the owner). */
static int entry_index(lua_State *L)
{
    const char *key = lua_tostring(L, 2);
    if (key && !strcmp(key, "address")) {
        lua_getfield(L, 1, "path");
        return 1;
    }
    if (!key || strcmp(key, "size") != 0)
        return 0;
    size_t len;
    lua_getfield(L, 1, "path"); /* 3 */
    const char *path = lua_tolstring(L, 3, &len);
    if (!path)
        return 0;
    lua_getiuservalue(L, lua_upvalueindex(2), 1); /* the owner */
    lua_replace(L, 1);                            /* at 1, where pg_args_owner looks */
    pg_argv a;
    pg_args_owner(L, &a);
    pathgate_fs_stat_result st = PATHGATE_FS_STAT_RESULT_INIT;
    int rc = pathgate_fs_stat(&st, a.resolver, path, len, &a.opts, &a.err);
    if (rc == PATHGATE_ENOMEM)
        return luaL_error(L, "not enough memory");
    if (rc < 0)
        return 0;
    lua_pushinteger(L, (lua_Integer)st.size);
    pathgate_fs_stat_result_dispose(&st);
    return 1;
}

static int scandir_step(lua_State *L)
{
    diriter *it = (diriter *)lua_touserdata(L, lua_upvalueindex(1));
    if (!it->dir)
        return 0;
    const pathgate_fs_dirent *e = NULL;
    pathgate_error err = PATHGATE_ERROR_INIT;
    int rc = pathgate_fs_scandir_next(&e, it->dir, &err);
    if (rc <= 0) {
        pathgate_fs_scandir_free(it->dir);
        it->dir = NULL;
        if (rc < 0)
            return luaL_error(L, "%s", err.message);
        return 0;
    }
    lua_createtable(L, 0, 3);
    lua_pushlstring(L, e->name, e->name_len);
    lua_setfield(L, -2, "name");
    lua_pushlstring(L, e->path, e->path_len);
    lua_setfield(L, -2, "path");
    lua_pushstring(L, kind_name(e->type));
    lua_setfield(L, -2, "kind");
    lua_pushvalue(L, lua_upvalueindex(2)); /* the entries' metatable */
    lua_setmetatable(L, -2);
    return 1;
}

static int w_scandir(lua_State *L)
{
    size_t len;
    const char *path = pg_checktext(L, 2, &len);
    luaL_argcheck(L, lua_isnoneornil(L, 3), 3, "no more arguments expected");
    pg_argv a;
    pg_args_owner(L, &a);
    diriter *it = new_diriter(L);
    int ud = lua_gettop(L);
    int rc = pathgate_fs_scandir_open(&it->dir, a.resolver, path, len, &a.opts, &a.err);
    if (rc < 0)
        return pg_fail(L, rc, &a.err), luaL_error(L, "%s", lua_tostring(L, -2));
    lua_createtable(L, 0, 1); /* the entries' metatable */
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_pushvalue(L, ud);
    lua_pushcclosure(L, entry_index, 2);
    lua_setfield(L, -2, "__index");
    return push_loop(L, ud, scandir_step, 1);
}

/* ---------------------------------------------------------------- walk */

/* Top down: when the caller changed the dirs table it was given, only the
 * names left in it are entered. */
static void apply_prune(lua_State *L, int ud, diriter *it)
{
    if (lua_getiuservalue(L, ud, 2) != LUA_TTABLE) {
        lua_pop(L, 1);
        return;
    }
    int dirs = lua_gettop(L);
    lua_getiuservalue(L, ud, 3);
    int orig = lua_gettop(L);
    lua_Integer n = luaL_len(L, dirs), m = luaL_len(L, orig);
    int same = n == m;
    for (lua_Integer i = 1; same && i <= n; i++) {
        lua_geti(L, dirs, i);
        lua_geti(L, orig, i);
        same = lua_rawequal(L, -1, -2);
        lua_pop(L, 2);
    }
    if (!same) {
        const char **keep = lua_newuserdatauv(L, (size_t)(n + 1) * sizeof *keep, 0);
        size_t *lens = lua_newuserdatauv(L, (size_t)(n + 1) * sizeof *lens, 0);
        for (lua_Integer i = 1; i <= n; i++) {
            lua_geti(L, dirs, i); /* kept referenced by the table */
            if (lua_type(L, -1) != LUA_TSTRING)
                luaL_error(L, "walk: dirs must hold strings");
            keep[i - 1] = lua_tolstring(L, -1, &lens[i - 1]);
            lua_pop(L, 1);
        }
        pathgate_error err = PATHGATE_ERROR_INIT;
        if (pathgate_fs_walk_prune(it->walk, keep, lens, (size_t)n, &err) < 0)
            luaL_error(L, "%s", err.message);
    }
    lua_settop(L, dirs - 1);
}

static void push_names(lua_State *L, const char *const *s, const size_t *lens, size_t n)
{
    lua_createtable(L, (int)n, 0);
    for (size_t i = 0; i < n; i++) {
        lua_pushlstring(L, s[i], lens[i]);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
}

static int walk_step(lua_State *L)
{
    int ud = lua_upvalueindex(1);
    diriter *it = (diriter *)lua_touserdata(L, ud);
    if (!it->walk)
        return 0;
    if (!it->bottom_up)
        apply_prune(L, ud, it);
    const pathgate_fs_walk_dir *d = NULL;
    pathgate_error err = PATHGATE_ERROR_INIT;
    int rc = pathgate_fs_walk_next(&d, it->walk, &err);
    if (rc <= 0) {
        pathgate_fs_walk_free(it->walk);
        it->walk = NULL;
        if (rc < 0)
            return luaL_error(L, "%s", err.message);
        return 0;
    }
    lua_pushlstring(L, d->path, d->path_len);
    push_names(L, d->dirs, d->dir_lens, d->ndirs);
    push_names(L, d->files, d->file_lens, d->nfiles);
    if (!it->bottom_up) {
        lua_pushvalue(L, -2);
        lua_setiuservalue(L, ud, 2);
        push_names(L, d->dirs, d->dir_lens, d->ndirs);
        lua_setiuservalue(L, ud, 3);
    }
    return 3;
}

static int w_walk(lua_State *L)
{
    size_t len;
    const char *path = pg_checktext(L, 2, &len);
    int bottom_up = 0;
    if (!lua_isnoneornil(L, 3)) {
        luaL_checktype(L, 3, LUA_TTABLE);
        lua_pushnil(L);
        while (lua_next(L, 3)) {
            const char *k = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : NULL;
            if (!k || strcmp(k, "topdown") != 0)
                luaL_argerror(L, 3, "unknown option (walk takes {topdown = boolean})");
            bottom_up = !lua_toboolean(L, -1);
            lua_pop(L, 1);
        }
    }
    luaL_argcheck(L, lua_isnoneornil(L, 4), 4, "no more arguments expected");
    pg_argv a;
    pg_args_owner(L, &a);
    diriter *it = new_diriter(L);
    int ud = lua_gettop(L);
    it->bottom_up = bottom_up;
    int rc = pathgate_fs_walk_open(&it->walk, a.resolver, path, len,
                                   bottom_up ? PATHGATE_FS_WALK_BOTTOM_UP : 0, &a.opts, &a.err);
    if (rc < 0)
        return pg_fail(L, rc, &a.err), luaL_error(L, "%s", lua_tostring(L, -2));
    return push_loop(L, ud, walk_step, 0);
}

void pg_open_walk(lua_State *L, int module_idx, int scratch_idx)
{
    (void)module_idx;
    static const luaL_Reg methods[] = {{"scandir", w_scandir}, {"walk", w_walk}, {NULL, NULL}};
    const pg_class classes[] = {PG_RESOLVER, PG_SESSION};
    for (size_t i = 0; i < 2; i++) {
        lua_getiuservalue(L, scratch_idx, (int)classes[i] + 1); /* its metatable */
        lua_getfield(L, -1, "__index");
        lua_pushvalue(L, scratch_idx);
        luaL_setfuncs(L, methods, 1);
        lua_pop(L, 2);
    }
}
