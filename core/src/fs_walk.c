/*
 * fs_walk.c - the contained directory walk shared by ls, grep and glob.
 *
 * The root is opened beneath the base (contain_open); every directory below
 * it is opened relative to its parent's fd with O_NOFOLLOW|O_DIRECTORY, so a
 * symlink (to a directory or out of the base), even one swapped in during
 * the walk, is never entered. Entries are read with getdents64 into a
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
 * Parallelism: the calling thread lists the root and, breadth-first, a few
 * levels below it until there are enough tasks (slices of those listings);
 * threads take tasks in order and walk them with their own walker; the
 * calling thread emits the tasks' outputs in task order. The listings are
 * shared read-only; their descriptors stay open until the walk ends (at
 * most EXPAND_MAX of them).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "alloc.h"
#include "error.h"
#include "fs_internal.h"
#include "glob.h"
#include "resolver_internal.h"
#include "text.h"

#define DIRBUF_MIN 32768
#define FD_WINDOW 8
#define EXPAND_MAX 32      /* directories listed ahead by the calling thread */
#define TASKS_PER_THREAD 8 /* expansion stops at threads * this many tasks */
#define SLICE_MIN 8        /* entries of one task, at least ... */
#define SLICE_MAX 256      /* ... and at most */
#define EMFILE_RETRIES 200 /* 1 ms apart */

typedef struct ent {
    const char *name;
    size_t len;
    unsigned char type; /* DT_REG, DT_DIR, DT_LNK */
} ent;

typedef struct level {
    int fd;
    int borrowed; /* fd and ents belong to a listing */
    char *buf;
    size_t cap;
    ent *ents;
    size_t ecap, n, next;
    size_t rel_len; /* rel of this directory */
    dev_t dev;      /* saved when the fd slides out of the window */
    ino_t ino;
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
 * character. Anything else has no address: it is counted, not reported. */
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

/* openat of a directory below dirfd, never through a symlink; waits out a
 * full descriptor table for a while instead of losing the directory. */
static int open_dir_at(int dirfd, const char *name)
{
    for (int i = 0;; i++) {
        int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd >= 0 || (errno != EMFILE && errno != ENFILE) || i == EMFILE_RETRIES)
            return fd < 0 ? -errno : fd;
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
}

/* Reads every entry of L->fd and sorts them. With a glob, entries that
 * cannot match (files) or lead to no match (directories) are dropped before
 * the sort: `state` is the directory's glob state, `scratch` room for one
 * more. 0 or PATHGATE_ENOMEM; a read error ends the listing early (what was
 * read is kept, the directory counted unreadable). */
static int read_dir(level *L, const pathgate_allocator *a, const pathgate__glob *g,
                    const unsigned char *state, unsigned char *scratch, int shallow,
                    pathgate__walk_stats *stats)
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
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            stats->unreadable_dirs++;
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
        if (!addressable(name, len)) {
            stats->skipped_names++;
            continue;
        }
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

/* ------------------------------------------------------------ listings */

/* A directory listed by the calling thread; its fd stays open. */
typedef struct listing {
    level L;
    int depth;             /* below the walk's root */
    char *rel;             /* rel from the base (allocated) */
    unsigned char *state;  /* its glob state (allocated), or NULL */
} listing;

typedef struct task {
    listing *dir;
    size_t from, to; /* slice of dir's entries */
    void *sink;
    int state; /* 0 waiting, 1 running, 2 done */
    int rc;
    pathgate__walk_stats stats;
} task;

/* ------------------------------------------------------------- walker */

/* One thread's walk state. */
typedef struct walker {
    pathgate__walk *w;
    const pathgate_allocator *a;
    level *levels; /* PATHGATE_FS_MAX_DEPTH + 1 */
    char *addr;    /* "<base address>/<rel>" */
    char *rel;     /* addr + prefix */
    size_t prefix, root_len, ss;
    unsigned char *states; /* ss * (MAX_DEPTH + 2): one per level + a file's */
    void *scratch;
    const int *cancel; /* atomic */
    pathgate__walk_stats stats;
} walker;

static int walker_init(walker *W, pathgate__walk *w)
{
    memset(W, 0, sizeof *W);
    W->w = w;
    W->a = w->t->alloc;
    W->prefix = w->t->prefix_len + 1;
    W->root_len = w->t->rel_len;
    W->ss = w->glob ? pathgate__glob_state_size(w->glob) : 0;
    W->levels = pathgate__calloc(W->a, PATHGATE_FS_MAX_DEPTH + 1, sizeof *W->levels);
    W->addr = pathgate__malloc(W->a, W->prefix + PATHGATE_PATH_MAX + NAME_MAX + 2);
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
            close(L->fd);
        L->fd = -1;
    }
}

