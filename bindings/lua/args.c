/*
 * args.c - the binder of ../arg_spec.h for Lua: pg_args_check checks a
 * method call's arguments against a description and converts them into
 * the holder. The positional arguments come after self; the others are
 * fields of one options table after them (which may also take the place of
 * an omitted optional positional one: r:grep("x", {regex = true})). An
 * unknown option, a value of the wrong type or range, or an extra non-nil
 * argument raises. The holder points into strings the stack keeps alive
 * and into arrays left on the stack as userdata, so it needs no release.
 */
#include <limits.h>
#include <string.h>

#include "util.h"

/* The Resolver or Session at index 1. */
static void owner(lua_State *L, pg_argv *a)
{
    if (pg_testudata(L, 1, PG_RESOLVER)) {
        a->resolver = pg_checkresolver(L, 1)->ptr;
        return;
    }
    if (pg_testudata(L, 1, PG_SESSION)) {
        a->opts.session = (pathgate_session *)pg_checkobj(L, 1, PG_SESSION);
        lua_getiuservalue(L, 1, 1); /* the session's resolver box */
        pg_resolver *r = (pg_resolver *)lua_touserdata(L, -1);
        if (r == NULL || r->closed)
            luaL_argerror(L, 1, "the session's " PG_RESOLVER_MT " is closed");
        lua_pop(L, 1);
        return;
    }
    luaL_typeerror(L, 1, PG_RESOLVER_MT " or " PG_SESSION_MT);
}

/* Where a value is: stack index idx, and either argument arg itself
 * (option NULL) or the field `option` of the options table at arg. */
typedef struct place {
    int idx, arg;
    const char *option; /* NULL or name */
    const char *name;
    int top; /* the last argument (the holder's arrays lie above it) */
} place;

/* Raises "<expected> expected, got <type of the value at idx>". */
static int bad_type(lua_State *L, const place *p, int idx, const char *expected)
{
    if (!p->option && idx == p->idx)
        return luaL_typeerror(L, p->arg, expected);
    return luaL_argerror(L, p->arg,
                         lua_pushfstring(L, "%s '%s': %s expected, got %s",
                                         p->option == p->name ? "option" : "entry of", p->name,
                                         expected, luaL_typename(L, idx)));
}

static const char *string_at(lua_State *L, const place *p, int idx, size_t *len)
{
    if (lua_type(L, idx) != LUA_TSTRING)
        bad_type(L, p, idx, "string");
    return lua_tolstring(L, idx, len);
}

/* A zeroed array, kept on the stack until the call returns. */
static void *array(lua_State *L, size_t n, size_t size)
{
    void *p = lua_newuserdatauv(L, (n ? n : 1) * size, 0);
    memset(p, 0, (n ? n : 1) * size);
    return p;
}

/*
 * A list kind: the table at p->idx, a positional argument (its arrays are
 * left on top of the stack, so a list is never an option). The strings
 * stay referenced by the table while the call runs.
 */
static void list(lua_State *L, const place *p, const pg_arg *arg, pg_val *v)
{
    if (lua_type(L, p->idx) != LUA_TTABLE)
        bad_type(L, p, p->idx, "table");
    lua_Integer n = luaL_len(L, p->idx);
    if (n < 0 || n > PG_LIST_MAX)
        luaL_argerror(L, p->arg, lua_pushfstring(L, "%s: too many entries", arg->name));
    v->n = (size_t)n;
    if (arg->kind == PG_TEXTS) {
        v->texts = (const char **)array(L, v->n, sizeof *v->texts);
        v->lens = (size_t *)array(L, v->n, sizeof *v->lens);
    } else if (arg->kind == PG_EDITS) {
        v->edits = (pathgate_fs_edit_op *)array(L, v->n, sizeof *v->edits);
    } else {
        v->items = (pathgate_fs_item *)array(L, v->n, sizeof *v->items);
        v->codes = (int *)array(L, v->n, sizeof *v->codes);
    }
    place e = {0, p->arg, NULL, arg->name, INT_MAX};
    for (lua_Integer i = 1; i <= n; i++) {
        int type = lua_geti(L, p->idx, i);
        size_t k = (size_t)i - 1;
        e.idx = lua_gettop(L);
        if (arg->kind == PG_TEXTS) {
            v->texts[k] = string_at(L, &e, e.idx, &v->lens[k]);
        } else if (arg->kind == PG_PATHS) {
            v->items[k].path = string_at(L, &e, e.idx, &v->items[k].path_len);
        } else if (type != LUA_TTABLE) {
            bad_type(L, &e, e.idx,
                     arg->kind == PG_ITEMS ? "{path, content}" : "{old, new [, replace_all]}");
        } else if (arg->kind == PG_ITEMS) {
            lua_geti(L, e.idx, 1);
            lua_geti(L, e.idx, 2);
            v->items[k].path = string_at(L, &e, e.idx + 1, &v->items[k].path_len);
            v->items[k].data = string_at(L, &e, e.idx + 2, &v->items[k].size);
        } else {
            pathgate_fs_edit_op *op = &v->edits[k];
            lua_geti(L, e.idx, 1);
            lua_geti(L, e.idx, 2);
            lua_geti(L, e.idx, 3);
            op->old_text = string_at(L, &e, e.idx + 1, &op->old_len);
            op->new_text = string_at(L, &e, e.idx + 2, &op->new_len);
            op->replace_all = lua_toboolean(L, e.idx + 3);
        }
        lua_settop(L, e.idx - 1);
    }
}

