/*
 * exec_idmap.h - internal: running a root caller's command as an
 * unprivileged host uid (docs/exec.md, "uid and file ownership").
 *
 * The command's user namespace maps its uid and gid 0 to the host's
 * PATHGATE__EXEC_RUN_AS_UID / _GID; only a privileged caller may write
 * such a map, and only from outside the namespace, so the parent writes
 * it for the child. Each writable base is mounted through an idmapped
 * mount whose user namespace swaps the base owner's host uid (gid) with
 * the command's, so the command owns what the base's owner owns there
 * and what it creates is owned on the host by the base's owner.
 */
#ifndef PATHGATE_EXEC_IDMAP_H
#define PATHGATE_EXEC_IDMAP_H

#include <stddef.h>
#include <sys/types.h>

/* The host uid and gid a root caller's commands run as (nobody, nogroup). */
#define PATHGATE__EXEC_RUN_AS_UID 65534u
#define PATHGATE__EXEC_RUN_AS_GID 65534u

/* Writes the map that swaps host id a with host id b (every other id maps
 * to itself) in /proc/<pid>/{uid,gid}_map syntax. */
void pathgate__exec_idmap_swap(char *buf, size_t size, unsigned int a, unsigned int b);

/* Writes uid_map and gid_map of process pid (the caller must be
 * privileged over its parent namespace). 0 or -errno. */
int pathgate__exec_idmap_write(pid_t pid, const char *uid_map, const char *gid_map);

/* A user namespace (O_CLOEXEC fd) whose uid map swaps host uid `owner`
 * with run_uid and gid map host gid `group` with run_gid, to idmap a
 * mount with. -errno on failure. */
int pathgate__exec_idmap_userns(uid_t owner, gid_t group, uid_t run_uid, gid_t run_gid);

/* A detached copy (open_tree OPEN_TREE_CLONE, O_CLOEXEC fd) of the mount
 * at directory fd, with MOUNT_ATTR_* attr set and, when userns_fd >= 0,
 * idmapped through it. -errno on failure (EINVAL, EPERM, ENOSYS: the
 * filesystem or kernel cannot idmap it). */
int pathgate__exec_idmap_tree(int fd, unsigned long long attr, int userns_fd);

#endif
