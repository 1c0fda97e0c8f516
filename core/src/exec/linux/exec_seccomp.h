/*
 * exec_seccomp.h - internal: the seccomp filter of a contained command.
 *
 * Refused with an errno (never a kill, so programs can fall back):
 *   setsid, setpgid (without an own      EPERM   the command stays in its process
 *   PID namespace)                               group (killing it kills all)
 *   io_uring_setup                       ENOSYS  io_uring could open sockets unseen
 *   socket (unless network)              EACCES  UDP, raw, netlink, Unix sockets by
 *                                                path (Landlock covers TCP only)
 *   socket, socketpair of a family other EAFNOSUPPORT  vsock (not isolated by
 *   than AF_UNIX, AF_INET, AF_INET6,              network namespaces), packet,
 *   AF_NETLINK + NETLINK_ROUTE                    alg, other netlink buses
 *   setuid/setgid mode bits in chmod, fchmod, fchmodat, fchmodat2, mknod(at),
 *   mkdir(at), creat, open(at) with O_CREAT/O_TMPFILE      EPERM
 *   openat2                              ENOSYS  its mode is behind a pointer
 *   keyctl, add_key, request_key         EPERM   kernel keyrings
 *   prlimit64 on a pid other than 0      EPERM   other processes' limits
 *   clone / unshare with CLONE_NEWUSER   EPERM   no nested user namespace
 *   clone3                               ENOSYS  flags behind a pointer (libc
 *                                                falls back to clone)
 *   setns                                EPERM
 *   System V IPC (without an own IPC namespace)    EPERM
 *   memfd_create (without a memory cgroup)         ENOSYS
 * Foreign-architecture calls (a 32-bit binary on x86_64, x32) kill the
 * process: their numbers would bypass the checks.
 */
#ifndef PATHGATE_EXEC_SECCOMP_H
#define PATHGATE_EXEC_SECCOMP_H

#include <linux/filter.h>

#define PATHGATE__SECCOMP_NETWORK 0x1u /* socket() allowed */
#define PATHGATE__SECCOMP_OWN_IPC 0x2u /* SysV IPC allowed (own IPC namespace) */
/* memfd_create refused (ENOSYS): without a memory control group nothing
 * would bound what a memfd holds (RLIMIT_AS counts only mappings). */
#define PATHGATE__SECCOMP_NO_MEMFD 0x4u
/* setsid and setpgid allowed: the command has its own PID namespace,
 * whose init ends every process of it whatever its group. */
#define PATHGATE__SECCOMP_OWN_PIDNS 0x8u
/* The two halves of the filter when a keeper (exec_spawn.h) holds the
 * first for all its commands: everything but setns (which its joiners
 * use), and setns alone (the shell adds it). */
#define PATHGATE__SECCOMP_ALLOW_SETNS 0x10u
#define PATHGATE__SECCOMP_ONLY_SETNS 0x20u
#define PATHGATE__SECCOMP_MAX 256

typedef struct pathgate__exec_seccomp {
    struct sock_filter insn[PATHGATE__SECCOMP_MAX];
    struct sock_fprog prog;
} pathgate__exec_seccomp;

/* Builds the filter for `flags` into *f. Returns &f->prog, or NULL when
 * the build does not know this architecture (then the caller refuses
 * unless weaker protection is allowed). */
const struct sock_fprog *pathgate__exec_seccomp_build(pathgate__exec_seccomp *f,
                                                      unsigned int flags);

/* A second filter for a command in a view that holds no capability
 * (docs/exec.md "Ownership changes inside"): chown, fchown, lchown,
 * fchownat and setuid, setgid, setreuid, setregid, setresuid, setresgid
 * naming an id other than the command's own uid (gid) or -1 fail with
 * EPERM, as they do on the host for a process without CAP_CHOWN /
 * CAP_SETUID, where the kernel would say EINVAL for an id its user
 * namespace does not map. NULL when the architecture is not known. */
const struct sock_fprog *pathgate__exec_seccomp_ids(pathgate__exec_seccomp *f, unsigned int uid,
                                                    unsigned int gid);

#endif
