/*
 * session.c - pathgate.Session: a home root and a working-directory stack
 * of canonical addresses over one resolver (docs/spec.md section 6).
 *
 *   Session(resolver [, home])   -> session | nil, msg, code
 *   s:pwd()                      -> cwd address
 *   s:cd(text), s:push(text)     -> message | nil, msg, code
 *   s:pop()                      -> message
 *   s:get()                      -> {home = ..., cwd = ..., depth = n}
 *   s:resolve(text [, {require_exists = bool}]) -> resolution
 *   s:close()
 *
 * The session keeps its resolver alive through its user value, and counts
 * itself in the resolver box: a resolver closed while sessions still use
 * it refuses every call but keeps its core object until the last session
 * is freed, so the core session never outlives its resolver.
 */
#include "util.h"

typedef struct pg_bufpair {
    pathgate_buf a, b;
} pg_bufpair;

static int bufpair_gc(lua_State *L)
{
    pg_bufpair *p = (pg_bufpair *)pg_checkudata(L, 1, PG_BUFPAIR);
    pathgate_buf_dispose(&p->a);
    pathgate_buf_dispose(&p->b);
    return 0;
}

static pathgate_session *checksession(lua_State *L, int arg)
{
    pathgate_session *s = (pathgate_session *)pg_checkobj(L, arg, PG_SESSION);
    lua_getiuservalue(L, arg, 1);
    pg_resolver *r = (pg_resolver *)lua_touserdata(L, -1);
    if (r->closed)
        luaL_argerror(L, arg, "the session's " PG_RESOLVER_MT " is closed");
    lua_pop(L, 1);
    return s;
}

static int session_new(lua_State *L)
{
    lua_remove(L, 1); /* the class table (__call) */
    pg_resolver *r = pg_checkresolver(L, 1);
    size_t hlen = 0;
    const char *home = lua_isnoneornil(L, 2) ? NULL : pg_checktext(L, 2, &hlen);
    lua_settop(L, 2);
    pathgate_error err = PATHGATE_ERROR_INIT;
    pg_box *box = pg_newbox(L, sizeof(pg_box), 1, PG_SESSION); /* 3, mt 4 */
    int rc = pathgate_session_new((pathgate_session **)&box->ptr, r->ptr, home, hlen, &err);
    if (rc == 0) {
        lua_pushvalue(L, 1);
        lua_setiuservalue(L, 3, 1);
        r->sessions++;
    }
    return pg_commit(L, rc, &err);
}

static int session_pwd(lua_State *L)
{
    pathgate_session *s = checksession(L, 1);
    pathgate_buf *buf = &pg_scratch_get(L)->buf;
    pathgate_error err = PATHGATE_ERROR_INIT;
    pathgate_buf_dispose(buf);
    return pg_bufresult(L, pathgate_session_pwd(buf, s, &err), buf, &err);
}

static int session_cd(lua_State *L)
{
    pathgate_session *s = checksession(L, 1);
    size_t len;
    const char *text = pg_checktext(L, 2, &len);
    pathgate_buf *buf = &pg_scratch_get(L)->buf;
    pathgate_error err = PATHGATE_ERROR_INIT;
    pathgate_buf_dispose(buf);
    return pg_bufresult(L, pathgate_session_cd(buf, s, text, len, &err), buf, &err);
}

static int session_push(lua_State *L)
{
    pathgate_session *s = checksession(L, 1);
    size_t len;
    const char *text = pg_checktext(L, 2, &len);
    pathgate_buf *buf = &pg_scratch_get(L)->buf;
    pathgate_error err = PATHGATE_ERROR_INIT;
    pathgate_buf_dispose(buf);
    return pg_bufresult(L, pathgate_session_push(buf, s, text, len, &err), buf, &err);
}

static int session_pop(lua_State *L)
{
    pathgate_session *s = checksession(L, 1);
    pathgate_buf *buf = &pg_scratch_get(L)->buf;
    pathgate_error err = PATHGATE_ERROR_INIT;
    pathgate_buf_dispose(buf);
    return pg_bufresult(L, pathgate_session_pop(buf, s, &err), buf, &err);
}

