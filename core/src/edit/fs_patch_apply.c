/*
 * fs_patch_apply.c - apply_patch: every path resolved and checked first,
 * the new content of every file computed in memory, then staged (temp
 * files beside the targets), then committed by rename with a hard link
 * kept to each file replaced or deleted, and rolled back on any failure
 * (docs/patch.md). With PATHGATE_FS_PATCH_FILE_BY_FILE the same runs once
 * per hunk.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "alloc.h"
#include "error.h"
#include "fs_entry.h"
#include "fs_file.h"
#include "fs_patch_internal.h"
#include "fs_policy.h"
#include "fs_result.h"
#include "fs_target.h"
#include "resolver_policy.h"
#include "random.h"
#include "resolver_internal.h"
#include "strbuf.h"
#include "testing.h"
#include "text.h"

#define NAME_CAP 64

/* One canonical address the patch touches. */
typedef struct entry {
    char *addr;
    size_t addr_len;
    /* the state the hunks so far left (known: read from disk or set) */
    int known, exists, is_dir;
    const char *cur; /* content when exists and loaded */
    size_t cur_len;
    int loaded;
    char *owned; /* what cur points into, when computed here */
    /* the file as read from disk (an Update File hunk): its content and
     * identity, to put it back by content should a later commit fail */
    char *orig;
    size_t orig_len;
    pathgate__os_stat orig_st;
    int dirty; /* changed since the last commit */
    /* staging and commit */
    int staged, tmp_live, had, committed, bak_by_rename;
    int swapped;   /* committed by RENAME_EXCHANGE: the original is at tmp */
    int overwrite; /* committed by renaming over the original, which orig
                      holds */
    unsigned int mode;
    int has_mode;
    char tmp[NAME_CAP], bak[NAME_CAP];
} entry;

/* One hunk's line of the summary. */
typedef struct change {
    char letter;
    size_t dst, src; /* entries; src == dst unless moved */
    int applied;
} change;

typedef struct apply {
    pathgate_resolver *r;
    const pathgate_fs_options *opts;
    const pathgate_allocator *a;
    pathgate__patch patch;
    pathgate__fs_target *t; /* scratch */
    entry *e;
    size_t ne, ecap;
    size_t *slots; /* hash of addresses -> entry index + 1 */
    size_t nslots;
    size_t *src, *dst; /* per hunk */
    change *ch;
    size_t nch;
    char **made; /* addresses of the directories created */
    size_t nmade, madecap;
    /* parent directories kept open (PATHGATE__OS_O_PATH) between the steps, by address */
    struct dircache {
        char *key;
        size_t len;
        int fd;
    } * dirs;
    size_t ndirs, nslots_dirs;
    /* temp and backup names: one random prefix, then a counter */
    char name_prefix[24];
    unsigned long name_count;
    /* one directory per filesystem staged on, for its file-system sync */
    int devfd[8];
    uint64_t dev[8];
    size_t ndev;
    /* the failure */
    int code;
    pathgate__sb msg;
} apply;

/* ------------------------------------------------------------- helpers */

static int fail(apply *ap, int code, const char *fmt, ...) PATHGATE__PRINTF(3, 4);

static int fail(apply *ap, int code, const char *fmt, ...)
{
    if (ap->code)
        return ap->code;
    char small[512];
    va_list va;
    va_start(va, fmt);
    int n = vsnprintf(small, sizeof small, fmt, va);
    va_end(va);
    if (n >= 0 && (size_t)n < sizeof small) {
        pathgate__sb_put(&ap->msg, small, (size_t)n);
    } else if (n >= 0) {
        char *big = pathgate__malloc(ap->a, (size_t)n + 1);
        if (big) {
            va_start(va, fmt);
            vsnprintf(big, (size_t)n + 1, fmt, va);
            va_end(va);
            pathgate__sb_put(&ap->msg, big, (size_t)n);
            pathgate__free(ap->a, big);
        } else {
            ap->msg.oom = 1;
        }
    }
    return ap->code = code;
}

/* Takes over an allocated message. */
static int fail_with(apply *ap, int code, char *msg, size_t len)
{
    if (!ap->code)
        pathgate__sb_put(&ap->msg, msg, len);
    pathgate__free(ap->a, msg);
    if (!ap->code)
        ap->code = code;
    return ap->code;
}

/* Rust's io::Error text: "<description> (os error N)". */
static const char *os_text(int e, char *buf, size_t size)
{
    const char *d = pathgate__os_strerror(e);
    snprintf(buf, size, "%s (os error %d)", d ? d : "Unknown error", e);
    return buf;
}

static size_t hash(const char *s, size_t n)
{
    size_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
    return h;
}

/* The entry of address (created when new): its index, or (size_t)-1 on
 * ENOMEM. */
static size_t entry_of(apply *ap, const char *addr, size_t len)
{
    if (ap->ne * 2 >= ap->nslots) {
        size_t n = ap->nslots ? ap->nslots * 2 : 64;
        size_t *s = pathgate__calloc(ap->a, n, sizeof *s);
        if (!s)
            return (size_t)-1;
        for (size_t i = 0; i < ap->ne; i++) {
            size_t k = hash(ap->e[i].addr, ap->e[i].addr_len) & (n - 1);
            while (s[k])
                k = (k + 1) & (n - 1);
            s[k] = i + 1;
        }
        pathgate__free(ap->a, ap->slots);
        ap->slots = s;
        ap->nslots = n;
    }
    size_t k = hash(addr, len) & (ap->nslots - 1);
    for (; ap->slots[k]; k = (k + 1) & (ap->nslots - 1)) {
        entry *x = &ap->e[ap->slots[k] - 1];
        if (x->addr_len == len && memcmp(x->addr, addr, len) == 0)
            return ap->slots[k] - 1;
    }
    if (ap->ne == ap->ecap) {
        entry *ne = pathgate__grow(ap->a, ap->e, &ap->ecap, sizeof *ne, 16);
        if (!ne)
            return (size_t)-1;
        ap->e = ne;
    }
    entry *x = &ap->e[ap->ne];
    memset(x, 0, sizeof *x);
    if (!(x->addr = pathgate__strndup(ap->a, addr, len)))
        return (size_t)-1;
    x->addr_len = len;
    ap->slots[k] = ++ap->ne;
    return ap->ne - 1;
}

