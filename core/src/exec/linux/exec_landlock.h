/*
 * exec_landlock.h - internal: building a Landlock ruleset (docs/spec.md section 7b).
 *
 * The kernel's <linux/landlock.h> on Debian 12 predates the running kernel,
 * so the constants and structures of every ABI up to
 * PATHGATE__LANDLOCK_ABI_MAX are defined in exec_landlock.c and the system calls
 * are made with syscall(). Callers speak in access classes; this module maps
 * them to the rights the chosen ABI knows, and handles every right of that
 * ABI so anything not granted is denied.
 */
#ifndef PATHGATE_EXEC_LANDLOCK_H
#define PATHGATE_EXEC_LANDLOCK_H

#include <stdint.h>

/* Highest ABI whose rights this build knows (Linux 6.15: ABI 7). A newer
 * kernel is used at this level. */
#define PATHGATE__LANDLOCK_ABI_MAX 7

/* Access classes of a rule. */
#define PATHGATE__LL_READ 0x1u /* read files, list directories */
#define PATHGATE__LL_EXEC 0x2u /* execute files */
#define PATHGATE__LL_WRITE                                                                         \
    0x4u /* write, truncate, create (never device nodes), remove, rename and link */
#define PATHGATE__LL_DEV 0x8u /* ioctl on device files (the /dev nodes granted) */
/* list directories only (the view's root: listing /proc's directories
 * reads no file of it) */
#define PATHGATE__LL_LIST 0x10u

/* The ABI to use: the kernel's, capped at PATHGATE__LANDLOCK_ABI_MAX;
 * 0 when Landlock is unavailable (ENOSYS, or EOPNOTSUPP when disabled at
 * boot). One system call. */
int pathgate__landlock_abi(void);

/* A new ruleset (fd, O_CLOEXEC) handling every filesystem right of `abi`,
 * TCP bind and connect when deny_tcp and abi >= 4, and the abstract-socket
 * and signal scopes when abi >= 6. Returns the fd or -errno. */
int pathgate__landlock_ruleset(int abi, int deny_tcp);

/* Grants `classes` (PATHGATE__LL_*) beneath fd (an O_PATH directory or
 * file; for a file only the rights that apply to files are kept). Returns
 * 0 or -errno. */
int pathgate__landlock_allow(int ruleset, int abi, int fd, unsigned int classes);

/* The fs rights `abi` handles, and the subset granted by `classes` to a
 * directory (is_dir) or a file (for tests and documentation). */
uint64_t pathgate__landlock_handled_fs(int abi);
uint64_t pathgate__landlock_rights(int abi, unsigned int classes, int is_dir);

/* landlock_restrict_self(2) as a raw system call, for the child (no errno
 * contract, no allocation): 0 or -errno. */
#define PATHGATE__SYS_LANDLOCK_CREATE_RULESET 444
#define PATHGATE__SYS_LANDLOCK_ADD_RULE 445
#define PATHGATE__SYS_LANDLOCK_RESTRICT_SELF 446

#endif
