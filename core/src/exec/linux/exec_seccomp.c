/* exec_seccomp.c - the seccomp filter, assembled per run from a few
 * instruction patterns (no allocation: a fixed buffer). */
#define _GNU_SOURCE
#include "exec_seccomp.h"
#include "exec_raw.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/netlink.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>
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
#ifndef __NR_memfd_create
#define __NR_memfd_create 319
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

/* One rule per system call number. */
enum rule_kind {
    R_DENY,      /* return ret */
    R_BITS,      /* EPERM when args[a] & mask */
    R_OPEN_MODE, /* EPERM when args[a] has O_CREAT|O_TMPFILE and args[b] & setid */
    R_NONZERO,   /* EPERM when args[a] != 0 */
    R_FAMILY,    /* EAFNOSUPPORT unless args[0] is an allowed family (socket, socketpair) */
};

typedef struct rule {
    unsigned int nr;
    int kind;
    unsigned int ret, a, b, mask;
} rule;

#define MAX_RULES 64

typedef struct rules {
    rule r[MAX_RULES];
    size_t n;
} rules;

static void add(rules *rs, unsigned int nr, int kind, unsigned int ret, unsigned int a,
                unsigned int b, unsigned int mask)
{
    for (size_t i = 0; i < rs->n; i++)
        if (rs->r[i].nr == nr)
            return; /* the first rule for a number wins */
    if (rs->n < MAX_RULES)
        rs->r[rs->n++] = (rule){nr, kind, ret, a, b, mask};
}

static void sort(rules *rs)
{
    for (size_t i = 1; i < rs->n; i++)
        for (size_t j = i; j > 0 && rs->r[j - 1].nr > rs->r[j].nr; j--) {
            rule t = rs->r[j];
            rs->r[j] = rs->r[j - 1];
            rs->r[j - 1] = t;
        }
}

/* A tiny assembler with forward labels: a jump's target is an
 * instruction index, or a label (ALLOW, or a rule's block) placed later;
 * all are resolved when the program is complete. */
#define L_FALL (-1)
#define L_ALLOW (-2)
#define L_BLOCK(i) (-1000 - (int)(i))

typedef struct asm_state {
    struct sock_filter *p;
    size_t n, cap;
    int overflow;
    int jt[PATHGATE__SECCOMP_MAX], jf[PATHGATE__SECCOMP_MAX];
} asm_state;

static size_t emit(asm_state *a, struct sock_filter insn, int jt, int jf)
{
    if (a->n >= a->cap) {
        a->overflow = 1;
        return a->cap - 1;
    }
    a->jt[a->n] = jt;
    a->jf[a->n] = jf;
    a->p[a->n] = insn;
    return a->n++;
}

static void stmt(asm_state *a, unsigned short code, unsigned int k)
{
    emit(a, (struct sock_filter)BPF_STMT(code, k), L_FALL, L_FALL);
}

static void ret(asm_state *a, unsigned int k)
{
    stmt(a, BPF_RET | BPF_K, k);
}

static size_t jump(asm_state *a, unsigned short op, unsigned int k, int jt, int jf)
{
    return emit(a, (struct sock_filter)BPF_JUMP(BPF_JMP | op | BPF_K, k, 0, 0), jt, jf);
}

static int same_block(const rule *x, const rule *y)
{
    return x->kind == y->kind && x->ret == y->ret && x->a == y->a && x->b == y->b &&
           x->mask == y->mask;
}

