/* ref.c - VisibilityRef: an immutable (token, canonical address) pair. */
#include "ref.h"

#include <string.h>

#include "alloc.h"
#include "error.h"
#include "text.h"

/* One allocation: the struct, then the address bytes and a terminator. The
 * allocator is a copy, so a ref outlives the resolver that minted it. */
struct pathgate_ref {
    pathgate_allocator alloc;
    size_t address_len;
    unsigned char id[PATHGATE__TOKEN_BYTES];
    char token[PATHGATE__TOKEN_LEN + 1];
    char address[];
};

/* A ref address may be longer than an input (a long mod name), so it is
 * bounded only by what a record can hold. */
#define REF_ADDRESS_MAX ((size_t)UINT32_MAX)

static int ref_alloc(pathgate_ref **out, const pathgate_allocator *alloc, const char *address,
                     size_t len)
{
    pathgate_allocator a;
    pathgate__alloc_init(&a, alloc);
    if (len > REF_ADDRESS_MAX)
        return PATHGATE_EINVAL;
    pathgate_ref *ref = pathgate__malloc(&a, sizeof *ref + len + 1);
    if (!ref)
        return PATHGATE_ENOMEM;
    ref->alloc = a;
    ref->address_len = len;
    if (len)
        memcpy(ref->address, address, len);
    ref->address[len] = '\0';
    *out = ref;
    return PATHGATE_OK;
}

/* The canonical lowercase spelling of a UUID (what uuid_unparse_lower
 * writes), two digits per byte by table: this runs on every mint. */
static void spell_token(char out[PATHGATE__TOKEN_LEN + 1],
                        const unsigned char id[PATHGATE__TOKEN_BYTES])
{
#define PAIRS16(h)                                                                                 \
    h "0" h "1" h "2" h "3" h "4" h "5" h "6" h "7" h "8" h "9" h "a" h "b" h "c" h "d" h "e" h "f"
    static const char pairs[513] = PAIRS16("0") PAIRS16("1") PAIRS16("2") PAIRS16("3") PAIRS16("4")
        PAIRS16("5") PAIRS16("6") PAIRS16("7") PAIRS16("8") PAIRS16("9") PAIRS16("a") PAIRS16("b")
            PAIRS16("c") PAIRS16("d") PAIRS16("e") PAIRS16("f");
#undef PAIRS16
    static const unsigned char at[PATHGATE__TOKEN_BYTES] = {0,  2,  4,  6,  9,  11, 14, 16,
                                                            19, 21, 24, 26, 28, 30, 32, 34};
    char t[PATHGATE__TOKEN_LEN + 1];
#pragma GCC unroll 16
    for (size_t i = 0; i < PATHGATE__TOKEN_BYTES; i++)
        memcpy(t + at[i], pairs + 2 * id[i], 2);
    t[8] = t[13] = t[18] = t[23] = '-';
    t[PATHGATE__TOKEN_LEN] = '\0';
    memcpy(out, t, sizeof t);
}

int pathgate__ref_make(pathgate_ref **out, const pathgate_allocator *alloc,
                       const unsigned char id[PATHGATE__TOKEN_BYTES], const char *address,
                       size_t len)
{
    pathgate_ref *ref;
    int rc = ref_alloc(&ref, alloc, address, len);
    if (rc)
        return rc;
    memcpy(ref->id, id, PATHGATE__TOKEN_BYTES);
    spell_token(ref->token, ref->id);
    *out = ref;
    return PATHGATE_OK;
}

const unsigned char *pathgate__ref_id(const pathgate_ref *ref)
{
    return ref->id;
}

/* 36 characters, `-` at 8, 13, 18 and 23, lowercase hex elsewhere. */
static int token_shape_ok(const char *t, size_t len)
{
    if (!t || len != PATHGATE__TOKEN_LEN)
        return 0;
    for (size_t i = 0; i < len; i++) {
        char c = t[i];
        if (i == 8 || i == 13 || i == 18 || i == 23) {
            if (c != '-')
                return 0;
        } else if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
            return 0;
        }
    }
    return 1;
}

