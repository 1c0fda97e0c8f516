/*
 * edit_tools.c - the edit tools models are trained on, as methods of
 * Resolver and Session objects (arguments: ../edit_ops.h; docs/patch.md,
 * docs/editor.md):
 *
 *   obj:apply_patch(patch [, {atomic = true}])
 *       -> {output=, error=, kind=, files = {{change=, path=, from=}, ...}}
 *   obj:text_editor(command, path [, args])
 *       -> {output=, error=, kind=}
 *       args: tool, file_text, old_str, new_str, insert_line,
 *             max_characters, view_range ({start, end})
 *
 * What the tool answers (a patch that does not apply, a text not found) is
 * the result table, with error and kind set; misuse raises. The undo
 * history of text_editor belongs to the object it is called on (a table in
 * the registry with weak keys maps the object to its editor).
 */
#include <string.h>

#include "edit_ops.h"
#include "util.h"

#define PG_EDITOR_MT "pathgate.editor"
#define PG_EDITORS_KEY "pathgate.editors"

static const pg_spec patch_spec = PG_SPEC(pg_patch_args);
static const pg_spec editor_spec = PG_SPEC(pg_editor_args);

/* The core results, owned by a userdata whose __gc frees them, so that a
 * raise while the table is built leaks nothing. */
typedef struct holder {
    pathgate_fs_patch_result patch;
    pathgate_editor_result editor;
} holder;

static int holder_gc(lua_State *L)
{
    holder *h = (holder *)luaL_checkudata(L, 1, "pathgate.edit_tools.result");
    pathgate_fs_patch_result_dispose(&h->patch);
    pathgate_editor_result_dispose(&h->editor);
    return 0;
}

static holder *new_holder(lua_State *L)
{
    holder *h = (holder *)lua_newuserdatauv(L, sizeof *h, 0);
    const pathgate_fs_patch_result p = PATHGATE_FS_PATCH_RESULT_INIT;
    const pathgate_editor_result e = PATHGATE_EDITOR_RESULT_INIT;
    h->patch = p;
    h->editor = e;
    if (luaL_newmetatable(L, "pathgate.edit_tools.result")) {
        lua_pushcfunction(L, holder_gc);
        lua_setfield(L, -2, "__gc");
    }
    lua_setmetatable(L, -2);
    return h;
}

static void set_buf(lua_State *L, const char *field, const pathgate_buf *b)
{
    if (b->ptr) {
        lua_pushlstring(L, b->ptr, b->len);
        lua_setfield(L, -2, field);
    }
}

static void set_kind(lua_State *L, int code)
{
    if (code) {
        lua_pushstring(L, pathgate_errname(code));
        lua_setfield(L, -2, "kind");
    }
}

