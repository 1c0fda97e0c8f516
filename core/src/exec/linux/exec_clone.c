/* exec_clone.c - the clone() the processes of a command are started with. */
#define _GNU_SOURCE
#include "exec_clone.h"

#include <dlfcn.h>
#include <sched.h>

typedef pathgate__clone_func clone_func;

#if defined(__SANITIZE_THREAD__)
#define PG_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define PG_TSAN 1
#endif
#endif

/* glibc's clone(). ThreadSanitizer interposes clone() and treats every
 * call as a fork (its child-side bookkeeping then runs in our CLONE_VM
 * child, in the parent's memory); under it, take libc's own definition so
 * the sanitizer never sees the child, exactly as in a normal build. */
clone_func pathgate__exec_libc_clone(void)
{
#ifdef PG_TSAN
    void *libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
    clone_func fn = NULL;
    if (libc) {
        *(void **)&fn = dlsym(libc, "clone");
        dlclose(libc);
    }
    if (fn)
        return fn;
#endif
    return clone;
}
