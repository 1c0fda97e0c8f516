/* fs_walk_iter.c - the walk iterator: a tree one directory at a time, top
 * down or bottom up, each directory opened relative to its parent's fd
 * with O_NOFOLLOW (a directory symlink is listed, never entered). It holds
 * one descriptor and one listing per level of the current path. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "alloc.h"
#include "error.h"
#include "fs_entry.h"
#include "fs_policy.h"
#include "fs_scandir.h"
#include "fs_target.h"
#include "fs_walk.h"
#include "resolver_policy.h"
#include "resolver_internal.h"

enum { KIND_DIR = 0, KIND_DIR_LINK = 1, KIND_PRUNED = 2 };

typedef struct frame {
    int fd;
    pathgate__fs_listing L;
    size_t addr_len; /* the directory's address: walk->addr[0 .. addr_len) */
    size_t *dirs;    /* indices into L.names, in name order */
    unsigned char *kind;
    size_t ndirs, dcap;
    size_t *files;
    size_t nfiles, fcap;
    size_t next; /* the next of dirs to enter */
} frame;

struct pathgate_fs_walk {
    const pathgate_allocator *a;
    pathgate__fs_target t;
    int bottom_up;
    int depth;       /* frames[0 .. depth) are the current path */
    int started;     /* the root was handed out (top down) */
    int pop_pending; /* bottom up: the top frame was handed out */
    int can_prune;   /* top down: the top frame was just handed out */
    frame *frames;   /* PATHGATE_FS_MAX_DEPTH + 1 */
    char *addr;
    size_t unreadable, skipped;
    int truncated;
    /* the policy: what it hides (t.policy set), and how many were left out */
    pathgate__walk_policy wp;
    char *real_root;
    size_t denied;
    int reported;
    /* the answer */
    pathgate_fs_walk_dir out;
    const char **names;
    size_t *lens;
    size_t ncap;
};

#define ADDR_CAP(w) ((w)->t.prefix_len + 1 + PATHGATE_PATH_MAX + 1)

static int push_index(const pathgate_allocator *a, size_t **arr, size_t *n, size_t *cap, size_t v,
                      unsigned char **kind, unsigned char k)
{
    if (*n == *cap) {
        size_t nc = *cap ? *cap * 2 : 16;
        size_t *na = pathgate__realloc(a, *arr, nc * sizeof *na);
        if (!na)
            return PATHGATE_ENOMEM;
        *arr = na;
        if (kind) {
            unsigned char *nk = pathgate__realloc(a, *kind, nc);
            if (!nk)
                return PATHGATE_ENOMEM;
            *kind = nk;
        }
        *cap = nc;
    }
    if (kind)
        (*kind)[*n] = k;
    (*arr)[(*n)++] = v;
    return PATHGATE_OK;
}

/* What a symlink in the directory at addr[0..len) leads to, beneath the
 * base: PATHGATE__OS_T_DIR, PATHGATE__OS_T_REG, or 0 (out, dangling,
 * anything else); LINK_HIDDEN when it leads to what the policy hides. */
#define LINK_HIDDEN 0xffu
static unsigned char link_kind(pathgate_fs_walk *w, size_t len, const pathgate__fs_name *n)
{
    char *rel = w->addr + w->t.prefix_len + 1; /* "<dir rel>/<name>", or <name> at the base */
    size_t at = len;
    w->addr[at++] = '/';
    memcpy(w->addr + at, n->name, n->len);
    w->addr[at + n->len] = '\0';
    int fd = w->t.policy ? pathgate__fs_open(&w->t, rel, PATHGATE__OS_O_PATH, 0)
                         : pathgate__contain_open(w->t.base_fd, rel, PATHGATE__OS_O_PATH, 0,
                                                  w->t.force_fallback);
    w->addr[len] = '\0';
    if (fd == -PATHGATE__POLICY_ENOREAD)
        return LINK_HIDDEN; /* leads to what the policy hides */
    if (fd < 0)
        return 0;
    pathgate__os_stat st;
    unsigned char k = 0;
    if (pathgate__os_statat(fd, "", 0, &st) == 0)
        k = st.type == PATHGATE__OS_T_DIR   ? PATHGATE__OS_T_DIR
            : st.type == PATHGATE__OS_T_REG ? PATHGATE__OS_T_REG
                                            : 0;
    pathgate__os_close(fd);
    return k;
}

/* Lists the directory of frame f (fd open, address set) and sorts its
 * entries into dirs and files. 0 or PATHGATE_ENOMEM. */
