/*
 * fs.c - the file operations of docs/fs.md as methods of Resolver and
 * Session objects (a Session resolves relative paths against its cwd): one
 * method per operation of ../fs_ops.h, which describes its arguments
 * (positional ones, then an options table) and its core call; here only
 * the runner, the results as Lua values, and the iterators (grep_iter,
 * glob_iter, ls_iter). Signatures and results: docs/lua.md.
 *
 * Expected failures return nil, message, code (pathgate_errname); per-item
 * failures of upload/download carry the deepagents codes (file_not_found,
 * permission_denied, is_directory, invalid_path). Misuse raises. A core
 * result lives in a userdata with __gc while it is converted, so a memory
 * error while building the tables leaks nothing.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "fs_ops.h"
#include "result_fields.h"
#include "util.h"

static int result_gc(lua_State *L)
{
    pg_result_dispose((pg_result *)lua_touserdata(L, 1));
    return 0;
}

/* Pushes an empty result holder with a __gc metatable (one per state, in
 * the registry under a private key). */
static pg_result *new_result(lua_State *L)
{
    pg_result *r = (pg_result *)lua_newuserdatauv(L, sizeof *r, 0);
    pg_result_init(r);
    if (luaL_newmetatable(L, "pathgate.fs.result")) {
        lua_pushcfunction(L, result_gc);
        lua_setfield(L, -2, "__gc");
    }
    lua_setmetatable(L, -2);
    return r;
}

/* Pushes {incomplete=, truncated=, unreadable_dirs=, ...}: what a walk left
 * out. */
static void push_info(lua_State *L, int incomplete, int truncated, size_t unreadable_dirs,
                      size_t unreadable_files, size_t skipped_names, size_t skipped_large,
                      size_t files_scanned, size_t skipped_denied)
{
    const struct {
        const char *name;
        size_t n;
    } counts[] = {{"unreadable_dirs", unreadable_dirs}, {"unreadable_files", unreadable_files},
                  {"skipped_names", skipped_names},     {"skipped_large", skipped_large},
                  {"files_scanned", files_scanned},     {"skipped_denied", skipped_denied}};
    lua_createtable(L, 0, 8);
    lua_pushboolean(L, incomplete);
    lua_setfield(L, -2, "incomplete");
    lua_pushboolean(L, truncated);
    lua_setfield(L, -2, "truncated");
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
        lua_pushinteger(L, (lua_Integer)counts[i].n);
        lua_setfield(L, -2, counts[i].name);
    }
}

static void push_list_info(lua_State *L, const pathgate_fs_list *l)
{
    push_info(L, l->incomplete, l->truncated, l->unreadable_dirs, 0, l->skipped_names, 0, 0,
              l->skipped_denied);
}

static void push_matches_info(lua_State *L, const pathgate_fs_matches *m)
{
    push_info(L, m->incomplete, 0, m->unreadable_dirs, m->unreadable_files, m->skipped_names,
              m->skipped_large, m->files_scanned, m->skipped_denied);
}

/* For LuaFileSystem users: next to each ISO 8601 time field `iso` of the
 * table on top, the same time as `num`, whole seconds since the epoch (an
 * integer, as lfs.attributes gives and os.date takes). Absent with iso. */
/* Seconds since the epoch of a UTC civil time (timegm, which not every C
 * library has): days from 1970-01-01 by the proleptic Gregorian calendar. */
