/* fs_glob.c - glob: regular files below a directory matching a pattern. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>

#include "error.h"
#include "fs_internal.h"
#include "glob.h"

typedef struct glob_ctx {
    pathgate_fs_list *out;
    int metadata;
} glob_ctx;

static int glob_visit(void *p, const pathgate__walk_file *f)
{
    glob_ctx *c = p;
    struct stat st;
    if (f->is_link)
        st = f->st;
    else if (!c->metadata) /* the directory entry said: a regular file */
        return pathgate__fs_list_push(c->out, f->path, f->path_len, 0, NULL);
    else if (fstatat(f->dirfd, f->name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode))
        return 0; /* gone or replaced since the listing */
    return pathgate__fs_list_push(c->out, f->path, f->path_len, 0, c->metadata ? &st : NULL);
}

int pathgate_fs_glob(pathgate_fs_list *out, pathgate_resolver *resolver, const char *pattern,
                     size_t pattern_len, const char *address, size_t address_len,
                     const pathgate_fs_options *opts, pathgate_error *err)
{
    if (!out || !pattern)
        return pathgate__error_set(err, PATHGATE_EINVAL, "invalid argument");
    memset(out, 0, sizeof *out);
    pathgate__fs_target t;
    int rc = pathgate__fs_target_of(&t, resolver, opts, address, address_len, err);
    if (rc < 0)
        return rc;
    pathgate__glob *g = NULL;
    unsigned gflags = opts && (opts->flags & PATHGATE_FS_GLOB_BASENAME) ? PATHGATE__GLOB_BASENAME : 0;
    if ((rc = pathgate__glob_compile_flags(&g, pattern, pattern_len, gflags, t.alloc, err)) < 0)
        return rc;
    out->alloc = *t.alloc;
    glob_ctx c = {out, opts && (opts->flags & PATHGATE_FS_METADATA)};
    pathgate__walk w = {&t, g, 0, glob_visit, &c, 0};
    rc = pathgate__fs_walk(&w, err);
    pathgate__glob_free(g);
    if (rc < 0) {
        if (rc == PATHGATE_ENOMEM)
            pathgate__error_set(err, rc, NULL);
        pathgate_fs_list_dispose(out);
        return rc;
    }
    out->truncated = w.truncated;
    return PATHGATE_OK;
}
