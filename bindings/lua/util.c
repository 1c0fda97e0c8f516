/* util.c - argument checks, the error convention and class plumbing. */
#include "util.h"

#include <string.h>

const char *const pg_class_name[PG_NCLASSES] = {
    [PG_URI] = PG_URI_MT,           [PG_LEGACY] = PG_LEGACY_MT,
    [PG_REF] = PG_REF_MT,           [PG_RESOLUTION] = PG_RESOLUTION_MT,
    [PG_RESOLVER] = PG_RESOLVER_MT, [PG_SESSION] = PG_SESSION_MT,
    [PG_BUFPAIR] = PG_BUFPAIR_MT,
};

/* The string key under which the table at t holds the value at fn, or
 * NULL. The key stays alive in the table. Leaves the stack as it was. */
static const char *key_of(lua_State *L, int t, int fn)
{
    lua_pushnil(L);
    while (lua_next(L, t)) {
        if (lua_type(L, -2) == LUA_TSTRING && lua_rawequal(L, -1, fn)) {
            const char *k = lua_tostring(L, -2);
            lua_pop(L, 2);
            return k;
        }
        lua_pop(L, 1);
    }
    return NULL;
}

/* The name of the function at fn among the module's methods (every class's
 * metatable and its __index table) and the module's own tables. */
