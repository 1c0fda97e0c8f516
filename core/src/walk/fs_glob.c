/* fs_glob.c - glob: regular files below a directory matching a pattern. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>

#include "alloc.h"
#include "error.h"
#include "fs_file.h"
#include "fs_result.h"
#include "fs_target.h"
#include "glob.h"
#include "walk.h"

/* Entries handed to a callback at a time. */
#define GLOB_BATCH 256

typedef struct glob_ctx {
    pathgate_fs_list *out;
    int metadata;
    int direct; /* one thread, no callback: the walk fills out itself */
    pathgate_fs_info_cb cb;
    void *cb_ctx;
} glob_ctx;

static int glob_sink_new(void *p, void **sink)
{
    glob_ctx *c = p;
    if (c->direct) {
        *sink = c->out;
        return 0;
    }
    pathgate_fs_list *l = pathgate__calloc(&c->out->alloc, 1, sizeof *l);
    if (!l)
        return PATHGATE_ENOMEM;
    l->alloc = c->out->alloc;
    *sink = l;
    return 0;
}

static void glob_sink_free(void *p, void *sink)
{
    glob_ctx *c = p;
    if (sink == c->out)
        return;
    pathgate_fs_list *l = sink;
    pathgate_allocator a = l->alloc;
    pathgate_fs_list_dispose(l);
    pathgate__free(&a, l);
}

static int glob_emit(void *p, void *sink)
{
    glob_ctx *c = p;
    pathgate_fs_list *l = sink;
    if (c->cb) {
        if (l->count && c->cb(l->items, l->count, c->cb_ctx))
            return 1;
        return 0;
    }
    return sink == c->out ? 0 : pathgate__fs_list_append(c->out, l);
}

static int glob_visit(void *p, void *scratch, void *sink, const pathgate__walk_file *f)
{
    glob_ctx *c = p;
    pathgate_fs_list *l = sink;
    (void)scratch;
    pathgate__os_stat st;
    int rc;
    if (f->is_link)
        st = f->st;
    else if (!c->metadata) { /* the directory entry said: a regular file */
        rc = pathgate__fs_list_push(l, f->path, f->path_len, 0, NULL);
        goto pushed;
    } else if (pathgate__os_statat(f->dirfd, f->name, PATHGATE__OS_STAT_NOFOLLOW, &st) < 0 ||
               st.type != PATHGATE__OS_T_REG)
        return 0; /* gone or replaced since the listing */
    rc = pathgate__fs_list_push(l, f->path, f->path_len, 0, c->metadata ? &st : NULL);
pushed:
    if (rc < 0)
        return rc;
    return c->cb && l->count >= GLOB_BATCH ? 2 : 0;
}

static int glob_run(pathgate_fs_list *out, pathgate_resolver *resolver, const char *pattern,
                    size_t pattern_len, const char *address, size_t address_len,
                    pathgate_fs_info_cb cb, void *cb_ctx, const pathgate_fs_search_options *opts,
                    pathgate_error *err)
{
    if (!out || !pattern)
        return pathgate__error_set(err, PATHGATE_EINVAL, "invalid argument");
    memset(out, 0, sizeof *out);
    pathgate__fs_target t;
    int rc = pathgate__fs_search_check(opts, err);
    if (rc < 0 || (rc = pathgate__fs_target_of(&t, "glob", resolver, PATHGATE__FS_OF(opts), address,
                                               address_len, err)) < 0)
        return rc;
    pathgate__glob *g = NULL;
    unsigned gflags =
        opts && (opts->flags & PATHGATE_FS_SEARCH_BASENAME) ? PATHGATE__GLOB_BASENAME : 0;
    if ((rc = pathgate__glob_compile_flags(&g, pattern, pattern_len, gflags, t.alloc, err)) < 0)
        return rc;
    out->alloc = *t.alloc;
    unsigned int threads = pathgate__fs_threads(opts);
    glob_ctx c = {out, opts && (opts->flags & PATHGATE_FS_SEARCH_METADATA), threads == 1 && !cb, cb,
                  cb_ctx};
    pathgate__walk w;
    memset(&w, 0, sizeof w);
    w.t = &t;
    w.glob = g;
    w.threads = threads;
    w.ctx = &c;
    w.sink_new = glob_sink_new;
    w.sink_free = glob_sink_free;
    w.visit = glob_visit;
    w.emit = glob_emit;
    rc = pathgate__fs_walk(&w, err);
    pathgate__glob_free(g);
    if (rc < 0) {
        if (rc == PATHGATE_ENOMEM)
            pathgate__error_set(err, rc, NULL);
        pathgate_fs_list_dispose(out);
        return rc;
    }
    out->truncated = w.stats.truncated;
    out->unreadable_dirs = w.stats.unreadable_dirs;
    out->skipped_names = w.stats.skipped_names;
    out->skipped_denied = w.stats.skipped_denied;
    out->incomplete =
        out->truncated || out->unreadable_dirs || out->skipped_names || out->skipped_denied;
    pathgate__fs_audit_hidden(&t, out->skipped_denied);
    return PATHGATE_OK;
}

int pathgate_fs_glob(pathgate_fs_list *out, pathgate_resolver *resolver, const char *pattern,
                     size_t pattern_len, const char *address, size_t address_len,
                     const pathgate_fs_search_options *opts, pathgate_error *err)
{
    return glob_run(out, resolver, pattern, pattern_len, address, address_len, NULL, NULL, opts,
                    err);
}

int pathgate_fs_glob_each(pathgate_fs_list *summary, pathgate_resolver *resolver,
                          const char *pattern, size_t pattern_len, const char *address,
                          size_t address_len, pathgate_fs_info_cb cb, void *cb_ctx,
                          const pathgate_fs_search_options *opts, pathgate_error *err)
{
    if (!cb)
        return pathgate__error_set(err, PATHGATE_EINVAL, "invalid argument");
    return glob_run(summary, resolver, pattern, pattern_len, address, address_len, cb, cb_ctx, opts,
                    err);
}
