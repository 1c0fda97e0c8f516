/*
 * resolver_tracked.c - what git tracks that the policy hides
 * (docs/policy.md "Secrets in git history"): the index of the repository
 * at the top of each base (`.git/index`, versions 2, 3 and 4, SHA-1 or
 * SHA-256 object ids) is read, bounded, and each path it lists is judged
 * for reading. A hidden path git tracks is in the history too, where the
 * rule does not reach.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "alloc.h"
#include "os.h"
#include "error.h"
#include "resolver_policy.h"
#include "resolver_internal.h"

/* An index larger than this is not read (a tree of millions of files). */
#define INDEX_MAX ((size_t)256 << 20)
#define ENTRIES_MAX 10000000u

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

typedef struct tracked {
    pathgate_resolver *r;
    size_t base;
    void (*fn)(void *ctx, const char *address);
    void *ctx;
    long count;
} tracked;

static void judge(tracked *t, const char *name, size_t len)
{
    pathgate_policy_verdict v;
    if (!(pathgate__policy_verdict(&v, t->r, t->base, name, len, PATHGATE__ACCESS_READ) &
          PATHGATE_POLICY_DENY_READ))
        return;
    t->count++;
    char addr[PATHGATE_PATH_MAX + 64];
    int n = snprintf(addr, sizeof addr, "%s/%.*s", pathgate__resolver_base_address(t->r, t->base),
                     (int)len, name);
    if (n < 0 || (size_t)n >= sizeof addr)
        return;
    if (t->fn)
        t->fn(t->ctx, addr);
    if (pathgate__audit_enabled(t->r)) {
        pathgate__audit_rec rec;
        memset(&rec, 0, sizeof rec);
        rec.operation = "git_index";
        rec.has_base = 1;
        rec.base = t->base;
        rec.address = addr;
        rec.rel = addr + n - len;
        rec.outcome = "tracked";
        rec.reason = "deny_read";
        rec.rule = v.rule;
        rec.source = v.source;
        pathgate__audit_emit(t->r, &rec);
    }
}

/* Walks the entries of index d (size bytes) with object ids of hl bytes:
 * 0, or -1 when it does not parse (nothing judged past the fault). With
 * t NULL, only checks. */
static int walk(const unsigned char *d, size_t size, size_t hl, tracked *t)
{
    if (size < 12 || memcmp(d, "DIRC", 4) != 0)
        return -1;
    uint32_t version = be32(d + 4), n = be32(d + 8);
    if (version < 2 || version > 4 || n > ENTRIES_MAX)
        return -1;
    char prev[PATHGATE_PATH_MAX + 1];
    size_t prev_len = 0;
    size_t off = 12;
    for (uint32_t i = 0; i < n; i++) {
        size_t fixed = 40 + hl; /* times, dev, ino, mode, uid, gid, size, id */
        if (off + fixed + 2 > size)
            return -1;
        unsigned flags = (unsigned)d[off + fixed] << 8 | d[off + fixed + 1];
        size_t p = off + fixed + 2;
        if (flags & 0x4000) {
            if (version < 3 || p + 2 > size)
                return -1;
            p += 2;
        }
        if (version == 4) {
            /* the number of bytes to drop from the previous name (git's
             * offset varint), then the rest, NUL-terminated */
            if (p >= size)
                return -1;
            unsigned char c = d[p++];
            size_t drop = c & 127;
            while (c & 128) {
                if (p >= size || drop > PATHGATE_PATH_MAX)
                    return -1;
                c = d[p++];
                drop = ((drop + 1) << 7) | (c & 127);
            }
            const unsigned char *z = memchr(d + p, 0, size - p);
            if (!z || drop > prev_len)
                return -1;
            size_t add = (size_t)(z - (d + p));
            if (prev_len - drop + add > PATHGATE_PATH_MAX)
                return -1;
            memcpy(prev + prev_len - drop, d + p, add);
            prev_len = prev_len - drop + add;
            off = p + add + 1;
        } else {
            size_t nl = flags & 0xfff;
            if (nl == 0xfff) {
                const unsigned char *z = memchr(d + p, 0, size - p);
                if (!z)
                    return -1;
                nl = (size_t)(z - (d + p));
            }
            if (p + nl >= size || d[p + nl] != 0 || nl > PATHGATE_PATH_MAX)
                return -1;
            memcpy(prev, d + p, nl);
            prev_len = nl;
            size_t entry = (p - off) + nl;
            size_t next = off + ((entry + 8) & ~(size_t)7);
            if (next > size)
                return -1;
            for (size_t k = p + nl; k < next; k++)
                if (d[k] != 0)
                    return -1; /* padding is NULs: another id size */
            off = next;
        }
        if (prev_len == 0 || memchr(prev, 0, prev_len))
            return -1;
        if (t)
            judge(t, prev, prev_len);
    }
    return 0;
}

long pathgate_resolver_policy_tracked(pathgate_resolver *r,
                                      void (*fn)(void *ctx, const char *address), void *ctx,
                                      pathgate_error *err)
{
    if (!r)
        return pathgate__error_set(err, PATHGATE_EINVAL, "invalid argument");
    const pathgate__policy *p = pathgate__policy_of(r);
    const pathgate_allocator *a = pathgate__resolver_allocator(r);
    long count = 0;
    size_t nb = pathgate__resolver_base_count(r);
    for (size_t i = 0; p && i < nb; i++) {
        if (!pathgate__policy_active(p, i))
            continue;
        int fd = pathgate__contain_open_how(pathgate__resolver_base_fd(r, i), ".git/index",
                                            O_RDONLY | O_NOFOLLOW | O_NONBLOCK, 0,
                                            PATHGATE__CONTAIN_NO_LINKS);
        if (fd < 0)
            continue; /* no repository at the top (or a link: not followed) */
        pathgate__os_stat st;
        if (pathgate__os_statat(fd, "", 0, &st) < 0 || st.type != PATHGATE__OS_T_REG ||
            st.size < 12 || st.size > INDEX_MAX) {
            pathgate__os_close(fd);
            continue;
        }
        /* read whole (a copy: what changes on disk meanwhile is not seen) */
        size_t size = (size_t)st.size, got = 0;
        unsigned char *d = pathgate__malloc(a, size);
        while (d && got < size) {
            int64_t n = pathgate__os_read(fd, d + got, size - got);
            if (n <= 0)
                break;
            got += (size_t)n;
        }
        pathgate__os_close(fd);
        if (!d)
            return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
        if (got < size) {
            pathgate__free(a, d);
            continue;
        }
        /* SHA-1 ids, else SHA-256: the one whose entries parse */
        size_t hl = walk(d, size, 20, NULL) == 0 ? 20 : walk(d, size, 32, NULL) == 0 ? 32 : 0;
        if (hl) {
            tracked t = {r, i, fn, ctx, 0};
            walk(d, size, hl, &t);
            count += t.count;
        }
        pathgate__free(a, d);
    }
    return count;
}
