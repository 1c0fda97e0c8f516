/*
 * session.c - a home root and a stack of working directories (canonical
 * addresses), guarded by the session's own mutex. Never chdir.
 *
 * The stack stores canonical address strings, not fds: a later use always
 * re-resolves beneath the base fd, so a directory swapped for a symlink
 * after a push cannot redirect anything.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "alloc.h"
#include "error.h"
#include "pathgate/session.h"
#include "resolver_internal.h"
#include "text.h"

typedef struct frame {
    char *address;
    size_t len;
} frame;

struct pathgate_session {
    pathgate_resolver *resolver;
    pathgate_allocator alloc;
    pthread_mutex_t lock;
    size_t home; /* base index: a root, or a mod (docs/spec.md section 6) */
    size_t depth;
    frame stack[PATHGATE_SESSION_MAX_DEPTH];
};

#define EMPTY_POP_PREFIX "Stack is empty, already at initial directory: "
#define ALREADY_IN_PREFIX "already in "
#define ROOT_PREFIX "root:"

/* -------------------------------------------------------------- helpers */

static void strip(const char **text, size_t *len)
{
    while (*len && pathgate__is_space((unsigned char)(*text)[0])) {
        (*text)++;
        (*len)--;
    }
    while (*len && pathgate__is_space((unsigned char)(*text)[*len - 1]))
        (*len)--;
}

static int is_sep(char c)
{
    return c == '/' || c == '\\';
}

/* Short and made of key characters: safe to quote in a message. */
static int quotable_key(const char *key, size_t len)
{
    if (len == 0 || len > 64)
        return 0;
    for (size_t i = 0; i < len; i++) {
        char c = key[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '-'))
            return 0;
    }
    return 1;
}

static int unknown_root(pathgate_error *err, const char *key, size_t len)
{
    if (quotable_key(key, len))
        return pathgate__error_set(err, PATHGATE_EUNKNOWNROOT, "unknown root: %.*s", (int)len, key);
    return pathgate__error_set(err, PATHGATE_EUNKNOWNROOT, "unknown root");
}

static long root_index(const pathgate_resolver *r, const char *key, size_t len)
{
    size_t n = pathgate_resolver_root_count(r);
    for (size_t i = 0; i < n; i++) {
        const char *k = pathgate_resolver_root_key(r, i);
        if (k && strlen(k) == len && memcmp(k, key, len) == 0)
            return (long)i;
    }
    return -1;
}

/* `<key>[/<rest>]` (after `root:` or bare): the root when <rest> has no
 * segment but empty or `.` ones. */
static int home_lexical(size_t *out, const pathgate_resolver *r, const char *text, size_t len,
                        pathgate_error *err)
{
    size_t klen = 0;
    while (klen < len && !is_sep(text[klen]))
        klen++;
    long idx = root_index(r, text, klen);
    if (idx < 0)
        return unknown_root(err, text, klen);
    size_t i = klen;
    while (i < len) {
        while (i < len && is_sep(text[i]))
            i++;
        size_t s = i;
        while (i < len && !is_sep(text[i]))
            i++;
        size_t seg = i - s;
        if (seg && !(seg == 1 && text[s] == '.'))
            return pathgate__error_set(err, PATHGATE_ESUBDIRHOME, "%s",
                                       pathgate_strerror(PATHGATE_ESUBDIRHOME));
    }
    *out = (size_t)idx;
    return PATHGATE_OK;
}

/* The base whose own address is `address`, or -1. */
static long base_index_of(const pathgate_resolver *r, const char *address)
{
    size_t n = pathgate__resolver_base_count(r);
    for (size_t i = 0; i < n; i++)
        if (strcmp(pathgate__resolver_base_address(r, i), address) == 0)
            return (long)i;
    return -1;
}

/* Any other accepted form (`mod:<Name>`, the legacy aliases, the view
 * spelling, a file:// URI or a host path of a base directory): the
 * resolver decides; its token is released at once. A mod can be a home:
 * a modder's session lives in the mod (and a configuration of mods only
 * has no root to be home). */
