/*
 * registry.c - the token registry: UUID4 token -> (base index, canonical
 * address), O(1) mint, lookup and release under one mutex.
 *
 * Table: open addressing with linear probing over a power-of-two array of
 * slots, keyed by the 16 token bytes, load kept at most 3/4, deletion by
 * backward shift (no tombstones, so probe chains never rot). A slot holds
 * the first 8 token bytes (uniformly random: the hash, and the home slot)
 * next to the entry pointer, so probing, the collision check of a mint and
 * the backward shift of a release read the slot array only: at a million
 * live tokens that is one cache line per mint instead of a miss per entry
 * passed. The entry (the last 8 token bytes, base, length, address) is
 * read only when the first 8 bytes match. After each mint the home slot of
 * the next token (its bytes are already in the pool) is prefetched, so the
 * next mint finds it in cache after the resolve's system calls.
 *
 * It grows by doubling as tokens go live; max_tokens bounds it. Each live
 * token costs one entry allocation plus its slot.
 */
#include "registry.h"

#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "alloc.h"
#include "random.h"
#include "ref.h"

#define TAG_BYTES 8 /* token bytes kept in the slot */

typedef struct entry {
    unsigned char rest[PATHGATE__TOKEN_BYTES - TAG_BYTES]; /* the token's last bytes */
    uint32_t base_index;
    uint32_t len;
    char address[]; /* not terminated */
} entry;

typedef struct slot {
    uint64_t tag; /* the token's first 8 bytes */
    entry *e;     /* NULL: empty */
} slot;

struct pathgate__registry {
    pathgate_allocator alloc;
    pthread_mutex_t lock;
    size_t max_tokens;
    size_t count; /* live tokens */
    size_t mask;  /* slots - 1 */
    slot *slots;
    pathgate__random rnd;
};

#define INITIAL_SLOTS 64

static uint64_t tag_of(const unsigned char *key)
{
    uint64_t h;
    memcpy(&h, key, sizeof h);
    return h;
}

static size_t home_of(uint64_t tag, size_t mask)
{
    return (size_t)tag & mask;
}

int pathgate__registry_new(pathgate__registry **out, size_t max_tokens,
                           const pathgate_allocator *alloc)
{
    if (!out)
        return PATHGATE_EINVAL;
    *out = NULL;
    pathgate_allocator a;
    pathgate__alloc_init(&a, alloc);
    pathgate__registry *reg = pathgate__calloc(&a, 1, sizeof *reg);
    if (!reg)
        return PATHGATE_ENOMEM;
    reg->alloc = a;
    reg->max_tokens = max_tokens ? max_tokens : PATHGATE_MAX_TOKENS_DEFAULT;
    reg->mask = INITIAL_SLOTS - 1;
    reg->slots = pathgate__calloc(&a, INITIAL_SLOTS, sizeof *reg->slots);
    if (!reg->slots) {
        pathgate__free(&a, reg);
        return PATHGATE_ENOMEM;
    }
    if (pathgate__random_init(&reg->rnd, &a) != 0) {
        pathgate__free(&a, reg->slots);
        pathgate__free(&a, reg);
        return PATHGATE_ENOMEM;
    }
    if (pthread_mutex_init(&reg->lock, NULL) != 0) {
        pathgate__random_dispose(&reg->rnd, &a);
        pathgate__free(&a, reg->slots);
        pathgate__free(&a, reg);
        return PATHGATE_ENOMEM;
    }
    *out = reg;
    return PATHGATE_OK;
}

void pathgate__registry_free(pathgate__registry *reg)
{
    if (!reg)
        return;
    pathgate_allocator a = reg->alloc;
    for (size_t i = 0; i <= reg->mask; i++)
        pathgate__free(&a, reg->slots[i].e);
    pathgate__free(&a, reg->slots);
    pathgate__random_dispose(&reg->rnd, &a);
    pthread_mutex_destroy(&reg->lock);
    pathgate__free(&a, reg);
}

