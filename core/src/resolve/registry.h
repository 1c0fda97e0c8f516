/*
 * registry.h - internal: the token registry (docs/spec.md section 5).
 *
 * token (UUID4, 16 random bytes from a batched OS random source) ->
 * (base index, canonical address). O(1) insert, lookup and removal;
 * internally locked, so any number of threads may call any function.
 * Capacity is checked before minting: a full registry mints nothing.
 */
#ifndef PATHGATE_REGISTRY_H
#define PATHGATE_REGISTRY_H

#include "pathgate/resolver.h"

typedef struct pathgate__registry pathgate__registry;

int pathgate__registry_new(pathgate__registry **out, size_t max_tokens,
                           const pathgate_allocator *alloc);
void pathgate__registry_free(pathgate__registry *reg);

/* Mints a new token for (base_index, address[0..len)) and returns the ref
 * (allocated with the registry's allocator). PATHGATE_ECAPACITY when the
 * registry holds max_tokens already (nothing minted), PATHGATE_ENOMEM. */
int pathgate__registry_mint(pathgate_ref **out, pathgate__registry *reg, size_t base_index,
                            const char *address, size_t len);

/* 1 and *base_index when ref's token was minted here, is live, and its
 * address equals the recorded one; 0 otherwise. */
int pathgate__registry_lookup(size_t *base_index, pathgate__registry *reg, const pathgate_ref *ref);

/* 1 when ref's token was live here (and matched its address) and is now
 * released; 0 otherwise. */
int pathgate__registry_release(pathgate__registry *reg, const pathgate_ref *ref);

size_t pathgate__registry_count(pathgate__registry *reg);

#endif
