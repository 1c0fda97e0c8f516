/*
 * fs_policy.h - internal: how the file operations apply the policy
 * (fs_policy.c, over policy_internal.h): the contained open of an
 * operand, what a listing hides, what a change may touch.
 */
#ifndef PATHGATE_FS_POLICY_H
#define PATHGATE_FS_POLICY_H

#include "fs_target.h"

/* contain_open of t's rel (or of rel_override when not NULL) with t's
 * containment flags: the fd or -errno. Under a policy, an open that meets
 * a symlink judges what it reached (and the rest of t's rel below it):
 * PATHGATE__OS_EHIDDEN when that is hidden, PATHGATE__OS_EPROTECTED when t changes it and it is
 * protected (pathgate__fs_fail_errno reports both). */
int pathgate__fs_open(const pathgate__fs_target *t, const char *rel, int flags, unsigned int mode);

/* pathgate__fs_resolve_role then pathgate__fs_policy_change: the prologue
 * of a toolkit operation (fs_toolkit.h) that changes its operand, whose
 * read-only checks are its own (fs_entry.h). r is the resolver. */
int pathgate__fs_target_for_change(pathgate__fs_target *t, const char *op, const char *role,
                                   pathgate_resolver *r, const pathgate_fs_options *opts,
                                   const char *text, size_t len, pathgate_error *err);

/* What a walk needs to leave hidden entries out: the operand, and the real
 * path of the walk's root when a symlink led to it (else NULL). */
struct pathgate__walk_policy {
    const pathgate__fs_target *t;
    const char *real_root;
    size_t real_len;
};
typedef struct pathgate__walk_policy pathgate__walk_policy;

/* 1 when the entry `name` of the directory dir_rel (rel from the base) is
 * hidden from listings. */
int pathgate__fs_policy_hidden(const pathgate__walk_policy *wp, const char *dir_rel,
                               size_t dir_rel_len, const char *name, size_t name_len);

/* The real path of t's (a directory) rel when a symlink is on the way to
 * it, checked to be the directory rootfd holds: into buf (cap bytes),
 * returns 1; 0 when no link is on the way; -errno. */
int pathgate__fs_policy_real_root(const pathgate__fs_target *t, int rootfd, char *buf, size_t cap);

/* The policy parts of pathgate__fs_check_writable: deny_write by name
 * (before the read-only checks), what a directory holds (after). */
int pathgate__fs_policy_writable(const pathgate__fs_target *t, pathgate_error *err);
int pathgate__fs_policy_tree(const pathgate__fs_target *t, pathgate_error *err);

/* The policy part of a toolkit change (pathgate__fs_target_for_change):
 * marks t as written (its opens are judged for writing), deny_write by
 * name (PATHGATE_EPOLICY, with its event); else the "allowed" event. */
int pathgate__fs_policy_change(pathgate__fs_target *t, pathgate_error *err);

/* For an entry a toolkit operation reached by following symlinks
 * (fs_entry.c): the directory dir (dlen bytes of rel text, symlinks and
 * `..` in it, "" for the base) held as dirfd, and the name in it ("." for
 * dirfd itself). Judges where that really is for t->access: 0,
 * PATHGATE__OS_EHIDDEN hidden, PATHGATE__OS_EPROTECTED protected, -EAGAIN when dir no longer leads to
 * dirfd, -errno. 0 at once without a policy. */
int pathgate__fs_policy_entry(const pathgate__fs_target *t, const char *dir, size_t dlen, int dirfd,
                              const char *name);

/* For a symlink t names (delete, move, readlink, lstat): PATHGATE_EINVALIDPATH (the
 * message and event of a hidden operand) when what it leads to is hidden;
 * else 0. */
int pathgate__fs_policy_link_hidden(const pathgate__fs_target *t, pathgate_error *err);

/* For the symlink t is about to become, with the target text `target`
 * (relative to t's directory): PATHGATE_EINVALIDPATH (message and event,
 * role "target") when the target, where it really leads, is hidden; else
 * 0. */
int pathgate__fs_policy_link_target(const pathgate__fs_target *t, const char *target, size_t len,
                                    pathgate_error *err);

/* t's entry judged where it really is when a symlink is on the way to
 * the directory it lives in (a final symlink is not followed: it is the
 * entry), for t->access: PATHGATE_EINVALIDPATH / PATHGATE_EPOLICY with the
 * message and event; else 0. For an operation that judges all its paths
 * before it opens any (apply_patch, the editor). */
int pathgate__fs_policy_where(const pathgate__fs_target *t, pathgate_error *err);

/* For a move of the directory src to dst: PATHGATE_EPOLICY (event and
 * message) when something below src is hidden or protected where it is
 * or would be protected under dst; else 0. */
int pathgate__fs_policy_move_tree(const pathgate__fs_target *src, const pathgate__fs_target *dst,
                                  pathgate_error *err);

#endif
