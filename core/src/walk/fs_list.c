/* fs_list.c - ls: the direct children of a directory beneath its base. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "alloc.h"
#include "error.h"
#include "fs_result.h"
#include "fs_target.h"
#include "walk.h"

typedef struct ls_ctx {
    pathgate_fs_list *out;
    char *name; /* scratch: path + '/' */
    size_t cap;
    int metadata; /* stat each entry (else trust the directory entry's type) */
} ls_ctx;

static int ls_sink_new(void *p, void **sink)
{
    *sink = ((ls_ctx *)p)->out;
    return 0;
}

static void ls_sink_free(void *p, void *sink)
{
    (void)p;
    (void)sink;
}

static int ls_emit(void *p, void *sink)
{
    (void)p;
    (void)sink;
    return 0;
}

static int ls_visit(void *p, void *scratch, void *sink, const pathgate__walk_file *f)
{
    ls_ctx *c = p;
    (void)scratch;
    (void)sink;
    pathgate__os_stat st;
    const pathgate__os_stat *meta = c->metadata ? &st : NULL;
    int is_dir = f->is_dir;
    if (f->is_link) {
        st = f->st;
    } else if (c->metadata) {
        if (pathgate__os_statat(f->dirfd, f->name, PATHGATE__OS_STAT_NOFOLLOW, &st) < 0)
            return 0; /* gone since the listing */
        if (st.type != PATHGATE__OS_T_REG && st.type != PATHGATE__OS_T_DIR)
            return 0; /* replaced by something else */
        is_dir = st.type == PATHGATE__OS_T_DIR;
    } /* else the directory entry's type stands (a regular file or a directory) */
    if (!is_dir)
        return pathgate__fs_list_push(c->out, f->path, f->path_len, 0, meta);
    /* a directory's address ends in '/' */
    if (f->path_len + 2 > c->cap) {
        size_t cap = f->path_len + 64;
        char *n = pathgate__realloc(&c->out->alloc, c->name, cap);
        if (!n)
            return PATHGATE_ENOMEM;
        c->name = n;
        c->cap = cap;
    }
    memcpy(c->name, f->path, f->path_len);
    c->name[f->path_len] = '/';
    return pathgate__fs_list_push(c->out, c->name, f->path_len + 1, 1, meta);
}

static int info_cmp(const void *pa, const void *pb)
{
    const pathgate_fs_info *a = pa, *b = pb;
    size_t n = a->path_len < b->path_len ? a->path_len : b->path_len;
    int c = memcmp(a->path, b->path, n);
    if (c)
        return c;
    return (a->path_len > b->path_len) - (a->path_len < b->path_len);
}

int pathgate_fs_ls(pathgate_fs_list *out, pathgate_resolver *resolver, const char *address,
                   size_t len, const pathgate_fs_options *opts, pathgate_error *err)
{
    if (!out)
        return pathgate__error_set(err, PATHGATE_EINVAL, "invalid argument");
    memset(out, 0, sizeof *out);
    pathgate__fs_target t;
    int rc = pathgate__fs_target_of(&t, "ls", resolver, opts, address, len, err);
    if (rc < 0)
        return rc;
    out->alloc = *t.alloc;
    ls_ctx c = {out, NULL, 0, !(opts && (opts->flags & PATHGATE_FS_NO_METADATA))};
    pathgate__walk w;
    memset(&w, 0, sizeof w);
    w.t = &t;
    w.shallow = 1;
    w.threads = 1;
    w.ctx = &c;
    w.sink_new = ls_sink_new;
    w.sink_free = ls_sink_free;
    w.visit = ls_visit;
    w.emit = ls_emit;
    rc = pathgate__fs_walk(&w, err);
    pathgate__free(&out->alloc, c.name);
    if (rc < 0) {
        if (rc == PATHGATE_ENOMEM)
            pathgate__error_set(err, rc, NULL);
        pathgate_fs_list_dispose(out);
        return rc;
    }
    out->unreadable_dirs = w.stats.unreadable_dirs;
    out->skipped_names = w.stats.skipped_names;
    out->skipped_denied = w.stats.skipped_denied;
    out->incomplete = out->unreadable_dirs || out->skipped_names || out->skipped_denied;
    pathgate__fs_audit_hidden(&t, out->skipped_denied);
    /* the walk sorts by name; a directory's address gains a '/' that can
     * move it ("a/" after "a.txt"): sort again only when that happened */
    size_t i = 1;
    while (i < out->count && info_cmp(&out->items[i - 1], &out->items[i]) <= 0)
        i++;
    if (i < out->count)
        qsort(out->items, out->count, sizeof *out->items, info_cmp);
    return PATHGATE_OK;
}
