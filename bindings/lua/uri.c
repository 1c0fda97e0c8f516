/*
 * uri.c - pathgate.PathUri: an immutable file: URI (docs/uri.md).
 *
 *   PathUri.parse(text)               -> uri | nil, msg, code
 *   PathUri.from_native(text [, conv]) -> uri | nil, msg, code
 *   uri:convention()   "posix" | "windows" | nil
 *   uri:is_opaque()    boolean
 *   uri:parent()       uri | nil (at a root, opaque)
 *   uri:basename()     string | nil
 *   uri:starts_with(base)   boolean
 *   uri:relative_to(base)   string | nil (not contained)
 *   uri:join(text), uri:join_descendant(text)  -> uri | nil, msg, code
 *   uri:to_native([conv]), uri:to_host_path()   -> string | nil, msg, code
 *   uri:display()      string
 *   uri:ancestors()    { uri, parent, ..., root }
 *   uri:lexical_depth() integer | nil;  uri:overlaps(other) boolean | nil
 *   uri:encoded_path(), uri:decoded_path_bytes()   string
 *   uri:join_bytes(bytes)                          -> uri | nil, msg, code
 *   uri:validate_config([conv]), uri:validate_glob_directory([conv])
 *                                                  -> true | nil, msg, code
 *   uri:to_config_path([conv])                     -> string | nil, msg, code
 *   pathgate.path_segments(text, conv) -> { segments }
 *   pathgate.home_relative_suffix(text, conv) -> string | nil
 *   pathgate.normalize_windows_device_path(text) -> string | nil
 *   pathgate.platform_convention(os_name) -> "posix" | "windows" | nil
 *   tostring(uri) is the URI string; == compares as the core does.
 *
 * Every call but tostring and == comes from ../uri_ops.h, the table
 * Python's PathUri is made of too (a Python property is a method here).
 */
#include "uri_ops.h"
#include "util.h"

pathgate_uri *pg_checkuri(lua_State *L, int arg)
{
    return (pathgate_uri *)pg_checkobj(L, arg, PG_URI);
}

pg_box *pg_newuri(lua_State *L)
{
    return pg_newbox(L, sizeof(pg_box), 0, PG_URI);
}

/* ------------------------------------------------------------ the runner */

/* Reads the arguments of op (after the receiver, if any), runs it and
 * pushes its answer by its kind (../uri_ops.h). */
static int uri_run(lua_State *L, const pg_uri_op *op)
{
    pg_uri_in in = {NULL, NULL, 0, 0, NULL, PATHGATE_CONVENTION_NONE};
    pg_uri_out out = {NULL, NULL, 0, 0, PATHGATE_CONVENTION_NONE, NULL, 0, 0, PATHGATE_ERROR_INIT};
    int arg = 1;
    if (op->form == PG_UF_METHOD || op->form == PG_UF_GETTER)
        in.self = pg_checkuri(L, arg++);
    switch (op->in) {
    case PG_UI_NONE:
        break;
    case PG_UI_TEXT:
    case PG_UI_TEXT_OR_BYTES:
    case PG_UI_BYTES: /* a Lua string is bytes and text alike */
        in.text = pg_checktext(L, arg, &in.len);
        break;
    case PG_UI_OPT_TEXT:
        if (!lua_isnoneornil(L, arg))
            in.text = pg_checktext(L, arg, &in.len);
        break;
    case PG_UI_URI:
        in.other = pg_checkuri(L, arg);
        break;
    case PG_UI_CONV:
        in.conv = pg_optconvention(L, arg);
        break;
    case PG_UI_TEXT_CONV:
    case PG_UI_TEXT_CONV_REQ:
        in.text = pg_checktext(L, arg, &in.len);
        in.conv = op->in == PG_UI_TEXT_CONV ? pg_optconvention(L, arg + 1)
                                            : pg_checkconvention(L, arg + 1);
        break;
    }
    int rc;
    switch (op->out) {
    case PG_UO_URI: {
        pg_box *box = pg_newuri(L);
        rc = op->call(&in, &out);
        box->ptr = out.uri; /* nothing allocated in between: a raise leaks nothing */
        if (rc == 0 && !box->ptr) {
            lua_pushnil(L); /* none (a root's parent) */
            return 1;
        }
        return pg_commit(L, rc, &out.err);
    }
    case PG_UO_TEXT:
    case PG_UO_HOST_PATH:
    case PG_UO_BYTES:
        out.buf = &pg_scratch_get(L)->buf;
        pathgate_buf_dispose(out.buf);
        rc = op->call(&in, &out);
        return pg_bufresult(L, rc, out.buf, &out.err);
    case PG_UO_URIS: {
        /* the receiver, then each parent of the one before, once each */
        lua_newtable(L);
        for (lua_Integer i = 1;; i++) {
            pg_box *box = pg_newuri(L);
            rc = i == 1 ? pathgate_uri_dup(&out.uri, in.self, &out.err) : op->call(&in, &out);
            box->ptr = out.uri;
            out.uri = NULL;
            if (rc == 0 && !box->ptr) {
                lua_pop(L, 2); /* past the root */
                return 1;
            }
            if (rc != 0)
                return pg_commit(L, rc, &out.err);
            lua_setmetatable(L, -2);
            in.self = box->ptr; /* alive in the table */
            lua_rawseti(L, -2, i);
        }
    }
    case PG_UO_TEXTS:
        lua_newtable(L);
        for (lua_Integer i = 1; (rc = op->call(&in, &out)) > 0; i++) {
            lua_pushlstring(L, out.view, out.view_len);
            lua_rawseti(L, -2, i);
        }
        return rc < 0 ? pg_fail(L, rc, &out.err) : 1;
    default:
        break;
    }
    rc = op->call(&in, &out);
    if (rc < 0)
        return pg_fail(L, rc, &out.err);
    switch (op->out) {
    case PG_UO_BOOL:
        lua_pushboolean(L, out.flag);
        break;
    case PG_UO_TRI:
        if (rc)
            lua_pushboolean(L, out.flag);
        else
            lua_pushnil(L);
        break;
    case PG_UO_SIZE:
        if (rc)
            lua_pushinteger(L, (lua_Integer)out.n);
        else
            lua_pushnil(L);
        break;
    case PG_UO_CONV:
        pg_pushconvention(L, out.conv);
        break;
    case PG_UO_VIEW:
        if (rc)
            lua_pushlstring(L, out.view, out.view_len);
        else
            lua_pushnil(L);
        break;
    default: /* OK */
        lua_pushboolean(L, 1);
        break;
    }
    return 1;
}

