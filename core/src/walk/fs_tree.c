/* fs_tree.c - tree: every directory and regular file below a directory,
 * depth first, through the shallow contained walk of ls, one level at a
 * time; symlinks listed but never entered; excluded names pruned. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>

#include "alloc.h"
#include "error.h"
#include "fs_result.h"
#include "fs_target.h"
#include "glob.h"
#include "walk.h"

typedef struct tree_ctx {
    pathgate_fs_list *out;
    pathgate_resolver *r;
    pathgate__glob **ex;
    size_t nex;
    size_t root_len; /* length of the tree root's address */
    int depth;
    int truncated;
    pathgate_error *err;
    size_t skipped_denied; /* entries the policy hides */
} tree_ctx;

static int walk_dir(tree_ctx *c, const char *address, size_t len);

static int excluded(const tree_ctx *c, const char *path, size_t len)
{
    const char *rel = path + c->root_len + 1;
    size_t rlen = len - c->root_len - 1;
    for (size_t i = 0; i < c->nex; i++)
        if (pathgate__glob_match_path(c->ex[i], rel, rlen))
            return 1;
    return 0;
}

static int tree_visit(void *p, void *scratch, void *sink, const pathgate__walk_file *f)
{
    (void)scratch;
    (void)sink;
    tree_ctx *c = p;
    if (excluded(c, f->path, f->path_len))
        return 0;
    pathgate__os_stat st;
    int is_dir = f->is_dir;
    if (f->is_link)
        st = f->st;
    else if (pathgate__os_statat(f->dirfd, f->name, PATHGATE__OS_STAT_NOFOLLOW, &st) < 0)
        return 0;
    else if (st.type != PATHGATE__OS_T_REG && st.type != PATHGATE__OS_T_DIR)
        return 0;
    else
        is_dir = st.type == PATHGATE__OS_T_DIR;
    if (!is_dir)
        return pathgate__fs_list_push(c->out, f->path, f->path_len, 0, &st);
    char *name = pathgate__malloc(&c->out->alloc, f->path_len + 2);
    if (!name)
        return PATHGATE_ENOMEM;
    memcpy(name, f->path, f->path_len);
    name[f->path_len] = '/';
    int rc = pathgate__fs_list_push(c->out, name, f->path_len + 1, 1, &st);
    pathgate__free(&c->out->alloc, name);
    if (rc < 0 || f->is_link)
        return rc;
    if (c->depth >= PATHGATE_FS_MAX_DEPTH) {
        c->truncated = 1;
        return 0;
    }
    c->depth++;
    rc = walk_dir(c, f->path, f->path_len);
    c->depth--;
    /* a directory that cannot be opened (gone, no permission) is listed
     * without its entries */
    return rc == PATHGATE_ENOMEM ? rc : 0;
}

/* The tree adds to its list as it visits: a walk's per-task output is
 * unused (one thread, one task). */
static int tree_sink_new(void *ctx, void **sink)
{
    *sink = ctx;
    return 0;
}

static void tree_sink_free(void *ctx, void *sink)
{
    (void)ctx;
    (void)sink;
}

static int tree_emit(void *ctx, void *sink)
{
    (void)ctx;
    (void)sink;
    return 0;
}

static int walk_dir(tree_ctx *c, const char *address, size_t len)
{
    pathgate__fs_target *t = pathgate__malloc(&c->out->alloc, sizeof *t);
    if (!t)
        return PATHGATE_ENOMEM;
    pathgate_fs_options quiet = PATHGATE_FS_OPTIONS_INIT;
    quiet.version = PATHGATE__FS_OPTIONS_QUIET_VERSION; /* the tree's event is its root's */
    int rc = pathgate__fs_resolve(t, "tree", c->r, &quiet, address, len, c->err);
    if (rc == 0) {
        pathgate__walk w;
        memset(&w, 0, sizeof w);
        w.t = t;
        w.shallow = 1;
        w.threads = 1;
        w.ctx = c;
        w.sink_new = tree_sink_new;
        w.sink_free = tree_sink_free;
        w.visit = tree_visit;
        w.emit = tree_emit;
        rc = pathgate__fs_walk(&w, c->err);
        if (w.stats.truncated)
            c->truncated = 1;
        c->skipped_denied += w.stats.skipped_denied;
    }
    pathgate__free(&c->out->alloc, t);
    return rc;
}

int pathgate_fs_tree(pathgate_fs_list *out, pathgate_resolver *resolver, const char *address,
                     size_t len, const char *const *excludes, const size_t *exclude_lens,
                     size_t nexcludes, const pathgate_fs_options *opts, pathgate_error *err)
{
    if (!out || ((!excludes || !exclude_lens) && nexcludes))
        return pathgate__error_set(err, PATHGATE_EINVAL, "invalid argument");
    memset(out, 0, sizeof *out);
    pathgate__fs_target t;
    int rc = pathgate__fs_target_of(&t, "tree", resolver, opts, address, len, err);
    if (rc < 0)
        return rc;
    out->alloc = *t.alloc;
    pathgate__glob **ex = NULL;
    if (nexcludes) {
        ex = pathgate__calloc(t.alloc, nexcludes, sizeof *ex);
        if (!ex)
            return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
    }
    for (size_t i = 0; i < nexcludes && rc == 0; i++) {
        if (!excludes[i])
            rc = pathgate__error_set(err, PATHGATE_EINVAL, "invalid argument");
        else
            rc = pathgate__glob_compile(&ex[i], excludes[i], exclude_lens[i], t.alloc, err);
    }
    if (rc == 0) {
        tree_ctx c = {out, t.r, ex, nexcludes, t.address_len, 0, 0, err, 0};
        /* the root must be a directory: walk_dir opens it as one */
        rc = walk_dir(&c, t.address, t.address_len);
        out->truncated = c.truncated;
        out->skipped_denied = c.skipped_denied;
        out->incomplete |= c.skipped_denied != 0;
        if (rc == 0)
            pathgate__fs_audit_hidden(&t, c.skipped_denied);
        if (rc == PATHGATE_ENOMEM)
            pathgate__error_set(err, rc, NULL);
    }
    for (size_t i = 0; i < nexcludes; i++)
        if (ex[i])
            pathgate__glob_free(ex[i]);
    pathgate__free(t.alloc, ex);
    if (rc < 0)
        pathgate_fs_list_dispose(out);
    return rc;
}
