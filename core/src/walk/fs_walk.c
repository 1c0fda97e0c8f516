/*
 * fs_walk.c - the contained directory walk shared by ls, grep and glob.
 *
 * The root is opened beneath the base (contain_open); every directory below
 * it is opened relative to its parent's fd with O_NOFOLLOW|O_DIRECTORY, so a
 * symlink (to a directory or out of the base), even one swapped in during
 * the walk, is never entered. Entries are read (pathgate__os_dir_read_all) into a
 * per-level buffer and visited in path order (a directory sorts as its name
 * followed by '/'), so the output needs no final sort. A symlink is
 * reported only when it resolves, beneath the base, to a regular file.
 *
 * Descriptors: a walker keeps its first level and the deepest FD_WINDOW
 * levels open. A level that slid out of the window is closed (its device
 * and inode kept) and, when the walk comes back to it with entries left,
 * reopened downward from the nearest open ancestor, O_NOFOLLOW at every
 * step, and checked to be the same directory; if it is not, the rest of it
 * is reported unreadable. So a walk holds at most FD_WINDOW + 2
 * descriptors per thread whatever the depth.
 *
 * This file is one thread's walker over a slice of a listing; the listings,
 * the tasks and the threads are fs_walk_plan.c's.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "address.h"
#include "alloc.h"
#include "error.h"
#include "glob.h"
#include "resolver_policy.h"
#include "resolver_internal.h"
#include "fs_walk.h"
#include "text.h"
#include "fs_policy.h"
#include "walk.h"

#define EMFILE_RETRIES 200 /* 1 ms apart */

