/* glob.c - the glob matcher: brace expansion, then an NFA over segments. */
#include "glob.h"

#include <string.h>

#include "alloc.h"
#include "error.h"
#include "text.h"

/* Most NFA positions (segments + one accept per alternative): keeps a state
 * at PATHGATE__GLOB_MAX_POSITIONS / 8 bytes, small enough for the stack. */
#define PATHGATE__GLOB_MAX_POSITIONS 4096

/* SEG_SUFFIX: `*` then a literal (`*.txt`, or `*` alone), the common case,
 * matched without the general matcher. */
/* SEG_ANYDIRS: the implicit leading `**` of a pattern without `/` under
 * PATHGATE__GLOB_BASENAME; unlike SEG_GLOBSTAR it enters dot-directories. */
enum seg_kind {
    SEG_LITERAL,
    SEG_SUFFIX,
    SEG_WILD,
    SEG_GLOBSTAR,
    SEG_NEVER,
    SEG_ACCEPT,
    SEG_ANYDIRS
};

typedef struct seg {
    unsigned char kind;
    size_t off; /* into pool: the literal (unescaped) or the wildcard text */
    size_t len;
} seg;

struct pathgate__glob {
    pathgate_allocator alloc;
    seg *pos; /* NFA positions */
    size_t npos;
    size_t *starts; /* first position of each alternative */
    size_t nstarts;
    char *pool;
    size_t state_size;
};

/* ------------------------------------------------------------ code points */

/* Length of the UTF-8 sequence at s (1 for an invalid byte) and its value
 * (an invalid byte b reads as 0x110000 + b, never equal to a real one).
 * Decoded by text.h's strict decoder: an overlong, a surrogate or a value
 * above U+10FFFF is invalid bytes, one per byte, like any other. */
static size_t cp_next(const unsigned char *s, size_t n, unsigned long *cp)
{
    long v;
    size_t len = pathgate__utf8_next(s, n, &v);
    if (v < 0) {
        *cp = 0x110000UL + s[0];
        return 1;
    }
    *cp = (unsigned long)v;
    return len;
}

/* ------------------------------------------------------ segment matching */

/*
 * A bracket class at pat[0] == '['. Returns the length of the class text
 * (through its ']') and sets *hit when cp is in it; returns 0 when the '['
 * has no closing ']' (it is then a literal '[').
 */
static size_t class_match(const unsigned char *pat, size_t plen, unsigned long cp, int *hit)
{
    size_t i = 1;
    int negate = 0;
    if (i < plen && (pat[i] == '!' || pat[i] == '^')) {
        negate = 1;
        i++;
    }
    int found = 0;
    int first = 1;
    while (i < plen) {
        if (pat[i] == ']' && !first) {
            *hit = found != negate;
            return i + 1;
        }
        first = 0;
        unsigned long lo, hi;
        if (pat[i] == '\\' && i + 1 < plen)
            i++;
        i += cp_next(pat + i, plen - i, &lo);
        hi = lo;
        if (i + 1 < plen && pat[i] == '-' && pat[i + 1] != ']') {
            i++;
            if (pat[i] == '\\' && i + 1 < plen)
                i++;
            i += cp_next(pat + i, plen - i, &hi);
        }
        if (lo <= cp && cp <= hi)
            found = 1;
    }
    return 0;
}

int pathgate__glob_match_segment(const char *pattern, size_t plen, const char *str, size_t nlen)
{
    const unsigned char *pat = (const unsigned char *)pattern;
    const unsigned char *name = (const unsigned char *)str;
    if (nlen && name[0] == '.') {
        /* a leading dot is matched only by an explicit one */
        if (!(plen && (pat[0] == '.' || (plen > 1 && pat[0] == '\\' && pat[1] == '.'))))
            return 0;
    }
    size_t pi = 0, ni = 0;
    size_t star_pi = (size_t)-1, star_ni = 0;
    while (ni < nlen) {
        if (pi < plen) {
            unsigned char c = pat[pi];
            if (c == '*') {
                while (pi < plen && pat[pi] == '*')
                    pi++;
                star_pi = pi;
                star_ni = ni;
                continue;
            }
            if (c == '?') {
                unsigned long cp;
                ni += cp_next(name + ni, nlen - ni, &cp);
                pi++;
                continue;
            }
            if (c == '[') {
                unsigned long cp;
                size_t n = cp_next(name + ni, nlen - ni, &cp);
                int hit = 0;
                size_t clen = class_match(pat + pi, plen - pi, cp, &hit);
                if (clen) {
                    if (hit) {
                        pi += clen;
                        ni += n;
                        continue;
                    }
                    goto mismatch;
                }
                /* unclosed: a literal '[' */
            }
            if (c == '\\' && pi + 1 < plen) {
                if (pat[pi + 1] == name[ni]) {
                    pi += 2;
                    ni++;
                    continue;
                }
                goto mismatch;
            }
            if (c == name[ni]) {
                pi++;
                ni++;
                continue;
            }
        }
    mismatch:
        if (star_pi == (size_t)-1)
            return 0;
        {
            unsigned long cp;
            star_ni += cp_next(name + star_ni, nlen - star_ni, &cp);
        }
        ni = star_ni;
        pi = star_pi;
    }
    while (pi < plen && pat[pi] == '*')
        pi++;
    return pi == plen;
}

