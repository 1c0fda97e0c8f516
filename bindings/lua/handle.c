/*
 * handle.c - real Lua file handles over descriptors opened beneath a base,
 * as methods of Resolver and Session objects:
 *
 *   obj:open(path [, mode])   -> file | nil, message, code
 *   obj:lines(path, ...)      -> as io.lines(filename, ...)
 *
 * The handle is a luaL_Stream with the io library's metatable (LUA_FILEHANDLE,
 * "FILE*"), built over fdopen of the descriptor as liolib builds its own,
 * so io.type(f) == "file" and every file method works (read, lines, seek,
 * write, setvbuf, close, <close>). mode is io.open's ("r", "w", "a", "r+",
 * "w+", "a+", with "b") plus "x" and "x+" (the file must not exist).
 *
 * Writing modes write a temp file beside the target (pathgate_fs_atomic):
 * f:close() (or leaving a <close> scope normally) commits it, renaming it
 * over the target; leaving a <close> scope by an error, a write error, or
 * the handle being collected without close() discards it, so the old
 * content stays. "a" and "+" modes start from a copy of the old content.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

/* The io library's stream, and the pending temp file of a write handle.
 * liolib sees the first member only. */
typedef struct pg_stream {
    luaL_Stream s;
    pathgate_fs_atomic *atomic;
} pg_stream;

/* 1 when the running close is the finalizer of the handle (Lua reports a
 * finalizer as the metamethod "__gc"). */
static int in_finalizer(lua_State *L)
{
    lua_Debug ar;
    if (!lua_getstack(L, 0, &ar) || !lua_getinfo(L, "n", &ar))
        return 0;
    return ar.namewhat && !strcmp(ar.namewhat, "metamethod") && ar.name && !strcmp(ar.name, "__gc");
}

/* closef of a read handle. */
static int close_plain(lua_State *L)
{
    pg_stream *p = (pg_stream *)luaL_checkudata(L, 1, LUA_FILEHANDLE);
    errno = 0;
    return luaL_fileresult(L, fclose(p->s.f) == 0, NULL);
}

/* closef of a write handle: commit, or discard (see the top). */
static int close_atomic(lua_State *L)
{
    pg_stream *p = (pg_stream *)luaL_checkudata(L, 1, LUA_FILEHANDLE);
    pathgate_fs_atomic *a = p->atomic;
    p->atomic = NULL;
    /* __close(f, err): a scope left by an error discards */
    int discard = in_finalizer(L) || (lua_gettop(L) >= 2 && !lua_isnil(L, 2));
    int werr = 0;
    if (!discard && (ferror(p->s.f) || fflush(p->s.f) != 0)) {
        werr = errno ? errno : EIO;
        discard = 1;
    }
    if (discard) {
        fclose(p->s.f);
        pathgate_fs_atomic_abort(a);
        if (werr == 0)
            return luaL_fileresult(L, 1, NULL);
        errno = werr;
        return luaL_fileresult(L, 0, NULL);
    }
    pathgate_error err = PATHGATE_ERROR_INIT;
    int rc = pathgate_fs_atomic_commit(a, fileno(p->s.f), &err);
    fclose(p->s.f);
    if (rc < 0)
        return pg_fail(L, rc, &err);
    lua_pushboolean(L, 1);
    return 1;
}

/* Core open flags and the fdopen mode of an io.open mode; -1 when it is
 * not one. */
static int parse_mode(const char *mode, unsigned int *flags, char fmode[4])
{
    char kind = mode[0];
    const char *rest = mode + (kind ? 1 : 0);
    int plus = 0;
    if (*rest == '+') {
        plus = 1;
        rest++;
    }
    while (*rest == 'b')
        rest++;
    if (*rest != '\0')
        return -1;
    switch (kind) {
    case 'r':
        *flags = PATHGATE_FS_OPEN_READ;
        break;
    case 'w':
        *flags = PATHGATE_FS_OPEN_WRITE | PATHGATE_FS_OPEN_CREATE | PATHGATE_FS_OPEN_TRUNCATE;
        break;
    case 'a':
        *flags = PATHGATE_FS_OPEN_WRITE | PATHGATE_FS_OPEN_APPEND | PATHGATE_FS_OPEN_CREATE;
        break;
    case 'x':
        *flags = PATHGATE_FS_OPEN_WRITE | PATHGATE_FS_OPEN_CREATE | PATHGATE_FS_OPEN_EXCL;
        break;
    default:
        return -1;
    }
    if (plus)
        *flags |= PATHGATE_FS_OPEN_READ | PATHGATE_FS_OPEN_WRITE;
    /* fdopen does not create or truncate: only the access matters */
    fmode[0] = kind == 'x' ? 'w' : kind;
    fmode[1] = plus ? '+' : '\0';
    fmode[2] = '\0';
    return 0;
}