/* ap->t = the target of a canonical address the patch changes, resolved
 * again (resolve_all judged it and emitted its event): every open below is
 * judged for writing. 0 or a code as pathgate__fs_resolve. */
static int retarget(apply *ap, const char *addr, size_t len, pathgate_error *err)
{
    int rc = pathgate__fs_resolve(ap->t, "apply_patch", ap->r, ap->opts, addr, len, err);
    ap->t->access = PATHGATE__ACCESS_WRITE;
    return rc;
}

/* The failure of an open the policy refused (ap->t's): its message and
 * event, as every operation gives them. */
static int fail_policy(apply *ap, int neg_errno)
{
    pathgate_error err = PATHGATE_ERROR_INIT;
    int code = pathgate__fs_fail_errno(&err, neg_errno, ap->t, PATHGATE__FS_FILE);
    return fail(ap, code, "%s", err.message);
}

/* ap->t = the target of an entry's (canonical) address. */
static int target(apply *ap, const entry *x)
{
    pathgate_error err = PATHGATE_ERROR_INIT;
    int rc = retarget(ap, x->addr, x->addr_len, &err);
    return rc < 0 ? fail(ap, rc, "%s", err.message) : 0;
}

static void set_content(apply *ap, entry *x, const char *p, size_t len, char *owned)
{
    if (x->owned && x->owned != owned)
        pathgate__free(ap->a, x->owned);
    x->owned = owned;
    x->cur = p;
    x->cur_len = len;
    x->loaded = 1;
    x->exists = 1;
    x->is_dir = 0;
    x->known = 1;
    x->dirty = 1;
}

static void set_absent(apply *ap, entry *x)
{
    pathgate__free(ap->a, x->owned);
    x->owned = NULL;
    x->cur = NULL;
    x->cur_len = 0;
    x->loaded = 0;
    x->exists = 0;
    x->is_dir = 0;
    x->known = 1;
    x->dirty = 1;
}

static int hook(apply *ap, pathgate_fs_hook_point point)
{
    const pathgate__fs_test_options *t = pathgate__fs_test_options_of(ap->opts);
    if (t && t->hook) {
        int rc = t->hook(point, t->hook_ctx);
        return rc < 0 ? rc : 0;
    }
    return 0;
}

/* ------------------------------------------------------ the resolution */

/* Resolves every path of every hunk and checks that it may be written,
 * before anything is read. */
static int resolve_all(apply *ap)
{
    pathgate__patch *p = &ap->patch;
    ap->src = pathgate__calloc(ap->a, p->nhunks ? p->nhunks : 1, sizeof *ap->src);
    ap->dst = pathgate__calloc(ap->a, p->nhunks ? p->nhunks : 1, sizeof *ap->dst);
    if (!ap->src || !ap->dst)
        return fail(ap, PATHGATE_ENOMEM, "out of memory");
    for (size_t i = 0; i < p->nhunks; i++) {
        const pathgate__patch_hunk *h = &p->hunks[i];
        for (int which = 0; which < 1 + h->has_move; which++) {
            pathgate__span text = which ? h->move_to : h->path;
            pathgate_error err = PATHGATE_ERROR_INIT;
            /* every path judged (deny_read: not found; deny_write:
             * protected) before anything is read or written */
            int rc =
                pathgate__fs_resolve(ap->t, "apply_patch", ap->r, ap->opts, text.p, text.len, &err);
            if (rc >= 0)
                rc = pathgate__fs_check_writable(ap->t, &err);
            if (rc >= 0) /* and where it is, when a link is on the way */
                rc = pathgate__fs_policy_where(ap->t, &err);
            if (rc >= 0) /* a link to what is hidden is hidden too */
                rc = pathgate__fs_policy_link_hidden(ap->t, &err);
            if (rc < 0)
                return fail(ap, rc, "%s", err.message);
            size_t k = entry_of(ap, ap->t->address, ap->t->address_len);
            if (k == (size_t)-1)
                return fail(ap, PATHGATE_ENOMEM, "out of memory");
            if (which)
                ap->dst[i] = k;
            else
                ap->src[i] = ap->dst[i] = k;
        }
    }
    return 0;
}

/* ------------------------------------------------ computing the content */

/* What is at an entry's name now: exists (not a directory), is_dir, or
 * nothing. A failure other than "not there" fails with `what`. */
static int probe(apply *ap, entry *x, const char *what)
{
    if (target(ap, x) < 0)
        return ap->code;
    x->known = 1;
    x->exists = x->is_dir = 0;
    if (ap->t->rel_len == 0) {
        x->is_dir = 1;
        return 0;
    }
    int fd = pathgate__fs_open(ap->t, NULL, PATHGATE__OS_O_PATH | O_NOFOLLOW, 0);
#if !PATHGATE__OS_HAS_LINK_HANDLE
    if (fd == -ELOOP) { /* no handle on a symlink itself here: look at the name */
        pathgate__fs_entry e;
        if (pathgate__fs_entry_find(&e, ap->t, 0) == 0) {
            int link = e.exists && e.st.type == PATHGATE__OS_T_LNK;
            pathgate__fs_entry_close(&e);
            if (link) {
                x->exists = 1;
                return 0;
            }
        }
    }
#endif
    if (fd == -ENOENT || fd == -ENOTDIR)
        return 0;
    if (fd == -PATHGATE__POLICY_ENOREAD || fd == -PATHGATE__POLICY_ENOWRITE)
        return fail_policy(ap, fd);
    if (fd < 0) {
        char os[128];
        return fail(ap, pathgate__errno_to_code(fd), "%s %s: %s", what, x->addr,
                    os_text(-fd, os, sizeof os));
    }
    pathgate__os_stat st;
    int rc = pathgate__os_statat(fd, "", 0, &st);
    int e = -rc;
    pathgate__os_close(fd);
    if (rc < 0) {
        char os[128];
        return fail(ap, PATHGATE_EIO, "%s %s: %s", what, x->addr, os_text(e, os, sizeof os));
    }
    if (st.type == PATHGATE__OS_T_DIR)
        x->is_dir = 1;
    else
        x->exists = 1;
    return 0;
}

