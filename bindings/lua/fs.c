/*
 * fs.c - the file operations of docs/spec.md section 7 as methods of Resolver
 * and Session objects (a Session resolves relative paths against its cwd):
 *
 *   obj:ls(path [, metadata])                 -> { {path=, is_dir=[, size=, modified_at=]}, ... }
 *                                                (metadata false: no size/modified_at, no stat)
 *   obj:read(path [, offset [, limit]])       -> {path=, content=, encoding=, total_lines=,
 *                                                 start_line=, end_line=, next_offset=,
 *                                                 empty=, no_lines_requested=, modified_at=}
 *   obj:write(path, content)                  -> address
 *   obj:edit(path, old, new [, replace_all])  -> address, occurrences
 *   obj:delete(path)                          -> address
 *   obj:grep(pattern [, path [, glob [, max_count]]]) -> { {path=, line=, text=}, ... }, truncated
 *   obj:glob(pattern [, path [, metadata]])   -> { {path=, is_dir=false[, size=, modified_at=]}, ... }
 *   obj:upload_files({ {path, content}, ... }) -> { {path=, error=nil|code}, ... }
 *   obj:grep_iter(pattern [, path [, glob [, max_count [, opts]]]]) -> iterator of matches
 *   obj:glob_iter(pattern [, path [, metadata [, opts]]])            -> iterator of FileInfo
 *   obj:ls_iter(path)                                                -> iterator of FileInfo
 *
 * grep also takes opts {regex=, ignore_case=, threads=, max_file_size=}
 * (6th argument; glob's 5th, read's 5th) and returns a third value, ls and
 * glob a second: {incomplete=, truncated=, unreadable_dirs=,
 * unreadable_files=, skipped_names=, skipped_large=, files_scanned=}. read
 * adds not_text ("nul_byte"/"invalid_utf8": whole file as base64, window
 * not applied) and partial. The iterators stream (a grep that stops early
 * stops the walk: on break, with the for loop's to-be-closed value, or
 * when collected); a failure during iteration raises.
 *   obj:download_files({ path, ... })          -> { {path=, content=|nil, error=nil|code}, ... }
 *
 * Expected failures return nil, message, code (pathgate_errname); per-item
 * failures of upload/download carry the deepagents codes (file_not_found,
 * permission_denied, is_directory, invalid_path). Misuse raises.
 */
#include <string.h>

#include "result_fields.h"
#include "util.h"

typedef struct owner {
    pathgate_resolver *resolver;
    pathgate_fs_options opts;
} owner;

/* The Resolver or Session at index 1. */
static void check_owner(lua_State *L, owner *o)
{
    pathgate_fs_options init = PATHGATE_FS_OPTIONS_INIT;
    o->opts = init;
    o->resolver = NULL;
    if (pg_testudata(L, 1, PG_RESOLVER)) {
        o->resolver = pg_checkresolver(L, 1)->ptr;
        return;
    }
    if (pg_testudata(L, 1, PG_SESSION)) {
        o->opts.session = (pathgate_session *)pg_checkobj(L, 1, PG_SESSION);
        lua_getiuservalue(L, 1, 1); /* the session's resolver box */
        pg_resolver *r = (pg_resolver *)lua_touserdata(L, -1);
        if (r == NULL || r->closed)
            luaL_argerror(L, 1, "the session's " PG_RESOLVER_MT " is closed");
        lua_pop(L, 1);
        return;
    }
    luaL_typeerror(L, 1, PG_RESOLVER_MT " or " PG_SESSION_MT);
}

static const char *opt_text(lua_State *L, int arg, size_t *len)
{
    if (lua_isnoneornil(L, arg)) {
        *len = 0;
        return NULL;
    }
    return pg_checktext(L, arg, len);
}

/* The scale options of the table at idx (nil/none: defaults): regex,
 * ignore_case, threads, max_file_size. */