static void walker_free(walker *W)
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
        close(L->fd);
        L->fd = -1;
        return;
    }
    struct stat st;
    if (fstat(L->fd, &st) < 0)
        return; /* keep it open */
    L->dev = st.st_dev;
    L->ino = st.st_ino;
    close(L->fd);
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
        char name[NAME_MAX + 1];
        memcpy(name, e->name, e->len);
        name[e->len] = '\0';
        int next = open_dir_at(fd, name);
        if (i != a)
            close(fd);
        if (next < 0)
            return -1;
        fd = next;
    }
    struct stat st;
    if (fstat(fd, &st) < 0 || st.st_dev != W->levels[p].dev || st.st_ino != W->levels[p].ino) {
        close(fd);
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
    char name[NAME_MAX + 1];
    memcpy(name, e->name, e->len);
    name[e->len] = '\0';
    int fd = open_dir_at(L->fd, name);
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
    return read_dir(C, W->a, w->glob, cstate, scratch, 0, &W->stats) < 0 ? PATHGATE_ENOMEM : 1;
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
    f.is_dir = e->type == DT_DIR;
    f.is_link = e->type == DT_LNK;
    if (f.is_link) {
        int fd = pathgate__fs_open(w->t, W->rel, O_PATH, 0);
        if (fd < 0)
            return 0; /* leads out, dangling, a loop */
        int ok = fstat(fd, &f.st) == 0 &&
                 (S_ISREG(f.st.st_mode) || (w->shallow && S_ISDIR(f.st.st_mode)));
        close(fd);
        if (!ok)
            return 0;
        f.is_dir = S_ISDIR(f.st.st_mode);
    }
    return w->visit(w->ctx, W->scratch, sink, &f);
}

/*
 * Walks entries [from, to) of a listing (level 0 borrows its fd and
 * entries) and everything below them. *sink may be replaced when the
 * visitor asks for an emit (one-thread walks: `can_emit`). 0 or a negative
 * code.
 */