#define READ_UPDATE "Failed to read file to update"

/* The current content of an entry for an Update File hunk. */
static int load(apply *ap, entry *x)
{
    if (x->known && !x->exists) {
        char os[128];
        return fail(ap, PATHGATE_ENOTFOUND, READ_UPDATE " %s: %s", x->addr,
                    os_text(ENOENT, os, sizeof os));
    }
    if (x->known && x->is_dir) {
        char os[128];
        return fail(ap, PATHGATE_EISDIR, READ_UPDATE " %s: %s", x->addr,
                    os_text(EISDIR, os, sizeof os));
    }
    if (x->loaded)
        return 0;
    if (target(ap, x) < 0)
        return ap->code;
    pathgate__os_stat st;
    pathgate_error err = PATHGATE_ERROR_INIT;
    int fd = ap->t->rel_len == 0
                 ? pathgate__fs_fail(&err, PATHGATE_EISDIR, ap->t, PATHGATE__FS_FILE)
                 : pathgate__fs_open_regular(ap->t, &st, &err);
    if (fd < 0) {
        char os[128];
        if (fd == PATHGATE_ENOTFOUND)
            return fail(ap, fd, READ_UPDATE " %s: %s", x->addr, os_text(ENOENT, os, sizeof os));
        if (fd == PATHGATE_EISDIR)
            return fail(ap, fd, READ_UPDATE " %s: %s", x->addr, os_text(EISDIR, os, sizeof os));
        return fail(ap, fd, READ_UPDATE " %s: %s", x->addr, err.message);
    }
    char *data = NULL;
    size_t n = 0;
    uint64_t cap = pathgate__fs_max_file(ap->opts);
    int rc = pathgate__fs_slurp(&data, &n, ap->a, fd, &st, cap);
    pathgate__os_close(fd);
    if (rc == PATHGATE_ETOOLARGE) {
        pathgate__fs_fail_large(&err, ap->t, cap);
        return fail(ap, rc, READ_UPDATE " %s: %s", x->addr, err.message);
    }
    if (rc == PATHGATE_ENOMEM)
        return fail(ap, rc, "out of memory");
    if (rc < 0) {
        char os[128];
        return fail(ap, rc, READ_UPDATE " %s: %s", x->addr, os_text(EIO, os, sizeof os));
    }
    if (!pathgate__utf8_valid(data, n)) {
        pathgate__free(ap->a, data);
        return fail(ap, PATHGATE_EUTF8, READ_UPDATE " %s: stream did not contain valid UTF-8",
                    x->addr);
    }
    x->orig = data;
    x->orig_len = n;
    x->orig_st = st;
    x->cur = data;
    x->cur_len = n;
    x->loaded = x->known = x->exists = 1;
    x->has_mode = 1;
    x->mode = st.mode & 0777;
    return 0;
}

/* One hunk's effect on the entries (nothing is written). */
static int compute(apply *ap, size_t i)
{
    const pathgate__patch_hunk *h = &ap->patch.hunks[i];
    entry *src = &ap->e[ap->src[i]];
    change c = {'M', ap->dst[i], ap->src[i], 0};
    switch (h->kind) {
    case PATHGATE__HUNK_ADD:
        set_content(ap, src, ap->patch.adds + h->add_off, h->add_len, NULL);
        c.letter = 'A';
        break;
    case PATHGATE__HUNK_DELETE:
        if (!src->known && probe(ap, src, "Failed to delete file") < 0)
            return ap->code;
        if (!src->exists)
            return fail(ap, src->is_dir ? PATHGATE_EISDIR : PATHGATE_ENOTFOUND,
                        "Failed to delete file %s", src->addr);
        set_absent(ap, src);
        c.letter = 'D';
        break;
    case PATHGATE__HUNK_UPDATE: {
        if (load(ap, src) < 0)
            return ap->code;
        char *out = NULL, *msg = NULL;
        size_t out_len = 0, msg_len = 0;
        int rc = pathgate__patch_update(&out, &out_len, &msg, &msg_len, &ap->patch, h, src->addr,
                                        src->cur, src->cur_len, ap->a);
        if (rc == PATHGATE_ECONFLICT)
            return fail_with(ap, rc, msg, msg_len);
        if (rc < 0)
            return fail(ap, rc, "out of memory");
        entry *dst = &ap->e[ap->dst[i]];
        if (dst != src) {
            unsigned int mode = src->mode;
            int has_mode = src->has_mode;
            set_content(ap, dst, out, out_len, out);
            if (has_mode && !dst->has_mode) {
                dst->mode = mode;
                dst->has_mode = 1;
            }
            set_absent(ap, src);
        } else {
            set_content(ap, src, out, out_len, out);
        }
        break;
    }
    }
    if (ap->nch == 0 && !ap->ch) {
        ap->ch = pathgate__calloc(ap->a, ap->patch.nhunks ? ap->patch.nhunks : 1, sizeof *ap->ch);
        if (!ap->ch)
            return fail(ap, PATHGATE_ENOMEM, "out of memory");
    }
    ap->ch[ap->nch++] = c;
    return 0;
}

