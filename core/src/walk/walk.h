/*
 * walk.h - internal: the contained directory walk (fs_walk.c, run on
 * threads by fs_walk_plan.c), the one entry ls, glob, grep and tree call.
 */
#ifndef PATHGATE_WALK_H
#define PATHGATE_WALK_H

#include <stddef.h>
#include <sys/stat.h>

#include "fs_policy.h"

/* What the walk shows its visitor for each regular file (and, shallow,
 * each directory). */
typedef struct pathgate__walk_file {
    int dirfd;        /* the directory holding the entry (for openat) */
    const char *name; /* the entry's name */
    size_t name_len;
    const char *path; /* canonical address "<base>/<rel>" */
    size_t path_len;
    const char *rel; /* path from the base: "a/b/name" (a suffix of path) */
    size_t rel_len;
    const char *sub; /* path from the walk's root (a suffix of rel) */
    size_t sub_len;
    int is_dir;           /* shallow walks only: a directory */
    int is_link;          /* a symlink resolving inside the base to a regular
                       file (or, shallow, a directory) ... */
    pathgate__os_stat st; /* ... and its target's fstat (only then) */
} pathgate__walk_file;

/* What a walk could not see (summed over the tasks emitted). */
typedef struct pathgate__walk_stats {
    int truncated;          /* a level deeper than PATHGATE_FS_MAX_DEPTH */
    size_t unreadable_dirs; /* directories that could not be opened/read */
    size_t skipped_names;   /* names no address can spell */
    size_t skipped_denied;  /* entries the policy hides (deny_read) */
} pathgate__walk_stats;

/*
 * The walk splits the tree into tasks (slices of directory listings, each
 * with everything below its directories), runs them on up to `threads`
 * threads, and hands each task's output ("sink") to `emit` on the calling
 * thread in path order, so the result does not depend on the threads.
 * threads == 1 walks on the calling thread alone, as one task.
 */
typedef struct pathgate__walk {
    const pathgate__fs_target *t;      /* root of the walk: a directory */
    const struct pathgate__glob *glob; /* NULL: every file */
    int shallow; /* visit the root's direct entries (directories too), no deeper */
    unsigned int threads;
    void *ctx;
    /* Per-thread scratch (optional): made once per thread. */
    int (*scratch_new)(void *ctx, void **scratch);
    void (*scratch_free)(void *ctx, void *scratch);
    /* Per-task output: made before the task runs, freed after emit. */
    int (*sink_new)(void *ctx, void **sink);
    void (*sink_free)(void *ctx, void *sink);
    /* Called per regular file in path order within a task: a negative
     * return fails the walk, 1 ends the task (its sink is full), 2 asks
     * for the sink to be emitted now (honoured in a one-thread walk). */
    int (*visit)(void *ctx, void *scratch, void *sink, const pathgate__walk_file *f);
    /* Called on the calling thread with each task's sink, in order: a
     * negative return fails the walk, 1 ends it with success. */
    int (*emit)(void *ctx, void *sink);
    pathgate__walk_stats stats; /* out */
    /* set by pathgate__fs_walk: what the policy hides (NULL: nothing) */
    const struct pathgate__walk_policy *policy;
} pathgate__walk;

/* Runs the walk. 0, a negative code of a callback, or a negative pathgate
 * code with the message set (the root cannot be opened). Entries the
 * policy hides are left out (counted in skipped_denied), by name and, for
 * a walk whose root was reached through a symlink, by where they are. */
int pathgate__fs_walk(pathgate__walk *w, pathgate_error *err);

#endif