static int fill_frame(pathgate_fs_walk *w, frame *f)
{
    int rc = pathgate__fs_listing_read(&f->L, f->fd, w->a);
    if (rc < 0)
        return rc;
    w->skipped += f->L.skipped;
    if (f->L.read_error)
        w->unreadable++;
    f->ndirs = f->nfiles = f->next = 0;
    size_t room = PATHGATE_PATH_MAX - (f->addr_len - w->t.prefix_len);
    /* the directory's rel, for the policy */
    const char *dir_rel = w->addr + w->t.prefix_len + 1;
    size_t dir_rel_len = f->addr_len > w->t.prefix_len ? f->addr_len - w->t.prefix_len - 1 : 0;
    if (!dir_rel_len)
        dir_rel = "";
    for (size_t i = 0; i < f->L.n; i++) {
        const pathgate__fs_name *n = &f->L.names[i];
        if (n->len + 1 > room) { /* its address would be too long to resolve */
            w->skipped++;
            continue;
        }
        if (w->t.policy &&
            pathgate__fs_policy_hidden(&w->wp, dir_rel, dir_rel_len, n->name, n->len)) {
            w->denied++;
            continue;
        }
        unsigned char type = n->type, kind = KIND_DIR;
        if (type == PATHGATE__OS_T_LNK) {
            type = link_kind(w, f->addr_len, n);
            kind = KIND_DIR_LINK;
            if (type == LINK_HIDDEN) {
                w->denied++;
                continue;
            }
        }
        if (type == PATHGATE__OS_T_DIR)
            rc = push_index(w->a, &f->dirs, &f->ndirs, &f->dcap, i, &f->kind, kind);
        else if (type == PATHGATE__OS_T_REG)
            rc = push_index(w->a, &f->files, &f->nfiles, &f->fcap, i, NULL, 0);
        if (rc < 0)
            return rc;
    }
    return PATHGATE_OK;
}

static int name_order(const pathgate__fs_name *a, const pathgate__fs_name *b)
{
    size_t n = a->len < b->len ? a->len : b->len;
    int c = memcmp(a->name, b->name, n);
    return c ? c : (a->len > b->len) - (a->len < b->len);
}

static void close_frame(pathgate_fs_walk *w, frame *f)
{
    if (f->fd >= 0)
        pathgate__os_close(f->fd);
    f->fd = -1;
    (void)w;
}

static void free_frame(pathgate_fs_walk *w, frame *f)
{
    close_frame(w, f);
    pathgate__fs_listing_free(&f->L, w->a);
    pathgate__free(w->a, f->dirs);
    pathgate__free(w->a, f->kind);
    pathgate__free(w->a, f->files);
    memset(f, 0, sizeof *f);
    f->fd = -1;
}

int pathgate_fs_walk_open(pathgate_fs_walk **out, pathgate_resolver *resolver, const char *address,
                          size_t len, unsigned int flags, const pathgate_fs_options *opts,
                          pathgate_error *err)
{
    if (!out || !address)
        return pathgate__error_set(err, PATHGATE_EINVAL, "invalid argument");
    *out = NULL;
    if (flags & ~PATHGATE_FS_WALK_BOTTOM_UP)
        return pathgate__error_set(err, PATHGATE_EINVAL, "unknown walk flags");
    pathgate_resolver *r = pathgate__fs_resolver(resolver, opts, err);
    if (!r)
        return PATHGATE_EINVAL;
    const pathgate_allocator *a = pathgate__resolver_allocator(r);
    pathgate_fs_walk *w = pathgate__calloc(a, 1, sizeof *w);
    if (!w)
        return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
    w->a = a;
    w->bottom_up = (flags & PATHGATE_FS_WALK_BOTTOM_UP) != 0;
    int rc = pathgate__fs_resolve(&w->t, "walk", r, opts, address, len, err);
    if (rc < 0) {
        pathgate__free(a, w);
        return rc;
    }
    pathgate__fs_audit(&w->t, "allowed", NULL, NULL);
    w->frames = pathgate__calloc(a, PATHGATE_FS_MAX_DEPTH + 1, sizeof *w->frames);
    w->addr = pathgate__malloc(a, ADDR_CAP(w));
    if (!w->frames || !w->addr) {
        pathgate_fs_walk_free(w);
        return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
    }
    for (int i = 0; i <= PATHGATE_FS_MAX_DEPTH; i++)
        w->frames[i].fd = -1;
    frame *f = &w->frames[0];
    if ((f->fd = pathgate__fs_open_dir(&w->t, err)) < 0) {
        rc = f->fd;
        f->fd = -1;
        pathgate_fs_walk_free(w);
        return rc;
    }
    if (w->t.policy) { /* where the root really is, when a symlink led to it */
        w->wp.t = &w->t;
        if (!(w->real_root = pathgate__malloc(a, PATHGATE_PATH_MAX + 1))) {
            pathgate_fs_walk_free(w);
            return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
        }
        int rr = pathgate__fs_policy_real_root(&w->t, f->fd, w->real_root, PATHGATE_PATH_MAX + 1);
        if (rr < 0) {
            rc = pathgate__fs_fail_errno(err, rr, &w->t, PATHGATE__FS_DIRECTORY);
            pathgate_fs_walk_free(w);
            return rc;
        }
        if (rr == 1) {
            w->wp.real_root = w->real_root;
            w->wp.real_len = strlen(w->real_root);
        }
    }
    memcpy(w->addr, w->t.address, w->t.address_len + 1);
    f->addr_len = w->t.address_len;
    w->depth = 1;
    if ((rc = fill_frame(w, f)) < 0) {
        pathgate_fs_walk_free(w);
        return pathgate__error_set(err, rc, NULL);
    }
    *out = w;
    return PATHGATE_OK;
}