static int walker_run(walker *W, const listing *dir, size_t from, size_t to, void **sink,
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
                close(L->fd);
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
        if (e->type == DT_DIR && !w->shallow) {
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

/* ---------------------------------------------------------- the walk */

typedef struct plan {
    pathgate__walk *w;
    listing **dirs;
    size_t ndirs, dcap;
    task *tasks;
    size_t ntasks, tcap;
    /* run state */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    size_t next_task;
    size_t emitted; /* tasks handed over; claims stay within AHEAD of it */
    size_t ahead;
    int cancel; /* atomic */
    pathgate__walk_stats stats; /* of the listings made by the plan */
} plan;

static int add_task(plan *P, listing *dir, size_t from, size_t to)
{
    /* slices small enough for every thread to get some of a flat directory */
    size_t slice = (to - from) / ((size_t)P->w->threads * TASKS_PER_THREAD);
    slice = slice < SLICE_MIN ? SLICE_MIN : slice > SLICE_MAX ? SLICE_MAX : slice;
    while (from < to) {
        size_t end = to - from > slice ? from + slice : to;
        if (P->ntasks == P->tcap) {
            size_t cap = P->tcap ? P->tcap * 2 : 16;
            task *nt = pathgate__realloc(P->w->t->alloc, P->tasks, cap * sizeof *nt);
            if (!nt)
                return PATHGATE_ENOMEM;
            P->tasks = nt;
            P->tcap = cap;
        }
        task *T = &P->tasks[P->ntasks++];
        memset(T, 0, sizeof *T);
        T->dir = dir;
        T->from = from;
        T->to = end;
        from = end;
    }
    return 0;
}

static void listing_free(const pathgate_allocator *a, listing *d)
{
    if (!d)
        return;
    if (d->L.fd >= 0)
        close(d->L.fd);
    pathgate__free(a, d->L.buf);
    pathgate__free(a, d->L.ents);
    pathgate__free(a, d->rel);
    pathgate__free(a, d->state);
    pathgate__free(a, d);
}

/* Lists directory fd (taken) as a listing at rel with a glob state. */
static int make_listing(plan *P, listing **out, int fd, const char *rel, size_t rel_len,
                        int depth, const unsigned char *state)
{
    pathgate__walk *w = P->w;
    const pathgate_allocator *a = w->t->alloc;
    size_t ss = w->glob ? pathgate__glob_state_size(w->glob) : 0;
    listing *d = pathgate__calloc(a, 1, sizeof *d);
    if (!d) {
        close(fd);
        return PATHGATE_ENOMEM;
    }
    d->L.fd = fd;
    d->depth = depth;
    d->rel = pathgate__strndup(a, rel, rel_len);
    d->state = w->glob ? pathgate__malloc(a, 2 * ss) : NULL;
    int rc = PATHGATE_ENOMEM;
    if (d->rel && (!w->glob || d->state)) {
        if (w->glob)
            memcpy(d->state, state, ss);
        d->L.rel_len = rel_len;
        rc = read_dir(&d->L, a, w->glob, d->state, d->state ? d->state + ss : NULL, w->shallow,
                      &P->stats);
    }
    if (rc == 0 && P->ndirs == P->dcap) {
        size_t cap = P->dcap ? P->dcap * 2 : 8;
        listing **nd = pathgate__realloc(a, P->dirs, cap * sizeof *nd);
        if (!nd)
            rc = PATHGATE_ENOMEM;
        else {
            P->dirs = nd;
            P->dcap = cap;
        }
    }
    if (rc < 0) {
        listing_free(a, d);
        return rc;
    }
    P->dirs[P->ndirs++] = d;
    *out = d;
    return 0;
}

/* Replaces the tasks by the same walk with the directories of their
 * slices listed (up to the budget), so that there are more, smaller tasks. */
static int expand(plan *P, size_t *budget)
{
    pathgate__walk *w = P->w;
    const pathgate_allocator *a = w->t->alloc;
    task *old = P->tasks;
    size_t nold = P->ntasks;
    P->tasks = NULL;
    P->ntasks = P->tcap = 0;
    size_t ss = w->glob ? pathgate__glob_state_size(w->glob) : 0;
    char *rel = pathgate__malloc(a, PATHGATE_PATH_MAX + NAME_MAX + 2);
    unsigned char *cstate = w->glob ? pathgate__malloc(a, ss) : NULL;
    int rc = (!rel || (w->glob && !cstate)) ? PATHGATE_ENOMEM : 0;
    for (size_t k = 0; k < nold && rc == 0; k++) {
        listing *d = old[k].dir;
        size_t start = old[k].from;
        for (size_t i = old[k].from; i < old[k].to && rc == 0; i++) {
            const ent *e = &d->L.ents[i];
            size_t rl = strlen(d->rel);
            if (e->type != DT_DIR || !*budget || d->depth + 1 > PATHGATE_FS_MAX_DEPTH ||
                rl + 1 + e->len > PATHGATE_PATH_MAX)
                continue;
            if (w->glob && !pathgate__glob_step(w->glob, cstate, d->state, e->name, e->len))
                continue;
            char name[NAME_MAX + 1];
            memcpy(name, e->name, e->len);
            name[e->len] = '\0';
            int fd = open_dir_at(d->L.fd, name);
            if (fd < 0)
                continue; /* the walker meets it again and counts it */
            (*budget)--;
            memcpy(rel, d->rel, rl);
            size_t n = rl;
            if (n)
                rel[n++] = '/';
            memcpy(rel + n, e->name, e->len);
            n += e->len;
            listing *child;
            if ((rc = add_task(P, d, start, i)) < 0 ||
                (rc = make_listing(P, &child, fd, rel, n, d->depth + 1, cstate)) < 0 ||
                (rc = add_task(P, child, 0, child->L.n)) < 0)
                break;
            start = i + 1;
        }
        if (rc == 0)
            rc = add_task(P, d, start, old[k].to);
    }
    pathgate__free(a, old);
    pathgate__free(a, rel);
    pathgate__free(a, cstate);
    return rc;
}

/* Runs task T with walker W (any thread). */
static void run_task(plan *P, walker *W, task *T)
{
    pathgate__walk *w = P->w;
    memset(&W->stats, 0, sizeof W->stats);
    T->rc = w->sink_new(w->ctx, &T->sink);
    if (T->rc == 0)
        T->rc = walker_run(W, T->dir, T->from, T->to, &T->sink, 0);
    T->stats = W->stats;
}

/* No task is left to claim (or the walk was stopped). Lock held. */
static int all_claimed(plan *P)
{
    return __atomic_load_n(&P->cancel, __ATOMIC_RELAXED) || P->next_task == P->ntasks;
}

/* Takes the next task to run, or NULL (none left, or the next is too far
 * ahead of the tasks handed over: memory stays bounded when the consumer
 * is slow). Called with the lock held. */
static task *claim(plan *P)
{
    if (all_claimed(P) || P->next_task >= P->emitted + P->ahead)
        return NULL;
    task *T = &P->tasks[P->next_task++];
    T->state = 1;
    return T;
}

typedef struct worker_arg {
    plan *P;
    walker W;
    pthread_t tid;
} worker_arg;

static void *worker_main(void *p)
{
    worker_arg *wa = p;
    plan *P = wa->P;
    pthread_mutex_lock(&P->mu);
    while (!all_claimed(P)) {
        task *T = claim(P);
        if (!T) {
            pthread_cond_wait(&P->cv, &P->mu); /* until the consumer catches up */
            continue;
        }
        pthread_mutex_unlock(&P->mu);
        run_task(P, &wa->W, T);
        pthread_mutex_lock(&P->mu);
        T->state = 2;
        pthread_cond_broadcast(&P->cv);
    }
    pthread_mutex_unlock(&P->mu);
    return NULL;
}

static void add_stats(pathgate__walk_stats *to, const pathgate__walk_stats *s)
{
    to->truncated |= s->truncated;
    to->unreadable_dirs += s->unreadable_dirs;
    to->skipped_names += s->skipped_names;
}

/* Runs the tasks on the calling thread and up to nworkers more, emitting
 * each task's sink in order on the calling thread. */
static int run_parallel(plan *P, walker *self, worker_arg *workers, size_t nworkers)
{
    pathgate__walk *w = P->w;
    size_t started = 0;
    int rc = 0;
    for (; started < nworkers; started++) {
        worker_arg *wa = &workers[started];
        wa->P = P;
        if (walker_init(&wa->W, w) < 0) {
            walker_free(&wa->W);
            break;
        }
        wa->W.cancel = &P->cancel;
        if (pthread_create(&wa->tid, NULL, worker_main, wa) != 0) {
            walker_free(&wa->W);
            break;
        }
    }
    size_t emitted = 0;
    pthread_mutex_lock(&P->mu);
    while (emitted < P->ntasks && rc == 0) {
        task *T = &P->tasks[emitted];
        if (T->state == 2) {
            pthread_mutex_unlock(&P->mu);
            add_stats(&w->stats, &T->stats);
            rc = T->rc;
            if (rc == 0)
                rc = w->emit(w->ctx, T->sink);
            if (T->sink)
                w->sink_free(w->ctx, T->sink);
            T->sink = NULL;
            pthread_mutex_lock(&P->mu);
            P->emitted = ++emitted;
            pthread_cond_broadcast(&P->cv);
            continue;
        }
        task *mine = claim(P);
        if (mine) {
            pthread_mutex_unlock(&P->mu);
            run_task(P, self, mine);
            pthread_mutex_lock(&P->mu);
            mine->state = 2;
            continue;
        }
        pthread_cond_wait(&P->cv, &P->mu);
    }
    __atomic_store_n(&P->cancel, 1, __ATOMIC_RELAXED);
    pthread_cond_broadcast(&P->cv);
    pthread_mutex_unlock(&P->mu);
    for (size_t i = 0; i < started; i++) {
        pthread_join(workers[i].tid, NULL);
        walker_free(&workers[i].W);
    }
    return rc == 1 ? 0 : rc;
}

int pathgate__fs_walk(pathgate__walk *w, pathgate_error *err)
{
    const pathgate__fs_target *t = w->t;
    const pathgate_allocator *a = t->alloc;
    memset(&w->stats, 0, sizeof w->stats);

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
    plan P;
    memset(&P, 0, sizeof P);
    P.w = w;
    walker self;
    worker_arg *workers = NULL;
    int rc = walker_init(&self, w);
    self.cancel = &P.cancel;
    unsigned char *start = NULL;
    if (rc == 0 && w->glob) {
        if (!(start = pathgate__malloc(a, pathgate__glob_state_size(w->glob))))
            rc = PATHGATE_ENOMEM;
        else
            pathgate__glob_start(w->glob, start);
    }
    listing *rootdir = NULL;
    if (rc == 0)
        rc = make_listing(&P, &rootdir, root, t->rel, t->rel_len, 0, start);
    else
        close(root);
    pathgate__free(a, start);
    unsigned int threads = w->shallow ? 1 : w->threads ? w->threads : 1;
    if (rc == 0 && threads == 1) {
        /* one task on this thread: the visitor may emit as it goes */
        void *sink = NULL;
        if ((rc = w->sink_new(w->ctx, &sink)) == 0)
            rc = walker_run(&self, rootdir, 0, rootdir->L.n, &sink, 1);
        add_stats(&w->stats, &self.stats);
        if (rc == 0)
            rc = w->emit(w->ctx, sink);
        if (sink)
            w->sink_free(w->ctx, sink);
        if (rc == 1)
            rc = 0;
    } else if (rc == 0) {
        rc = add_task(&P, rootdir, 0, rootdir->L.n);
        size_t budget = EXPAND_MAX;
        for (int round = 0; rc == 0 && round < 3 && budget && P.ntasks < threads * TASKS_PER_THREAD;
             round++) {
            size_t before = P.ntasks;
            rc = expand(&P, &budget);
            if (P.ntasks == before)
                break;
        }
        size_t nworkers = P.ntasks > 1 ? threads - 1 : 0;
        if (nworkers > P.ntasks - 1)
            nworkers = P.ntasks - 1;
        if (rc == 0 && nworkers && !(workers = pathgate__calloc(a, nworkers, sizeof *workers)))
            rc = PATHGATE_ENOMEM;
        P.ahead = (size_t)threads * TASKS_PER_THREAD;
        if (rc == 0 && pthread_mutex_init(&P.mu, NULL) == 0) {
            pthread_cond_init(&P.cv, NULL);
            rc = run_parallel(&P, &self, workers, nworkers);
            pthread_cond_destroy(&P.cv);
            pthread_mutex_destroy(&P.mu);
        }
        for (size_t i = 0; i < P.ntasks; i++)
            if (P.tasks[i].sink)
                w->sink_free(w->ctx, P.tasks[i].sink);
    }
    add_stats(&w->stats, &P.stats);
    walker_free(&self);
    for (size_t i = 0; i < P.ndirs; i++)
        listing_free(a, P.dirs[i]);
    pathgate__free(a, P.dirs);
    pathgate__free(a, P.tasks);
    pathgate__free(a, workers);
    if (rc == PATHGATE_ENOMEM)
        pathgate__error_set(err, rc, NULL);
    return rc;
}