/* The block of a rule (rules with the same test share one). */
static void block(asm_state *a, const rule *r)
{
    switch (r->kind) {
    case R_DENY:
        ret(a, r->ret);
        return;
    case R_BITS:
        stmt(a, BPF_LD | BPF_W | BPF_ABS, (unsigned int)ARG_LO(r->a));
        jump(a, BPF_JSET, r->mask, (int)a->n + 1, L_ALLOW);
        ret(a, RET_ERRNO(EPERM));
        return;
    case R_OPEN_MODE:
        stmt(a, BPF_LD | BPF_W | BPF_ABS, (unsigned int)ARG_LO(r->a));
        jump(a, BPF_JSET, O_CREAT | __O_TMPFILE, (int)a->n + 1, L_ALLOW);
        stmt(a, BPF_LD | BPF_W | BPF_ABS, (unsigned int)ARG_LO(r->b));
        jump(a, BPF_JSET, SETID_BITS, (int)a->n + 1, L_ALLOW);
        ret(a, RET_ERRNO(EPERM));
        return;
    case R_NONZERO:
        stmt(a, BPF_LD | BPF_W | BPF_ABS, (unsigned int)ARG_LO(r->a));
        jump(a, BPF_JEQ, 0, L_ALLOW, (int)a->n + 1);
        ret(a, RET_ERRNO(EPERM));
        return;
    case R_FAMILY: {
        /* the families by allowlist (docs/exec.md "Socket families"): the
         * kernel reads the family and the protocol as ints, so their low
         * 32 bits are what it acts on */
        size_t at = a->n, fail = at + 7;
        stmt(a, BPF_LD | BPF_W | BPF_ABS, (unsigned int)ARG_LO(0));
        jump(a, BPF_JEQ, AF_UNIX, L_ALLOW, L_FALL);
        jump(a, BPF_JEQ, AF_INET, L_ALLOW, L_FALL);
        jump(a, BPF_JEQ, AF_INET6, L_ALLOW, L_FALL);
        jump(a, BPF_JEQ, AF_NETLINK, L_FALL, (int)fail);
        stmt(a, BPF_LD | BPF_W | BPF_ABS, (unsigned int)ARG_LO(2));
        jump(a, BPF_JEQ, NETLINK_ROUTE, L_ALLOW, (int)fail);
        ret(a, RET_ERRNO(EAFNOSUPPORT));
        return;
    }
    }
}

/* A binary search over rs->r[lo..hi) on the number in the accumulator:
 * leads every listed number to its block and every other to ALLOW in
 * about log2(n) comparisons (the kernel's per-number action cache
 * emulates the filter for each number when it is installed: a linear
 * chain made that cost ~2 us per instruction). */
static void tree(asm_state *a, const rules *rs, size_t lo, size_t hi)
{
    if (hi - lo <= 2) {
        for (size_t i = lo; i < hi; i++)
            jump(a, BPF_JEQ, rs->r[i].nr, L_BLOCK(i), i + 1 < hi ? L_FALL : L_ALLOW);
        if (hi == lo)
            ret(a, SECCOMP_RET_ALLOW);
        return;
    }
    size_t mid = lo + (hi - lo) / 2;
    size_t j = jump(a, BPF_JGE, rs->r[mid].nr, 0, L_FALL);
    tree(a, rs, lo, mid);
    a->jt[j] = (int)a->n;
    tree(a, rs, mid, hi);
}

static const unsigned int sysv_ipc[] = {
    __NR_shmget,     __NR_shmat,  __NR_shmdt,  __NR_shmctl, __NR_semget, __NR_semop,
    __NR_semtimedop, __NR_semctl, __NR_msgget, __NR_msgsnd, __NR_msgrcv, __NR_msgctl,
};