/* ------------------------------------------------- staging and commit */

/* A fresh name for a temp file or a backup: ".pathgate-<random>-<n>.<suffix>",
 * the random part drawn once per run (again with `fresh`, after a clash). */
static int fresh_name(apply *ap, char out[NAME_CAP], const char *suffix, int fresh)
{
    if (fresh || !ap->name_prefix[0]) {
        unsigned char rnd[8];
        if (pathgate__random_bytes(rnd, sizeof rnd) != 0)
            return -EIO;
        snprintf(ap->name_prefix, sizeof ap->name_prefix, "%02x%02x%02x%02x%02x%02x%02x%02x",
                 rnd[0], rnd[1], rnd[2], rnd[3], rnd[4], rnd[5], rnd[6], rnd[7]);
    }
    snprintf(out, NAME_CAP, ".pathgate-%s-%lu.%s", ap->name_prefix, ap->name_count++, suffix);
    return 0;
}

/* Records the address of a directory just made (rel beneath t's base). */
static int remember_made(apply *ap, const pathgate__fs_target *t, const char *rel)
{
    if (ap->nmade == ap->madecap) {
        char **nm = pathgate__grow(ap->a, ap->made, &ap->madecap, sizeof *nm, 8);
        if (!nm)
            return -1;
        ap->made = nm;
    }
    size_t rlen = strlen(rel), plen = t->prefix_len + 1 + rlen;
    char *a = pathgate__malloc(ap->a, plen + 1);
    if (!a)
        return -1;
    memcpy(a, t->address, t->prefix_len);
    a[t->prefix_len] = '/';
    memcpy(a + t->prefix_len + 1, rel, rlen + 1);
    ap->made[ap->nmade++] = a;
    return 0;
}

/* The parent directory of ap->t (PATHGATE__OS_O_PATH), or -errno. With `create`,
 * missing directories are made (and remembered, for the rollback). */
static int open_parent(apply *ap, int create)
{
    const pathgate__fs_target *t = ap->t;
    char rel[PATHGATE_PATH_MAX + 1];
    if (t->rel_len >= sizeof rel)
        return -ENAMETOOLONG;
    memcpy(rel, t->rel, t->rel_len + 1);
    char *slash = strrchr(rel, '/');
    if (!slash)
        return pathgate__fs_open(t, "", PATHGATE__OS_O_PATH | O_DIRECTORY, 0);
    *slash = '\0';
    int fd = pathgate__fs_open(t, rel, PATHGATE__OS_O_PATH | O_DIRECTORY, 0);
    if (fd != -ENOENT || !create)
        return fd;
    int prev = pathgate__fs_open(t, "", PATHGATE__OS_O_PATH | O_DIRECTORY, 0);
    if (prev < 0)
        return prev;
    for (char *comp = rel;;) {
        char *end = strchr(comp, '/');
        if (end)
            *end = '\0';
        fd = pathgate__fs_open(t, rel, PATHGATE__OS_O_PATH | O_DIRECTORY, 0);
        if (fd == -ENOENT) {
            int me = pathgate__os_mkdirat(prev, comp, 0777);
            if (me < 0 && me != -EEXIST) {
                fd = me;
            } else {
                /* remember it (its address) for the rollback, or undo it */
                if (remember_made(ap, t, rel) < 0) {
                    pathgate__os_unlinkat(prev, comp, PATHGATE__OS_REMOVE_DIR);
                    fd = -ENOMEM;
                } else {
                    fd = pathgate__fs_open(t, rel, PATHGATE__OS_O_PATH | O_DIRECTORY, 0);
                }
            }
        }
        pathgate__os_close(prev);
        if (fd < 0)
            return fd;
        prev = fd;
        if (!end)
            break;
        *end = '/';
        comp = end + 1;
    }
    return prev;
}

/* The parent directory of ap->t, kept open for the steps that follow
 * (at most DIR_CACHE of them; past that *owned says the caller closes
 * it). -errno on failure. */
#define DIR_CACHE 256

static int parent_fd(apply *ap, int create, int *owned)
{
    const pathgate__fs_target *t = ap->t;
    const char *slash = pathgate__memrchr(t->rel, '/', t->rel_len);
    size_t klen = slash ? (size_t)(slash - t->address) : t->prefix_len;
    *owned = 1;
    size_t k = 0;
    if (ap->nslots_dirs) {
        k = hash(t->address, klen) & (ap->nslots_dirs - 1);
        for (; ap->dirs[k].key; k = (k + 1) & (ap->nslots_dirs - 1))
            if (ap->dirs[k].len == klen && !memcmp(ap->dirs[k].key, t->address, klen)) {
                *owned = 0;
                return ap->dirs[k].fd;
            }
    }
    int fd = open_parent(ap, create);
    if (fd < 0 || ap->ndirs >= DIR_CACHE)
        return fd;
    if (!ap->nslots_dirs) {
        ap->dirs = pathgate__calloc(ap->a, 2 * DIR_CACHE, sizeof *ap->dirs);
        if (!ap->dirs)
            return fd;
        ap->nslots_dirs = 2 * DIR_CACHE;
        k = hash(t->address, klen) & (ap->nslots_dirs - 1);
    }
    char *key = pathgate__strndup(ap->a, t->address, klen);
    if (!key)
        return fd;
    ap->dirs[k].key = key;
    ap->dirs[k].len = klen;
    ap->dirs[k].fd = fd;
    ap->ndirs++;
    *owned = 0;
    return fd;
}

static void put_fd(int fd, int owned)
{
    if (owned && fd >= 0)
        pathgate__os_close(fd);
}