/* ------------------------------------------------------- brace expansion */

typedef struct strvec {
    char **v;
    size_t *lens;
    size_t n, cap;
} strvec;

static void strvec_free(const pathgate_allocator *a, strvec *sv)
{
    for (size_t i = 0; i < sv->n; i++)
        pathgate__free(a, sv->v[i]);
    pathgate__free(a, sv->v);
    pathgate__free(a, sv->lens);
    memset(sv, 0, sizeof *sv);
}

static int strvec_push(const pathgate_allocator *a, strvec *sv, char *s, size_t len)
{
    if (sv->n == sv->cap) {
        size_t vcap = sv->cap, lcap = sv->cap;
        char **v = pathgate__grow(a, sv->v, &vcap, sizeof *v, 8);
        if (!v)
            return PATHGATE_ENOMEM;
        sv->v = v;
        size_t *l = pathgate__grow(a, sv->lens, &lcap, sizeof *l, 8);
        if (!l)
            return PATHGATE_ENOMEM;
        sv->lens = l;
        sv->cap = lcap;
    }
    sv->v[sv->n] = s;
    sv->lens[sv->n] = len;
    sv->n++;
    return PATHGATE_OK;
}

/* Skips a bracket class at p[i] == '[': the index after its ']', or i + 1
 * when unclosed (a literal '['). */
static size_t skip_class(const char *p, size_t len, size_t i)
{
    size_t j = i + 1;
    if (j < len && (p[j] == '!' || p[j] == '^'))
        j++;
    int first = 1;
    while (j < len) {
        if (p[j] == ']' && !first)
            return j + 1;
        first = 0;
        if (p[j] == '\\' && j + 1 < len)
            j++;
        j++;
    }
    return i + 1;
}

/*
 * Finds the first expandable brace group: p[*open] == '{', p[*close] ==
 * '}', with at least one top-level comma. Returns 0 when there is none.
 */
static int find_group(const char *p, size_t len, size_t *open, size_t *close)
{
    for (size_t i = 0; i < len; i++) {
        if (p[i] == '\\') {
            i++;
            continue;
        }
        if (p[i] == '[') {
            i = skip_class(p, len, i) - 1;
            continue;
        }
        if (p[i] != '{')
            continue;
        int depth = 0, commas = 0;
        size_t j;
        for (j = i; j < len; j++) {
            if (p[j] == '\\') {
                j++;
                continue;
            }
            if (p[j] == '[') {
                j = skip_class(p, len, j) - 1;
                continue;
            }
            if (p[j] == '{')
                depth++;
            else if (p[j] == '}') {
                if (--depth == 0)
                    break;
            } else if (p[j] == ',' && depth == 1)
                commas++;
        }
        if (j < len && commas) {
            *open = i;
            *close = j;
            return 1;
        }
        /* unmatched or comma-less: a literal '{'; groups inside still count */
    }
    return 0;
}

static int too_many_alternatives(pathgate_error *err)
{
    return pathgate__error_set(err, PATHGATE_EINVAL, "glob pattern has more than %d alternatives",
                               PATHGATE__GLOB_MAX_ALTERNATIVES);
}

/* The bounds of the top-level alternatives of the group s[open..close]:
 * bounds[0] = open, then each top-level comma, then close; *nb their
 * count. -1 when the group has more than PATHGATE__GLOB_MAX_ALTERNATIVES
 * (bounds holds PATHGATE__GLOB_MAX_ALTERNATIVES + 1). */