/* Enters the next subdirectory of the top frame that may be entered: 1
 * (pushed), 0 (none left), or PATHGATE_ENOMEM. */
static int descend(pathgate_fs_walk *w)
{
    frame *f = &w->frames[w->depth - 1];
    while (f->next < f->ndirs) {
        size_t k = f->next++;
        if (f->kind[k] != KIND_DIR)
            continue;
        if (w->depth > PATHGATE_FS_MAX_DEPTH) {
            w->truncated = 1;
            continue;
        }
        const pathgate__fs_name *n = &f->L.names[f->dirs[k]];
        char name[PATHGATE__OS_NAME_MAX + 1];
        memcpy(name, n->name, n->len);
        name[n->len] = '\0';
        int fd = pathgate__walk_open_dir(f->fd, name);
        if (fd < 0) {
            /* a symlink or a file now, or gone: not a directory to walk */
            if (fd != -ELOOP && fd != -ENOTDIR && fd != -ENOENT)
                w->unreadable++;
            continue;
        }
        frame *c = &w->frames[w->depth];
        c->fd = fd;
        size_t at = f->addr_len;
        w->addr[at++] = '/';
        memcpy(w->addr + at, n->name, n->len);
        c->addr_len = at + n->len;
        w->addr[c->addr_len] = '\0';
        w->depth++;
        int rc = fill_frame(w, c);
        if (rc < 0)
            return rc;
        return 1;
    }
    return 0;
}

static void pop(pathgate_fs_walk *w)
{
    frame *f = &w->frames[--w->depth];
    close_frame(w, f);
    if (w->depth > 0)
        w->addr[w->frames[w->depth - 1].addr_len] = '\0';
}

/* Fills w->out with frame f. 0 or PATHGATE_ENOMEM. */
static int answer(pathgate_fs_walk *w, frame *f)
{
    size_t need = f->ndirs + f->nfiles;
    if (need > w->ncap) {
        size_t cap = need < 64 ? 64 : need;
        const char **nn = pathgate__realloc(w->a, (void *)w->names, cap * sizeof *nn);
        if (!nn)
            return PATHGATE_ENOMEM;
        w->names = nn;
        size_t *nl = pathgate__realloc(w->a, w->lens, cap * sizeof *nl);
        if (!nl)
            return PATHGATE_ENOMEM;
        w->lens = nl;
        w->ncap = cap;
    }
    for (size_t i = 0; i < f->ndirs; i++) {
        w->names[i] = f->L.names[f->dirs[i]].name;
        w->lens[i] = f->L.names[f->dirs[i]].len;
    }
    for (size_t i = 0; i < f->nfiles; i++) {
        w->names[f->ndirs + i] = f->L.names[f->files[i]].name;
        w->lens[f->ndirs + i] = f->L.names[f->files[i]].len;
    }
    w->addr[f->addr_len] = '\0';
    w->out.path = w->addr;
    w->out.path_len = f->addr_len;
    w->out.dirs = w->names;
    w->out.dir_lens = w->lens;
    w->out.ndirs = f->ndirs;
    w->out.files = w->names + f->ndirs;
    w->out.file_lens = w->lens + f->ndirs;
    w->out.nfiles = f->nfiles;
    return PATHGATE_OK;
}