/* Converts the value at p->idx for spec.args[i] (nil: the default). */
static void convert(lua_State *L, pg_argv *a, pg_spec spec, size_t i, const place *p)
{
    const pg_arg *arg = &spec.args[i];
    if (p->idx > p->top || lua_isnil(L, p->idx)) {
        const char *expected = pg_is_list(arg->kind) ? "table" : "string";
        if ((arg->where & PG_REQ) && p->idx > p->top)
            luaL_argerror(L, p->arg, lua_pushfstring(L, "%s expected, got no value", expected));
        if (arg->where & PG_REQ)
            bad_type(L, p, p->idx, expected);
        return;
    }
    if (pg_is_list(arg->kind)) {
        list(L, p, arg, &a->v[i]);
    } else if (pg_is_text(arg->kind)) {
        size_t len;
        const char *s = string_at(L, p, p->idx, &len);
        pg_argv_text(a, spec.args, i, s, len);
    } else {
        int isint = 0;
        lua_Integer n;
        if (pg_is_truth(arg->kind)) {
            if (!lua_isboolean(L, p->idx))
                bad_type(L, p, p->idx, "boolean");
            n = lua_toboolean(L, p->idx);
        } else {
            n = lua_type(L, p->idx) == LUA_TNUMBER ? lua_tointegerx(L, p->idx, &isint) : 0;
            if (!isint)
                bad_type(L, p, p->idx, "integer");
        }
        const char *msg = pg_argv_number(a, spec.args, i, (int64_t)n);
        if (msg)
            luaL_argerror(L, p->arg, lua_pushfstring(L, "%s %s", arg->name, msg));
    }
}

/* The fields of the options table at t. */
static void options(lua_State *L, pg_argv *a, pg_spec spec, int t)
{
    if (lua_type(L, t) != LUA_TTABLE)
        luaL_typeerror(L, t, "options table");
    lua_pushnil(L);
    while (lua_next(L, t)) {
        const char *k = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : NULL;
        size_t i = 0;
        while (i < spec.n && (!k || !pg_is_option(&spec.args[i]) || (spec.args[i].where & PG_PY) ||
                              pg_is_list(spec.args[i].kind) || strcmp(k, spec.args[i].name) != 0))
            i++;
        if (i == spec.n)
            luaL_argerror(L, t,
                          lua_pushfstring(L, "unknown option '%s'", k ? k : luaL_typename(L, -2)));
        place p = {lua_gettop(L), t, spec.args[i].name, spec.args[i].name, INT_MAX};
        convert(L, a, spec, i, &p);
        lua_pop(L, 1);
    }
}

void pg_args_owner(lua_State *L, pg_argv *a)
{
    pg_spec none = {NULL, 0};
    pg_argv_init(a, none);
    owner(L, a);
}

void pg_args_check(lua_State *L, pg_argv *a, pg_spec spec)
{
    pg_argv_init(a, spec);
    owner(L, a);
    int top = lua_gettop(L), idx = 2, table = 0, takes_options = 0;
    for (size_t i = 0; i < spec.n; i++)
        takes_options |= pg_is_option(&spec.args[i]) && !(spec.args[i].where & PG_PY);
    for (size_t i = 0; i < spec.n && !table; i++) {
        if (!(spec.args[i].where & PG_POS))
            continue;
        if (takes_options && !(spec.args[i].where & PG_REQ) && !pg_is_list(spec.args[i].kind) &&
            idx <= top && lua_type(L, idx) == LUA_TTABLE)
            table = idx; /* the options in place of an omitted argument */
        else
            convert(L, a, spec, i, &(place){idx, idx, NULL, spec.args[i].name, top});
        idx++;
    }
    if (!table && takes_options)
        table = idx++;
    if (table && table <= top && !lua_isnil(L, table))
        options(L, a, spec, table);
    for (int extra = idx; extra <= top; extra++)
        if (!lua_isnil(L, extra))
            luaL_argerror(L, extra, "no more arguments expected");
}