static int l_apply_patch(lua_State *L)
{
    pg_argv a;
    pg_args_check(L, &a, patch_spec);
    holder *h = new_holder(L);
    int rc = pathgate_fs_apply_patch(&h->patch, a.resolver, PG_TXT(&a, 0), &a.opts, &a.err);
    if (rc < 0)
        return pg_fail(L, rc, &a.err);
    const pathgate_fs_patch_result *r = &h->patch;
    lua_createtable(L, 0, 4);
    set_buf(L, "output", &r->output);
    set_buf(L, "error", &r->error);
    set_kind(L, r->code);
    lua_createtable(L, (int)r->count, 0);
    for (size_t i = 0; i < r->count; i++) {
        const pathgate_fs_patch_file *f = &r->files[i];
        char change[2] = {(char)f->change, '\0'};
        lua_createtable(L, 0, 3);
        lua_pushstring(L, change);
        lua_setfield(L, -2, "change");
        lua_pushlstring(L, f->path, f->path_len);
        lua_setfield(L, -2, "path");
        if (f->from) {
            lua_pushlstring(L, f->from, f->from_len);
            lua_setfield(L, -2, "from");
        }
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    lua_setfield(L, -2, "files");
    return 1;
}

/* ------------------------------------------------------------ the editor */

static int editor_gc(lua_State *L)
{
    pg_box *b = (pg_box *)luaL_checkudata(L, 1, PG_EDITOR_MT);
    pathgate_editor_free((pathgate_editor *)b->ptr);
    b->ptr = NULL;
    return 0;
}

/* The editor of the object at index 1 (made on first use). */
static pathgate_editor *editor_of(lua_State *L)
{
    if (lua_getfield(L, LUA_REGISTRYINDEX, PG_EDITORS_KEY) != LUA_TTABLE) {
        lua_pop(L, 1);
        lua_newtable(L);
        lua_createtable(L, 0, 1);
        lua_pushliteral(L, "k");
        lua_setfield(L, -2, "__mode");
        lua_setmetatable(L, -2);
        lua_pushvalue(L, -1);
        lua_setfield(L, LUA_REGISTRYINDEX, PG_EDITORS_KEY);
    }
    lua_pushvalue(L, 1);
    if (lua_rawget(L, -2) == LUA_TUSERDATA) {
        pg_box *b = (pg_box *)lua_touserdata(L, -1);
        lua_pop(L, 2);
        return (pathgate_editor *)b->ptr;
    }
    lua_pop(L, 1);
    pg_box *b = (pg_box *)lua_newuserdatauv(L, sizeof *b, 0);
    b->ptr = NULL;
    if (luaL_newmetatable(L, PG_EDITOR_MT)) {
        lua_pushcfunction(L, editor_gc);
        lua_setfield(L, -2, "__gc");
    }
    lua_setmetatable(L, -2);
    pathgate_error err = PATHGATE_ERROR_INIT;
    int rc = pathgate_editor_new((pathgate_editor **)&b->ptr, NULL, &err);
    if (rc < 0) {
        pg_fail(L, rc, &err); /* raises: out of memory */
        return NULL;
    }
    lua_pushvalue(L, 1);
    lua_pushvalue(L, -2);
    lua_rawset(L, -4);
    lua_pop(L, 2);
    return (pathgate_editor *)b->ptr;
}

/*
 * view_range of the args table at idx, taken out of it (a list is not an
 * option of the binder): the table is replaced by a copy without it. Its
 * integers go to v (at most 16 kept: a list of any length but 2 gets the
 * same answer) and *n, or *invalid is set when the value is not a list of
 * integers. nil, false and an empty table: not given.
 */
static void take_view_range(lua_State *L, int idx, int64_t v[16], size_t *n, int *invalid)
{
    *n = 0;
    *invalid = 0;
    if (lua_type(L, idx) != LUA_TTABLE)
        return;
    lua_getfield(L, idx, "view_range");
    if (lua_type(L, -1) == LUA_TTABLE) {
        lua_Integer len = luaL_len(L, -1);
        for (lua_Integer i = 1; i <= len && !*invalid; i++) {
            lua_geti(L, -1, i);
            *invalid = !lua_isinteger(L, -1);
            if (i <= 16)
                v[i - 1] = (int64_t)lua_tointeger(L, -1);
            lua_pop(L, 1);
        }
        *n = len < 0 ? 0 : len > 16 ? 16 : (size_t)len;
    } else if (lua_toboolean(L, -1)) {
        *invalid = 1;
    }
    lua_pop(L, 1);
    lua_newtable(L); /* the table without view_range */
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        if (lua_type(L, -2) == LUA_TSTRING && strcmp(lua_tostring(L, -2), "view_range") == 0) {
            lua_pop(L, 1);
            continue;
        }
        lua_pushvalue(L, -2);
        lua_insert(L, -2);
        lua_rawset(L, -4);
    }
    lua_replace(L, idx);
}

static int l_text_editor(lua_State *L)
{
    int64_t range[16];
    size_t n;
    int invalid;
    if (lua_gettop(L) < 4)
        lua_settop(L, 4);
    take_view_range(L, 4, range, &n, &invalid);
    pg_argv a;
    pg_args_check(L, &a, editor_spec);
    pathgate_editor_tool tool;
    if (pg_editor_tool(&a, &tool) < 0)
        return luaL_argerror(L, 4,
                             "option 'tool': 'str_replace_based_edit_tool' or 'str_replace_editor' "
                             "expected");
    if (!invalid && n) {
        a.v[PG_ED_VIEW_RANGE].ints = range;
        a.v[PG_ED_VIEW_RANGE].n = n;
    }
    a.v[PG_ED_VIEW_RANGE_INVALID].i = invalid;
    pathgate_editor_args e;
    pg_editor_core_args(&a, tool, &e);
    pathgate_editor *ed = editor_of(L);
    holder *h = new_holder(L);
    int rc = pathgate_editor_run(&h->editor, ed, a.resolver, PG_TXT(&a, PG_ED_COMMAND),
                                 PG_TXT(&a, PG_ED_PATH), &e, &a.opts, &a.err);
    if (rc < 0)
        return pg_fail(L, rc, &a.err);
    lua_createtable(L, 0, 3);
    set_buf(L, "output", &h->editor.output);
    set_buf(L, "error", &h->editor.error);
    set_kind(L, h->editor.code);
    return 1;
}

static const luaL_Reg edit_methods[] = {
    {"apply_patch", l_apply_patch},
    {"text_editor", l_text_editor},
    {NULL, NULL},
};

/* Adds the methods to the Resolver and Session classes. */
void pg_open_edit_tools(lua_State *L, int module_idx, int scratch_idx)
{
    (void)module_idx;
    const pg_class classes[] = {PG_RESOLVER, PG_SESSION};
    for (size_t i = 0; i < 2; i++) {
        lua_getiuservalue(L, scratch_idx, (int)classes[i] + 1); /* its metatable */
        lua_getfield(L, -1, "__index");
        lua_pushvalue(L, scratch_idx);
        luaL_setfuncs(L, edit_methods, 1);
        lua_pop(L, 2);
    }
}
