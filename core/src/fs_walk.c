/*
 * fs_walk.c - the contained directory walk shared by grep and glob.
 *
 * The root is opened beneath the base (contain_open); every directory below
 * it is opened relative to its parent's fd with O_NOFOLLOW|O_DIRECTORY, so a
 * symlink (to a directory or out of the base), even one swapped in during
 * the walk, is never entered. Entries are read with getdents64 into a
 * per-level buffer and visited in path order (a directory sorts as its name
 * followed by '/'), so the output needs no final sort. A symlink is
 * reported only when it resolves, beneath the base, to a regular file.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "alloc.h"
#include "error.h"
#include "fs_internal.h"
#include "glob.h"
#include "resolver_internal.h"
#include "text.h"

#define DIRBUF_MIN 32768

typedef struct ent {
    const char *name;
    size_t len;
    unsigned char type; /* DT_REG, DT_DIR, DT_LNK, or another (skipped) */
} ent;

typedef struct level {
    int fd;
    char *buf;
    size_t cap;
    ent *ents;
    size_t ecap, n, next;
    size_t rel_len; /* rel of this directory */
} level;

/* The sort key of an entry: its name, then '/' for a directory, then end. */
static int key_at(const ent *e, size_t i)
{
    if (i < e->len)
        return (unsigned char)e->name[i];
    if (i == e->len && e->type == DT_DIR)
        return '/';
    return -1;
}

static int ent_cmp(const void *pa, const void *pb)
{
    const ent *a = pa, *b = pb;
    size_t n = a->len < b->len ? a->len : b->len;
    int c = memcmp(a->name, b->name, n);
    if (c)
        return c;
    for (size_t i = n;; i++) {
        int ka = key_at(a, i), kb = key_at(b, i);
        if (ka != kb)
            return ka - kb;
        if (ka < 0)
            return 0;
    }
}

/* A name that a canonical address can spell: UTF-8, no `\`, no control
 * character. Anything else has no address and is not reported. */
static int addressable(const char *name, size_t len)
{
    int ascii = 1;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)name[i];
        if (c < 0x20 || c == 0x7F || c == '\\')
            return 0;
        ascii &= c < 0x80;
    }
    return ascii || pathgate__utf8_valid(name, len);
}

/* Reads every entry of L->fd and sorts them. With a glob, entries that
 * cannot match (files) or lead to no match (directories) are dropped before
 * the sort: `state` is the directory's glob state, `scratch` room for one
 * more. 0 or PATHGATE_ENOMEM; a read error ends the listing early (what was
 * read is kept). */