static int group_bounds(const char *s, size_t slen, size_t open, size_t close, size_t *bounds,
                        size_t *nb)
{
    size_t n = 0;
    bounds[n++] = open;
    int depth = 0;
    for (size_t j = open + 1; j < close; j++) {
        if (s[j] == '\\') {
            j++;
            continue;
        }
        if (s[j] == '[') {
            j = skip_class(s, slen, j) - 1;
            continue;
        }
        if (s[j] == '{')
            depth++;
        else if (s[j] == '}')
            depth--;
        else if (s[j] == ',' && depth == 0) {
            if (n > PATHGATE__GLOB_MAX_ALTERNATIVES - 1)
                return -1;
            bounds[n++] = j;
        }
    }
    bounds[n++] = close;
    *nb = n;
    return 0;
}

/* Pushes onto work one copy of s per alternative, the group replaced by
 * it, in reverse so that the output keeps the written order. 0 or
 * PATHGATE_ENOMEM. */
static int push_alternatives(const pathgate_allocator *a, strvec *work, const char *s, size_t slen,
                             size_t open, size_t close, const size_t *bounds, size_t nb)
{
    for (size_t k = nb - 1; k > 0; k--) {
        size_t as = bounds[k - 1] + 1, ae = bounds[k];
        size_t nlen = open + (ae - as) + (slen - close - 1);
        char *n = pathgate__malloc(a, nlen + 1);
        if (!n)
            return PATHGATE_ENOMEM;
        memcpy(n, s, open);
        memcpy(n + open, s + as, ae - as);
        memcpy(n + open + (ae - as), s + close + 1, slen - close - 1);
        n[nlen] = '\0';
        int rc = strvec_push(a, work, n, nlen);
        if (rc < 0) {
            pathgate__free(a, n);
            return rc;
        }
    }
    return PATHGATE_OK;
}

static int expand_braces(const pathgate_allocator *a, strvec *out, const char *pattern, size_t len,
                         pathgate_error *err)
{
    strvec work = {0};
    int rc;
    char *first = pathgate__strndup(a, pattern, len);
    if (!first)
        return PATHGATE_ENOMEM;
    if ((rc = strvec_push(a, &work, first, len)) < 0) {
        pathgate__free(a, first);
        goto fail;
    }
    while (work.n) {
        char *s = work.v[work.n - 1];
        size_t slen = work.lens[work.n - 1];
        work.n--;
        size_t open, close;
        if (!find_group(s, slen, &open, &close)) {
            /* no group left: s is one alternative of the output */
            rc = out->n + work.n >= PATHGATE__GLOB_MAX_ALTERNATIVES ? too_many_alternatives(err)
                                                                    : strvec_push(a, out, s, slen);
            if (rc < 0) {
                pathgate__free(a, s);
                goto fail;
            }
            continue;
        }
        size_t bounds[PATHGATE__GLOB_MAX_ALTERNATIVES + 1];
        size_t nb = 0;
        if (group_bounds(s, slen, open, close, bounds, &nb) < 0 ||
            out->n + work.n + nb - 1 > PATHGATE__GLOB_MAX_ALTERNATIVES)
            rc = too_many_alternatives(err);
        else
            rc = push_alternatives(a, &work, s, slen, open, close, bounds, nb);
        pathgate__free(a, s);
        if (rc < 0)
            goto fail;
    }
    strvec_free(a, &work);
    return PATHGATE_OK;
fail:
    strvec_free(a, &work);
    return rc;
}

/* ------------------------------------------------------------- compiling */

typedef struct builder {
    pathgate__glob *g;
    size_t pos_cap, starts_cap, pool_len, pool_cap;
    unsigned flags; /* PATHGATE__GLOB_* */
} builder;

static int pool_add(builder *b, const char *s, size_t len, size_t *off)
{
    pathgate__glob *g = b->g;
    if (b->pool_len + len + 1 > b->pool_cap) {
        size_t cap = b->pool_cap ? b->pool_cap : 64;
        while (cap < b->pool_len + len + 1)
            cap *= 2;
        char *p = pathgate__realloc(&g->alloc, g->pool, cap);
        if (!p)
            return PATHGATE_ENOMEM;
        g->pool = p;
        b->pool_cap = cap;
    }
    memcpy(g->pool + b->pool_len, s, len);
    g->pool[b->pool_len + len] = '\0';
    *off = b->pool_len;
    b->pool_len += len + 1;
    return PATHGATE_OK;
}

static int add_pos(builder *b, unsigned char kind, const char *text, size_t len,
                   pathgate_error *err)
{
    pathgate__glob *g = b->g;
    if (g->npos >= PATHGATE__GLOB_MAX_POSITIONS)
        return pathgate__error_set(err, PATHGATE_EINVAL, "glob pattern is too complex");
    if (g->npos == b->pos_cap) {
        seg *p = pathgate__grow(&g->alloc, g->pos, &b->pos_cap, sizeof *p, 16);
        if (!p)
            return PATHGATE_ENOMEM;
        g->pos = p;
    }
    seg s = {kind, 0, len};
    if (text) {
        int rc = pool_add(b, text, len, &s.off);
        if (rc < 0)
            return rc;
    }
    g->pos[g->npos++] = s;
    return PATHGATE_OK;
}