static void opts_table(lua_State *L, int idx, owner *o)
{
    if (lua_isnoneornil(L, idx))
        return;
    luaL_checktype(L, idx, LUA_TTABLE);
    if (lua_getfield(L, idx, "regex") != LUA_TNIL && lua_toboolean(L, -1))
        o->opts.flags |= PATHGATE_FS_REGEX;
    lua_pop(L, 1);
    if (lua_getfield(L, idx, "ignore_case") != LUA_TNIL && lua_toboolean(L, -1))
        o->opts.flags |= PATHGATE_FS_IGNORE_CASE;
    lua_pop(L, 1);
    if (lua_getfield(L, idx, "threads") != LUA_TNIL) {
        lua_Integer t = luaL_checkinteger(L, -1);
        luaL_argcheck(L, t >= 0 && t <= 1024, idx, "threads must be between 0 and 1024");
        o->opts.threads = (unsigned int)t;
    }
    lua_pop(L, 1);
    if (lua_getfield(L, idx, "max_file_size") != LUA_TNIL) {
        lua_Integer m = luaL_checkinteger(L, -1);
        luaL_argcheck(L, m > 0, idx, "max_file_size must be > 0");
        o->opts.max_file_size = (uint64_t)m;
        o->opts.grep_max_file_size = (uint64_t)m;
    }
    lua_pop(L, 1);
}