/* The sort key of an entry: its name, then '/' for a directory, then end. */
static int key_at(const ent *e, size_t i)
{
    if (i < e->len)
        return (unsigned char)e->name[i];
    if (i == e->len && e->type == PATHGATE__OS_T_DIR)
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

/* openat of a directory below dirfd, never through a symlink; waits out a
 * full descriptor table for a while instead of losing the directory. */
int pathgate__walk_open_dir(int dirfd, const char *name)
{
    for (int i = 0;; i++) {
        int fd =
            pathgate__os_openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, 0);
        if (fd >= 0 || (fd != -EMFILE && fd != -ENFILE) || i == EMFILE_RETRIES)
            return fd;
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
}

/* Reads every entry of L->fd and sorts them. With a glob, entries that
 * cannot match (files) or lead to no match (directories) are dropped before
 * the sort: `state` is the directory's glob state, `scratch` room for one
 * more. 0 or PATHGATE_ENOMEM; a read error ends the listing early (what was
 * read is kept, the directory counted unreadable). */
int pathgate__walk_read_dir(level *L, const pathgate_allocator *a, const pathgate__glob *g,
                            const unsigned char *state, unsigned char *scratch, int shallow,
                            const pathgate__walk_policy *wp, const char *dir_rel,
                            pathgate__walk_stats *stats)
{
    size_t used = 0;
    L->n = L->next = 0;
    int rc = pathgate__os_dir_read_all(L->fd, a, &L->buf, &L->cap, &used, DIRBUF_MIN);
    if (rc == -ENOMEM)
        return PATHGATE_ENOMEM;
    if (rc < 0)
        stats->unreadable_dirs++;
    size_t off = 0;
    pathgate__os_dirent d;
    while (pathgate__os_dir_next(L->buf, used, &off, &d)) {
        const char *name = d.name;
        size_t len = d.len;
        if ((len == 1 && name[0] == '.') || (len == 2 && name[0] == '.' && name[1] == '.'))
            continue;
        if (!pathgate__address_name_listable(name, len)) {
            stats->skipped_names++;
            continue;
        }
        unsigned char type = (unsigned char)d.type;
        if (type == PATHGATE__OS_T_UNKNOWN) {
            pathgate__os_stat st;
            if (pathgate__os_statat(L->fd, name, PATHGATE__OS_STAT_NOFOLLOW, &st) < 0)
                continue;
            type = st.type == PATHGATE__OS_T_OTHER ? PATHGATE__OS_T_UNKNOWN : st.type;
        }
        if (type != PATHGATE__OS_T_DIR && type != PATHGATE__OS_T_REG && type != PATHGATE__OS_T_LNK)
            continue;
        if (g && !shallow) {
            int keep = pathgate__glob_step(g, scratch, state, name, len);
            if (type != PATHGATE__OS_T_DIR)
                keep = pathgate__glob_accepts(g, scratch);
            if (!keep)
                continue;
        }
        if (wp && pathgate__fs_policy_hidden(wp, dir_rel, L->rel_len, name, len)) {
            stats->skipped_denied++; /* what the listing would have shown */
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

int pathgate__walker_init(walker *W, pathgate__walk *w)
{
    memset(W, 0, sizeof *W);
    W->w = w;
    W->a = w->t->alloc;
    W->prefix = w->t->prefix_len + 1;
    W->root_len = w->t->rel_len;
    W->ss = w->glob ? pathgate__glob_state_size(w->glob) : 0;
    W->levels = pathgate__calloc(W->a, PATHGATE_FS_MAX_DEPTH + 1, sizeof *W->levels);
    W->addr = pathgate__malloc(W->a, W->prefix + PATHGATE_PATH_MAX + PATHGATE__OS_NAME_MAX + 2);
    if (w->glob)
        W->states = pathgate__malloc(W->a, W->ss * (PATHGATE_FS_MAX_DEPTH + 2));
    if (!W->levels || !W->addr || (w->glob && !W->states))
        return PATHGATE_ENOMEM;
    for (int i = 0; i <= PATHGATE_FS_MAX_DEPTH; i++)
        W->levels[i].fd = -1;
    memcpy(W->addr, w->t->address, w->t->prefix_len);
    W->addr[w->t->prefix_len] = '/';
    W->rel = W->addr + W->prefix;
    if (w->scratch_new && w->scratch_new(w->ctx, &W->scratch) < 0)
        return PATHGATE_ENOMEM;
    return PATHGATE_OK;
}

static void walker_close_levels(walker *W)
{
    for (int i = 0; i <= PATHGATE_FS_MAX_DEPTH; i++) {
        level *L = &W->levels[i];
        if (L->borrowed) {
            L->borrowed = 0;
            L->fd = -1;
            L->ents = NULL;
            L->ecap = 0;
            continue;
        }
        if (L->fd >= 0)
            pathgate__os_close(L->fd);
        L->fd = -1;
    }
}

void pathgate__walker_free(walker *W)
{
    if (W->levels) {
        walker_close_levels(W);
        for (int i = 0; i <= PATHGATE_FS_MAX_DEPTH; i++) {
            pathgate__free(W->a, W->levels[i].buf);
            pathgate__free(W->a, W->levels[i].ents);
        }
    }
    if (W->scratch && W->w->scratch_free)
        W->w->scratch_free(W->w->ctx, W->scratch);
    pathgate__free(W->a, W->levels);
    pathgate__free(W->a, W->addr);
    pathgate__free(W->a, W->states);
}

/* Closes the level that slid out of the window on the way to `depth`,
 * keeping its identity for the way back. */
static void slide_window(walker *W, int depth)
{
    int out = depth - FD_WINDOW;
    if (out < 1)
        return;
    level *L = &W->levels[out];
    if (L->fd < 0)
        return;
    if (L->next == L->n) { /* nothing left to read there */
        pathgate__os_close(L->fd);
        L->fd = -1;
        return;
    }
    pathgate__os_stat st;
    if (pathgate__os_statat(L->fd, "", 0, &st) < 0)
        return; /* keep it open */
    L->dev = st.dev;
    L->ino = st.ino;
    pathgate__os_close(L->fd);
    L->fd = -1;
}

/* Reopens level p (closed by the window) downward from the nearest open
 * ancestor, O_NOFOLLOW at every step: 0, or -1 when it is gone or is no
 * longer the same directory. */
static int reopen_level(walker *W, int p)
{
    int a = p - 1;
    while (W->levels[a].fd < 0)
        a--;
    int fd = W->levels[a].fd;
    for (int i = a; i < p; i++) {
        const level *L = &W->levels[i];
        const ent *e = &L->ents[L->next - 1]; /* the entry walked into */
        char name[PATHGATE__OS_NAME_MAX + 1];
        memcpy(name, e->name, e->len);
        name[e->len] = '\0';
        int next = pathgate__walk_open_dir(fd, name);
        if (i != a)
            pathgate__os_close(fd);
        if (next < 0)
            return -1;
        fd = next;
    }
    pathgate__os_stat st;
    if (pathgate__os_statat(fd, "", 0, &st) < 0 || st.dev != W->levels[p].dev ||
        st.ino != W->levels[p].ino) {
        pathgate__os_close(fd);
        return -1;
    }
    W->levels[p].fd = fd;
    return 0;
}

/* Sets rel to the entry's path below level L; its length, or 0 when it
 * would be longer than any address may be. */
static size_t put_rel(walker *W, const level *L, const ent *e)
{
    size_t len = L->rel_len;
    if (len + 1 + e->len > PATHGATE_PATH_MAX)
        return 0;
    if (len)
        W->rel[len++] = '/';
    memcpy(W->rel + len, e->name, e->len);
    len += e->len;
    W->rel[len] = '\0';
    return len;
}

/* Enters directory e of level `depth`: 1 entered, 0 skipped, or a negative
 * code. */
static int enter_dir(walker *W, int depth, int base_depth, const ent *e, size_t len)
{
    pathgate__walk *w = W->w;
    level *L = &W->levels[depth];
    if (base_depth + depth + 1 > PATHGATE_FS_MAX_DEPTH) {
        W->stats.truncated = 1;
        return 0;
    }
    const unsigned char *state = w->glob ? W->states + W->ss * (size_t)depth : NULL;
    unsigned char *cstate = w->glob ? W->states + W->ss * (size_t)(depth + 1) : NULL;
    if (w->glob && !pathgate__glob_step(w->glob, cstate, state, e->name, e->len))
        return 0;
    char name[PATHGATE__OS_NAME_MAX + 1];
    memcpy(name, e->name, e->len);
    name[e->len] = '\0';
    int fd = pathgate__walk_open_dir(L->fd, name);
    if (fd < 0) {
        if (fd != -ENOENT) /* gone since the listing is no loss */
            W->stats.unreadable_dirs++;
        return 0;
    }
    slide_window(W, depth + 1);
    level *C = &W->levels[depth + 1];
    C->fd = fd;
    C->rel_len = len;
    unsigned char *scratch = w->glob ? W->states + W->ss * (PATHGATE_FS_MAX_DEPTH + 1) : NULL;
    return pathgate__walk_read_dir(C, W->a, w->glob, cstate, scratch, 0, w->policy, W->rel,
                                   &W->stats) < 0
               ? PATHGATE_ENOMEM
               : 1;
}

/* Visits a file (or, shallow, any) entry. The visitor's answer, or 0 for
 * an entry that is skipped. */
static int visit_entry(walker *W, const level *L, const ent *e, size_t len, void *sink)
{
    pathgate__walk *w = W->w;
    pathgate__walk_file f;
    f.dirfd = L->fd;
    f.name = e->name;
    f.name_len = e->len;
    f.rel = W->rel;
    f.rel_len = len;
    size_t skip = W->root_len ? W->root_len + 1 : 0;
    f.sub = W->rel + skip;
    f.sub_len = len - skip;
    f.path = W->addr;
    f.path_len = W->prefix + len;
    f.is_dir = e->type == PATHGATE__OS_T_DIR;
    f.is_link = e->type == PATHGATE__OS_T_LNK;
    if (f.is_link) {
        int fd = pathgate__fs_open(w->t, W->rel, PATHGATE__OS_O_PATH, 0);
        if (fd == -PATHGATE__POLICY_ENOREAD)
            W->stats.skipped_denied++; /* leads to what the policy hides */
        if (fd < 0)
            return 0; /* leads out, dangling, a loop */
        int ok =
            pathgate__os_statat(fd, "", 0, &f.st) == 0 &&
            (f.st.type == PATHGATE__OS_T_REG || (w->shallow && f.st.type == PATHGATE__OS_T_DIR));
        pathgate__os_close(fd);
        if (!ok)
            return 0;
        f.is_dir = f.st.type == PATHGATE__OS_T_DIR;
    }
    return w->visit(w->ctx, W->scratch, sink, &f);
}

/*
 * Walks entries [from, to) of a listing (level 0 borrows its fd and
 * entries) and everything below them. *sink may be replaced when the
 * visitor asks for an emit (one-thread walks: `can_emit`). 0 or a negative
 * code.
 */
int pathgate__walker_run(walker *W, const listing *dir, size_t from, size_t to, void **sink,
                         int can_emit)
{
    pathgate__walk *w = W->w;
    level *L0 = &W->levels[0];
    L0->fd = dir->L.fd;
    L0->borrowed = 1;
    L0->ents = dir->L.ents;
    L0->n = to;
    L0->next = from;
    L0->rel_len = strlen(dir->rel);
    memcpy(W->rel, dir->rel, L0->rel_len + 1);
    if (w->glob)
        memcpy(W->states, dir->state, W->ss);
    int depth = 0, rc = 0;
    while (depth >= 0) {
        level *L = &W->levels[depth];
        if (L->next == L->n) {
            if (!L->borrowed)
                pathgate__os_close(L->fd);
            L->fd = -1;
            depth--;
            if (depth > 0 && W->levels[depth].fd < 0 &&
                W->levels[depth].next < W->levels[depth].n && reopen_level(W, depth) < 0) {
                /* replaced while the walk was below it: the rest of it,
                 * and of every closed level above, is not read */
                W->stats.unreadable_dirs++;
                for (int i = depth; i > 0 && W->levels[i].fd < 0; i--)
                    W->levels[i].next = W->levels[i].n;
            }
            continue;
        }
        if (__atomic_load_n(W->cancel, __ATOMIC_RELAXED))
            break;
        const ent *e = &L->ents[L->next++];
        size_t len = put_rel(W, L, e);
        if (!len)
            continue;
        if (e->type == PATHGATE__OS_T_DIR && !w->shallow) {
            rc = enter_dir(W, depth, dir->depth, e, len);
            if (rc < 0)
                break;
            depth += rc;
            rc = 0;
            continue;
        }
        /* a file here matched the glob already (read_dir) */
        rc = visit_entry(W, L, e, len, *sink);
        if (rc == 2 && can_emit) {
            if ((rc = w->emit(w->ctx, *sink)) != 0)
                break;
            w->sink_free(w->ctx, *sink);
            *sink = NULL;
            if ((rc = w->sink_new(w->ctx, sink)) < 0)
                break;
        }
        if (rc == 1) {
            rc = 0;
            break;
        }
        if (rc < 0)
            break;
        rc = 0;
    }
    walker_close_levels(W);
    return rc;
}
