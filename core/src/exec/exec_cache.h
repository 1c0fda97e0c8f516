/*
 * exec_cache.h - internal: the one thing a resolver knows of commands, the
 * cache of prepared views it owns (exec/linux/exec_template.c), and how to
 * free it. A build without commands never makes one (NULL).
 */
#ifndef PATHGATE_EXEC_CACHE_H
#define PATHGATE_EXEC_CACHE_H

typedef struct pathgate__exec_cache pathgate__exec_cache;

/* Frees c (NULL: nothing). */
void pathgate__exec_cache_free(pathgate__exec_cache *c);

#endif
