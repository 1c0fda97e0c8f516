/*
 * ref.h - internal: building refs without re-validating what the registry
 * made, and the raw 16 token bytes the registry keys its table with.
 */
#ifndef PATHGATE_REF_H
#define PATHGATE_REF_H

#include "pathgate/resolver.h"

/* Length of a token: "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx". */
#define PATHGATE__TOKEN_LEN 36
/* Raw token bytes. */
#define PATHGATE__TOKEN_BYTES 16

/* Allocates a ref (one allocation: struct, token and address) holding a
 * copy of address[0..len) and the token spelled from id (lowercase). The
 * address is trusted: it comes from the resolver. 0 or PATHGATE_ENOMEM. */
int pathgate__ref_make(pathgate_ref **out, const pathgate_allocator *alloc,
                       const unsigned char id[PATHGATE__TOKEN_BYTES], const char *address,
                       size_t len);

/* The 16 bytes the token spells. */
const unsigned char *pathgate__ref_id(const pathgate_ref *ref);

#endif