/* 1 when the segment has a wildcard character (then matched by
 * match_segment); else it is a literal whose unescaped form goes to lit. */
static int segment_literal(const char *s, size_t len, char *lit, size_t *lit_len)
{
    size_t n = 0;
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        if (c == '*' || c == '?')
            return 0;
        if (c == '[' && skip_class(s, len, i) != i + 1)
            return 0;
        if (c == '\\' && i + 1 < len)
            c = s[++i];
        lit[n++] = c;
    }
    *lit_len = n;
    return 1;
}

static int add_alternative(builder *b, const char *p, size_t len, pathgate_error *err)
{
    pathgate__glob *g = b->g;
    int rc;
    const int anchored = (b->flags & PATHGATE__GLOB_BASENAME) && len && *p == '/';
    while (len && *p == '/') {
        p++;
        len--;
    }
    if (g->nstarts == b->starts_cap) {
        size_t *s = pathgate__grow(&g->alloc, g->starts, &b->starts_cap, sizeof *s, 4);
        if (!s)
            return PATHGATE_ENOMEM;
        g->starts = s;
    }
    g->starts[g->nstarts++] = g->npos;
    if (len == 0) /* only slashes: names nothing */
        return (rc = add_pos(b, SEG_NEVER, NULL, 0, err)) < 0
                   ? rc
                   : add_pos(b, SEG_ACCEPT, NULL, 0, err);
    if (!anchored && !memchr(p, '/', len) &&
        (rc = add_pos(b, (b->flags & PATHGATE__GLOB_BASENAME) ? SEG_ANYDIRS : SEG_GLOBSTAR, NULL, 0,
                      err)) < 0)
        return rc;
    char lit[PATHGATE_PATH_MAX + 1];
    size_t i = 0;
    int trailing = 0, last_globstar = 0;
    while (i < len) {
        size_t e = i;
        while (e < len && p[e] != '/')
            e++;
        size_t n = e - i;
        if (n) {
            const char *s = p + i;
            size_t lit_len = 0;
            last_globstar = n == 2 && s[0] == '*' && s[1] == '*';
            if (last_globstar)
                rc = add_pos(b, SEG_GLOBSTAR, NULL, 0, err);
            else if (segment_literal(s, n, lit, &lit_len))
                rc = add_pos(b, SEG_LITERAL, lit, lit_len, err);
            else if (s[0] == '*' && segment_literal(s + 1, n - 1, lit, &lit_len) &&
                     !memchr(s + 1, '\\', n - 1))
                rc = add_pos(b, SEG_SUFFIX, lit, lit_len, err);
            else
                rc = add_pos(b, SEG_WILD, s, n, err);
            if (rc < 0)
                return rc;
        }
        trailing = e < len && e + 1 == len;
        i = e + 1;
    }
    if (trailing && (rc = add_pos(b, SEG_NEVER, NULL, 0, err)) < 0)
        return rc;
    /* a final globstar names what is below, never the directory itself:
     * it is followed by an implicit `*` segment */
    if (!trailing && last_globstar && (rc = add_pos(b, SEG_SUFFIX, "", 0, err)) < 0)
        return rc;
    return add_pos(b, SEG_ACCEPT, NULL, 0, err);
}

int pathgate__glob_compile(pathgate__glob **out, const char *pattern, size_t len,
                           const pathgate_allocator *alloc, pathgate_error *err)
{
    return pathgate__glob_compile_flags(out, pattern, len, 0, alloc, err);
}

int pathgate__glob_compile_flags(pathgate__glob **out, const char *pattern, size_t len,
                                 unsigned flags, const pathgate_allocator *alloc,
                                 pathgate_error *err)
{
    if (!out)
        return pathgate__error_set(err, PATHGATE_EINVAL, "invalid argument");
    *out = NULL;
    int rc = pathgate__text_check(pattern, len, PATHGATE_PATH_MAX, err);
    if (rc < 0)
        return rc;
    if (len == 0)
        return pathgate__error_set(err, PATHGATE_EINVAL, "glob pattern is empty");
    pathgate_allocator a;
    pathgate__alloc_init(&a, alloc);
    pathgate__glob *g = pathgate__calloc(&a, 1, sizeof *g);
    if (!g)
        return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
    g->alloc = a;
    strvec alts = {0};
    rc = expand_braces(&a, &alts, pattern, len, err);
    builder b = {g, 0, 0, 0, 0, flags};
    for (size_t i = 0; rc == 0 && i < alts.n; i++)
        rc = add_alternative(&b, alts.v[i], alts.lens[i], err);
    strvec_free(&a, &alts);
    if (rc < 0) {
        pathgate__glob_free(g);
        return rc == PATHGATE_ENOMEM ? pathgate__error_set(err, rc, NULL) : rc;
    }
    g->state_size = (g->npos + 7) / 8;
    *out = g;
    return PATHGATE_OK;
}