static void collect(rules *rs, unsigned int flags)
{
    if (flags & PATHGATE__SECCOMP_ONLY_SETNS) {
        add(rs, __NR_setns, R_DENY, RET_ERRNO(EPERM), 0, 0, 0);
        return;
    }
    if (!(flags & PATHGATE__SECCOMP_OWN_PIDNS)) {
        add(rs, __NR_setsid, R_DENY, RET_ERRNO(EPERM), 0, 0, 0);
        add(rs, __NR_setpgid, R_DENY, RET_ERRNO(EPERM), 0, 0, 0);
    }
    add(rs, __NR_io_uring_setup, R_DENY, RET_ERRNO(ENOSYS), 0, 0, 0);
    add(rs, __NR_keyctl, R_DENY, RET_ERRNO(EPERM), 0, 0, 0);
    add(rs, __NR_add_key, R_DENY, RET_ERRNO(EPERM), 0, 0, 0);
    add(rs, __NR_request_key, R_DENY, RET_ERRNO(EPERM), 0, 0, 0);
    add(rs, __NR_openat2, R_DENY, RET_ERRNO(ENOSYS), 0, 0, 0);
    add(rs, __NR_clone3, R_DENY, RET_ERRNO(ENOSYS), 0, 0, 0);
    if (!(flags & PATHGATE__SECCOMP_ALLOW_SETNS))
        add(rs, __NR_setns, R_DENY, RET_ERRNO(EPERM), 0, 0, 0);
    if (!(flags & PATHGATE__SECCOMP_NETWORK))
        add(rs, __NR_socket, R_DENY, RET_ERRNO(EACCES), 0, 0, 0);
    else
        add(rs, __NR_socket, R_FAMILY, 0, 0, 0, 0);
    add(rs, __NR_socketpair, R_FAMILY, 0, 0, 0, 0);
    if (flags & PATHGATE__SECCOMP_NO_MEMFD)
        add(rs, __NR_memfd_create, R_DENY, RET_ERRNO(ENOSYS), 0, 0, 0);
    if (!(flags & PATHGATE__SECCOMP_OWN_IPC))
        for (size_t i = 0; i < sizeof sysv_ipc / sizeof sysv_ipc[0]; i++)
            add(rs, sysv_ipc[i], R_DENY, RET_ERRNO(EPERM), 0, 0, 0);
    add(rs, __NR_fchmod, R_BITS, 0, 1, 0, SETID_BITS);
    add(rs, __NR_fchmodat, R_BITS, 0, 2, 0, SETID_BITS);
    add(rs, __NR_fchmodat2, R_BITS, 0, 2, 0, SETID_BITS);
    add(rs, __NR_mkdirat, R_BITS, 0, 2, 0, SETID_BITS);
    add(rs, __NR_mknodat, R_BITS, 0, 2, 0, SETID_BITS);
    add(rs, __NR_openat, R_OPEN_MODE, 0, 2, 3, 0);
#ifdef __NR_chmod
    add(rs, __NR_chmod, R_BITS, 0, 1, 0, SETID_BITS);
#endif
#ifdef __NR_mkdir
    add(rs, __NR_mkdir, R_BITS, 0, 1, 0, SETID_BITS);
#endif
#ifdef __NR_mknod
    add(rs, __NR_mknod, R_BITS, 0, 1, 0, SETID_BITS);
#endif
#ifdef __NR_creat
    add(rs, __NR_creat, R_BITS, 0, 1, 0, SETID_BITS);
#endif
#ifdef __NR_open
    add(rs, __NR_open, R_OPEN_MODE, 0, 1, 2, 0);
#endif
    add(rs, __NR_clone, R_BITS, 0, 0, 0, CLONE_NEWUSER);
    add(rs, __NR_unshare, R_BITS, 0, 0, 0, CLONE_NEWUSER);
    add(rs, __NR_prlimit64, R_NONZERO, 0, 0, 0, 0);
}

const struct sock_fprog *pathgate__exec_seccomp_build(pathgate__exec_seccomp *f, unsigned int flags)
{
    asm_state st;
    memset(&st, 0, sizeof st);
    st.p = f->insn;
    st.cap = PATHGATE__SECCOMP_MAX;
    rules rs;
    rs.n = 0;
    collect(&rs, flags);
    sort(&rs);
    stmt(&st, BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch));
    jump(&st, BPF_JEQ, PG_AUDIT_ARCH, (int)st.n + 2, L_FALL);
    ret(&st, SECCOMP_RET_KILL_PROCESS);
    stmt(&st, BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr));
#ifdef PG_X32_BIT
    /* x32 numbers: kill (they would bypass the checks below) */
    jump(&st, BPF_JGE, PG_X32_BIT, L_FALL, (int)st.n + 2);
    ret(&st, SECCOMP_RET_KILL_PROCESS);
