/*
 * exec_seccomp.h - internal: the seccomp filter of a contained command.
 *
 * Refused with an errno (never a kill, so programs can fall back):
 *   setsid, setpgid            EPERM   the command stays in its process group,
 *                                      so killing the group kills all of it
 *   io_uring_setup             ENOSYS  io_uring could open sockets unseen
 *   socket (unless network)    EACCES  UDP, raw, netlink and Unix sockets by
 *                                      path (Landlock ABI 7 covers TCP only)
 * Foreign-architecture calls (a 32-bit binary on x86_64, x32) kill the
 * process: their numbers would bypass the checks.
 */
#ifndef PATHGATE_EXEC_SECCOMP_H
#define PATHGATE_EXEC_SECCOMP_H

#include <linux/filter.h>

/* The filter for this architecture, or NULL when the build does not know
 * the architecture (the command then runs without it). Static storage. */
const struct sock_fprog *pathgate__exec_seccomp_filter(int allow_network);

#endif
