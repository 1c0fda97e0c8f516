/*
 * audit.h - internal: the audit events (pathgate/policy.h, docs/policy.md
 * "Audit"). audit.c builds an event and calls the callback it is given;
 * a resolver's events go through pathgate__audit_emit
 * (resolver_internal.h), which gives it the resolver's callback.
 */
#ifndef PATHGATE_AUDIT_H
#define PATHGATE_AUDIT_H

#include <stddef.h>
#include <stdint.h>

#include "pathgate/resolver.h"

/* One event to emit (what the emitter cannot find itself). */
typedef struct pathgate__audit_rec {
    const char *operation;
    const char *role;
    int has_base; /* base and rel are set: the host path can be given */
    size_t base;
    const char *address; /* NUL-terminated, or NULL */
    const char *rel;     /* into address, when has_base */
    const char *outcome;
    const char *reason;
    const char *rule;
    const char *source;
    uint64_t count;
    const char *ip;           /* a network decision's address (operator only) */
    unsigned int protections; /* a command's (exec_policy.c) */
    int has_status;           /* exit_status is set (a command's end) */
    int exit_status;
} pathgate__audit_rec;

/* Stamps the time, fills the event from rec, door and (when rec has a
 * base) the host path base_host/rel, and calls fn (not NULL). */
void pathgate__audit_send(pathgate_audit_fn fn, void *ctx, const char *door, const char *base_host,
                          const pathgate__audit_rec *rec);

#endif