static const char *method_name(lua_State *L, int fn)
{
    const char *name = NULL;
    if (lua_type(L, lua_upvalueindex(1)) == LUA_TUSERDATA) { /* the scratch */
        for (int c = 0; c < PG_NCLASSES && !name; c++) {
            if (lua_getiuservalue(L, lua_upvalueindex(1), c + 1) == LUA_TTABLE) {
                int mt = lua_gettop(L);
                name = key_of(L, mt, fn);
                if (!name && lua_getfield(L, mt, "__index") == LUA_TTABLE)
                    name = key_of(L, lua_gettop(L), fn);
                lua_settop(L, mt);
            }
            lua_pop(L, 1);
        }
    }
    if (!name) {
        int top = lua_gettop(L);
        lua_getfield(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
        if (lua_getfield(L, -1, "pathgate") == LUA_TTABLE) {
            int mod = lua_gettop(L);
            name = key_of(L, mod, fn);
            lua_pushnil(L);
            while (!name && lua_next(L, mod)) { /* the class tables' statics */
                if (lua_type(L, -1) == LUA_TTABLE) {
                    name = key_of(L, lua_gettop(L), fn);
                    /* the constructor, Class{...}: its metatable's __call */
                    if (!name && lua_getmetatable(L, -1)) {
                        if (lua_getfield(L, -1, "__call") != LUA_TNIL && lua_rawequal(L, -1, fn) &&
                            lua_type(L, -4) == LUA_TSTRING)
                            name = lua_tostring(L, -4);
                        lua_pop(L, 2);
                    }
                }
                lua_pop(L, 1);
            }
            if (name)
                lua_pop(L, 1); /* the key left by lua_next */
        }
        lua_settop(L, top);
    }
    return name;
}

int pg_argerror(lua_State *L, int arg, const char *extramsg)
{
    lua_Debug ar;
    if (!lua_getstack(L, 0, &ar))
        return luaL_error(L, "bad argument #%d (%s)", arg, extramsg);
    lua_getinfo(L, "nf", &ar); /* pushes the running function */
    if (ar.namewhat && strcmp(ar.namewhat, "method") == 0) {
        arg--; /* do not count self */
        if (arg == 0)
            return luaL_error(L, "calling '%s' on bad self (%s)", ar.name, extramsg);
    }
    const char *name = ar.name ? ar.name : method_name(L, lua_gettop(L));
    return luaL_error(L, "bad argument #%d to '%s' (%s)", arg, name ? name : "?", extramsg);
}

int pg_typeerror(lua_State *L, int arg, const char *tname)
{
    const char *got;
    if (luaL_getmetafield(L, arg, "__name") == LUA_TSTRING)
        got = lua_tostring(L, -1);
    else if (lua_type(L, arg) == LUA_TLIGHTUSERDATA)
        got = "light userdata";
    else
        got = luaL_typename(L, arg);
    return pg_argerror(L, arg, lua_pushfstring(L, "%s expected, got %s", tname, got));
}

void pg_checktype(lua_State *L, int arg, int t)
{
    if (lua_type(L, arg) != t)
        pg_typeerror(L, arg, lua_typename(L, t));
}

lua_Integer pg_checkinteger(lua_State *L, int arg)
{
    int isnum = 0;
    lua_Integer v = lua_tointegerx(L, arg, &isnum);
    if (!isnum) {
        if (lua_isnumber(L, arg))
            pg_argerror(L, arg, "number has no integer representation");
        else
            pg_typeerror(L, arg, "number");
    }
    return v;
}

lua_Integer pg_optinteger(lua_State *L, int arg, lua_Integer def)
{
    return lua_isnoneornil(L, arg) ? def : pg_checkinteger(L, arg);
}

const char *pg_checktext(lua_State *L, int arg, size_t *len)
{
    if (lua_type(L, arg) != LUA_TSTRING)
        luaL_typeerror(L, arg, "string");
    return lua_tolstring(L, arg, len);
}

pathgate_convention pg_checkconvention(lua_State *L, int arg)
{
    size_t len;
    const char *s = pg_checktext(L, arg, &len);
    pathgate_convention c;
    if (pathgate_convention_parse(&c, s, len, NULL) != 0) {
        lua_pushfstring(L, "invalid convention '%s' (expected \"posix\" or \"windows\")", s);
        luaL_argerror(L, arg, lua_tostring(L, -1));
    }
    return c;
}

pathgate_convention pg_optconvention(lua_State *L, int arg)
{
    if (lua_isnoneornil(L, arg))
        return PATHGATE_CONVENTION_NONE;
    return pg_checkconvention(L, arg);
}

void pg_pushconvention(lua_State *L, pathgate_convention convention)
{
    const char *name = pathgate_convention_name(convention);
    if (name)
        lua_pushstring(L, name);
    else
        lua_pushnil(L);
}

void *pg_testudata(lua_State *L, int arg, pg_class cls)
{
    if (lua_type(L, arg) != LUA_TUSERDATA || !lua_getmetatable(L, arg))
        return NULL;
    const void *mt = lua_topointer(L, -1);
    lua_pop(L, 1);
    return mt == pg_scratch_get(L)->mt[cls] ? lua_touserdata(L, arg) : NULL;
}

void *pg_checkudata(lua_State *L, int arg, pg_class cls)
{
    void *p = pg_testudata(L, arg, cls);
    if (!p)
        luaL_typeerror(L, arg, pg_class_name[cls]);
    return p;
}

void *pg_checkobj(lua_State *L, int arg, pg_class cls)
{
    pg_box *box = (pg_box *)pg_checkudata(L, arg, cls);
    if (!box->ptr)
        luaL_argerror(L, arg, lua_pushfstring(L, "attempt to use a closed %s", pg_class_name[cls]));
    return box->ptr;
}

void pg_pushmetatable(lua_State *L, pg_class cls)
{
    lua_getiuservalue(L, lua_upvalueindex(1), (int)cls + 1);
}

pg_box *pg_newbox(lua_State *L, size_t size, int nuv, pg_class cls)
{
    pg_box *box = (pg_box *)lua_newuserdatauv(L, size, nuv);
    memset(box, 0, size);
    pg_pushmetatable(L, cls);
    return box;
}

int pg_commit(lua_State *L, int rc, const pathgate_error *err)
{
    if (rc == 0) {
        lua_setmetatable(L, -2);
        return 1;
    }
    lua_pop(L, 2);
    return pg_fail(L, rc, err);
}

int pg_fail(lua_State *L, int rc, const pathgate_error *err)
{
    if (rc == PATHGATE_ENOMEM)
        return luaL_error(L, "not enough memory");
    lua_pushnil(L);
    if (err && err->code == rc && err->message[0] && memchr(err->message, 0, sizeof err->message))
        lua_pushstring(L, err->message);
    else
        lua_pushstring(L, pathgate_strerror(rc));
    lua_pushstring(L, pathgate_errname(rc));
    return 3;
}

void pg_pushbuf(lua_State *L, pathgate_buf *buf)
{
    if (buf->ptr)
        lua_pushlstring(L, buf->ptr, buf->len);
    else
        lua_pushnil(L);
    pathgate_buf_dispose(buf);
}

int pg_bufresult(lua_State *L, int rc, pathgate_buf *buf, const pathgate_error *err)
{
    if (rc != 0) {
        pathgate_buf_dispose(buf);
        return pg_fail(L, rc, err);
    }
    pg_pushbuf(L, buf);
    return 1;
}

int pg_pushclosed(lua_State *L, pg_class cls)
{
    lua_pushfstring(L, "%s (closed)", pg_class_name[cls]);
    return 1;
}

void pg_closebox(lua_State *L, int arg, pg_class cls, void (*fn)(void *))
{
    pg_box *box = (pg_box *)pg_checkudata(L, arg, cls);
    void *p = box->ptr;
    box->ptr = NULL;
    if (p)
        fn(p);
}

void pg_newclass(lua_State *L, int scratch_idx, pg_class cls, const luaL_Reg *meta,
                 const luaL_Reg *methods)
{
    const char *tname = pg_class_name[cls];
    luaL_newmetatable(L, tname); /* sets __name; also kept in the registry */
    ((pg_scratch *)lua_touserdata(L, scratch_idx))->mt[cls] = lua_topointer(L, -1);
    lua_pushvalue(L, -1);
    lua_setiuservalue(L, scratch_idx, (int)cls + 1);
    lua_pushvalue(L, scratch_idx);
    luaL_setfuncs(L, meta, 1);
    if (methods) {
        lua_newtable(L);
        lua_pushvalue(L, scratch_idx);
        luaL_setfuncs(L, methods, 1);
        lua_setfield(L, -2, "__index");
    }
    /* getmetatable(obj) returns the class name, not the metatable. */
    lua_pushstring(L, tname);
    lua_setfield(L, -2, "__metatable");
    lua_pop(L, 1);
}

void pg_newclasstable(lua_State *L, int module_idx, int scratch_idx, const char *name,
                      const luaL_Reg *statics, lua_CFunction call)
{
    lua_newtable(L);
    if (statics) {
        lua_pushvalue(L, scratch_idx);
        luaL_setfuncs(L, statics, 1);
    }
    if (call) {
        lua_createtable(L, 0, 1);
        lua_pushvalue(L, scratch_idx);
        lua_pushcclosure(L, call, 1);
        lua_setfield(L, -2, "__call");
        lua_setmetatable(L, -2);
    }
    lua_setfield(L, module_idx, name);
}

void pg_push_STR(lua_State *L, const char *s, size_t len)
{
    lua_pushlstring(L, s, len);
}

void pg_push_CSTR(lua_State *L, const char *s, size_t unused)
{
    (void)unused;
    lua_pushstring(L, s);
}

void pg_push_BOOL(lua_State *L, int v, size_t unused)
{
    (void)unused;
    lua_pushboolean(L, v);
}

void pg_push_INT(lua_State *L, int v, size_t unused)
{
    (void)unused;
    lua_pushinteger(L, v);
}

void pg_push_UINT(lua_State *L, uint64_t v, size_t unused)
{
    (void)unused;
    lua_pushinteger(L, (lua_Integer)v);
}

/* The open Resolver at arg (every file that takes one, policy.c too:
 * below resolver.c, which makes them). */
pg_resolver *pg_checkresolver(lua_State *L, int arg)
{
    pg_resolver *r = (pg_resolver *)pg_checkudata(L, arg, PG_RESOLVER);
    if (r->closed || !r->ptr)
        luaL_argerror(L, arg, "attempt to use a closed " PG_RESOLVER_MT);
    return r;
}