static long long epoch_of(long long y, int mo, int d, int h, int mi, int s)
{
    y -= mo <= 2;
    long long era = (y >= 0 ? y : y - 399) / 400;
    long long yoe = y - era * 400;
    long long doy = (153 * (mo + (mo > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    long long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    long long days = era * 146097 + doe - 719468;
    return days * 86400 + h * 3600 + mi * 60 + s;
}

static void set_epoch(lua_State *L, const char *iso, const char *num)
{
    int y, mo, d, h, mi, s;
    if (lua_getfield(L, -1, iso) == LUA_TSTRING &&
        sscanf(lua_tostring(L, -1), "%d-%d-%dT%d:%d:%d", &y, &mo, &d, &h, &mi, &s) == 6) {
        lua_pushinteger(L, (lua_Integer)epoch_of(y, mo, d, h, mi, s));
        lua_setfield(L, -3, num);
    }
    lua_pop(L, 1);
}

static void push_fileinfo(lua_State *L, const pathgate_fs_info *e)
{
    lua_createtable(L, 0, PG_FIELD_COUNT(PG_FILEINFO_FIELDS) + 1);
    PG_FILEINFO_FIELDS(PG_LUA_FIELD, e)
    set_epoch(L, "modified_at", "mtime");
}

static void push_match(lua_State *L, const pathgate_fs_match *e)
{
    lua_createtable(L, 0, PG_FIELD_COUNT(PG_GREPMATCH_FIELDS));
    PG_GREPMATCH_FIELDS(PG_LUA_FIELD, e)
}

/* The array of entry tables of a list, or of match tables. */
static void push_list(lua_State *L, const pathgate_fs_list *l, const pathgate_fs_matches *m)
{
    size_t n = l ? l->count : m->count;
    lua_createtable(L, (int)n, 0);
    for (size_t i = 0; i < n; i++) {
        if (l)
            push_fileinfo(L, &l->items[i]);
        else
            push_match(L, &m->items[i]);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
}

/* The deepagents code of a per-item failure, or nil. */
static void push_op_error(lua_State *L, int code)
{
    const char *e = pathgate_fs_operation_error(code);
    if (e)
        lua_pushstring(L, e);
    else
        lua_pushnil(L);
}

/* {{path=, [content=,] error=}, ...}: upload's codes or download's blobs. */
static void push_items(lua_State *L, const pg_val *v, const pathgate_fs_blobs *blobs)
{
    lua_createtable(L, (int)v->n, 0);
    for (size_t i = 0; i < v->n; i++) {
        int code = blobs ? blobs->items[i].code : v->codes[i];
        lua_createtable(L, 0, 3);
        lua_pushlstring(L, v->items[i].path, v->items[i].path_len);
        lua_setfield(L, -2, "path");
        if (blobs && code == 0) {
            lua_pushlstring(L, (const char *)blobs->items[i].data, blobs->items[i].size);
            lua_setfield(L, -2, "content");
        }
        push_op_error(L, code);
        lua_setfield(L, -2, "error");
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
}

static void push_bytes(lua_State *L, const pathgate_buf *b)
{
    lua_pushlstring(L, b->ptr ? b->ptr : "", b->len);
}

static int push_iter(lua_State *L, pg_result *r, int is_grep);

/* Pushes the Lua values of a successful call's result; returns how many. */
static int push_result(lua_State *L, const pg_fs_op *op, const pg_argv *a, pg_result *r)
{
    switch (op->result) {
    case PG_R_ADDR:
    case PG_R_BYTES:
        push_bytes(L, &r->buf);
        return 1;
    case PG_R_ADDR_COUNT:
        push_bytes(L, &r->buf);
        lua_pushinteger(L, (lua_Integer)r->count);
        return 2;
    case PG_R_ADDR_DIFF:
        push_bytes(L, &r->buf);
        push_bytes(L, &r->buf2);
        return 2;
    case PG_R_LIST:
        push_list(L, &r->list, NULL);
        push_list_info(L, &r->list);
        return 2;
    case PG_R_TREE:
        push_list(L, &r->list, NULL);
        lua_pushboolean(L, r->list.truncated);
        return 2;
    case PG_R_MATCHES:
        push_list(L, NULL, &r->matches);
        lua_pushboolean(L, r->matches.truncated);
        push_matches_info(L, &r->matches);
        return 3;
    case PG_R_READ:
        lua_createtable(L, 0, PG_FIELD_COUNT(PG_READ_FIELDS) + 1);
        PG_READ_FIELDS(PG_LUA_FIELD, &r->read)
        set_epoch(L, "modified_at", "mtime");
        return 1;
    case PG_R_STAT:
        lua_createtable(L, 0, PG_FIELD_COUNT(PG_STAT_FIELDS) + 4);
        PG_STAT_FIELDS(PG_LUA_FIELD, &r->stat)
        set_epoch(L, "modified_at", "mtime");
        set_epoch(L, "accessed_at", "atime");
        set_epoch(L, "changed_at", "ctime");
        set_epoch(L, "created_at", "btime");
        return 1;
    case PG_R_CODES:
    case PG_R_BLOBS:
        push_items(L, &a->v[0], op->result == PG_R_BLOBS ? &r->blobs : NULL);
        return 1;
    default:
        return push_iter(L, r, op->result == PG_R_GREP_ITER);
    }
}

/* Every method: arguments, the core call, its result (or nil, msg, code). */
static int run(lua_State *L, const pg_fs_op *op)
{
    pg_argv a;
    pg_args_check(L, &a, op->spec);
    pg_result *r = new_result(L);
    int rc = op->call(&a, r);
    if (rc < 0)
        return pg_fail(L, rc, &a.err);
    int n = push_result(L, op, &a, r);
    pg_result_dispose(r);
    return n;
}

#define PG_LUA_RUN(name)                                                                           \
    static int fs_##name(lua_State *L)                                                             \
    {                                                                                              \
        return run(L, &pg_op_##name);                                                              \
    }
PG_FS_OPS(PG_LUA_RUN)

/* ----------------------------------------------------------- iterators */

/* An iterator userdata: the core iterator; its user value keeps the
 * Resolver or Session alive. __gc and __close stop the walk. */
typedef struct lua_iter {
    pathgate_fs_iter *it;
    int is_grep;
} lua_iter;

static int iter_close(lua_State *L)
{
    lua_iter *li = (lua_iter *)lua_touserdata(L, 1);
    if (li && li->it) {
        pathgate_fs_iter_free(li->it);
        li->it = NULL;
    }
    return 0;
}

/* The generic-for step: the next result table, or nil at the end (a
 * failure raises, as an iterator has no other way to say so). */
static int iter_step(lua_State *L)
{
    lua_iter *li = (lua_iter *)lua_touserdata(L, lua_upvalueindex(1));
    if (!li->it)
        return 0;
    const pathgate_fs_match *m = NULL;
    const pathgate_fs_info *e = NULL;
    pathgate_error err = PATHGATE_ERROR_INIT;
    int rc = li->is_grep ? pathgate_fs_iter_next_match(&m, li->it, &err)
                         : pathgate_fs_iter_next_info(&e, li->it, &err);
    if (rc <= 0) {
        pathgate_fs_iter_free(li->it);
        li->it = NULL;
        if (rc < 0)
            return luaL_error(L, "%s", err.message);
        return 0;
    }
    if (m)
        push_match(L, m);
    else
        push_fileinfo(L, e);
    return 1;
}

/* Returns step, nil, nil, closer: `for x in obj:grep_iter(...) do`; takes
 * r's iterator once its userdata can free it. */
static int push_iter(lua_State *L, pg_result *r, int is_grep)
{
    lua_iter *li = (lua_iter *)lua_newuserdatauv(L, sizeof *li, 1);
    li->it = NULL;
    li->is_grep = is_grep;
    if (luaL_newmetatable(L, "pathgate.fs.iter")) {
        lua_pushcfunction(L, iter_close);
        lua_setfield(L, -2, "__gc");
        lua_pushcfunction(L, iter_close);
        lua_setfield(L, -2, "__close");
    }
    lua_setmetatable(L, -2);
    li->it = r->iter;
    r->iter = NULL;
    lua_pushvalue(L, 1); /* the owner stays alive with the iterator */
    lua_setiuservalue(L, -2, 1);
    int ud = lua_gettop(L);
    lua_pushvalue(L, ud);
    lua_pushcclosure(L, iter_step, 1);
    lua_pushnil(L);
    lua_pushnil(L);
    lua_pushvalue(L, ud);
    return 4;
}

/* ls as an iterator (the listing is one directory: built first). */
static int ls_step(lua_State *L)
{
    lua_Integer i = lua_tointeger(L, lua_upvalueindex(2)) + 1;
    lua_pushinteger(L, i);
    lua_replace(L, lua_upvalueindex(2));
    lua_rawgeti(L, lua_upvalueindex(1), i);
    return 1;
}

static int fs_ls_iter(lua_State *L)
{
    int n = fs_ls(L);
    if (n != 2)
        return n;  /* nil, message, code */
    lua_pop(L, 1); /* the info */
    lua_pushinteger(L, 0);
    lua_pushcclosure(L, ls_step, 2);
    return 1;
}

/* Adds the methods to the Resolver and Session classes (after their parts
 * have created them). */
void pg_open_fs(lua_State *L, int module_idx, int scratch_idx)
{
    (void)module_idx;
#define PG_LUA_METHOD(name) {pg_op_##name.lua_name, fs_##name},
    const luaL_Reg fs_methods[] = {PG_FS_OPS(PG_LUA_METHOD){"ls_iter", fs_ls_iter}, {NULL, NULL}};
#undef PG_LUA_METHOD
    const pg_class classes[] = {PG_RESOLVER, PG_SESSION};
    for (size_t i = 0; i < 2; i++) {
        lua_getiuservalue(L, scratch_idx, (int)classes[i] + 1); /* its metatable */
        lua_getfield(L, -1, "__index");
        lua_pushvalue(L, scratch_idx);
        luaL_setfuncs(L, fs_methods, 1);
        lua_pop(L, 2);
    }
}