void pathgate__glob_free(pathgate__glob *g)
{
    if (!g)
        return;
    pathgate_allocator a = g->alloc;
    pathgate__free(&a, g->pos);
    pathgate__free(&a, g->starts);
    pathgate__free(&a, g->pool);
    pathgate__free(&a, g);
}

/* -------------------------------------------------------------- stepping */

size_t pathgate__glob_state_size(const pathgate__glob *g)
{
    return g->state_size;
}

#define BIT_GET(s, i) (((s)[(i) >> 3] >> ((i)&7)) & 1u)
#define BIT_SET(s, i) ((s)[(i) >> 3] |= (unsigned char)(1u << ((i)&7)))

/* Adds the positions reachable through `**` matching nothing. Transitions
 * go forward only, so one ascending pass closes the set. */
static void closure(const pathgate__glob *g, unsigned char *s)
{
    for (size_t i = 0; i + 1 < g->npos; i++)
        if (BIT_GET(s, i) && (g->pos[i].kind == SEG_GLOBSTAR || g->pos[i].kind == SEG_ANYDIRS))
            BIT_SET(s, i + 1);
}

void pathgate__glob_start(const pathgate__glob *g, unsigned char *state)
{
    memset(state, 0, g->state_size);
    for (size_t k = 0; k < g->nstarts; k++)
        BIT_SET(state, g->starts[k]);
    closure(g, state);
}

int pathgate__glob_step(const pathgate__glob *g, unsigned char *next, const unsigned char *cur,
                        const char *name, size_t len)
{
    memset(next, 0, g->state_size);
    const int dot = len && name[0] == '.';
    for (size_t i = 0; i < g->npos; i++) {
        if (!BIT_GET(cur, i))
            continue;
        const seg *s = &g->pos[i];
        switch (s->kind) {
        case SEG_GLOBSTAR:
            if (!dot)
                BIT_SET(next, i);
            break;
        case SEG_ANYDIRS:
            BIT_SET(next, i);
            break;
        case SEG_LITERAL:
            if (s->len == len && memcmp(g->pool + s->off, name, len) == 0)
                BIT_SET(next, i + 1);
            break;
        case SEG_SUFFIX: /* never a leading dot: the pattern starts with `*` */
            if (!dot && len >= s->len && memcmp(name + len - s->len, g->pool + s->off, s->len) == 0)
                BIT_SET(next, i + 1);
            break;
        case SEG_WILD:
            if (pathgate__glob_match_segment(g->pool + s->off, s->len, name, len))
                BIT_SET(next, i + 1);
            break;
        default: /* SEG_NEVER, SEG_ACCEPT: nothing follows */
            break;
        }
    }
    closure(g, next);
    int more = 0;
    for (size_t i = 0; i < g->npos && !more; i++)
        if (BIT_GET(next, i) && g->pos[i].kind != SEG_ACCEPT && g->pos[i].kind != SEG_NEVER)
            more = 1;
    return more;
}

int pathgate__glob_accepts(const pathgate__glob *g, const unsigned char *state)
{
    for (size_t i = 0; i < g->npos; i++)
        if (BIT_GET(state, i) && g->pos[i].kind == SEG_ACCEPT)
            return 1;
    return 0;
}

int pathgate__glob_match_path(const pathgate__glob *g, const char *path, size_t len)
{
    unsigned char a[PATHGATE__GLOB_MAX_POSITIONS / 8], b[PATHGATE__GLOB_MAX_POSITIONS / 8];
    unsigned char *cur = a, *next = b;
    pathgate__glob_start(g, cur);
    size_t i = 0;
    while (i < len) {
        size_t e = i;
        while (e < len && path[e] != '/')
            e++;
        if (e > i) {
            pathgate__glob_step(g, next, cur, path + i, e - i);
            unsigned char *t = cur;
            cur = next;
            next = t;
        }
        i = e + 1;
    }
    return pathgate__glob_accepts(g, cur);
}