static int home_resolved(size_t *out, pathgate_resolver *r, const char *text, size_t len,
                         pathgate_error *err)
{
    pathgate_resolution res = PATHGATE_RESOLUTION_INIT;
    pathgate_resolve_options opts = PATHGATE_RESOLVE_OPTIONS_INIT;
    opts.require_exists = 0;
    int rc = pathgate_resolver_resolve(&res, r, text, len, &opts, err);
    if (rc)
        return rc;
    if (!res.ok) {
        pathgate_reason reason = res.reason;
        pathgate_resolution_dispose(&res);
        if (reason == PATHGATE_REASON_CAPACITY)
            return pathgate__error_set(err, PATHGATE_ECAPACITY, "%s", PATHGATE_MSG_CAPACITY);
        return unknown_root(err, NULL, 0);
    }
    int sub = res.relative_path && res.relative_path[0] != '\0';
    long idx = sub ? -1 : base_index_of(r, pathgate_ref_address(res.ref, NULL));
    pathgate_resolver_release(r, res.ref);
    pathgate_resolution_dispose(&res);
    if (sub)
        return pathgate__error_set(err, PATHGATE_ESUBDIRHOME, "%s",
                                   pathgate_strerror(PATHGATE_ESUBDIRHOME));
    if (idx < 0)
        return unknown_root(err, NULL, 0);
    *out = (size_t)idx;
    return PATHGATE_OK;
}

/* `root:<key>`, a bare `<key>`, or another form naming a base directory. */
static int parse_home(size_t *out, pathgate_resolver *r, const char *text, size_t len,
                      pathgate_error *err)
{
    int rc = pathgate__text_check(text, len, PATHGATE_PATH_MAX, err);
    if (rc)
        return rc;
    strip(&text, &len);
    size_t plen = strlen(ROOT_PREFIX);
    if (len >= plen && memcmp(text, ROOT_PREFIX, plen) == 0)
        return home_lexical(out, r, text + plen, len - plen, err);
    if (len && !memchr(text, ':', len) && !is_sep(text[0]))
        return home_lexical(out, r, text, len, err);
    if (len == 0)
        return unknown_root(err, NULL, 0);
    return home_resolved(out, r, text, len, err);
}

static const char *home_address(const pathgate_session *s, size_t *len)
{
    const char *a = pathgate__resolver_base_address(s->resolver, s->home);
    *len = strlen(a);
    return a;
}

/* Lock held. */
static const char *cwd_address(const pathgate_session *s, size_t *len)
{
    if (s->depth) {
        *len = s->stack[s->depth - 1].len;
        return s->stack[s->depth - 1].address;
    }
    return home_address(s, len);
}

static void clear_stack(pathgate_session *s)
{
    while (s->depth) {
        s->depth--;
        pathgate__free(&s->alloc, s->stack[s->depth].address);
        s->stack[s->depth].address = NULL;
    }
}

/* message = prefix + address. */
static int set_message(pathgate_buf *message, const pathgate_allocator *a, const char *prefix,
                       const char *address, size_t len, pathgate_error *err)
{
    if (!message)
        return PATHGATE_OK;
    size_t plen = strlen(prefix);
    char *s = pathgate__malloc(a, plen + len + 1);
    if (!s)
        return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
    memcpy(s, prefix, plen);
    memcpy(s + plen, address, len);
    s[plen + len] = '\0';
    pathgate__buf_adopt(message, a, s, plen + len);
    return PATHGATE_OK;
}

/* --------------------------------------------------------------- public */

int pathgate_session_new(pathgate_session **out, pathgate_resolver *resolver, const char *home,
                         size_t home_len, pathgate_error *err)
{
    if (!out)
        return pathgate__error_set(err, PATHGATE_EINVAL, "out is NULL");
    *out = NULL;
    if (!resolver)
        return pathgate__error_set(err, PATHGATE_EINVAL, "resolver is NULL");
    if (pathgate__resolver_base_count(resolver) == 0)
        return pathgate__error_set(err, PATHGATE_ECONFIG, "the resolver has no base");
    size_t idx = 0; /* the first root, or the first mod when there is no root */
    if (home) {
        int rc = parse_home(&idx, resolver, home, home_len, err);
        if (rc)
            return rc;
    } else if (home_len) {
        return pathgate__error_set(err, PATHGATE_EINVAL, "home is NULL");
    }
    const pathgate_allocator *a = pathgate__resolver_allocator(resolver);
    pathgate_session *s = pathgate__calloc(a, 1, sizeof *s);
    if (!s)
        return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
    s->alloc = *a;
    s->resolver = resolver;
    s->home = idx;
    if (pthread_mutex_init(&s->lock, NULL) != 0) {
        pathgate__free(a, s);
        return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
    }
    *out = s;
    return PATHGATE_OK;
}

void pathgate_session_free(pathgate_session *session)
{
    if (!session)
        return;
    pathgate_allocator a = session->alloc;
    clear_stack(session);
    pthread_mutex_destroy(&session->lock);
    pathgate__free(&a, session);
}