static int read_dir(level *L, const pathgate_allocator *a, const pathgate__glob *g,
                    const unsigned char *state, unsigned char *scratch, int shallow)
{
    size_t used = 0;
    L->n = L->next = 0;
    for (;;) {
        if (L->cap - used < DIRBUF_MIN / 2) {
            size_t cap = L->cap ? L->cap * 2 : DIRBUF_MIN;
            char *nb = pathgate__realloc(a, L->buf, cap);
            if (!nb)
                return PATHGATE_ENOMEM;
            L->buf = nb;
            L->cap = cap;
        }
        ssize_t r = getdents64(L->fd, L->buf + used, L->cap - used);
        if (r <= 0)
            break;
        used += (size_t)r;
    }
    size_t off = 0;
    while (off < used) {
        struct dirent64 *d = (struct dirent64 *)(void *)(L->buf + off);
        off += d->d_reclen;
        const char *name = d->d_name;
        size_t len = strlen(name);
        if ((len == 1 && name[0] == '.') || (len == 2 && name[0] == '.' && name[1] == '.'))
            continue;
        if (!addressable(name, len))
            continue;
        unsigned char type = d->d_type;
        if (type == DT_UNKNOWN) {
            struct stat st;
            if (fstatat(L->fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
                continue;
            type = S_ISDIR(st.st_mode) ? DT_DIR : S_ISREG(st.st_mode) ? DT_REG
                                               : S_ISLNK(st.st_mode) ? DT_LNK
                                                                     : DT_UNKNOWN;
        }
        if (type != DT_DIR && type != DT_REG && type != DT_LNK)
            continue;
        if (g && !shallow) {
            int keep = pathgate__glob_step(g, scratch, state, name, len);
            if (type != DT_DIR)
                keep = pathgate__glob_accepts(g, scratch);
            if (!keep)
                continue;
        }
        if (L->n == L->ecap) {
            size_t cap = L->ecap ? L->ecap * 2 : 64;
            ent *ne = pathgate__realloc(a, L->ents, cap * sizeof *ne);
            if (!ne)
                return PATHGATE_ENOMEM;
            L->ents = ne;
            L->ecap = cap;
        }
        L->ents[L->n].name = name;
        L->ents[L->n].len = len;
        L->ents[L->n].type = type;
        L->n++;
    }
    if (L->n > 1)
        qsort(L->ents, L->n, sizeof *L->ents, ent_cmp);
    return PATHGATE_OK;
}

int pathgate__fs_walk(pathgate__walk *w, pathgate_error *err)
{
    const pathgate__fs_target *t = w->t;
    const pathgate_allocator *a = t->alloc;
    const pathgate__glob *g = w->glob;
    w->truncated = 0;

    int root = pathgate__fs_open(t, NULL, O_RDONLY | O_DIRECTORY, 0);
    if (root < 0) {
        if (root == -ENOTDIR) {
            /* the root exists as something else, or a parent is a file */
            int probe = pathgate__fs_open(t, NULL, O_PATH, 0);
            if (probe >= 0) {
                close(probe);
                return pathgate__fs_fail(err, PATHGATE_ENOTDIR, t, PATHGATE__FS_DIRECTORY);
            }
        }
        return pathgate__fs_fail_errno(err, root, t, PATHGATE__FS_DIRECTORY);
    }

    /* "<base address>/<rel>": rel grows and shrinks at the end */
    const size_t prefix = t->prefix_len + 1;
    const size_t rel_max = PATHGATE_PATH_MAX;
    size_t ss = g ? pathgate__glob_state_size(g) : 0;
    level *levels = pathgate__calloc(a, PATHGATE_FS_MAX_DEPTH + 1, sizeof *levels);
    char *addr = pathgate__malloc(a, prefix + rel_max + NAME_MAX + 2);
    unsigned char *states = g ? pathgate__malloc(a, ss * (PATHGATE_FS_MAX_DEPTH + 2)) : NULL;
    int rc = PATHGATE_OK;
    if (!levels || !addr || (g && !states)) {
        pathgate__free(a, levels);
        pathgate__free(a, addr);
        pathgate__free(a, states);
        close(root);
        return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
    }
    memcpy(addr, t->address, t->prefix_len);
    addr[t->prefix_len] = '/';
    char *rel = addr + prefix;
    memcpy(rel, t->rel, t->rel_len);
    rel[t->rel_len] = '\0';
    const size_t root_len = t->rel_len;
    unsigned char *file_state = states ? states + ss * (PATHGATE_FS_MAX_DEPTH + 1) : NULL;
    if (g)
        pathgate__glob_start(g, states);

    int depth = 0;
    levels[0].fd = root;
    levels[0].rel_len = root_len;
    if ((rc = read_dir(&levels[0], a, g, states, file_state, w->shallow)) < 0)
        goto done;

    while (depth >= 0) {
        level *L = &levels[depth];
        if (L->next == L->n) {
            close(L->fd);
            L->fd = -1;
            depth--;
            continue;
        }
        const ent *e = &L->ents[L->next++];
        size_t len = L->rel_len;
        if (len + 1 + e->len > rel_max)
            continue; /* longer than any address may be */
        if (len)
            rel[len++] = '/';
        memcpy(rel + len, e->name, e->len);
        len += e->len;
        rel[len] = '\0';
        const unsigned char *state = g ? states + ss * (size_t)depth : NULL;

        if (e->type == DT_DIR && !w->shallow) {
            if (depth + 1 > PATHGATE_FS_MAX_DEPTH) {
                w->truncated = 1;
                continue;
            }
            if (g && !pathgate__glob_step(g, states + ss * (size_t)(depth + 1), state, e->name,
                                          e->len))
                continue;
            int fd = openat(L->fd, e->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (fd < 0)
                continue; /* replaced, unreadable: skipped */
            level *C = &levels[++depth];
            C->fd = fd;
            C->rel_len = len;
            if ((rc = read_dir(C, a, g, states + ss * (size_t)depth, file_state, 0)) < 0)
                goto done;
            continue;
        }
        /* a file here matched the glob already (read_dir) */
        pathgate__walk_file f;
        f.dirfd = L->fd;
        f.name = e->name;
        f.name_len = e->len;
        f.rel = rel;
        f.rel_len = len;
        size_t skip = root_len ? root_len + 1 : 0;
        f.sub = rel + skip;
        f.sub_len = len - skip;
        f.path = addr;
        f.path_len = prefix + len;
        f.is_dir = e->type == DT_DIR;
        f.is_link = e->type == DT_LNK;
        if (f.is_link) {
            int fd = pathgate__fs_open(t, rel, O_PATH, 0);
            if (fd < 0)
                continue; /* leads out, dangling, a loop */
            int ok = fstat(fd, &f.st) == 0 &&
                     (S_ISREG(f.st.st_mode) || (w->shallow && S_ISDIR(f.st.st_mode)));
            close(fd);
            if (!ok)
                continue;
            f.is_dir = S_ISDIR(f.st.st_mode);
        }
        rc = w->visit(w->ctx, &f);
        if (rc < 0)
            goto done;
        if (rc == 1) {
            rc = PATHGATE_OK;
            goto done;
        }
    }

done:
    for (int i = 0; i <= PATHGATE_FS_MAX_DEPTH; i++) {
        if (i <= depth && levels[i].fd >= 0)
            close(levels[i].fd);
        pathgate__free(a, levels[i].buf);
        pathgate__free(a, levels[i].ents);
    }
    pathgate__free(a, levels);
    pathgate__free(a, addr);
    pathgate__free(a, states);
    if (rc == PATHGATE_ENOMEM)
        pathgate__error_set(err, rc, NULL);
    return rc;
}