static void forget_dirs(apply *ap)
{
    for (size_t i = 0; i < ap->nslots_dirs; i++)
        if (ap->dirs[i].key) {
            pathgate__os_close(ap->dirs[i].fd);
            pathgate__free(ap->a, ap->dirs[i].key);
        }
    pathgate__free(ap->a, ap->dirs);
    ap->dirs = NULL;
    ap->ndirs = ap->nslots_dirs = 0;
}

static const char *name_of(const pathgate__fs_target *t)
{
    const char *slash = pathgate__memrchr(t->rel, '/', t->rel_len);
    return slash ? slash + 1 : t->rel;
}

/* A failure while staging or committing x: Codex's message for it. */
static int fail_write(apply *ap, entry *x, int neg_errno, const char *what)
{
    if (neg_errno == -PATHGATE__POLICY_ENOREAD || neg_errno == -PATHGATE__POLICY_ENOWRITE)
        return fail_policy(ap, neg_errno);
    int code = neg_errno == -EISDIR ? PATHGATE_EISDIR : pathgate__errno_to_code(neg_errno);
    if (code == PATHGATE_EACCES)
        return fail(ap, code, "Permission denied: '%s'", x->addr);
    return fail(ap, code, "%s %s", what, x->addr);
}

/* Remembers the filesystem of a staged temp file (fd, in dirfd) so that
 * one file-system sync (pathgate__os_sync_fs) flushes it with the others; past 8 filesystems, an fsync of
 * its own. 0 or -errno. */
static int note_device(apply *ap, int fd, int dirfd)
{
    pathgate__os_stat st;
    int rc = pathgate__os_statat(fd, "", 0, &st);
    if (rc < 0)
        return rc;
    for (size_t i = 0; i < ap->ndev; i++)
        if (ap->dev[i] == st.dev)
            return 0;
    (void)dirfd;
    if (ap->ndev < 8) { /* the file itself: the sync needs an fd that is not PATHGATE__OS_O_PATH */
        int keep = pathgate__os_dup(fd);
        if (keep >= 0) {
            ap->dev[ap->ndev] = st.dev;
            ap->devfd[ap->ndev++] = keep;
            return 0;
        }
    }
    return pathgate__os_fsync(fd);
}

/* Stages one dirty entry: the temp file holding its content, or (to be
 * deleted) a check of what is there. */
