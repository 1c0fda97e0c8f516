/* fs_stat.c - stat: size, type, times and permissions of a contained
 * target (os.h's stat of a handle opened beneath the base, a path-only
 * handle where the OS has one). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "alloc.h"
#include "error.h"
#include "fs_policy.h"
#include "fs_result.h"
#include "fs_stat.h"
#include "fs_target.h"

void pathgate_fs_stat_result_dispose(pathgate_fs_stat_result *res)
{
    if (!res)
        return;
    pathgate_buf_dispose(&res->path);
    memset(res, 0, sizeof *res);
}

int pathgate_fs_stat(pathgate_fs_stat_result *out, pathgate_resolver *resolver, const char *address,
                     size_t len, const pathgate_fs_options *opts, pathgate_error *err)
{
    if (!out || !address)
        return pathgate__error_set(err, PATHGATE_EINVAL, "invalid argument");
    memset(out, 0, sizeof *out);
    pathgate__fs_target t;
    int rc = pathgate__fs_target_of(&t, "stat", resolver, opts, address, len, err);
    if (rc < 0)
        return rc;
    int fd = pathgate__fs_open(&t, NULL, PATHGATE__OS_O_PATH, 0);
    if (fd < 0)
        return pathgate__fs_fail_errno(err, fd, &t, PATHGATE__FS_FILE);
    pathgate__os_stat sx;
    int e = pathgate__os_statat(fd, "", PATHGATE__OS_STAT_BTIME, &sx);
    pathgate__os_close(fd);
    if (e < 0)
        return pathgate__fs_fail_errno(err, e, &t, PATHGATE__FS_FILE);
    return pathgate__fs_stat_fill(out, t.alloc, t.address, t.address_len, &sx) < 0
               ? pathgate__error_set(err, PATHGATE_ENOMEM, NULL)
               : PATHGATE_OK;
}

int pathgate__fs_stat_fill(pathgate_fs_stat_result *out, const pathgate_allocator *a,
                           const char *address, size_t len, const pathgate__os_stat *sx)
{
    if (pathgate__buf_set(&out->path, a, address, len) < 0)
        return PATHGATE_ENOMEM;
    out->type = sx->type == PATHGATE__OS_T_REG   ? PATHGATE_FS_TYPE_FILE
                : sx->type == PATHGATE__OS_T_DIR ? PATHGATE_FS_TYPE_DIRECTORY
                : sx->type == PATHGATE__OS_T_LNK ? PATHGATE_FS_TYPE_SYMLINK
                                                 : PATHGATE_FS_TYPE_OTHER;
    out->size = out->type == PATHGATE_FS_TYPE_DIRECTORY ? 0 : sx->size;
    out->mode = sx->mode & 07777;
    out->mtime_sec = sx->mtime_sec;
    out->mtime_nsec = sx->mtime_nsec;
    pathgate__fs_format_time(out->modified_at, sx->mtime_sec, sx->mtime_nsec);
    pathgate__fs_format_time(out->accessed_at, sx->atime_sec, sx->atime_nsec);
    pathgate__fs_format_time(out->changed_at, sx->ctime_sec, sx->ctime_nsec);
    if (sx->has_btime) {
        out->has_created = 1;
        pathgate__fs_format_time(out->created_at, sx->btime_sec, sx->btime_nsec);
    }
    return PATHGATE_OK;
}
