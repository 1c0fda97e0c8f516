/*
 * audit.c - the audit events of the policy layer (pathgate/policy.h,
 * docs/policy.md "Audit"): one per decision, handed to the resolver's
 * callback on the thread that made the call. Builds the event on the
 * stack: no allocation, so an event is never lost to memory.
 */
#define _GNU_SOURCE
#include <string.h>
#include <time.h>

#include "audit.h"
#include "os.h"

void pathgate__audit_send(pathgate_audit_fn fn, void *ctx, const char *door, const char *base_host,
                          const pathgate__audit_rec *rec)
{
    pathgate_audit_event ev;
    memset(&ev, 0, sizeof ev);
    ev.version = PATHGATE_AUDIT_EVENT_VERSION;
    struct timespec ts;
    if (clock_gettime(CLOCK_REALTIME, &ts) == 0) {
        ev.time_sec = (int64_t)ts.tv_sec;
        ev.time_nsec = ts.tv_nsec;
    }
    ev.door = door;
    ev.operation = rec->operation;
    ev.role = rec->role;
    ev.address = rec->address;
    ev.outcome = rec->outcome;
    ev.reason = rec->reason;
    ev.rule = rec->rule;
    ev.source = rec->source;
    ev.count = rec->count;
    ev.ip = rec->ip;
    ev.protections = rec->protections;
    ev.exit_status = rec->has_status ? rec->exit_status : -1;
    /* the host path, for the operator: the base's real path and the rel,
     * with the host's own separator throughout (`\` on Windows), as
     * pathgate_resolver_host_path spells it */
    char host[2 * PATHGATE_PATH_MAX + 2];
    if (rec->has_base && rec->rel && base_host) {
        size_t dl = strlen(base_host), rl = strlen(rec->rel);
        if (dl + 1 + rl < sizeof host) {
            pathgate__os_host_join(host, base_host, dl, rec->rel, rl);
            ev.host_path = host;
        }
    }
    fn(&ev, ctx);
}