#endif
    tree(&st, &rs, 0, rs.n);
    /* the blocks, one per distinct test, and the common ALLOW */
    int at[MAX_RULES];
    for (size_t i = 0; i < rs.n; i++) {
        at[i] = -1;
        for (size_t k = 0; k < i && at[i] < 0; k++)
            if (same_block(&rs.r[k], &rs.r[i]))
                at[i] = at[k];
        if (at[i] < 0) {
            at[i] = (int)st.n;
            block(&st, &rs.r[i]);
        }
    }
    int allow = (int)st.n;
    ret(&st, SECCOMP_RET_ALLOW);
    if (st.overflow)
        return NULL;
    for (size_t i = 0; i < st.n; i++) {
        if (BPF_CLASS(st.p[i].code) != BPF_JMP)
            continue;
        int t[2] = {st.jt[i], st.jf[i]};
        for (int k = 0; k < 2; k++) {
            if (t[k] == L_FALL)
                t[k] = (int)i + 1;
            else if (t[k] == L_ALLOW)
                t[k] = allow;
            else if (t[k] <= L_BLOCK(0))
                t[k] = at[L_BLOCK(0) - t[k]];
            if (t[k] <= (int)i || t[k] - (int)i - 1 > 255)
                return NULL; /* forward jumps within reach only */
        }
        st.p[i].jt = (unsigned char)(t[0] - (int)i - 1);
        st.p[i].jf = (unsigned char)(t[1] - (int)i - 1);
    }
    f->prog.len = (unsigned short)st.n;
    f->prog.filter = f->insn;
    return &f->prog;
}

/* The calls that change ids, the arguments that name them and which ids
 * they are (U: a uid, G: a gid). */
typedef struct id_call {
    unsigned int nr;
    unsigned char n;
    unsigned char arg[3];
    char kind[3];
} id_call;

static const id_call id_calls[] = {
#ifdef __NR_chown
    {__NR_chown, 2, {1, 2, 0}, {'U', 'G', 0}},
#endif
#ifdef __NR_lchown
    {__NR_lchown, 2, {1, 2, 0}, {'U', 'G', 0}},
#endif
    {__NR_fchown, 2, {1, 2, 0}, {'U', 'G', 0}},
    {__NR_fchownat, 2, {2, 3, 0}, {'U', 'G', 0}},
    {__NR_setuid, 1, {0, 0, 0}, {'U', 0, 0}},
    {__NR_setgid, 1, {0, 0, 0}, {'G', 0, 0}},
    {__NR_setreuid, 2, {0, 1, 0}, {'U', 'U', 0}},
    {__NR_setregid, 2, {0, 1, 0}, {'G', 'G', 0}},
    {__NR_setresuid, 3, {0, 1, 2}, {'U', 'U', 'U'}},
    {__NR_setresgid, 3, {0, 1, 2}, {'G', 'G', 'G'}},
};

const struct sock_fprog *pathgate__exec_seccomp_ids(pathgate__exec_seccomp *f, unsigned int uid,
                                                    unsigned int gid)
{
    struct sock_filter *p = f->insn;
    size_t n = 0;
#define PUT(x) (p[n++] = (struct sock_filter)x)
    PUT(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)));
    PUT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PG_AUDIT_ARCH, 1, 0));
    PUT(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)); /* (the main filter kills it) */
    for (size_t i = 0; i < sizeof id_calls / sizeof id_calls[0]; i++) {
        const id_call *c = &id_calls[i];
        /* this call's section: skipped unless it is this call; each id
         * the caller's own or -1 (unchanged), else EPERM */
        PUT(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)));
        PUT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, c->nr, 0, (unsigned char)(4 * c->n + 1)));
        for (unsigned int k = 0; k < c->n; k++) {
            PUT(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, (unsigned int)ARG_LO(c->arg[k])));
            PUT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, c->kind[k] == 'U' ? uid : gid, 2, 0));
            PUT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0xFFFFFFFFu, 1, 0));
            PUT(BPF_STMT(BPF_RET | BPF_K, RET_ERRNO(EPERM)));
        }
        PUT(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
    }
    PUT(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
#undef PUT
    f->prog.len = (unsigned short)n;
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

const struct sock_fprog *pathgate__exec_seccomp_ids(pathgate__exec_seccomp *f, unsigned int uid,
                                                    unsigned int gid)
{
    (void)f;
    (void)uid;
    (void)gid;
    return NULL;
}

#endif