static int stage(apply *ap, entry *x)
{
    if (target(ap, x) < 0)
        return ap->code;
    const pathgate__fs_target *t = ap->t;
    if (t->rel_len == 0)
        return fail(ap, PATHGATE_EISDIR, "%s %s",
                    x->exists ? "Failed to write file" : "Failed to delete file", x->addr);
    int owned;
    int dirfd = parent_fd(ap, x->exists, &owned);
    if (dirfd < 0) {
        if (!x->exists && (dirfd == -ENOENT || dirfd == -ENOTDIR))
            return 0; /* nothing there to delete */
        if (dirfd == -ENOTDIR || dirfd == -EEXIST)
            return fail(ap, PATHGATE_ENOTDIR, "Failed to create parent directories for %s",
                        x->addr);
        return fail_write(ap, x, dirfd,
                          x->exists ? "Failed to create parent directories for"
                                    : "Failed to delete file");
    }
    pathgate_error err = PATHGATE_ERROR_INIT;
    int rc = pathgate__fs_check_dir_writable(t, dirfd, &err);
    if (rc < 0) {
        put_fd(dirfd, owned);
        return fail(ap, rc, "%s", err.message);
    }
    const char *name = name_of(t);
    pathgate__os_stat st;
    x->had = 0;
    int se = pathgate__os_statat(dirfd, name, PATHGATE__OS_STAT_NOFOLLOW, &st);
    if (se == 0) {
        int dir = st.type == PATHGATE__OS_T_DIR;
        if (st.type == PATHGATE__OS_T_LNK && x->exists) { /* a link to a directory stays */
            int fd = pathgate__fs_open(t, NULL, PATHGATE__OS_O_PATH, 0);
            pathgate__os_stat ts;
            if (fd >= 0 && pathgate__os_statat(fd, "", 0, &ts) == 0 &&
                ts.type == PATHGATE__OS_T_DIR)
                dir = 1;
            if (fd >= 0)
                pathgate__os_close(fd);
        }
        if (dir) {
            put_fd(dirfd, owned);
            return fail(ap, PATHGATE_EISDIR, "%s %s",
                        x->exists ? "Failed to write file" : "Failed to delete file", x->addr);
        }
        x->had = 1;
        /* still the file read (same inode, size and time): committed by
         * renaming over it, put back by content should a later step fail */
        x->overwrite = x->exists && x->orig && st.type == PATHGATE__OS_T_REG &&
                       st.ino == x->orig_st.ino && st.dev == x->orig_st.dev &&
                       st.size == x->orig_st.size && st.mtime_sec == x->orig_st.mtime_sec &&
                       st.mtime_nsec == x->orig_st.mtime_nsec;
        if (st.type == PATHGATE__OS_T_REG && !x->has_mode) {
            x->mode = st.mode & 0777;
            x->has_mode = 1;
        }
    } else if (se != -ENOENT) {
        rc = se;
        put_fd(dirfd, owned);
        return fail_write(ap, x, rc, x->exists ? "Failed to write file" : "Failed to delete file");
    }
    if (!x->exists) {
        put_fd(dirfd, owned);
        x->staged = x->had; /* nothing to do when nothing is there */
        return 0;
    }
    int fd = -EEXIST;
    for (int attempt = 0; attempt < 16 && fd == -EEXIST; attempt++) {
        if ((fd = fresh_name(ap, x->tmp, "tmp", attempt > 0)) < 0)
            break;
        fd = pathgate__os_openat(dirfd, x->tmp,
                                 O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    }
    if (fd < 0) {
        put_fd(dirfd, owned);
        return fail_write(ap, x, fd, "Failed to write file");
    }
    x->staged = x->tmp_live = 1;
    int hrc = hook(ap, PATHGATE_FS_HOOK_TEMP_CREATED);
    int e = 0;
    if (hrc == 0 && x->has_mode)
        e = pathgate__os_fchmod(fd, x->mode);
    if (hrc == 0 && !e)
        e = pathgate__fs_write_all(fd, x->cur, x->cur_len);
    if (hrc == 0 && !e && ap->opts && (ap->opts->flags & PATHGATE_FS_PATCH_SYNC))
        e = note_device(ap, fd, dirfd);
    int ce = pathgate__os_close(fd);
    if (ce < 0 && !e)
        e = ce;
    put_fd(dirfd, owned);
    if (hrc < 0)
        return fail(ap, hrc, "Failed to write file %s", x->addr);
    if (e < 0)
        return fail_write(ap, x, e, "Failed to write file");
    return 0;
}

/* Flushes the staged temp files before the first rename: one sync
 * per filesystem they are on. */
static int sync_staged(apply *ap, int sync)
{
    int rc = 0;
    for (size_t i = 0; i < ap->ndev; i++) {
        int sr;
        if (sync && rc == 0 && (sr = pathgate__os_sync_fs(ap->devfd[i])) < 0) {
            const char *d = pathgate__os_strerror(-sr);
            rc = fail(ap, PATHGATE_EIO, "Failed to write file: %s", d ? d : "Unknown error");
        }
        pathgate__os_close(ap->devfd[i]);
    }
    ap->ndev = 0;
    return rc;
}

/* Commits one staged entry. A file that replaces one swaps places with it
 * (RENAME_EXCHANGE: the original is then at the temp name, the backup);
 * where that is not supported, a hard link to the original is the backup
 * (or, without hard links, the original is moved aside) and the temp file
 * is renamed over it. A new file is renamed into place, never over one
 * that appeared meanwhile; a file to delete is renamed to the backup. */
static int commit(apply *ap, entry *x)
{
    if (target(ap, x) < 0)
        return ap->code;
    const char *what = x->exists ? "Failed to write file" : "Failed to delete file";
    int owned;
    int dirfd = parent_fd(ap, 0, &owned);
    if (dirfd < 0)
        return fail_write(ap, x, dirfd, what);
    const char *name = name_of(ap->t);
    int hrc = hook(ap, PATHGATE_FS_HOOK_BEFORE_RENAME);
    if (hrc < 0) {
        put_fd(dirfd, owned);
        return fail(ap, hrc, "%s %s", what, x->addr);
    }
    int rc = 0;
    if (x->overwrite) {
        rc = pathgate__os_renameat(dirfd, x->tmp, dirfd, name, 0);
        if (rc == 0)
            x->tmp_live = 0;
        goto done;
    }
    if (x->had && x->exists) {
        rc = pathgate__os_renameat(dirfd, x->tmp, dirfd, name, PATHGATE__OS_RENAME_EXCHANGE);
        if (rc == 0) {
            x->swapped = 1;
            goto done;
        }
    }
    if (x->had) {
        rc = -EEXIST;
        for (int attempt = 0; attempt < 16 && rc == -EEXIST; attempt++) {
            if ((rc = fresh_name(ap, x->bak, "bak", attempt > 0)) < 0)
                break;
            if (x->exists) {
                rc = pathgate__os_linkat(dirfd, name, dirfd, x->bak);
                if (rc < 0 && rc != -EEXIST) { /* no hard links here: move it aside */
                    rc = pathgate__os_renameat(dirfd, name, dirfd, x->bak,
                                               PATHGATE__OS_RENAME_NOREPLACE);
                    x->bak_by_rename = rc == 0;
                }
            } else {
                rc = pathgate__os_renameat(dirfd, name, dirfd, x->bak,
                                           PATHGATE__OS_RENAME_NOREPLACE);
            }
        }
    }
    if (rc == 0 && x->exists) {
        if (x->had)
            rc = pathgate__os_renameat(dirfd, x->tmp, dirfd, name, 0);
        else
            rc = pathgate__os_renameat(dirfd, x->tmp, dirfd, name, PATHGATE__OS_RENAME_NOREPLACE);
        if (rc < 0 && x->bak_by_rename)
            pathgate__os_renameat(dirfd, x->bak, dirfd, name, 0);
        if (rc < 0 && x->had && !x->bak_by_rename)
            pathgate__os_unlinkat(dirfd, x->bak, 0);
        if (rc == 0)
            x->tmp_live = 0;
    }
done:
    put_fd(dirfd, owned);
    if (rc < 0)
        return fail_write(ap, x, rc, what);
    x->committed = 1;
    return 0;
}

/* Writes x's original content (and permission bits) back over name. */
static void put_back(apply *ap, entry *x, int dirfd, const char *name)
{
    char tmp[NAME_CAP];
    int fd = -EEXIST;
    for (int attempt = 0; attempt < 16 && fd == -EEXIST; attempt++) {
        if (fresh_name(ap, tmp, "tmp", attempt > 0) < 0)
            return;
        fd = pathgate__os_openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                                 0666);
    }
    if (fd < 0)
        return;
    int ok = pathgate__os_fchmod(fd, x->orig_st.mode & 0777) == 0 &&
             pathgate__fs_write_all(fd, x->orig, x->orig_len) == 0;
    if (pathgate__os_close(fd) < 0)
        ok = 0;
    if (!ok || pathgate__os_renameat(dirfd, tmp, dirfd, name, 0) < 0)
        pathgate__os_unlinkat(dirfd, tmp, 0);
}