pathgate_resolver *pathgate_session_resolver(pathgate_session *session)
{
    return session ? session->resolver : NULL;
}

int pathgate_session_get(pathgate_buf *home, pathgate_buf *cwd, size_t *depth,
                         pathgate_session *session, pathgate_error *err)
{
    if (!session)
        return pathgate__error_set(err, PATHGATE_EINVAL, "session is NULL");
    pathgate_buf h = PATHGATE_BUF_INIT, c = PATHGATE_BUF_INIT;
    int rc = PATHGATE_OK;
    pthread_mutex_lock(&session->lock);
    size_t len;
    const char *a;
    if (home) {
        a = home_address(session, &len);
        rc = pathgate__buf_set(&h, &session->alloc, a, len);
    }
    if (!rc && cwd) {
        a = cwd_address(session, &len);
        rc = pathgate__buf_set(&c, &session->alloc, a, len);
    }
    size_t d = session->depth;
    pthread_mutex_unlock(&session->lock);
    if (rc) {
        pathgate_buf_dispose(&h);
        pathgate_buf_dispose(&c);
        return pathgate__error_set(err, rc, NULL);
    }
    if (home) {
        pathgate_buf_dispose(home);
        *home = h;
    }
    if (cwd) {
        pathgate_buf_dispose(cwd);
        *cwd = c;
    }
    if (depth)
        *depth = d;
    return PATHGATE_OK;
}

int pathgate_session_pwd(pathgate_buf *cwd, pathgate_session *session, pathgate_error *err)
{
    if (!cwd)
        return pathgate__error_set(err, PATHGATE_EINVAL, "cwd is NULL");
    return pathgate_session_get(NULL, cwd, NULL, session, err);
}

int pathgate_session_cd(pathgate_buf *message, pathgate_session *session, const char *text,
                        size_t len, pathgate_error *err)
{
    if (!session)
        return pathgate__error_set(err, PATHGATE_EINVAL, "session is NULL");
    size_t idx;
    int rc = parse_home(&idx, session->resolver, text, len, err);
    if (rc)
        return rc;
    const char *a = pathgate__resolver_base_address(session->resolver, idx);
    /* Build the message first: an allocation failure changes nothing. */
    pathgate_buf msg = PATHGATE_BUF_INIT;
    rc = set_message(&msg, &session->alloc, "", a, strlen(a), err);
    if (rc)
        return rc;
    pthread_mutex_lock(&session->lock);
    session->home = idx;
    clear_stack(session);
    pthread_mutex_unlock(&session->lock);
    if (message) {
        pathgate_buf_dispose(message);
        *message = msg;
    } else {
        pathgate_buf_dispose(&msg);
    }
    return PATHGATE_OK;
}

/* Opens address as a directory: the fd, or a negative pathgate code with
 * err filled. */
static int open_dir(pathgate_resolver *r, const char *address, size_t len, pathgate_error *err)
{
    int fd = pathgate__resolver_open(NULL, r, address, len, PATHGATE__OS_O_PATH | O_DIRECTORY, 0);
    if (fd >= 0)
        return fd;
    switch (fd) {
    case PATHGATE_ENOTDIR:
        return pathgate__error_set(err, PATHGATE_ENOTDIR, "not a directory: %.*s", (int)len,
                                   address);
    case PATHGATE_ENOMEM:
        return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
    default:
        return pathgate__error_set(err, PATHGATE_EINVALIDPATH, "%s", PATHGATE_MSG_INVALID);
    }
}

/* Same directory on disk (a symlink inside the base may name it twice). */
static int same_dir(pathgate_resolver *r, int fd, const char *cwd, size_t cwd_len)
{
    int cfd = pathgate__resolver_open(NULL, r, cwd, cwd_len, PATHGATE__OS_O_PATH | O_DIRECTORY, 0);
    if (cfd < 0)
        return 0;
    pathgate__os_stat a, b;
    int same = pathgate__os_statat(fd, "", 0, &a) == 0 &&
               pathgate__os_statat(cfd, "", 0, &b) == 0 && a.dev == b.dev && a.ino == b.ino;
    pathgate__os_close(cfd);
    return same;
}

