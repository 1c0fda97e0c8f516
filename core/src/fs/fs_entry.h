/*
 * fs_entry.h - internal: what the toolkit operations of fs_toolkit.h share
 * beyond fs_target.h.
 *
 *   fs_entry.c    the entry an address names: the directory it really lives
 *                 in (an fd beneath the base) and its name there, with the
 *                 last component's symlinks followed or not; messages
 *   fs_open.c     pathgate_fs_open and the atomic handles
 *   fs_copy.c     copy, and the byte copy the atomic handles share
 *   fs_link.c     link, symlink, readlink
 *   fs_attr.c     exists, lstat, chmod, utime
 *   fs_rmtree.c   remove_tree
 *   fs_subroot.c  subroot
 * and, above fs/, the iterators of walk/ (fs_scandir.c, fs_walk_iter.c).
 */
#ifndef PATHGATE_FS_ENTRY_H
#define PATHGATE_FS_ENTRY_H

#include <limits.h>
#include <sys/stat.h>

#include "fs_target.h"
#include "pathgate/fs_toolkit.h"

/* An entry: dirfd (PATHGATE__OS_O_PATH, owned) is the directory it lives in, reached
 * beneath the base; name its name there ("." for a directory reached
 * through a `.`/`..`/trailing-slash ending, or for the base itself); st
 * what is there now (lstat), exists 0 when nothing is. */
typedef struct pathgate__fs_entry {
    int dirfd;
    int exists;
    pathgate__os_stat st;
    char name[PATHGATE__OS_NAME_MAX + 1];
} pathgate__fs_entry;

/*
 * Finds the entry of t. follow: while the name is a symlink, its target is
 * spliced in place of the name (relative to the link's directory, handed to
 * the contained open as text, so `..` is resolved by the kernel, beneath
 * the base) and looked up again, at most PATHGATE__CONTAIN_MAX_LINKS times.
 * 0 (e->dirfd open; a missing name is exists = 0), or -errno: -ENOENT or
 * -ENOTDIR when the directory is missing, -EXDEV for an escape (an absolute
 * or outward target), -ELOOP, ... Under a policy, an entry reached by
 * following a symlink is judged where it really is, for t->access
 * (pathgate__fs_policy_entry: PATHGATE__OS_EHIDDEN hidden,
 * PATHGATE__OS_EPROTECTED protected).
 */
int pathgate__fs_entry_find(pathgate__fs_entry *e, const pathgate__fs_target *t, int follow);
void pathgate__fs_entry_close(pathgate__fs_entry *e);

/* 1 when t's last component (a symlink) leads out of the base: the address
 * is then invalid for every operation. 0 otherwise (a loop or a dangling
 * link inside is an entry like any other). */
int pathgate__fs_leads_out(const pathgate__fs_target *t);

/* The standard failure of an entry lookup: a missing directory is
 * "Parent directory of '<address>' not found", the rest as
 * pathgate__fs_fail_errno. */
int pathgate__fs_fail_parent(pathgate_error *err, int neg_errno, const pathgate__fs_target *t);

/* PATHGATE_EEXIST, "'<address>' already exists". */
int pathgate__fs_fail_exists(pathgate_error *err, const char *address);

/* PATHGATE_EACCES unless the base is writable and so is the directory the
 * entry lives in (pathgate__fs_check_dir_writable on e->dirfd). */
int pathgate__fs_entry_writable(const pathgate__fs_target *t, const pathgate__fs_entry *e,
                                pathgate_error *err);

/* pathgate_fs_atomic_open on a resolved target; *existed (optional) gets
 * whether the file existed (its bits were then kept). */
int pathgate__fs_atomic_begin(pathgate_fs_atomic **out, int *fd, int *existed,
                              const pathgate__fs_target *t, unsigned int flags,
                              pathgate_error *err);

/* Opens the directory t names (symlinks inside the base followed) for
 * reading: the fd, or a failure with err set ("'<address>' is not a
 * directory" for anything else that exists). */
int pathgate__fs_open_dir(const pathgate__fs_target *t, pathgate_error *err);

#endif