/* Undoes a committed entry (best effort: the tree is as it was). */
static void undo(apply *ap, entry *x)
{
    pathgate_error err = PATHGATE_ERROR_INIT;
    if (retarget(ap, x->addr, x->addr_len, &err) < 0)
        return;
    int owned;
    int dirfd = parent_fd(ap, 0, &owned);
    if (dirfd < 0)
        return;
    const char *name = name_of(ap->t);
    if (x->overwrite) /* the original back, by content */
        put_back(ap, x, dirfd, name);
    else if (x->swapped) /* the original back; the new content at the temp name */
        pathgate__os_renameat(dirfd, x->tmp, dirfd, name, PATHGATE__OS_RENAME_EXCHANGE);
    else if (x->had)
        pathgate__os_renameat(dirfd, x->bak, dirfd, name, 0);
    else if (x->exists)
        pathgate__os_unlinkat(dirfd, name, 0);
    put_fd(dirfd, owned);
    x->committed = x->swapped = x->overwrite = 0;
    x->had = 0; /* no backup left */
}

/* After a commit or a rollback: temp files and backups removed, the
 * staging state cleared. */
static void finish(apply *ap, entry *x)
{
    pathgate_error err = PATHGATE_ERROR_INIT;
    if (x->staged && retarget(ap, x->addr, x->addr_len, &err) == 0) {
        int owned;
        int dirfd = parent_fd(ap, 0, &owned);
        if (dirfd >= 0) {
            if (x->tmp_live) /* the temp file, or (swapped) the original */
                pathgate__os_unlinkat(dirfd, x->tmp, 0);
            if (x->committed && x->had && !x->swapped && !x->overwrite)
                pathgate__os_unlinkat(dirfd, x->bak, 0);
            put_fd(dirfd, owned);
        }
    }
    x->staged = x->tmp_live = x->committed = x->had = x->bak_by_rename = x->swapped = 0;
    x->overwrite = 0;
    x->dirty = 0;
}

/* Removes the directories this run created (deepest first, empty only). */
static void unmake(apply *ap)
{
    forget_dirs(ap); /* fds of directories about to go */
    while (ap->nmade) {
        char *a = ap->made[--ap->nmade];
        pathgate_error err = PATHGATE_ERROR_INIT;
        if (retarget(ap, a, strlen(a), &err) == 0 && ap->t->rel_len) {
            int dirfd = open_parent(ap, 0);
            if (dirfd >= 0) {
                pathgate__os_unlinkat(dirfd, name_of(ap->t), PATHGATE__OS_REMOVE_DIR);
                pathgate__os_close(dirfd);
            }
        }
        pathgate__free(ap->a, a);
    }
}

static void forget_made(apply *ap)
{
    while (ap->nmade)
        pathgate__free(ap->a, ap->made[--ap->nmade]);
}

/* Stages and commits the dirty entries, all or nothing. */
static int flush(apply *ap)
{
    int rc = 0;
    const int sync = ap->opts && (ap->opts->flags & PATHGATE_FS_PATCH_SYNC);
    /* A file committed by renaming over the one read (whose content is
     * held to put it back) is committed as soon as it is staged, as GNU
     * patch does: fewer new inodes at once, which ext4 allocates faster.
     * The others wait until every file is staged (and, with SYNC, all). */
    for (size_t i = 0; rc == 0 && i < ap->ne; i++)
        if (ap->e[i].dirty) {
            rc = stage(ap, &ap->e[i]);
            if (rc == 0 && !sync && ap->e[i].staged && ap->e[i].overwrite)
                rc = commit(ap, &ap->e[i]);
        }
    if (rc < 0 || !sync)
        sync_staged(ap, 0); /* only closes */
    else
        rc = sync_staged(ap, 1);
    for (size_t i = 0; rc == 0 && i < ap->ne; i++)
        if (ap->e[i].dirty && ap->e[i].staged && !ap->e[i].committed)
            rc = commit(ap, &ap->e[i]);
    if (rc < 0) {
        for (size_t i = ap->ne; i-- > 0;)
            if (ap->e[i].committed)
                undo(ap, &ap->e[i]);
        for (size_t i = 0; i < ap->ne; i++)
            if (ap->e[i].dirty)
                finish(ap, &ap->e[i]);
        unmake(ap);
        return rc;
    }
    for (size_t i = 0; i < ap->ne; i++)
        if (ap->e[i].dirty)
            finish(ap, &ap->e[i]);
    forget_made(ap);
    return 0;
}

/* ------------------------------------------------------------- result */

static int result_push(pathgate_fs_patch_result *out, const apply *ap, const change *c)
{
    if (out->count == out->cap) {
        pathgate_fs_patch_file *nf =
            pathgate__grow(&out->alloc, out->files, &out->cap, sizeof *nf, 8);
        if (!nf)
            return PATHGATE_ENOMEM;
        out->files = nf;
    }
    const entry *d = &ap->e[c->dst], *s = &ap->e[c->src];
    pathgate_fs_patch_file *f = &out->files[out->count];
    memset(f, 0, sizeof *f);
    f->change = (pathgate_fs_patch_change)c->letter;
    if (!(f->path = pathgate__fs_arena_strdup(&out->arena, &out->alloc, d->addr, d->addr_len)))
        return PATHGATE_ENOMEM;
    f->path_len = d->addr_len;
    if (c->src != c->dst) {
        if (!(f->from = pathgate__fs_arena_strdup(&out->arena, &out->alloc, s->addr, s->addr_len)))
            return PATHGATE_ENOMEM;
        f->from_len = s->addr_len;
    }
    out->count++;
    return 0;
}

/* files and output from the applied changes: adds, then updates, then
 * deletes, each in patch order (Codex's print_summary). */
