/*
 * fs_walk.h - internal: the one-thread walker of fs_walk.c, shared with the
 * parallel planner of fs_walk_plan.c.
 */
#ifndef PATHGATE_FS_WALK_H
#define PATHGATE_FS_WALK_H

#include <stddef.h>
#include <sys/types.h>

#include "fs_policy.h"
#include "glob.h"
#include "walk.h"

#define DIRBUF_MIN 32768
#define FD_WINDOW 8

typedef struct ent {
    const char *name;
    size_t len;
    unsigned char type; /* PATHGATE__OS_T_REG, PATHGATE__OS_T_DIR, PATHGATE__OS_T_LNK */
} ent;

typedef struct level {
    int fd;
    int borrowed; /* fd and ents belong to a listing */
    char *buf;
    size_t cap;
    ent *ents;
    size_t ecap, n, next;
    size_t rel_len; /* rel of this directory */
    uint64_t dev;   /* saved when the fd slides out of the window */
    uint64_t ino;
} level;

/* A directory listed once (by the planner) and walked from by any thread:
 * its fd stays open until the walk ends. */
typedef struct listing {
    level L;
    int depth;            /* below the walk's root */
    char *rel;            /* rel from the base (allocated) */
    unsigned char *state; /* its glob state (allocated), or NULL */
} listing;

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

/* openat of a directory below dirfd, never through a symlink, waiting out a
 * full descriptor table for a while: the fd or -errno. */
int pathgate__walk_open_dir(int dirfd, const char *name);

/* Reads every entry of L->fd and sorts them (see fs_walk.c); leaves out
 * what wp (NULL: nothing) hides below dir_rel (L's rel, L->rel_len bytes). */
int pathgate__walk_read_dir(level *L, const pathgate_allocator *a, const pathgate__glob *g,
                            const unsigned char *state, unsigned char *scratch, int shallow,
                            const pathgate__walk_policy *wp, const char *dir_rel,
                            pathgate__walk_stats *stats);

int pathgate__walker_init(walker *W, pathgate__walk *w);
void pathgate__walker_free(walker *W);

/* Walks entries [from, to) of a listing and everything below them; *sink
 * may be emitted and replaced on the way when can_emit. 0 or a negative
 * code. */
int pathgate__walker_run(walker *W, const listing *dir, size_t from, size_t to, void **sink,
                         int can_emit);

#endif
