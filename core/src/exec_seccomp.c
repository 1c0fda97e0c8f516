/* exec_seccomp.c - the seccomp filters (static tables, one per mode). */
#define _GNU_SOURCE
#include "exec_seccomp.h"

#include <errno.h>
#include <linux/audit.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/syscall.h>

#if defined(__x86_64__)
#define PG_AUDIT_ARCH AUDIT_ARCH_X86_64
#define PG_X32_BIT 0x40000000u
#elif defined(__aarch64__)
#define PG_AUDIT_ARCH AUDIT_ARCH_AARCH64
#endif

#ifdef PG_AUDIT_ARCH

#ifndef __NR_io_uring_setup
#define __NR_io_uring_setup 425
#endif

#define PG_LD(off) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, (off))
#define PG_RET(v) BPF_STMT(BPF_RET | BPF_K, (v))
/* if A == nr: return value, else fall through */
#define PG_DENY(nr, value) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 1), PG_RET(value)

#ifdef PG_X32_BIT
#define PG_X32_CHECK BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, PG_X32_BIT, 0, 1), PG_RET(SECCOMP_RET_KILL_PROCESS),
#else
#define PG_X32_CHECK
#endif

#define PG_HEAD                                                        \
    PG_LD(offsetof(struct seccomp_data, arch)),                        \
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PG_AUDIT_ARCH, 1, 0),          \
    PG_RET(SECCOMP_RET_KILL_PROCESS),                                  \
    PG_LD(offsetof(struct seccomp_data, nr)),                          \
    PG_X32_CHECK                                                       \
    PG_DENY(__NR_setsid, SECCOMP_RET_ERRNO | EPERM),                   \
    PG_DENY(__NR_setpgid, SECCOMP_RET_ERRNO | EPERM),                  \
    PG_DENY(__NR_io_uring_setup, SECCOMP_RET_ERRNO | ENOSYS)

static const struct sock_filter filter_network[] = {
    PG_HEAD,
    PG_RET(SECCOMP_RET_ALLOW),
};

static const struct sock_filter filter_offline[] = {
    PG_HEAD,
    PG_DENY(__NR_socket, SECCOMP_RET_ERRNO | EACCES),
    PG_RET(SECCOMP_RET_ALLOW),
};

static const struct sock_fprog prog_network = {
    sizeof filter_network / sizeof filter_network[0], (struct sock_filter *)filter_network};
static const struct sock_fprog prog_offline = {
    sizeof filter_offline / sizeof filter_offline[0], (struct sock_filter *)filter_offline};

const struct sock_fprog *pathgate__exec_seccomp_filter(int allow_network)
{
    return allow_network ? &prog_network : &prog_offline;
}

#else

const struct sock_fprog *pathgate__exec_seccomp_filter(int allow_network)
{
    (void)allow_network;
    return NULL;
}

#endif
