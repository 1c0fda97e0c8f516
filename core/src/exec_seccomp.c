/* exec_seccomp.c - the seccomp filter, assembled per run from a few
 * instruction patterns (no allocation: a fixed buffer). */
#define _GNU_SOURCE
#include "exec_seccomp.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/seccomp.h>
#include <sched.h>
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
#ifndef __NR_clone3
#define __NR_clone3 435
#endif
#ifndef __NR_openat2
#define __NR_openat2 437
#endif
#ifndef __NR_fchmodat2
#define __NR_fchmodat2 452
#endif
#ifndef __O_TMPFILE
#define __O_TMPFILE 020000000
#endif

#define SETID_BITS 06000u
#define ARG_LO(i) (offsetof(struct seccomp_data, args) + (i) * sizeof(__u64))
#define RET_ERRNO(e) (SECCOMP_RET_ERRNO | (e))

typedef struct asm_state {
    struct sock_filter *p;
    size_t n, cap;
    int overflow;
} asm_state;

static void emit(asm_state *a, struct sock_filter insn)
{
    if (a->n < a->cap)
        a->p[a->n++] = insn;
    else
        a->overflow = 1;
}

static void ld_nr(asm_state *a)
{
    emit(a,
         (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)));
}

/* if nr: return ret */
static void deny(asm_state *a, unsigned int nr, unsigned int ret)
{
    emit(a, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, nr, 0, 1));
    emit(a, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, ret));
}

/* if nr and (args[arg] & mask): EPERM */
static void deny_bits(asm_state *a, unsigned int nr, unsigned int arg, unsigned int mask)
{
    emit(a, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, nr, 0, 4));
    emit(a, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(arg)));
    emit(a, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, mask, 0, 1));
    emit(a, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, RET_ERRNO(EPERM)));
    ld_nr(a);
}

/* if nr and (args[flags] & (O_CREAT|O_TMPFILE)) and (args[mode] & setid): EPERM */
static void deny_open_mode(asm_state *a, unsigned int nr, unsigned int flags, unsigned int mode)
{
    emit(a, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, nr, 0, 6));
    emit(a, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(flags)));
    emit(a, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, O_CREAT | __O_TMPFILE, 0, 3));
    emit(a, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(mode)));
    emit(a, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, SETID_BITS, 0, 1));
    emit(a, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, RET_ERRNO(EPERM)));
    ld_nr(a);
}

/* if nr and args[arg] != 0: EPERM */
static void deny_nonzero(asm_state *a, unsigned int nr, unsigned int arg)
{
    emit(a, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, nr, 0, 4));
    emit(a, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(arg)));
    emit(a, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 1, 0));
    emit(a, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, RET_ERRNO(EPERM)));
    ld_nr(a);
}

static const unsigned int sysv_ipc[] = {
    __NR_shmget,     __NR_shmat,  __NR_shmdt,  __NR_shmctl, __NR_semget, __NR_semop,
    __NR_semtimedop, __NR_semctl, __NR_msgget, __NR_msgsnd, __NR_msgrcv, __NR_msgctl,
};

const struct sock_fprog *pathgate__exec_seccomp_build(pathgate__exec_seccomp *f, unsigned int flags)
{
    asm_state a = {f->insn, 0, PATHGATE__SECCOMP_MAX, 0};
    emit(&a, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
                                          offsetof(struct seccomp_data, arch)));
    emit(&a, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PG_AUDIT_ARCH, 1, 0));
    emit(&a, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS));
    ld_nr(&a);
#ifdef PG_X32_BIT
    emit(&a, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, PG_X32_BIT, 0, 1));
    emit(&a, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS));
#endif
    deny(&a, __NR_setsid, RET_ERRNO(EPERM));
    deny(&a, __NR_setpgid, RET_ERRNO(EPERM));
    deny(&a, __NR_io_uring_setup, RET_ERRNO(ENOSYS));
    deny(&a, __NR_keyctl, RET_ERRNO(EPERM));
    deny(&a, __NR_add_key, RET_ERRNO(EPERM));
    deny(&a, __NR_request_key, RET_ERRNO(EPERM));
    deny(&a, __NR_openat2, RET_ERRNO(ENOSYS));
    deny(&a, __NR_clone3, RET_ERRNO(ENOSYS));
    deny(&a, __NR_setns, RET_ERRNO(EPERM));
    if (!(flags & PATHGATE__SECCOMP_NETWORK))
        deny(&a, __NR_socket, RET_ERRNO(EACCES));
    if (!(flags & PATHGATE__SECCOMP_OWN_IPC))
        for (size_t i = 0; i < sizeof sysv_ipc / sizeof sysv_ipc[0]; i++)
            deny(&a, sysv_ipc[i], RET_ERRNO(EPERM));
    deny_bits(&a, __NR_fchmod, 1, SETID_BITS);
    deny_bits(&a, __NR_fchmodat, 2, SETID_BITS);
    deny_bits(&a, __NR_fchmodat2, 2, SETID_BITS);
    deny_bits(&a, __NR_mkdirat, 2, SETID_BITS);
    deny_bits(&a, __NR_mknodat, 2, SETID_BITS);
    deny_open_mode(&a, __NR_openat, 2, 3);
#ifdef __NR_chmod
    deny_bits(&a, __NR_chmod, 1, SETID_BITS);
#endif
#ifdef __NR_mkdir
    deny_bits(&a, __NR_mkdir, 1, SETID_BITS);
#endif
#ifdef __NR_mknod
    deny_bits(&a, __NR_mknod, 1, SETID_BITS);
#endif
#ifdef __NR_creat
    deny_bits(&a, __NR_creat, 1, SETID_BITS);
#endif
#ifdef __NR_open
    deny_open_mode(&a, __NR_open, 1, 2);
#endif
    deny_bits(&a, __NR_clone, 0, CLONE_NEWUSER);
    deny_bits(&a, __NR_unshare, 0, CLONE_NEWUSER);
    deny_nonzero(&a, __NR_prlimit64, 0);
    emit(&a, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
    if (a.overflow)
        return NULL;
    f->prog.len = (unsigned short)a.n;
    f->prog.filter = f->insn;
    return &f->prog;
}

#else

const struct sock_fprog *pathgate__exec_seccomp_build(pathgate__exec_seccomp *f, unsigned int flags)
{
    (void)f;
    (void)flags;
    return NULL;
}

#endif