/* Pushes {incomplete=, unreadable_dirs=, ...}: what a walk left out. */
static void push_info(lua_State *L, int incomplete, int truncated, size_t unreadable_dirs,
                      size_t unreadable_files, size_t skipped_names, size_t skipped_large,
                      size_t files_scanned, size_t skipped_denied)
{
    lua_createtable(L, 0, 8);
    lua_pushboolean(L, incomplete);
    lua_setfield(L, -2, "incomplete");
    lua_pushboolean(L, truncated);
    lua_setfield(L, -2, "truncated");
    const struct {
        const char *name;
        size_t n;
    } counts[] = {{"unreadable_dirs", unreadable_dirs}, {"unreadable_files", unreadable_files},
                  {"skipped_names", skipped_names},     {"skipped_large", skipped_large},
                  {"files_scanned", files_scanned},     {"skipped_denied", skipped_denied}};
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

/* Pushes the entries of l as an array of FileInfo tables and disposes l.
 * l lives in a userdata (with __gc) on the stack below while this runs, so
 * a memory error while building the tables leaks nothing. */
static void push_list(lua_State *L, const pathgate_fs_list *l)
{
    lua_createtable(L, (int)l->count, 0);
    for (size_t i = 0; i < l->count; i++) {
        const pathgate_fs_info *e = &l->items[i];
        lua_createtable(L, 0, PG_FIELD_COUNT(PG_FILEINFO_FIELDS));
        PG_FILEINFO_FIELDS(PG_LUA_FIELD, e)
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
}

/* Result holders as userdata with __gc, so that a raise while converting
 * (memory) frees the core result. */
typedef enum holder_kind { H_LIST, H_MATCHES, H_READ, H_BLOBS, H_STAT, H_BUFS } holder_kind;

typedef struct holder {
    holder_kind kind;
    union {
        pathgate_fs_list list;
        pathgate_fs_matches matches;
        pathgate_fs_read_result read;
        pathgate_fs_blobs blobs;
        pathgate_fs_stat_result stat;
        struct {
            pathgate_buf a, b;
        } bufs;
    } u;
} holder;

static void holder_dispose(holder *h)
{
    switch (h->kind) {
    case H_LIST:
        pathgate_fs_list_dispose(&h->u.list);
        break;
    case H_MATCHES:
        pathgate_fs_matches_dispose(&h->u.matches);
        break;
    case H_READ:
        pathgate_fs_read_result_dispose(&h->u.read);
        break;
    case H_BLOBS:
        pathgate_fs_blobs_dispose(&h->u.blobs);
        break;
    case H_STAT:
        pathgate_fs_stat_result_dispose(&h->u.stat);
        break;
    case H_BUFS:
        pathgate_buf_dispose(&h->u.bufs.a);
        pathgate_buf_dispose(&h->u.bufs.b);
        break;
    }
}

static int holder_gc(lua_State *L)
{
    holder_dispose((holder *)lua_touserdata(L, 1));
    return 0;
}

/* Pushes a zeroed holder with a __gc metatable (one per state, in the
 * registry under a private key). */
static holder *new_holder(lua_State *L, holder_kind kind)
{
    holder *h = (holder *)lua_newuserdatauv(L, sizeof *h, 0);
    memset(h, 0, sizeof *h);
    h->kind = kind;
    if (luaL_newmetatable(L, "pathgate.fs.result")) {
        lua_pushcfunction(L, holder_gc);
        lua_setfield(L, -2, "__gc");
    }
    lua_setmetatable(L, -2);
    return h;
}

/* ------------------------------------------------------------------ ops */

static int fs_ls(lua_State *L)
{
    owner o;
    check_owner(L, &o);
    size_t len;
    const char *path = opt_text(L, 2, &len);
    if (!lua_isnoneornil(L, 3) && !lua_toboolean(L, 3))
        o.opts.flags |= PATHGATE_FS_NO_METADATA; /* names and kinds only */
    holder *h = new_holder(L, H_LIST);
    pathgate_error err = {0, ""};
    int rc = pathgate_fs_ls(&h->u.list, o.resolver, path, len, &o.opts, &err);
    if (rc < 0)
        return pg_fail(L, rc, &err);
    push_list(L, &h->u.list);
    push_list_info(L, &h->u.list);
    holder_dispose(h);
    return 2;
}

static int fs_glob(lua_State *L)
{
    owner o;
    check_owner(L, &o);
    size_t plen, len;
    const char *pat = pg_checktext(L, 2, &plen);
    const char *path = opt_text(L, 3, &len);
    if (lua_toboolean(L, 4))
        o.opts.flags |= PATHGATE_FS_METADATA;
    opts_table(L, 5, &o);
    holder *h = new_holder(L, H_LIST);
    pathgate_error err = {0, ""};
    int rc = pathgate_fs_glob(&h->u.list, o.resolver, pat, plen, path, len, &o.opts, &err);
    if (rc < 0)
        return pg_fail(L, rc, &err);
    push_list(L, &h->u.list);
    push_list_info(L, &h->u.list);
    holder_dispose(h);
    return 2;
}

static int fs_read(lua_State *L)
{
    owner o;
    check_owner(L, &o);
    size_t len;
    const char *path = pg_checktext(L, 2, &len);
    lua_Integer offset = luaL_optinteger(L, 3, 0);
    lua_Integer limit = luaL_optinteger(L, 4, PATHGATE_FS_READ_LIMIT_DEFAULT);
    opts_table(L, 5, &o);
    holder *h = new_holder(L, H_READ);
    pathgate_error err = {0, ""};
    int rc = pathgate_fs_read(&h->u.read, o.resolver, path, len, (int64_t)offset, (int64_t)limit,
                              &o.opts, &err);
    if (rc < 0)
        return pg_fail(L, rc, &err);
    const pathgate_fs_read_result *r = &h->u.read;
    lua_createtable(L, 0, PG_FIELD_COUNT(PG_READ_FIELDS));
    PG_READ_FIELDS(PG_LUA_FIELD, r)
    holder_dispose(h);
    return 1;
}

/* The per-state scratch buffer, emptied: where an operation answering an
 * address puts it. */
static pathgate_buf *scratch_buf(lua_State *L)
{
    pathgate_buf *buf = &pg_scratch_get(L)->buf;
    pathgate_buf_dispose(buf);
    return buf;
}

typedef int (*two_text_fn)(pathgate_buf *, pathgate_resolver *, const char *, size_t, const char *,
                           size_t, const pathgate_fs_options *, pathgate_error *);

/* r:op(text, text) -> address | nil, message, kind: write and move. */
static int two_text_op(lua_State *L, two_text_fn fn)
{
    owner o;
    check_owner(L, &o);
    size_t len, len2;
    const char *text = pg_checktext(L, 2, &len);
    const char *text2 = pg_checktext(L, 3, &len2);
    pathgate_buf *buf = scratch_buf(L);
    pathgate_error err = {0, ""};
    int rc = fn(buf, o.resolver, text, len, text2, len2, &o.opts, &err);
    return pg_bufresult(L, rc, buf, &err);
}

static int fs_write(lua_State *L)
{
    return two_text_op(L, pathgate_fs_write);
}

static int fs_edit(lua_State *L)
{
    owner o;
    check_owner(L, &o);
    size_t len, olen, nlen;
    const char *path = pg_checktext(L, 2, &len);
    const char *old_s = pg_checktext(L, 3, &olen);
    const char *new_s = pg_checktext(L, 4, &nlen);
    int all = lua_toboolean(L, 5);
    pathgate_buf *buf = scratch_buf(L);
    pathgate_error err = {0, ""};
    size_t n = 0;
    int rc = pathgate_fs_edit(buf, &n, o.resolver, path, len, old_s, olen, new_s, nlen, all,
                              &o.opts, &err);
    if (rc < 0)
        return pg_fail(L, rc, &err);
    pg_pushbuf(L, buf);
    lua_pushinteger(L, (lua_Integer)n);
    return 2;
}

static int fs_delete(lua_State *L)
{
    owner o;
    check_owner(L, &o);
    size_t len;
    const char *path = pg_checktext(L, 2, &len);
    pathgate_buf *buf = scratch_buf(L);
    pathgate_error err = {0, ""};
    int rc = pathgate_fs_delete(buf, o.resolver, path, len, &o.opts, &err);
    return pg_bufresult(L, rc, buf, &err);
}

static int fs_grep(lua_State *L)
{
    owner o;
    check_owner(L, &o);
    size_t plen, len, glen;
    const char *pat = pg_checktext(L, 2, &plen);
    const char *path = opt_text(L, 3, &len);
    const char *glob = opt_text(L, 4, &glen);
    size_t max = PATHGATE_FS_NO_LIMIT;
    if (!lua_isnoneornil(L, 5)) {
        lua_Integer v = luaL_checkinteger(L, 5);
        luaL_argcheck(L, v >= 0, 5, "max_count must be >= 0");
        max = (size_t)v;
    }
    opts_table(L, 6, &o);
    holder *h = new_holder(L, H_MATCHES);
    pathgate_error err = {0, ""};
    int rc = pathgate_fs_grep(&h->u.matches, o.resolver, pat, plen, path, len, glob, glen, max,
                              &o.opts, &err);
    if (rc < 0)
        return pg_fail(L, rc, &err);
    const pathgate_fs_matches *m = &h->u.matches;
    lua_createtable(L, (int)m->count, 0);
    for (size_t i = 0; i < m->count; i++) {
        const pathgate_fs_match *e = &m->items[i];
        lua_createtable(L, 0, PG_FIELD_COUNT(PG_GREPMATCH_FIELDS));
        PG_GREPMATCH_FIELDS(PG_LUA_FIELD, e)
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    lua_pushboolean(L, m->truncated);
    push_info(L, m->incomplete, 0, m->unreadable_dirs, m->unreadable_files, m->skipped_names,
              m->skipped_large, m->files_scanned, m->skipped_denied);
    holder_dispose(h);
    return 3;
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

static int fs_upload(lua_State *L)
{
    owner o;
    check_owner(L, &o);
    luaL_checktype(L, 2, LUA_TTABLE);
    lua_Integer n = luaL_len(L, 2);
    /* the items point into strings held by the argument table, which
     * nothing can change while the core runs */
    pathgate_fs_item *items = (pathgate_fs_item *)lua_newuserdatauv(
        L, (size_t)(n ? n : 1) * (sizeof(pathgate_fs_item) + sizeof(int)), 0);
    int *codes = (int *)(void *)(items + (n ? n : 1));
    for (lua_Integer i = 1; i <= n; i++) {
        if (lua_rawgeti(L, 2, i) != LUA_TTABLE)
            luaL_argerror(L, 2, "each file must be a table {path, content}");
        lua_rawgeti(L, -1, 1);
        lua_rawgeti(L, -2, 2);
        if (lua_type(L, -2) != LUA_TSTRING || lua_type(L, -1) != LUA_TSTRING)
            luaL_argerror(L, 2, "each file must be {path (string), content (string)}");
        pathgate_fs_item *it = &items[i - 1];
        it->path = lua_tolstring(L, -2, &it->path_len);
        it->data = lua_tolstring(L, -1, &it->size);
        lua_pop(L, 3);
    }
    pathgate_error err = {0, ""};
    int rc = pathgate_fs_upload(codes, o.resolver, items, (size_t)n, &o.opts, &err);
    if (rc < 0)
        return pg_fail(L, rc, &err);
    lua_createtable(L, (int)n, 0);
    for (lua_Integer i = 1; i <= n; i++) {
        lua_createtable(L, 0, 2);
        lua_pushlstring(L, items[i - 1].path, items[i - 1].path_len);
        lua_setfield(L, -2, "path");
        push_op_error(L, codes[i - 1]);
        lua_setfield(L, -2, "error");
        lua_rawseti(L, -2, i);
    }
    return 1;
}

static int fs_download(lua_State *L)
{
    owner o;
    check_owner(L, &o);
    luaL_checktype(L, 2, LUA_TTABLE);
    lua_Integer n = luaL_len(L, 2);
    pathgate_fs_item *items =
        (pathgate_fs_item *)lua_newuserdatauv(L, (size_t)(n ? n : 1) * sizeof *items, 0);
    for (lua_Integer i = 1; i <= n; i++) {
        if (lua_rawgeti(L, 2, i) != LUA_TSTRING)
            luaL_argerror(L, 2, "paths must be strings");
        items[i - 1].path = lua_tolstring(L, -1, &items[i - 1].path_len);
        items[i - 1].data = NULL;
        items[i - 1].size = 0;
        lua_pop(L, 1);
    }
    holder *h = new_holder(L, H_BLOBS);
    pathgate_error err = {0, ""};
    int rc = pathgate_fs_download(&h->u.blobs, o.resolver, items, (size_t)n, &o.opts, &err);
    if (rc < 0)
        return pg_fail(L, rc, &err);
    lua_createtable(L, (int)n, 0);
    for (lua_Integer i = 1; i <= n; i++) {
        const pathgate_fs_blob *b = &h->u.blobs.items[i - 1];
        lua_createtable(L, 0, 3);
        lua_pushlstring(L, items[i - 1].path, items[i - 1].path_len);
        lua_setfield(L, -2, "path");
        if (b->code == 0) {
            lua_pushlstring(L, (const char *)b->data, b->size);
            lua_setfield(L, -2, "content");
        }
        push_op_error(L, b->code);
        lua_setfield(L, -2, "error");
        lua_rawseti(L, -2, i);
    }
    holder_dispose(h);
    return 1;
}

/* ------------------------------------------------------------------
 * The operations of the MCP server (docs/mcp.md): mkdir, move, stat,
 * multi_edit, head, tail, tree. Core results live in a holder while they
 * are converted, as above. */

/* r:mkdir(path [, parents = true]) -> address | nil, message, kind */
static int fs_mkdir(lua_State *L)
{
    owner o;
    check_owner(L, &o);
    size_t len;
    const char *path = pg_checktext(L, 2, &len);
    int parents = lua_isnoneornil(L, 3) ? 1 : lua_toboolean(L, 3);
    pathgate_buf *buf = scratch_buf(L);
    pathgate_error err = {0, ""};
    int rc = pathgate_fs_mkdir(buf, o.resolver, path, len, parents, &o.opts, &err);
    return pg_bufresult(L, rc, buf, &err);
}

/* r:move(source, destination) -> destination address | nil, message, kind */
static int fs_move(lua_State *L)
{
    return two_text_op(L, pathgate_fs_move);
}

/* r:stat(path) -> {path, type, size, mode, modified_at, accessed_at,
 * changed_at, created_at?} | nil, message, kind */
static int fs_stat(lua_State *L)
{
    owner o;
    check_owner(L, &o);
    size_t len;
    const char *path = pg_checktext(L, 2, &len);
    holder *h = new_holder(L, H_STAT);
    pathgate_error err = {0, ""};
    int rc = pathgate_fs_stat(&h->u.stat, o.resolver, path, len, &o.opts, &err);
    if (rc < 0)
        return pg_fail(L, rc, &err);
    const pathgate_fs_stat_result *r = &h->u.stat;
    lua_createtable(L, 0, PG_FIELD_COUNT(PG_STAT_FIELDS));
    PG_STAT_FIELDS(PG_LUA_FIELD, r)
    return 1;
}

/* r:multi_edit(path, {{old, new [, replace_all]}, ...} [, dry_run]) ->
 * address, diff | nil, message, kind */
static int fs_multi_edit(lua_State *L)
{
    owner o;
    check_owner(L, &o);
    size_t len;
    const char *path = pg_checktext(L, 2, &len);
    luaL_checktype(L, 3, LUA_TTABLE);
    int dry = lua_toboolean(L, 4);
    lua_Integer n = luaL_len(L, 3);
    if (n < 0 || n > 100000)
        return luaL_argerror(L, 3, "too many edits");
    pathgate_fs_edit_op *ops =
        (pathgate_fs_edit_op *)lua_newuserdatauv(L, (size_t)(n ? n : 1) * sizeof *ops, 0);
    int ops_idx = lua_gettop(L);
    for (lua_Integer i = 1; i <= n; i++) {
        if (lua_geti(L, 3, i) != LUA_TTABLE)
            return luaL_argerror(L, 3, "each edit must be {old, new [, replace_all]}");
        int e = lua_gettop(L);
        lua_geti(L, e, 1);
        lua_geti(L, e, 2);
        lua_geti(L, e, 3);
        pathgate_fs_edit_op *op = &ops[i - 1];
        if (lua_type(L, -3) != LUA_TSTRING || lua_type(L, -2) != LUA_TSTRING)
            return luaL_argerror(L, 3, "each edit must be {old, new [, replace_all]}");
        /* the strings stay referenced by the edits table */
        op->old_text = lua_tolstring(L, -3, &op->old_len);
        op->new_text = lua_tolstring(L, -2, &op->new_len);
        op->replace_all = lua_toboolean(L, -1);
        lua_settop(L, ops_idx);
    }
    holder *h = new_holder(L, H_BUFS);
    pathgate_error err = {0, ""};
    int rc = pathgate_fs_edits(&h->u.bufs.a, &h->u.bufs.b, o.resolver, path, len, ops, (size_t)n,
                               dry, &o.opts, &err);
    if (rc < 0)
        return pg_fail(L, rc, &err);
    lua_pushlstring(L, h->u.bufs.a.ptr, h->u.bufs.a.len);
    lua_pushlstring(L, h->u.bufs.b.ptr ? h->u.bufs.b.ptr : "", h->u.bufs.b.len);
    return 2;
}

static int head_tail(lua_State *L, int tail)
{
    owner o;
    check_owner(L, &o);
    size_t len;
    const char *path = pg_checktext(L, 2, &len);
    size_t lines = PATHGATE_FS_NO_LIMIT;
    if (!lua_isnoneornil(L, 3)) {
        lua_Integer v = luaL_checkinteger(L, 3);
        luaL_argcheck(L, v >= 0, 3, "must not be negative");
        lines = (size_t)v;
    }
    holder *h = new_holder(L, H_BUFS);
    pathgate_buf *out = &h->u.bufs.a;
    pathgate_error err = {0, ""};
    int rc = tail ? pathgate_fs_tail(out, o.resolver, path, len, lines, &o.opts, &err)
                  : pathgate_fs_head(out, o.resolver, path, len, lines, &o.opts, &err);
    if (rc < 0)
        return pg_fail(L, rc, &err);
    lua_pushlstring(L, out->ptr ? out->ptr : "", out->len);
    return 1;
}

/* r:head(path [, lines]) / r:tail(path [, lines]) -> bytes | nil, message, kind */
static int fs_head(lua_State *L)
{
    return head_tail(L, 0);
}

static int fs_tail(lua_State *L)
{
    return head_tail(L, 1);
}

/* r:tree(path [, {exclude glob, ...}]) -> entries, truncated | nil, message, kind */
static int fs_tree(lua_State *L)
{
    owner o;
    check_owner(L, &o);
    size_t len;
    const char *path = pg_checktext(L, 2, &len);
    lua_Integer n = 0;
    if (!lua_isnoneornil(L, 3)) {
        luaL_checktype(L, 3, LUA_TTABLE);
        n = luaL_len(L, 3);
        luaL_argcheck(L, n >= 0 && n <= 10000, 3, "too many patterns");
    }
    size_t cnt = (size_t)(n ? n : 1);
    const char **ex = (const char **)lua_newuserdatauv(L, cnt * (sizeof *ex + sizeof(size_t)), 0);
    size_t *exl = (size_t *)(void *)(ex + cnt);
    for (lua_Integer i = 1; i <= n; i++) {
        if (lua_geti(L, 3, i) != LUA_TSTRING)
            return luaL_argerror(L, 3, "exclude patterns must be strings");
        ex[i - 1] = lua_tolstring(L, -1, &exl[i - 1]); /* referenced by the table */
        lua_pop(L, 1);
    }
    holder *h = new_holder(L, H_LIST);
    pathgate_error err = {0, ""};
    int rc = pathgate_fs_tree(&h->u.list, o.resolver, path, len, ex, exl, (size_t)n, &o.opts, &err);
    if (rc < 0)
        return pg_fail(L, rc, &err);
    push_list(L, &h->u.list);
    lua_pushboolean(L, h->u.list.truncated);
    return 2;
}

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
    pathgate_error err = {0, ""};
    int rc = li->is_grep ? pathgate_fs_iter_next_match(&m, li->it, &err)
                         : pathgate_fs_iter_next_info(&e, li->it, &err);
    if (rc <= 0) {
        pathgate_fs_iter_free(li->it);
        li->it = NULL;
        if (rc < 0)
            return luaL_error(L, "%s", err.message);
        return 0;
    }
    if (m) {
        lua_createtable(L, 0, PG_FIELD_COUNT(PG_GREPMATCH_FIELDS));
        PG_GREPMATCH_FIELDS(PG_LUA_FIELD, m)
    } else {
        lua_createtable(L, 0, PG_FIELD_COUNT(PG_FILEINFO_FIELDS));
        PG_FILEINFO_FIELDS(PG_LUA_FIELD, e)
    }
    return 1;
}

/* Returns step, nil, nil, closer: `for x in obj:grep_iter(...) do`. */
static int push_iter(lua_State *L, pathgate_fs_iter *it, int is_grep)
{
    lua_iter *li = (lua_iter *)lua_newuserdatauv(L, sizeof *li, 1);
    li->it = it;
    li->is_grep = is_grep;
    if (luaL_newmetatable(L, "pathgate.fs.iter")) {
        lua_pushcfunction(L, iter_close);
        lua_setfield(L, -2, "__gc");
        lua_pushcfunction(L, iter_close);
        lua_setfield(L, -2, "__close");
    }
    lua_setmetatable(L, -2);
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

static int fs_grep_iter(lua_State *L)
{
    owner o;
    check_owner(L, &o);
    size_t plen, len, glen;
    const char *pat = pg_checktext(L, 2, &plen);
    const char *path = opt_text(L, 3, &len);
    const char *glob = opt_text(L, 4, &glen);
    size_t max = PATHGATE_FS_NO_LIMIT;
    if (!lua_isnoneornil(L, 5)) {
        lua_Integer v = luaL_checkinteger(L, 5);
        luaL_argcheck(L, v >= 0, 5, "max_count must be >= 0");
        max = (size_t)v;
    }
    opts_table(L, 6, &o);
    pathgate_fs_iter *it = NULL;
    pathgate_error err = {0, ""};
    int rc = pathgate_fs_grep_iter_new(&it, o.resolver, pat, plen, path, len, glob, glen, max,
                                       &o.opts, &err);
    if (rc < 0)
        return pg_fail(L, rc, &err);
    return push_iter(L, it, 1);
}

static int fs_glob_iter(lua_State *L)
{
    owner o;
    check_owner(L, &o);
    size_t plen, len;
    const char *pat = pg_checktext(L, 2, &plen);
    const char *path = opt_text(L, 3, &len);
    if (lua_toboolean(L, 4))
        o.opts.flags |= PATHGATE_FS_METADATA;
    opts_table(L, 5, &o);
    pathgate_fs_iter *it = NULL;
    pathgate_error err = {0, ""};
    int rc = pathgate_fs_glob_iter_new(&it, o.resolver, pat, plen, path, len, &o.opts, &err);
    if (rc < 0)
        return pg_fail(L, rc, &err);
    return push_iter(L, it, 0);
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

static const luaL_Reg fs_methods[] = {
    {"grep_iter", fs_grep_iter}, {"glob_iter", fs_glob_iter},
    {"ls_iter", fs_ls_iter},     {"ls", fs_ls},
    {"read", fs_read},           {"write", fs_write},
    {"edit", fs_edit},           {"delete", fs_delete},
    {"grep", fs_grep},           {"glob", fs_glob},
    {"upload_files", fs_upload}, {"download_files", fs_download},
    {"mkdir", fs_mkdir},         {"move", fs_move},
    {"stat", fs_stat},           {"multi_edit", fs_multi_edit},
    {"head", fs_head},           {"tail", fs_tail},
    {"tree", fs_tree},           {NULL, NULL},
};

void pg_open_fs(lua_State *L, int module_idx, int scratch_idx);

/* Adds the methods to the Resolver and Session classes (after their parts
 * have created them). */
void pg_open_fs(lua_State *L, int module_idx, int scratch_idx)
{
    (void)module_idx;
    const pg_class classes[] = {PG_RESOLVER, PG_SESSION};
    for (size_t i = 0; i < 2; i++) {
        lua_getiuservalue(L, scratch_idx, (int)classes[i] + 1); /* its metatable */
        lua_getfield(L, -1, "__index");
        lua_pushvalue(L, scratch_idx);
        luaL_setfuncs(L, fs_methods, 1);
        lua_pop(L, 2);
    }
}
