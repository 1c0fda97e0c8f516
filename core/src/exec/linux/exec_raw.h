/*
 * exec_raw.h - internal: system calls for the processes pathgate starts
 * with CLONE_VM (docs/exec.md, "Starting the child safely in a threaded
 * host").
 *
 * Those processes share the host process's memory, and with it the
 * calling thread's thread-local storage, while the host's threads keep
 * running: glibc's syscall() would write errno there. pg_raw() makes the
 * call inline and returns the kernel's answer (-errno on failure), never
 * touching errno, allocating or locking. Where this build has no inline
 * form (architectures other than x86_64 and aarch64), PG_RAW_INLINE is 0
 * and pg_raw() falls back to syscall(): callers then only use it in a
 * child that suspends its parent (CLONE_VFORK) until it has exited or
 * called execve.
 */
#ifndef PATHGATE_EXEC_RAW_H
#define PATHGATE_EXEC_RAW_H

#include <errno.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The mount API and openat2, where the C library's headers predate them
 * (the same number on every architecture). */
#ifndef __NR_open_tree
#define __NR_open_tree 428
#endif
#ifndef __NR_move_mount
#define __NR_move_mount 429
#endif
#ifndef __NR_fsopen
#define __NR_fsopen 430
#endif
#ifndef __NR_fsconfig
#define __NR_fsconfig 431
#endif
#ifndef __NR_fsmount
#define __NR_fsmount 432
#endif
#ifndef __NR_mount_setattr
#define __NR_mount_setattr 442
#endif
#ifndef __NR_openat2
#define __NR_openat2 437
#endif

/* No sanitizer instrumentation in code that runs in those processes. */
#define PG_NOSAN __attribute__((no_sanitize("address", "undefined", "thread")))

/* The length of s, for code that runs in those processes: a loop the
 * compiler cannot turn into a call to strlen (a plain one is, at -O2).
 * Under a sanitizer strlen is the sanitizer's interceptor, which would
 * run in the child on the thread-local state of the host thread that
 * cloned it (a clone without CLONE_SETTLS keeps its TLS) while that
 * thread runs too: ThreadSanitizer's state was corrupted that way, a
 * rare segmentation fault of the host (issue 33). */
PG_NOSAN static inline unsigned long pg_raw_strlen(const char *s)
{
    unsigned long n = 0;
    while (s[n]) {
        n++;
        __asm__("" : "+r"(n)); /* opaque: no idiom to recognise */
    }
    return n;
}

#if defined(__x86_64__)
#define PG_RAW_INLINE 1
PG_NOSAN static inline long pg_raw6(long n, long a, long b, long c, long d, long e, long f)
{
    long ret;
    register long r10 __asm__("r10") = d;
    register long r8 __asm__("r8") = e;
    register long r9 __asm__("r9") = f;
    __asm__ volatile("syscall"
                     : "=a"(ret)
                     : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
                     : "rcx", "r11", "memory");
    return ret;
}
/* write(fd, buf, len), then exit_group(status) whatever write returned,
 * touching no memory in between: once the write is seen, the process's
 * stack may be reused (the caller's last word). */
__attribute__((noreturn)) PG_NOSAN static inline void pg_raw_write_exit(long fd, const void *buf,
                                                                        long len, long status)
{
    __asm__ volatile("syscall\n\t"
                     "mov %[st], %%rdi\n\t"
                     "mov %[nr], %%rax\n\t"
                     "syscall\n\t"
                     "ud2"
                     :
                     : "a"((long)SYS_write), "D"(fd), "S"(buf),
                       "d"(len), [st] "r"(status), [nr] "r"((long)SYS_exit_group)
                     : "rcx", "r11", "memory");
    __builtin_unreachable();
}
#elif defined(__aarch64__)
#define PG_RAW_INLINE 1
PG_NOSAN static inline long pg_raw6(long n, long a, long b, long c, long d, long e, long f)
{
    register long x8 __asm__("x8") = n;
    register long x0 __asm__("x0") = a;
    register long x1 __asm__("x1") = b;
    register long x2 __asm__("x2") = c;
    register long x3 __asm__("x3") = d;
    register long x4 __asm__("x4") = e;
    register long x5 __asm__("x5") = f;
    __asm__ volatile("svc 0"
                     : "+r"(x0)
                     : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4), "r"(x5)
                     : "memory");
    return x0;
}
__attribute__((noreturn)) PG_NOSAN static inline void pg_raw_write_exit(long fd, const void *buf,
                                                                        long len, long status)
{
    register long x8 __asm__("x8") = SYS_write;
    register long x0 __asm__("x0") = fd;
    register long x1 __asm__("x1") = (long)buf;
    register long x2 __asm__("x2") = len;
    __asm__ volatile("svc 0\n\t"
                     "mov x0, %[st]\n\t"
                     "mov x8, %[nr]\n\t"
                     "svc 0\n\t"
                     "brk #0"
                     : "+r"(x0), "+r"(x8)
                     : "r"(x1), "r"(x2), [st] "r"(status), [nr] "r"((long)SYS_exit_group)
                     : "memory");
    __builtin_unreachable();
}
#else
#define PG_RAW_INLINE 0
PG_NOSAN static inline long pg_raw6(long n, long a, long b, long c, long d, long e, long f)
{
    long r = syscall(n, a, b, c, d, e, f);
    return r < 0 ? -(long)errno : r;
}
#endif

/* pg_raw(nr, args...): up to six arguments, each converted to long. */
#define PG_RAW_ARGS(n, a, b, c, d, e, f, ...)                                                      \
    pg_raw6((long)(n), (long)(a), (long)(b), (long)(c), (long)(d), (long)(e), (long)(f))
#define pg_raw(...) PG_RAW_ARGS(__VA_ARGS__, 0, 0, 0, 0, 0, 0, 0)

#endif