/* One C function per call of the table. */
#define PG_LUA_URI_FN(name)                                                                        \
    static int uri_##name(lua_State *L)                                                            \
    {                                                                                              \
        return uri_run(L, &pg_uri_op_##name);                                                      \
    }
PG_URI_OPS(PG_LUA_URI_FN)
#undef PG_LUA_URI_FN

static int uri_tostring(lua_State *L)
{
    pg_box *box = (pg_box *)pg_checkudata(L, 1, PG_URI);
    if (!box->ptr)
        return pg_pushclosed(L, PG_URI);
    size_t len;
    const char *s = pathgate_uri_string(box->ptr, &len);
    lua_pushlstring(L, s, len);
    return 1;
}

static int uri_eq(lua_State *L)
{
    /* Either operand may be of another type: then they differ. */
    pg_box *a = (pg_box *)pg_testudata(L, 1, PG_URI);
    pg_box *b = (pg_box *)pg_testudata(L, 2, PG_URI);
    /* A closed URI equals nothing but itself (raw equality, no __eq). */
    lua_pushboolean(L, a && b && a->ptr && b->ptr && pathgate_uri_equal(a->ptr, b->ptr));
    return 1;
}

static void uri_free(void *p)
{
    pathgate_uri_free(p);
}

static int uri_close(lua_State *L)
{
    pg_closebox(L, 1, PG_URI, uri_free);
    return 0;
}

void pg_open_uri(lua_State *L, int module_idx, int scratch_idx)
{
    static const luaL_Reg meta[] = {
        {"__tostring", uri_tostring}, {"__eq", uri_eq}, {"__gc", uri_close},
        {"__close", uri_close},       {NULL, NULL},
    };
    /* the table's calls by where they live (a getter is a method in Lua) */
    static const struct {
        const pg_uri_op *op;
        lua_CFunction fn;
    } ops[] = {
#define PG_LUA_URI_ENTRY(name) {&pg_uri_op_##name, uri_##name},
        PG_URI_OPS(PG_LUA_URI_ENTRY)
#undef PG_LUA_URI_ENTRY
    };
    luaL_Reg methods[PG_URI_OP_COUNT + 1], functions[PG_URI_OP_COUNT + 1],
        statics[PG_URI_OP_COUNT + 1];
    size_t nm = 0, nf = 0, ns = 0;
    for (size_t i = 0; i < PG_URI_OP_COUNT; i++) {
        luaL_Reg reg = {ops[i].op->name, ops[i].fn};
        if (ops[i].op->form == PG_UF_CLASS)
            statics[ns++] = reg;
        else if (ops[i].op->form == PG_UF_MODULE)
            functions[nf++] = reg;
        else
            methods[nm++] = reg;
    }
    const luaL_Reg end = {NULL, NULL};
    methods[nm] = functions[nf] = statics[ns] = end;
    pg_newclass(L, scratch_idx, PG_URI, meta, methods);
    pg_newclasstable(L, module_idx, scratch_idx, "PathUri", statics, NULL);
    for (const luaL_Reg *f = functions; f->name; f++) {
        lua_pushvalue(L, scratch_idx);
        lua_pushcclosure(L, f->func, 1);
        lua_setfield(L, module_idx, f->name);
    }
}