/* Pushes a new handle for the call at index 1 (owner) .. 3 (mode), or
 * returns nil, message, code. */
static int open_handle(lua_State *L, const char *path, size_t len, const char *mode)
{
    unsigned int flags;
    char fmode[4];
    if (parse_mode(mode, &flags, fmode) < 0)
        return luaL_argerror(L, 3, "invalid mode");
    pg_argv a;
    pg_args_owner(L, &a);
    /* the userdata first, closed (closef NULL), so a raise leaks nothing */
    pg_stream *p = (pg_stream *)lua_newuserdatauv(L, sizeof *p, 0);
    p->s.f = NULL;
    p->s.closef = NULL;
    p->atomic = NULL;
    if (luaL_getmetatable(L, LUA_FILEHANDLE) != LUA_TTABLE)
        return luaL_error(L, "pathgate: the io library is not loaded");
    lua_setmetatable(L, -2);
    int fd = -1, rc;
    pathgate_fs_atomic *atomic = NULL;
    if (flags & (PATHGATE_FS_OPEN_WRITE | PATHGATE_FS_OPEN_APPEND))
        rc = pathgate_fs_atomic_open(&atomic, &fd, NULL, a.resolver, path, len, flags, &a.opts,
                                     &a.err);
    else
        rc = pathgate_fs_open(&fd, NULL, a.resolver, path, len, flags, 0, &a.opts, &a.err);
    if (rc < 0)
        return pg_fail(L, rc, &a.err);
    p->s.f = fdopen(fd, fmode);
    if (p->s.f == NULL) {
        int e = errno;
        close(fd);
        pathgate_fs_atomic_abort(atomic);
        errno = e;
        return luaL_fileresult(L, 0, path);
    }
    p->atomic = atomic;
    p->s.closef = atomic ? close_atomic : close_plain;
    return 1;
}

static int h_open(lua_State *L)
{
    size_t len;
    const char *path = pg_checktext(L, 2, &len);
    const char *mode = luaL_optstring(L, 3, "r");
    luaL_argcheck(L, lua_isnoneornil(L, 4), 4, "no more arguments expected");
    return open_handle(L, path, len, mode);
}

/* obj:lines(path, ...): opens path for reading (a failure raises, as
 * io.lines does) and returns the file's own lines iterator (liolib's, with
 * the formats), nil, nil and the file, which a generic for closes when the
 * loop ends; an iterator used by hand leaves it to the collector. */
static int h_lines(lua_State *L)
{
    size_t len;
    const char *path = pg_checktext(L, 2, &len);
    int top = lua_gettop(L);
    if (open_handle(L, path, len, "r") != 1)
        return luaL_error(L, "%s", lua_tostring(L, -2));
    int file = lua_gettop(L);
    lua_getfield(L, file, "lines"); /* the file method, from its metatable */
    lua_pushvalue(L, file);
    for (int i = 3; i <= top; i++)
        lua_pushvalue(L, i);
    lua_call(L, 1 + (top - 2), 1);
    lua_pushnil(L);
    lua_pushnil(L);
    lua_pushvalue(L, file);
    return 4;
}

void pg_open_handle(lua_State *L, int module_idx, int scratch_idx)
{
    (void)module_idx;
    static const luaL_Reg methods[] = {{"open", h_open}, {"lines", h_lines}, {NULL, NULL}};
    const pg_class classes[] = {PG_RESOLVER, PG_SESSION};
    for (size_t i = 0; i < 2; i++) {
        lua_getiuservalue(L, scratch_idx, (int)classes[i] + 1); /* its metatable */
        lua_getfield(L, -1, "__index");
        lua_pushvalue(L, scratch_idx);
        luaL_setfuncs(L, methods, 1);
        lua_pop(L, 2);
    }
}