/* Slot of key, or SIZE_MAX. Lock held. */
static size_t find(const pathgate__registry *reg, const unsigned char *key)
{
    uint64_t tag = tag_of(key);
    size_t i = home_of(tag, reg->mask);
    for (;;) {
        const slot *s = &reg->slots[i];
        if (!s->e)
            return SIZE_MAX;
        if (s->tag == tag && memcmp(s->e->rest, key + TAG_BYTES, sizeof s->e->rest) == 0)
            return i;
        i = (i + 1) & reg->mask;
    }
}

static void place(slot *slots, size_t mask, uint64_t tag, entry *e)
{
    size_t i = home_of(tag, mask);
    while (slots[i].e)
        i = (i + 1) & mask;
    slots[i].tag = tag;
    slots[i].e = e;
}

/* A big table is read at random: ask for huge pages (a hint; THP in
 * madvise mode), so that a mint costs a cache miss but no page walk. */
static void hint_huge(void *p, size_t bytes)
{
#ifdef MADV_HUGEPAGE
    const uintptr_t huge = (uintptr_t)2 << 20;
    if (bytes < 2 * huge)
        return;
    uintptr_t lo = ((uintptr_t)p + huge - 1) & ~(huge - 1);
    uintptr_t hi = ((uintptr_t)p + bytes) & ~(huge - 1);
    if (hi > lo)
        (void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
#else
    (void)p;
    (void)bytes;
#endif
}

/* Doubles the table when one more token would load it beyond 3/4. Lock held. */
static int reserve_one(pathgate__registry *reg)
{
    size_t slots = reg->mask + 1;
    if ((reg->count + 1) <= slots / 4 * 3)
        return PATHGATE_OK;
    if (slots > SIZE_MAX / 2 / sizeof(slot))
        return PATHGATE_ENOMEM;
    size_t nslots = slots * 2;
    slot *ns = pathgate__malloc(&reg->alloc, nslots * sizeof *ns);
    if (!ns)
        return PATHGATE_ENOMEM;
    hint_huge(ns, nslots * sizeof *ns); /* before the pages are first touched */
    memset(ns, 0, nslots * sizeof *ns);
    for (size_t i = 0; i < slots; i++)
        if (reg->slots[i].e)
            place(ns, nslots - 1, reg->slots[i].tag, reg->slots[i].e);
    pathgate__free(&reg->alloc, reg->slots);
    reg->slots = ns;
    reg->mask = nslots - 1;
    return PATHGATE_OK;
}

/* Empties slot i, shifting back the entries of its probe run so that every
 * entry stays reachable from its home slot. Reads slots only. Lock held. */
static void remove_at(pathgate__registry *reg, size_t i)
{
    size_t mask = reg->mask;
    size_t j = i;
    for (;;) {
        j = (j + 1) & mask;
        const slot *s = &reg->slots[j];
        if (!s->e)
            break;
        size_t k = home_of(s->tag, mask);
        /* the entry stays when its home lies cyclically in (i, j]. */
        int stays = i <= j ? (i < k && k <= j) : (i < k || k <= j);
        if (stays)
            continue;
        reg->slots[i] = *s;
        i = j;
    }
    reg->slots[i].e = NULL;
    reg->slots[i].tag = 0;
}

/* Warms the home slot of the token the next mint will draw. Lock held. */
static void prefetch_next(const pathgate__registry *reg)
{
    unsigned char next[TAG_BYTES];
    if (pathgate__random_peek(&reg->rnd, next, sizeof next) == 0) {
        size_t h = home_of(tag_of(next), reg->mask);
        __builtin_prefetch(&reg->slots[h], 1);
        /* the probe run, and a release's backward shift, go on past it */
        __builtin_prefetch(&reg->slots[(h + 1) & reg->mask], 1);
    }
}

int pathgate__registry_mint(pathgate_ref **out, pathgate__registry *reg, size_t base_index,
                            const char *address, size_t len)
{
    if (!out)
        return PATHGATE_EINVAL;
    *out = NULL;
    if (!reg || (!address && len) || base_index > UINT32_MAX || len > UINT32_MAX)
        return PATHGATE_EINVAL;

    /* Allocate outside the lock; a refusal below frees both. */
    entry *e = pathgate__malloc(&reg->alloc, sizeof *e + len);
    if (!e)
        return PATHGATE_ENOMEM;
    e->base_index = (uint32_t)base_index;
    e->len = (uint32_t)len;
    if (len)
        memcpy(e->address, address, len);

    int rc;
    pthread_mutex_lock(&reg->lock);
    if (reg->count >= reg->max_tokens) {
        rc = PATHGATE_ECAPACITY;
        goto refuse;
    }
    if ((rc = reserve_one(reg)) != 0)
        goto refuse;
    unsigned char key[PATHGATE__TOKEN_BYTES];
    do {
        if ((rc = pathgate__random_take(&reg->rnd, key, sizeof key)) != 0)
            goto refuse;
        key[6] = (unsigned char)((key[6] & 0x0F) | 0x40); /* version 4 */
        key[8] = (unsigned char)((key[8] & 0x3F) | 0x80); /* variant 10xx (RFC 4122) */
    } while (find(reg, key) != SIZE_MAX); /* 2^-122 per live token: never, but exact */
    memcpy(e->rest, key + TAG_BYTES, sizeof e->rest);
    place(reg->slots, reg->mask, tag_of(key), e);
    reg->count++;
    prefetch_next(reg);
    pthread_mutex_unlock(&reg->lock);

    /* The ref is the caller's; if it cannot be made the token is withdrawn,
     * so a failed mint leaves the registry as it was. */
    rc = pathgate__ref_make(out, &reg->alloc, key, address, len);
    if (rc) {
        pthread_mutex_lock(&reg->lock);
        size_t i = find(reg, key);
        remove_at(reg, i);
        reg->count--;
        pthread_mutex_unlock(&reg->lock);
        pathgate__free(&reg->alloc, e);
        return rc;
    }
    return PATHGATE_OK;

refuse:
    pthread_mutex_unlock(&reg->lock);
    pathgate__free(&reg->alloc, e);
    return rc;
}

static int matches(const entry *e, const pathgate_ref *ref)
{
    size_t len;
    const char *address = pathgate_ref_address(ref, &len);
    return e->len == len && memcmp(e->address, address, len) == 0;
}

int pathgate__registry_lookup(size_t *base_index, pathgate__registry *reg, const pathgate_ref *ref)
{
    if (!reg || !ref)
        return 0;
    int found = 0;
    pthread_mutex_lock(&reg->lock);
    size_t i = find(reg, pathgate__ref_id(ref));
    if (i != SIZE_MAX && matches(reg->slots[i].e, ref)) {
        found = 1;
        if (base_index)
            *base_index = reg->slots[i].e->base_index;
    }
    pthread_mutex_unlock(&reg->lock);
    return found;
}

int pathgate__registry_release(pathgate__registry *reg, const pathgate_ref *ref)
{
    if (!reg || !ref)
        return 0;
    entry *gone = NULL;
    pthread_mutex_lock(&reg->lock);
    size_t i = find(reg, pathgate__ref_id(ref));
    if (i != SIZE_MAX && matches(reg->slots[i].e, ref)) {
        gone = reg->slots[i].e;
        remove_at(reg, i);
        reg->count--;
    }
    pthread_mutex_unlock(&reg->lock);
    pathgate__free(&reg->alloc, gone);
    return gone != NULL;
}

size_t pathgate__registry_count(pathgate__registry *reg)
{
    if (!reg)
        return 0;
    pthread_mutex_lock(&reg->lock);
    size_t n = reg->count;
    pthread_mutex_unlock(&reg->lock);
    return n;
}
