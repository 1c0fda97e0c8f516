/*
 * exec_policy.h - internal: the resolver's policy inside a command's view
 * (docs/exec.md "Policy in commands").
 *
 *   exec_policy.c  parent: what to mask and what to mount read-only, found
 *                  by a scan of every base at the start of each call; the
 *                  command's audit events
 *   exec_mask.c    child: carries the list out in the command's own mount
 *                  namespace (raw system calls only, exec_raw.h)
 *
 * The prepared view (exec_template.c) and a start made ahead
 * (exec_spawn.h) stay the same with or without a policy: the masks are
 * made per call, by the first process of the command's mount namespace
 * (the joiner, or a prepared start's init once it has its command),
 * before it enters the working directory and before the shell exists.
 */
#ifndef PATHGATE_EXEC_POLICY_H
#define PATHGATE_EXEC_POLICY_H

#include <stddef.h>
#include <stdint.h>

#include "pathgate/exec.h"
#include "pathgate/resolver.h"

/* At most this many masked or read-only entries in one command's view
 * (each is a mount); more refuses the call (PATHGATE_EPOLICY). */
#define PATHGATE__EXEC_MASKS_MAX 4096

enum {
    PATHGATE__MASK_READ_ONLY = 0, /* deny_write: the entry mounted read-only over itself */
    PATHGATE__MASK_HIDE = 1,      /* deny_read: an empty mode-0 read-only file or directory */
    /* a directory on the way to one of those, mounted over itself: a mount
     * point cannot be renamed or removed (EBUSY), so the command cannot move
     * a protected entry out of its pattern's reach by renaming a parent */
    PATHGATE__MASK_PIN = 2,
};

typedef struct pathgate__exec_mask {
    uint32_t dir;  /* offset in buf: the base's view directory ("/pathgate/root/<key>") */
    uint32_t rel;  /* offset in buf: the entry's path below it (no symlink followed) */
    uint8_t kind;  /* PATHGATE__MASK_* */
    uint32_t base; /* the base's index (hidden and read-only entries) */
} pathgate__exec_mask;

/* A git pointer of the vcs preset as a command's start found it
 * (exec_vcs.c): validated, not masked. */
typedef struct pathgate__exec_ptr {
    size_t base;
    uint32_t rel;      /* offset in buf */
    uint32_t data;     /* offset in buf: its content (a link: its target) */
    uint32_t data_len; /* > 4096: too large to keep */
    uint32_t mode;
    uint8_t kind; /* PATHGATE__PTR_* */
    uint8_t type; /* none, file, directory, link, other */
} pathgate__exec_ptr;

typedef struct pathgate__exec_masks {
    const pathgate_allocator *alloc;
    char *buf; /* NUL-terminated strings */
    size_t len, cap;
    /* the pinned directories first (a parent before what is below it),
     * then the read-only entries, then the hidden ones */
    pathgate__exec_mask *v;
    size_t n, ncap;
    size_t nhide, nro, npin; /* counts by kind */
    pathgate__exec_ptr *ptr; /* the vcs pointers noted at the start */
    size_t nptr, nptrcap;
} pathgate__exec_masks;

void pathgate__exec_masks_init(pathgate__exec_masks *m, const pathgate_allocator *alloc);
void pathgate__exec_masks_dispose(pathgate__exec_masks *m);

/*
 * Scans every base of r with a policy for what the policy denies now
 * (pathgate__policy_enumerate) and fills m: deny_read entries to hide,
 * deny_write entries to mount read-only (and, below a read-only
 * directory, the deny_read entries in it), and every directory on the
 * way to one of them to pin. 0, or an error set:
 * PATHGATE_ENOMEM, PATHGATE_EPOLICY (more than PATHGATE__EXEC_MASKS_MAX
 * entries, or a tree that cannot be read: what cannot be seen is not
 * known to be allowed).
 */
int pathgate__exec_masks_collect(pathgate__exec_masks *m, const pathgate_resolver *r,
                                 pathgate_error *err);

/* Notes the vcs pointer rel (len bytes) of base as it is now (kind:
 * PATHGATE__PTR_*): 0, -ENOMEM, -E2BIG. */
int pathgate__exec_ptr_note(pathgate__exec_masks *m, const pathgate_resolver *r, size_t base,
                            const char *rel, size_t len, int kind);

/*
 * At a command's end: every vcs pointer of the writable bases that the
 * command made or changed and that does not hold what git writes there is
 * put back as the start found it (removed when it was not there); a line
 * per pointer is appended to out's output and an audit event emitted
 * (outcome `restored` or `removed`, reason `invalid_pointer`). The count.
 */
size_t pathgate__exec_ptr_check(pathgate__exec_masks *m, const pathgate_resolver *r,
                                pathgate_exec_result *out);

/*
 * At a command's end, when it failed: for each hidden or read-only entry
 * its output names together with a refusal (EBUSY, EROFS, EACCES text), a
 * line naming the entry, the preset (or list) and the rule is appended to
 * out's output, so that an agent knows the policy refused, not the disk.
 * Only names the output already shows are named.
 */
void pathgate__exec_explain(const pathgate__exec_masks *m, const pathgate_resolver *r,
                            pathgate_exec_result *out);

/* Child side: carries m out in the current mount namespace (the view's
 * bases are mounted; the caller holds CAP_SYS_ADMIN in its user
 * namespace). An entry gone since the scan is skipped, a symlink is left
 * as it is (what it leads to is judged by its own name). 0 or -errno with
 * *step set (never a path). */
long pathgate__exec_masks_apply(const pathgate__exec_masks *m, const char **step);

/* ---------------------------------------------------------- audit */

/* The command's audit events (docs/policy.md "Audit"): operation
 * "execute"; the working directory's address; outcome "allowed" at the
 * start (protections, count = entries masked or read-only), "exited" or
 * "timed_out" at the end (exit_status), "denied" for a refusal (reason).
 * The command text is never in an event (it may hold secrets). */
void pathgate__exec_audit_start(const pathgate_resolver *r, const char *cwd, size_t cwd_len,
                                unsigned int protections, uint64_t masked);
void pathgate__exec_audit_end(const pathgate_resolver *r, const char *cwd, size_t cwd_len,
                              const pathgate_exec_result *res);
void pathgate__exec_audit_refused(const pathgate_resolver *r, const char *cwd, size_t cwd_len,
                                  int code);

#endif