static int build_result(pathgate_fs_patch_result *out, const apply *ap)
{
    static const char letters[3] = {'A', 'M', 'D'};
    pathgate__sb o = PATHGATE__SB_INIT(&out->alloc);
    if (ap->code == 0)
        pathgate__sb_puts(&o, "Success. Updated the following files:\n");
    for (int l = 0; l < 3; l++)
        for (size_t i = 0; i < ap->nch; i++) {
            const change *c = &ap->ch[i];
            if (!c->applied || c->letter != letters[l])
                continue;
            if (result_push(out, ap, c) < 0) {
                pathgate__sb_free(&o);
                return PATHGATE_ENOMEM;
            }
            if (ap->code == 0) {
                const entry *d = &ap->e[c->dst];
                pathgate__sb_printf(&o, "%c ", c->letter);
                pathgate__sb_put(&o, d->addr, d->addr_len);
                pathgate__sb_putc(&o, '\n');
            }
        }
    return pathgate__sb_to_buf(&o, &out->output);
}

void pathgate_fs_patch_result_dispose(pathgate_fs_patch_result *res)
{
    if (!res)
        return;
    pathgate_buf_dispose(&res->error);
    pathgate_buf_dispose(&res->output);
    if (res->alloc.free) {
        pathgate__free(&res->alloc, res->files);
        pathgate__fs_arena_free(&res->arena, &res->alloc);
    }
    pathgate_fs_patch_result init = PATHGATE_FS_PATCH_RESULT_INIT;
    *res = init;
}

/* --------------------------------------------------------------- apply */

static void apply_free(apply *ap)
{
    sync_staged(ap, 0); /* closes what a failure left open */
    forget_dirs(ap);
    for (size_t i = 0; i < ap->ne; i++) {
        pathgate__free(ap->a, ap->e[i].addr);
        pathgate__free(ap->a, ap->e[i].owned);
        pathgate__free(ap->a, ap->e[i].orig);
    }
    forget_made(ap);
    pathgate__free(ap->a, ap->made);
    pathgate__free(ap->a, ap->e);
    pathgate__free(ap->a, ap->slots);
    pathgate__free(ap->a, ap->src);
    pathgate__free(ap->a, ap->dst);
    pathgate__free(ap->a, ap->ch);
    pathgate__free(ap->a, ap->t);
    pathgate__patch_free(&ap->patch);
    pathgate__sb_free(&ap->msg);
}

/* Parses, resolves, computes and writes. In the default mode the result
 * is built before the first rename, so nothing can fail for want of
 * memory once files have changed. */
static int run(apply *ap, pathgate_fs_patch_result *out, const char *text, size_t len)
{
    char *msg = NULL;
    size_t msg_len = 0;
    if (!pathgate__utf8_valid(text, len))
        return fail(ap, PATHGATE_EUTF8, "Invalid patch: the patch is not valid UTF-8");
    int rc = pathgate__patch_parse(&ap->patch, text, len, &msg, &msg_len);
    if (rc == PATHGATE_EPATCH)
        return fail_with(ap, rc, msg, msg_len);
    if (rc < 0)
        return fail(ap, rc, "out of memory");
    if (ap->patch.nhunks == 0)
        return fail(ap, PATHGATE_EPATCH, "No files were modified.");
    if (resolve_all(ap) < 0)
        return ap->code;
    int by_file = ap->opts && (ap->opts->flags & PATHGATE_FS_PATCH_FILE_BY_FILE);
    for (size_t i = 0; i < ap->patch.nhunks; i++) {
        if (compute(ap, i) < 0)
            return ap->code;
        if (by_file) {
            if (flush(ap) < 0)
                return ap->code;
            ap->ch[ap->nch - 1].applied = 1;
        }
    }
    if (!by_file) {
        for (size_t i = 0; i < ap->nch; i++)
            ap->ch[i].applied = 1;
        if (build_result(out, ap) < 0)
            return fail(ap, PATHGATE_ENOMEM, "out of memory");
        if (flush(ap) < 0) {
            for (size_t i = 0; i < ap->nch; i++)
                ap->ch[i].applied = 0;
            return ap->code;
        }
    }
    return 0;
}

int pathgate_fs_apply_patch(pathgate_fs_patch_result *out, pathgate_resolver *resolver,
                            const char *patch, size_t patch_len, const pathgate_fs_options *opts,
                            pathgate_error *err)
{
    if (!out)
        return pathgate__error_set(err, PATHGATE_EINVAL, "invalid argument");
    pathgate_fs_patch_result_dispose(out);
    if (!patch && patch_len)
        return pathgate__error_set(err, PATHGATE_EINVAL, "invalid argument");
    pathgate_resolver *r = pathgate__fs_resolver(resolver, opts, err);
    if (!r)
        return PATHGATE_EINVAL;
    apply ap;
    memset(&ap, 0, sizeof ap);
    ap.r = r;
    ap.opts = opts;
    ap.a = pathgate__resolver_allocator(r);
    pathgate__patch_init(&ap.patch, ap.a);
    pathgate__sb msg0 = PATHGATE__SB_INIT(ap.a);
    ap.msg = msg0;
    out->alloc = *ap.a;
    if (!(ap.t = pathgate__malloc(ap.a, sizeof *ap.t))) {
        apply_free(&ap);
        return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
    }
    run(&ap, out, patch ? patch : "", patch_len);
    int rc = ap.code == PATHGATE_ENOMEM || ap.msg.oom ? PATHGATE_ENOMEM : 0;
    if (rc == 0 && ap.code) { /* the summary of what was applied (file by file) */
        pathgate_buf_dispose(&out->output);
        out->count = 0;
        out->code = ap.code;
        rc = pathgate__sb_to_buf(&ap.msg, &out->error);
        if (rc == 0)
            rc = build_result(out, &ap);
    } else if (rc == 0 && !out->output.ptr) {
        rc = build_result(out, &ap);
    }
    apply_free(&ap);
    if (rc < 0) {
        pathgate_fs_patch_result_dispose(out);
        return pathgate__error_set(err, rc, NULL);
    }
    return 0;
}
