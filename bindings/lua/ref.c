/*
 * ref.c - pathgate.VisibilityRef: token + canonical address (docs/spec.md
 * section 5). Holds no host path. A ref minted by a resolve keeps its
 * resolver box as user value 1 and gives its token back on __gc/__close;
 * it stays valid (as a value) after the resolver is closed.
 *
 *   VisibilityRef(token, session_abs) -> ref | nil, msg, code
 *   ref:token(), ref:session_abs()    -> string
 *   tostring(ref) is the canonical address; == compares token and address.
 */
#include "util.h"

pathgate_ref *pg_checkref(lua_State *L, int arg)
{
    return (pathgate_ref *)pg_checkobj(L, arg, PG_REF);
}

void pg_pushref_from(lua_State *L, pathgate_ref **ref)
{
    pg_box *box = pg_newbox(L, sizeof(pg_box), 0, PG_REF);
    box->ptr = *ref; /* nothing below allocates */
    *ref = NULL;
    lua_setmetatable(L, -2);
}

static int ref_new(lua_State *L)
{
    lua_remove(L, 1); /* the class table (__call) */
    size_t tlen, alen;
    const char *token = pg_checktext(L, 1, &tlen);
    const char *address = pg_checktext(L, 2, &alen);
    pathgate_error err = PATHGATE_ERROR_INIT;
    pg_box *box = pg_newbox(L, sizeof(pg_box), 0, PG_REF);
    int rc = pathgate_ref_new((pathgate_ref **)&box->ptr, token, tlen, address, alen, NULL, &err);
    return pg_commit(L, rc, &err);
}

static int ref_token(lua_State *L)
{
    size_t len;
    const char *s = pathgate_ref_token(pg_checkref(L, 1), &len);
    lua_pushlstring(L, s, len);
    return 1;
}

static int ref_session_abs(lua_State *L)
{
    size_t len;
    const char *s = pathgate_ref_address(pg_checkref(L, 1), &len);
    lua_pushlstring(L, s, len);
    return 1;
}

static int ref_tostring(lua_State *L)
{
    pg_box *box = (pg_box *)pg_checkudata(L, 1, PG_REF);
    if (!box->ptr)
        return pg_pushclosed(L, PG_REF);
    size_t len;
    const char *s = pathgate_ref_address(box->ptr, &len);
    lua_pushlstring(L, s, len);
    return 1;
}

static int ref_eq(lua_State *L)
{
    pg_box *a = (pg_box *)pg_testudata(L, 1, PG_REF);
    pg_box *b = (pg_box *)pg_testudata(L, 2, PG_REF);
    lua_pushboolean(L, a && b && a->ptr && b->ptr && pathgate_ref_equal(a->ptr, b->ptr));
    return 1;
}

static void ref_free(void *p)
{
    pathgate_ref_free(p);
}

/* __close, __gc: a ref minted by a resolve (its user value: the resolver
 * box, kept alive by it) gives its token back to the registry, then frees
 * itself; a rebuilt ref (VisibilityRef(token, address)) owns no token. */
void pg_ref_close_at(lua_State *L, int idx)
{
    pg_box *box = (pg_box *)pg_checkudata(L, idx, PG_REF);
    if (!box->ptr)
        return;
    if (lua_getiuservalue(L, idx, 1) == LUA_TUSERDATA) {
        pg_resolver *r = (pg_resolver *)pg_testudata(L, -1, PG_RESOLVER);
        if (r && r->ptr) /* NULL once the resolver is closed and freed */
            pathgate_resolver_release(r->ptr, box->ptr);
    }
    lua_pop(L, 1);
    pg_closebox(L, idx, PG_REF, ref_free);
}

static int ref_close(lua_State *L)
{
    pg_ref_close_at(L, 1);
    return 0;
}

void pg_open_ref(lua_State *L, int module_idx, int scratch_idx)
{
    static const luaL_Reg meta[] = {
        {"__tostring", ref_tostring}, {"__eq", ref_eq}, {"__gc", ref_close},
        {"__close", ref_close},       {NULL, NULL},
    };
    static const luaL_Reg methods[] = {
        {"token", ref_token},
        {"session_abs", ref_session_abs},
        {NULL, NULL},
    };
    pg_newclass(L, scratch_idx, PG_REF, meta, methods);
    pg_newclasstable(L, module_idx, scratch_idx, "VisibilityRef", NULL, ref_new);
}
