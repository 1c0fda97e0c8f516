/*
 * two_states.c - two Lua states in one process, each loading the module
 * and building its own resolver, run concurrently in two threads and then
 * closed one after the other: nothing is shared (the binding keeps no C
 * statics; metatables and the scratch live per state).
 *
 * Usage: lua_two_states <directory holding pathgate.so>
 * Exit status 0 when every check passes.
 */
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ITERATIONS 300

/* Run in each state, with globals MODDIR, ROOT, MINE, OTHER set. */
static const char *const SCRIPT =
    "local before = {}\n"
    "for k in pairs(_G) do before[k] = true end\n"
    "package.cpath = MODDIR .. '/?.so;' .. package.cpath\n"
    "local pg = require 'pathgate'\n"
    "for k in pairs(_G) do assert(before[k], 'require set global ' .. tostring(k)) end\n"
    "local r = assert(pg.Resolver{roots = {repo = ROOT}, max_tokens = 8})\n"
    "for i = 1, ITERATIONS do\n"
    "  local res = r:resolve('root:repo/' .. MINE)\n"
    "  assert(res.ok, 'own file must resolve')\n"
    "  assert(tostring(res.ref) == 'root:repo/' .. MINE)\n"
    "  local other = r:resolve('root:repo/' .. OTHER)\n"
    "  assert(not other.ok and other.error_message == 'Invalid path / not found')\n"
    "  local host = assert(r:host_path(res.ref))\n"
    "  assert(host:sub(-#MINE) == MINE)\n"
    "  assert(r:release(res.ref))\n"
    "  local u = assert(pg.PathUri.from_native(host))\n"
    "  assert(u:basename() == MINE)\n"
    "  if i % 50 == 0 then collectgarbage('collect') end\n"
    "end\n"
    "assert(#r == 0)\n"
    "local res = r:resolve('root:repo/' .. MINE)\n"
    "TOKEN, ADDR = res.ref:token(), res.ref:session_abs()\n"
    "KEEP = {pg = pg, r = r, ref = res.ref}\n";

/* Run in a state after both threads finished: the other state's ref,
 * rebuilt from its strings, is foreign here. */
static const char *const CROSS =
    "local pg, r = KEEP.pg, KEEP.r\n"
    "local foreign = assert(pg.VisibilityRef(OTHER_TOKEN, OTHER_ADDR))\n"
    "assert(r:host_path(foreign) == nil, 'a foreign token must not resolve')\n"
    "assert(r:release(foreign) == false)\n"
    "assert(#r == 1)\n"
    "assert(r:host_path(KEEP.ref), 'own ref still valid')\n"
    "assert(getmetatable(KEEP.ref) == 'pathgate.VisibilityRef')\n";

typedef struct state {
    lua_State *L;
    const char *moddir, *root, *mine, *other;
    int ok;
    char error[512];
} state;

static int run(state *s, const char *code, const char *name)
{
    if (luaL_loadbuffer(s->L, code, strlen(code), name) != LUA_OK ||
        lua_pcall(s->L, 0, 0, 0) != LUA_OK) {
        snprintf(s->error, sizeof s->error, "%s", lua_tostring(s->L, -1));
        lua_pop(s->L, 1);
        return 0;
    }
    return 1;
}

static void *thread_main(void *arg)
{
    state *s = arg;
    lua_State *L = s->L;
    lua_pushstring(L, s->moddir);
    lua_setglobal(L, "MODDIR");
    lua_pushstring(L, s->root);
    lua_setglobal(L, "ROOT");
    lua_pushstring(L, s->mine);
    lua_setglobal(L, "MINE");
    lua_pushstring(L, s->other);
    lua_setglobal(L, "OTHER");
    lua_pushinteger(L, ITERATIONS);
    lua_setglobal(L, "ITERATIONS");
    s->ok = run(s, SCRIPT, "=two_states");
    return NULL;
}

static int make_tree(char *dir, const char *file)
{
    if (!mkdtemp(dir))
        return 0;
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    FILE *f = fopen(path, "w");
    if (!f)
        return 0;
    fputs("x\n", f);
    return fclose(f) == 0;
}

static void remove_tree(const char *dir, const char *file)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    unlink(path);
    rmdir(dir);
}

static void copy_global(lua_State *to, const char *to_name, lua_State *from, const char *name)
{
    lua_getglobal(from, name);
    lua_pushstring(to, lua_tostring(from, -1));
    lua_setglobal(to, to_name);
    lua_pop(from, 1);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s MODULE_DIR\n", argv[0]);
        return 2;
    }
    char dir_a[] = "/tmp/pathgate-two-a-XXXXXX", dir_b[] = "/tmp/pathgate-two-b-XXXXXX";
    if (!make_tree(dir_a, "only_a.txt") || !make_tree(dir_b, "only_b.txt")) {
        perror("temporary tree");
        return 1;
    }
    state a = {luaL_newstate(), argv[1], dir_a, "only_a.txt", "only_b.txt", 0, ""};
    state b = {luaL_newstate(), argv[1], dir_b, "only_b.txt", "only_a.txt", 0, ""};
    luaL_openlibs(a.L);
    luaL_openlibs(b.L);

    int failed = 0;
    pthread_t ta, tb;
    pthread_create(&ta, NULL, thread_main, &a);
    pthread_create(&tb, NULL, thread_main, &b);
    pthread_join(ta, NULL);
    pthread_join(tb, NULL);
    if (!a.ok || !b.ok) {
        fprintf(stderr, "state a: %s\nstate b: %s\n", a.error, b.error);
        failed = 1;
    }
    if (!failed) {
        copy_global(a.L, "OTHER_TOKEN", b.L, "TOKEN");
        copy_global(a.L, "OTHER_ADDR", b.L, "ADDR");
        copy_global(b.L, "OTHER_TOKEN", a.L, "TOKEN");
        copy_global(b.L, "OTHER_ADDR", a.L, "ADDR");
        if (!run(&a, CROSS, "=cross_a") || !run(&b, CROSS, "=cross_b")) {
            fprintf(stderr, "cross check: %s%s\n", a.error, b.error);
            failed = 1;
        }
    }
    /* Closing one state (finalizers run) leaves the other intact. */
    lua_close(a.L);
    if (!failed && !run(&b, CROSS, "=after_close")) {
        fprintf(stderr, "after closing state a: %s\n", b.error);
        failed = 1;
    }
    lua_close(b.L);
    remove_tree(dir_a, "only_a.txt");
    remove_tree(dir_b, "only_b.txt");
    if (!failed)
        printf("two states: ok\n");
    return failed;
}