/* The end of the walk: its "hidden" event, once. 0. */
static int walk_end(pathgate_fs_walk *w)
{
    if (!w->reported)
        pathgate__fs_audit_hidden(&w->t, w->denied);
    w->reported = 1;
    return 0;
}

int pathgate_fs_walk_next(const pathgate_fs_walk_dir **out, pathgate_fs_walk *w,
                          pathgate_error *err)
{
    if (!out || !w)
        return pathgate__error_set(err, PATHGATE_EINVAL, "invalid argument");
    *out = NULL;
    w->can_prune = 0;
    int rc;
    if (!w->bottom_up) {
        if (!w->started) {
            w->started = 1;
        } else {
            for (;;) {
                if (w->depth == 0)
                    return walk_end(w);
                if ((rc = descend(w)) < 0)
                    return pathgate__error_set(err, rc, NULL);
                if (rc == 1)
                    break;
                pop(w);
            }
        }
        if ((rc = answer(w, &w->frames[w->depth - 1])) < 0)
            return pathgate__error_set(err, rc, NULL);
        w->can_prune = 1;
        *out = &w->out;
        return 1;
    }
    if (w->pop_pending) {
        w->pop_pending = 0;
        pop(w);
    }
    if (w->depth == 0)
        return walk_end(w);
    for (;;) {
        if ((rc = descend(w)) < 0)
            return pathgate__error_set(err, rc, NULL);
        if (rc == 0)
            break;
    }
    if ((rc = answer(w, &w->frames[w->depth - 1])) < 0)
        return pathgate__error_set(err, rc, NULL);
    w->pop_pending = 1;
    *out = &w->out;
    return 1;
}

int pathgate_fs_walk_prune(pathgate_fs_walk *w, const char *const *keep, const size_t *keep_lens,
                           size_t nkeep, pathgate_error *err)
{
    if (!w || (nkeep && (!keep || !keep_lens)))
        return pathgate__error_set(err, PATHGATE_EINVAL, "invalid argument");
    if (!w->can_prune)
        return pathgate__error_set(err, PATHGATE_EINVAL,
                                   "prune applies to the directory a top-down walk just returned");
    frame *f = &w->frames[w->depth - 1];
    /* mark every enterable directory, then clear the mark of each kept
     * name found by bisection (dirs are in name order) */
    for (size_t k = 0; k < f->ndirs; k++)
        if (f->kind[k] == KIND_DIR)
            f->kind[k] = KIND_PRUNED | 0x80;
    for (size_t i = 0; i < nkeep; i++) {
        pathgate__fs_name key = {keep[i], keep_lens[i], 0};
        size_t lo = 0, hi = f->ndirs;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            int c = name_order(&f->L.names[f->dirs[mid]], &key);
            if (c == 0) {
                if (f->kind[mid] & 0x80)
                    f->kind[mid] = KIND_DIR;
                break;
            }
            if (c < 0)
                lo = mid + 1;
            else
                hi = mid;
        }
    }
    for (size_t k = 0; k < f->ndirs; k++)
        f->kind[k] &= 0x7F;
    return PATHGATE_OK;
}

void pathgate_fs_walk_stats(const pathgate_fs_walk *w, size_t *unreadable_dirs,
                            size_t *skipped_names, int *truncated)
{
    if (unreadable_dirs)
        *unreadable_dirs = w ? w->unreadable : 0;
    if (skipped_names)
        *skipped_names = w ? w->skipped : 0;
    if (truncated)
        *truncated = w ? w->truncated : 0;
}

size_t pathgate_fs_walk_skipped_denied(const pathgate_fs_walk *w)
{
    return w ? w->denied : 0;
}

void pathgate_fs_walk_free(pathgate_fs_walk *w)
{
    if (!w)
        return;
    const pathgate_allocator *a = w->a;
    pathgate__free(a, w->real_root);
    if (w->frames) {
        for (int i = 0; i <= PATHGATE_FS_MAX_DEPTH; i++)
            free_frame(w, &w->frames[i]);
        pathgate__free(a, w->frames);
    }
    pathgate__free(a, w->addr);
    pathgate__free(a, (void *)w->names);
    pathgate__free(a, w->lens);
    pathgate__free(a, w);
}