static int session_get(lua_State *L)
{
    pathgate_session *s = checksession(L, 1);
    lua_settop(L, 1);
    /* Two buffers at once: they live in a collectable box (2) while the
     * table is built, so neither a raise nor a re-entering finalizer can
     * leak or clobber them. */
    pg_bufpair *p = (pg_bufpair *)lua_newuserdatauv(L, sizeof *p, 0);
    pathgate_buf init = PATHGATE_BUF_INIT;
    p->a = init;
    p->b = init;
    pg_pushmetatable(L, PG_BUFPAIR);
    lua_setmetatable(L, -2);
    size_t depth = 0;
    pathgate_error err = PATHGATE_ERROR_INIT;
    int rc = pathgate_session_get(&p->a, &p->b, &depth, s, &err);
    if (rc != 0)
        return pg_fail(L, rc, &err);
    lua_createtable(L, 0, 3);
    pg_pushbuf(L, &p->a);
    lua_setfield(L, -2, "home");
    pg_pushbuf(L, &p->b);
    lua_setfield(L, -2, "cwd");
    lua_pushinteger(L, (lua_Integer)depth);
    lua_setfield(L, -2, "depth");
    return 1;
}

static int session_resolve(lua_State *L)
{
    pathgate_session *s = checksession(L, 1);
    size_t len;
    const char *text = pg_checktext(L, 2, &len);
    pathgate_resolve_options opts;
    pg_resolve_options(L, 3, &opts, 0);
    pathgate_error err = PATHGATE_ERROR_INIT;
    pathgate_resolution res = PATHGATE_RESOLUTION_INIT;
    lua_settop(L, 3);
    lua_getiuservalue(L, 1, 1); /* 4: the resolver box, owner of the tokens */
    pg_resolution_begin(L);
    int rc = pathgate_session_resolve(&res, s, text, len, opts.require_exists, &err);
    return pg_resolution_finish_owned(L, rc, &res, &err, 4);
}

static int session_tostring(lua_State *L)
{
    pg_box *box = (pg_box *)pg_checkudata(L, 1, PG_SESSION);
    lua_getiuservalue(L, 1, 1);
    pg_resolver *r = (pg_resolver *)lua_touserdata(L, -1);
    if (!box->ptr || !r || r->closed) {
        return pg_pushclosed(L, PG_SESSION);
    }
    pathgate_buf *buf = &pg_scratch_get(L)->buf;
    pathgate_buf_dispose(buf);
    if (pathgate_session_pwd(buf, box->ptr, NULL) != 0)
        return luaL_error(L, "not enough memory");
    lua_pushfstring(L, "pathgate.Session (%s)", buf->ptr); /* copies first */
    pathgate_buf_dispose(buf);
    return 1;
}

/* __close, __gc and :close(): idempotent. */
static int session_close(lua_State *L)
{
    pg_box *box = (pg_box *)pg_checkudata(L, 1, PG_SESSION);
    if (!box->ptr)
        return 0;
    pathgate_session_free(box->ptr);
    box->ptr = NULL;
    lua_getiuservalue(L, 1, 1);
    pg_resolver *r = (pg_resolver *)lua_touserdata(L, -1);
    if (r) {
        r->sessions--;
        pg_resolver_release_core(r);
    }
    return 0;
}

void pg_open_session(lua_State *L, int module_idx, int scratch_idx)
{
    static const luaL_Reg meta[] = {
        {"__tostring", session_tostring},
        {"__gc", session_close},
        {"__close", session_close},
        {NULL, NULL},
    };
    static const luaL_Reg methods[] = {
        {"pwd", session_pwd},     {"cd", session_cd},   {"push", session_push},
        {"pop", session_pop},     {"get", session_get}, {"resolve", session_resolve},
        {"close", session_close}, {NULL, NULL},
    };
    static const luaL_Reg bufpair_meta[] = {
        {"__gc", bufpair_gc},
        {NULL, NULL},
    };
    pg_newclass(L, scratch_idx, PG_BUFPAIR, bufpair_meta, NULL);
    pg_newclass(L, scratch_idx, PG_SESSION, meta, methods);
    pg_newclasstable(L, module_idx, scratch_idx, "Session", NULL, session_new);
}
