/*
 * exec_tmp.h - internal: the private temporary directory of a command
 * (its HOME and TMPDIR), made before the run and removed after it.
 */
#ifndef PATHGATE_EXEC_TMP_H
#define PATHGATE_EXEC_TMP_H

#include "pathgate/common.h"

typedef struct pathgate__exec_tmp {
    char *path; /* "/tmp/pathgate-exec-XXXXXX", allocated with alloc */
    int fd;     /* O_PATH|O_DIRECTORY of it */
} pathgate__exec_tmp;

/* mkdtemp under /tmp (mode 0700). 0, PATHGATE_ENOMEM or PATHGATE_EIO
 * (message without the path). */
int pathgate__exec_tmp_make(pathgate__exec_tmp *tmp, const pathgate_allocator *alloc,
                            pathgate_error *err);

/* Removes the directory and everything in it (without following symlinks,
 * with a bounded amount of work: best effort against a hostile tree) and
 * frees the path. Safe on a zeroed / partially made tmp (fd -1). */
void pathgate__exec_tmp_remove(pathgate__exec_tmp *tmp, const pathgate_allocator *alloc);

#endif