int pathgate_session_push(pathgate_buf *message, pathgate_session *session, const char *text,
                          size_t len, pathgate_error *err)
{
    if (!session)
        return pathgate__error_set(err, PATHGATE_EINVAL, "session is NULL");
    pathgate_resolver *r = session->resolver;
    pathgate_resolution res = PATHGATE_RESOLUTION_INIT;
    pathgate_buf msg = PATHGATE_BUF_INIT;
    char *copy = NULL;
    int fd = -1;
    int rc;

    pthread_mutex_lock(&session->lock);
    size_t cwd_len;
    const char *cwd = cwd_address(session, &cwd_len);
    pathgate_resolve_options opts = PATHGATE_RESOLVE_OPTIONS_INIT;
    opts.require_exists = 1;
    opts.base = cwd;
    opts.base_len = cwd_len;
    rc = pathgate_resolver_resolve(&res, r, text, len, &opts, err);
    if (rc)
        goto done;
    if (!res.ok) {
        if (res.reason == PATHGATE_REASON_CAPACITY)
            rc = pathgate__error_set(err, PATHGATE_ECAPACITY, "%s", PATHGATE_MSG_CAPACITY);
        else
            rc = pathgate__error_set(err, PATHGATE_EINVALIDPATH, "%s", PATHGATE_MSG_INVALID);
        goto done;
    }
    /* Navigation keeps no token: the stack holds the address string. */
    pathgate_resolver_release(r, res.ref);
    size_t alen;
    const char *address = pathgate_ref_address(res.ref, &alen);

    fd = open_dir(r, address, alen, err);
    if (fd < 0) {
        rc = fd;
        goto done;
    }
    if ((alen == cwd_len && memcmp(address, cwd, alen) == 0) || same_dir(r, fd, cwd, cwd_len)) {
        rc = set_message(&msg, &session->alloc, ALREADY_IN_PREFIX, cwd, cwd_len, err);
        goto done;
    }
    if (session->depth >= PATHGATE_SESSION_MAX_DEPTH) {
        rc = pathgate__error_set(err, PATHGATE_EOVERFLOW, "%s",
                                 pathgate_strerror(PATHGATE_EOVERFLOW));
        goto done;
    }
    copy = pathgate__strndup(&session->alloc, address, alen);
    if (!copy) {
        rc = pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
        goto done;
    }
    rc = set_message(&msg, &session->alloc, "", address, alen, err);
    if (rc)
        goto done;
    session->stack[session->depth].address = copy;
    session->stack[session->depth].len = alen;
    session->depth++;
    copy = NULL;

done:
    pthread_mutex_unlock(&session->lock);
    if (fd >= 0)
        pathgate__os_close(fd);
    pathgate__free(&session->alloc, copy);
    pathgate_resolution_dispose(&res);
    if (rc == 0 && message) {
        pathgate_buf_dispose(message);
        *message = msg;
    } else {
        pathgate_buf_dispose(&msg);
    }
    return rc;
}

int pathgate_session_pop(pathgate_buf *message, pathgate_session *session, pathgate_error *err)
{
    if (!session)
        return pathgate__error_set(err, PATHGATE_EINVAL, "session is NULL");
    pathgate_buf msg = PATHGATE_BUF_INIT;
    int rc;
    size_t len;
    const char *a;
    pthread_mutex_lock(&session->lock);
    if (session->depth == 0) {
        a = home_address(session, &len);
        rc = set_message(&msg, &session->alloc, EMPTY_POP_PREFIX, a, len, err);
    } else {
        /* The message names the restored cwd: build it before popping so
         * that an allocation failure leaves the stack as it was. */
        size_t d = session->depth - 1;
        if (d)
            a = session->stack[d - 1].address, len = session->stack[d - 1].len;
        else
            a = home_address(session, &len);
        rc = set_message(&msg, &session->alloc, "", a, len, err);
        if (rc == 0) {
            pathgate__free(&session->alloc, session->stack[d].address);
            session->stack[d].address = NULL;
            session->depth = d;
        }
    }
    pthread_mutex_unlock(&session->lock);
    if (rc == 0 && message) {
        pathgate_buf_dispose(message);
        *message = msg;
    } else {
        pathgate_buf_dispose(&msg);
    }
    return rc;
}

int pathgate_session_resolve(pathgate_resolution *out, pathgate_session *session, const char *text,
                             size_t len, int require_exists, pathgate_error *err)
{
    if (!out || !session)
        return pathgate__error_set(err, PATHGATE_EINVAL, "invalid argument");
    pathgate_resolve_options opts = PATHGATE_RESOLVE_OPTIONS_INIT;
    opts.require_exists = require_exists;
    pthread_mutex_lock(&session->lock);
    opts.base = cwd_address(session, &opts.base_len);
    int rc = pathgate_resolver_resolve(out, session->resolver, text, len, &opts, err);
    pthread_mutex_unlock(&session->lock);
    return rc;
}
