/*
 * exec_clone.h - internal: the clone() the processes of a command are
 * started with (exec_idmap.c, exec_template.c, exec_spawn.c). The lowest
 * file of exec/linux: it knows no other.
 */
#ifndef PATHGATE_EXEC_CLONE_H
#define PATHGATE_EXEC_CLONE_H

typedef int (*pathgate__clone_func)(int (*)(void *), void *, int, void *, ...);

/* glibc's clone() (under ThreadSanitizer, libc's own definition rather
 * than the sanitizer's interceptor, which treats every clone as a fork). */
pathgate__clone_func pathgate__exec_libc_clone(void);

#endif
