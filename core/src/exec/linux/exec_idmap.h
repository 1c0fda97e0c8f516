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

#include "pathgate/exec.h"

/* The host uid and gid a root caller's commands run as (nobody, nogroup). */
#define PATHGATE__EXEC_RUN_AS_UID 65534u
#define PATHGATE__EXEC_RUN_AS_GID 65534u

/* The ids a root caller's command may take beside 0 (docs/exec.md,
 * "Ownership changes inside"): inside k (1 <= k <= n) is the host's
 * first + k, for uids and gids alike; n = 0: none. At most
 * PATHGATE__EXEC_ID_RANGE_MAX ids: inside 65534 (nobody, what an unmapped
 * owner shows as) stays unmapped. */
typedef struct pathgate__exec_idrange {
    unsigned int uid_first, gid_first, n;
} pathgate__exec_idrange;

#define PATHGATE__EXEC_ID_RANGE_MAX 65533u
/* The host ids no range may hold: the users' and the system's (root,
 * nobody, packages' ids, named in passwd or not). */
#define PATHGATE__EXEC_ID_SPACE_END 65535u
/* The dedicated range used when root has no /etc/subuid and /etc/subgid
 * entry: host ids 2130706432 (0x7F000000) + 1 .. + 65533, below 2^31 (tools
 * that read ids as signed), outside systemd's documented allocations. */
#define PATHGATE__EXEC_ID_RANGE_DEFAULT PATHGATE_EXEC_ID_RANGE_DEFAULT_FIRST

/* The range of a root caller's commands (docs/exec.md, "Ownership changes
 * inside"), as the option id_range_first/_count asks (exec.h), checked
 * against the host's files under etc (normally "/etc"):
 * - count 0: root's own /etc/subuid and /etc/subgid entries ("root" or
 *   "0") when both exist, else the dedicated range above; none (r->n = 0)
 *   when that range fails the checks below;
 * - count 1: none;
 * - else the host ids first+1 .. first+count-1 (as an entry
 *   root:first:count would be), -1 (r->n = 0) when they fail the checks.
 * Checks: the range holds no id up to PATHGATE__EXEC_ID_SPACE_END, no uid
 * of passwd, gid of group, range of subuid/subgid (but root's own entry in
 * use), and ends below 2^32-1. At most PATHGATE__EXEC_ID_RANGE_MAX ids are used. */
int pathgate__exec_idmap_range(pathgate__exec_idrange *r, const char *etc, unsigned int first,
                               unsigned int count);

/* The range of a caller other than root (docs/exec.md, "Ownership changes
 * inside"): its own subordinate ids, from the lines of etc/subuid and
 * etc/subgid whose owner is `name` or `uid` (decimal), as rootless
 * containers map them: inside 0 is the caller, inside k (1 <= k <= n) the
 * host's first + k, so an entry name:S:C gives first = S - 1 (inside 1 is
 * S). As the option asks:
 * - count 0: the caller's first uid entry and first gid entry; none
 *   (r->n = 0) without both, or when they fail the checks below;
 * - count 1: none;
 * - else the host ids first+1 .. first+count-1, which must lie inside one
 *   of the caller's uid entries and one of its gid entries and pass the
 *   checks; -1 (r->n = 0) when not.
 * Checks: those of pathgate__exec_idmap_range (the entries in use exempt
 * from "another range"). At most PATHGATE__EXEC_ID_RANGE_MAX ids. */
int pathgate__exec_idmap_subids(pathgate__exec_idrange *r, const char *etc, const char *name,
                                unsigned int uid, unsigned int first, unsigned int count);

/* The same for the calling process, a caller other than root, under
 * "/etc": none (0, r->n = 0; -1 for an explicit range, count > 1) unless
 * its real and effective ids agree, its uid has a passwd entry whose
 * group is its gid (what newuidmap and newgidmap ask), and
 * PATHGATE__EXEC_NEWUIDMAP and PATHGATE__EXEC_NEWGIDMAP can be run. */
int pathgate__exec_idmap_caller_subids(pathgate__exec_idrange *r, unsigned int first,
                                       unsigned int count);

/* The refusal of an explicit range pathgate__exec_idmap_caller_subids
 * cannot give (no host path in it). */
#define PATHGATE__EXEC_SUBIDS_REFUSED                                                              \
    "id_range: a caller other than root may map only its own subordinate ids: the range must "     \
    "lie inside one of its subuid entries and one of its subgid entries, clear of every user's "   \
    "and group's id and of other ranges, and newuidmap and newgidmap (package uidmap) must be "    \
    "installed"

/* The setuid helpers that write a caller's subordinate ids (Debian's
 * package uidmap), run by full path only. */
#define PATHGATE__EXEC_NEWUIDMAP "/usr/bin/newuidmap"
#define PATHGATE__EXEC_NEWGIDMAP "/usr/bin/newgidmap"

/* Writes the maps of process pid (a child of the caller in a new user
 * namespace, waiting for them) through the helpers, run without a shell
 * or environment, their output discarded: inside 0 is uid (gid), inside
 * 1..r->n the range. 0, or -1 when either helper could not run or
 * refused. */
int pathgate__exec_idmap_helpers(pid_t pid, unsigned int uid, unsigned int gid,
                                 const pathgate__exec_idrange *r);

/* Appends "1 <first+1> <n>\n" to a map (nothing when n = 0). */
void pathgate__exec_idmap_range_line(char *buf, size_t size, unsigned int first, unsigned int n);

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