static unsigned hex_digit(char c)
{
    return c <= '9' ? (unsigned)(c - '0') : (unsigned)(c - 'a' + 10);
}

/* The 16 bytes a token of the right shape spells (the inverse of
 * spell_token; no libuuid, which Windows does not have). */
static void token_bytes(unsigned char id[PATHGATE__TOKEN_BYTES], const char *t)
{
    size_t k = 0;
    for (size_t i = 0; i < PATHGATE__TOKEN_LEN; i++) {
        if (t[i] == '-')
            continue;
        id[k++] = (unsigned char)(hex_digit(t[i]) << 4 | hex_digit(t[i + 1]));
        i++;
    }
}

int pathgate_ref_new(pathgate_ref **out, const char *token, size_t token_len, const char *address,
                     size_t address_len, const pathgate_allocator *alloc, pathgate_error *err)
{
    if (!out)
        return pathgate__error_set(err, PATHGATE_EINVAL, "out is NULL");
    *out = NULL;
    if (!token_shape_ok(token, token_len))
        return pathgate__error_set(err, PATHGATE_EINVAL,
                                   "token is not a lowercase UUID (36 characters)");
    int rc = pathgate__text_check(address, address_len, REF_ADDRESS_MAX, err);
    if (rc)
        return rc;
    if (address_len == 0)
        return pathgate__error_set(err, PATHGATE_EINVAL, "address is empty");
    unsigned char id[PATHGATE__TOKEN_BYTES];
    token_bytes(id, token);
    rc = pathgate__ref_make(out, alloc, id, address, address_len);
    if (rc)
        return pathgate__error_set(err, rc, NULL);
    return PATHGATE_OK;
}

int pathgate_ref_dup(pathgate_ref **out, const pathgate_ref *ref, pathgate_error *err)
{
    if (!out)
        return pathgate__error_set(err, PATHGATE_EINVAL, "out is NULL");
    *out = NULL;
    if (!ref)
        return pathgate__error_set(err, PATHGATE_EINVAL, "ref is NULL");
    int rc = pathgate__ref_make(out, &ref->alloc, ref->id, ref->address, ref->address_len);
    if (rc)
        return pathgate__error_set(err, rc, NULL);
    return PATHGATE_OK;
}

void pathgate_ref_free(pathgate_ref *ref)
{
    if (!ref)
        return;
    pathgate_allocator a = ref->alloc;
    pathgate__free(&a, ref);
}

const char *pathgate_ref_token(const pathgate_ref *ref, size_t *len)
{
    if (!ref) {
        if (len)
            *len = 0;
        return NULL;
    }
    if (len)
        *len = PATHGATE__TOKEN_LEN;
    return ref->token;
}

const char *pathgate_ref_address(const pathgate_ref *ref, size_t *len)
{
    if (!ref) {
        if (len)
            *len = 0;
        return NULL;
    }
    if (len)
        *len = ref->address_len;
    return ref->address;
}

int pathgate_ref_equal(const pathgate_ref *a, const pathgate_ref *b)
{
    if (a == b)
        return 1;
    if (!a || !b)
        return 0;
    return memcmp(a->id, b->id, PATHGATE__TOKEN_BYTES) == 0 && a->address_len == b->address_len &&
           memcmp(a->address, b->address, a->address_len) == 0;
}

/* FNV-1a over the token bytes then the address: equal refs hash equally,
 * and the value is the same in every process (nothing is seeded). */
uint64_t pathgate_ref_hash(const pathgate_ref *ref)
{
    if (!ref)
        return 0;
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t i = 0; i < PATHGATE__TOKEN_BYTES; i++) {
        h ^= ref->id[i];
        h *= 0x100000001b3ULL;
    }
    for (size_t i = 0; i < ref->address_len; i++) {
        h ^= (unsigned char)ref->address[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}
