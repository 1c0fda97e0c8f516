/*
 * policy_match.c - the patterns of deny_read and deny_write (docs/policy.md):
 * parsing a list's entries into rules, and deciding a path against them.
 * Pure: no system call, no global state.
 *
 * An entry is `[!][root:<key>|mod:<Name>][/]pattern[/]`; braces are
 * expanded when the list is compiled (at most PATHGATE__GLOB_MAX_ALTERNATIVES
 * per entry), so a rule is a sequence of segments, each a literal, `*`,
 * `**` or a glob of one name. A rule with no `/` but a trailing one gets a
 * leading `**` (a name at any depth), as gitignore reads it.
 *
 * A path is matched segment by segment, with no allocation: deny rules see
 * it folded (pathgate__ppath: ASCII case and the four letters that fold or
 * upcase to ASCII, trailing dots and spaces of each name dropped) and
 * match it or any of its directories; exceptions see it as written and
 * match it exactly (or, with a trailing `/`, it and what is below). The
 * last rule that applies decides. `**` / LITERAL rules, the common case,
 * are one comparison per segment.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "alloc.h"
#include "error.h"
#include "glob.h"
#include "policy_match.h"
#include "text.h"

/* A segment: a literal, `*`, `*literal`, `literal*`, another glob of one
 * name, or `**`. */
enum { SEG_LIT = 1, SEG_STAR, SEG_SUFFIX, SEG_PREFIX, SEG_GLOB, SEG_GLOBSTAR };
/* ANY: `**` then one segment (a name at any depth): one test per name. */
enum { SHAPE_GENERAL = 0, SHAPE_ANY };

typedef struct pseg {
    uint8_t kind;
    uint32_t off; /* into text */
    uint32_t len;
} pseg;

typedef struct prule {
    uint32_t seg, nseg; /* into segs */
    long base;          /* -1: every base */
    uint8_t allow;      /* an exception (`!`) */
    uint8_t tree;       /* a trailing `/`: what is below too (exceptions) */
    uint8_t self;       /* a deny rule for the name itself only, not what is below */
    uint8_t shape;
    uint32_t entry; /* the entry it came from */
    /* a deny rule matches only a path with a name that begins and ends
     * with these bytes (BYTE_BIT): a test that skips most rules at once */
    uint64_t need_first, need_last;
} prule;

#define BYTE_BIT(c) ((uint64_t)1 << ((unsigned char)(c)&63))

struct pathgate__ruleset {
    pathgate_allocator alloc;
    unsigned int denies;
    prule *rules;
    size_t nrules, rcap;
    pseg *segs;
    size_t nsegs, scap;
    char *text;
    size_t tlen, tcap;
    char **entries;
    const char **sources;
    size_t nentries;
    int has_global;
    long *bases; /* bases named by a prefix (sorted is not needed: few) */
    size_t nbases, bcap;
};

/* ---------------------------------------------------------------- folding */

/* The ASCII letter a character folds to (for the 4 non-ASCII letters that
 * fold or upcase to one: U+017F long s, U+212A Kelvin, U+0130 and U+0131
 * dotted and dotless i), writing its length in *n; 0 when it is none. */
static char fold_special(const unsigned char *s, size_t len, size_t *n)
{
    if (len >= 2 && s[0] == 0xC5 && s[1] == 0xBF) {
        *n = 2;
        return 's';
    }
    if (len >= 2 && s[0] == 0xC4 && (s[1] == 0xB0 || s[1] == 0xB1)) {
        *n = 2;
        return 'i';
    }
    if (len >= 3 && s[0] == 0xE2 && s[1] == 0x84 && s[2] == 0xAA) {
        *n = 3;
        return 'k';
    }
    return 0;
}

/* Folds s into out (at most len bytes written: folding never grows). */
static size_t fold_text(char *out, const char *s, size_t len)
{
    size_t o = 0;
    for (size_t i = 0; i < len;) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x80) {
            out[o++] = (char)(c >= 'A' && c <= 'Z' ? c + 32 : c);
            i++;
            continue;
        }
        size_t n;
        char f = fold_special((const unsigned char *)s + i, len - i, &n);
        if (f) {
            out[o++] = f;
            i += n;
        } else {
            out[o++] = (char)c;
            i++;
        }
    }
    return o;
}

/* Length of a name without its trailing dots and spaces (what a Windows
 * filesystem ignores), unless nothing would be left. */
static size_t trim_name(const char *s, size_t len)
{
    size_t n = len;
    while (n && (s[n - 1] == '.' || s[n - 1] == ' '))
        n--;
    return n ? n : len;
}

int pathgate__ppath_init(pathgate__ppath *p, const char *rel, size_t len)
{
    p->raw = rel;
    p->raw_len = len;
    p->raw_split = 0;
    p->nfold = 0;
    p->first_bits = p->last_bits = 0;
    if (len > PATHGATE_PATH_MAX)
        return -1;
    /* name by name: fold each byte (ASCII the common case), trim the end */
    const unsigned char *u = (const unsigned char *)rel, *end = u + len;
    char *out = p->fold;
    while (u < end) {
        const unsigned char *slash = memchr(u, '/', (size_t)(end - u));
        const unsigned char *stop = slash ? slash : end;
        char *start = out;
        for (; u < stop; u++) {
            unsigned char c = *u;
            if (c >= 0x80)
                break;
            *out++ = (char)((unsigned)(c - 'A') < 26u ? c + 32 : c);
        }
        while (u < stop) { /* the rest of a name holding non-ASCII */
            unsigned char c = *u;
            size_t n;
            char f = c < 0x80 ? 0 : fold_special(u, (size_t)(stop - u), &n);
            if (c < 0x80)
                *out++ = (char)((unsigned)(c - 'A') < 26u ? c + 32 : c);
            else
                *out++ = f ? f : (char)c;
            u += f ? n : 1;
        }
        size_t n = trim_name(start, (size_t)(out - start));
        if (n) {
            p->fold_off[p->nfold] = (uint16_t)(start - p->fold);
            p->fold_len[p->nfold] = (uint16_t)n;
            p->nfold++;
            p->first_bits |= BYTE_BIT(start[0]);
            p->last_bits |= BYTE_BIT(start[n - 1]);
        }
        out = start + n;
        u = stop + 1;
    }
    return 0;
}

static void ppath_split_raw(pathgate__ppath *p)
{
    if (p->raw_split)
        return;
    p->nraw = 0;
    for (size_t i = 0; i < p->raw_len;) {
        size_t e = i;
        while (e < p->raw_len && p->raw[e] != '/')
            e++;
        if (e > i) {
            p->raw_off[p->nraw] = (uint16_t)i;
            p->raw_len_[p->nraw] = (uint16_t)(e - i);
            p->nraw++;
        }
        i = e + 1;
    }
    p->raw_split = 1;
}

/* ---------------------------------------------------------- one name */

/* Parses the class at pat[*pi] == '[' against code point cp: 1 matches,
 * 0 not, -1 malformed (no closing `]`). *pi ends past the `]`. */
static int class_match(const char *pat, size_t plen, size_t *pi, long cp)
{
    size_t i = *pi + 1;
    int negate = 0, hit = 0, first = 1;
    if (i < plen && (pat[i] == '!' || pat[i] == '^')) {
        negate = 1;
        i++;
    }
    for (;;) {
        if (i >= plen)
            return -1;
        if (pat[i] == ']' && !first)
            break;
        first = 0;
        long lo;
        if (pat[i] == '\\' && i + 1 < plen)
            i++;
        i += pathgate__utf8_next((const unsigned char *)pat + i, plen - i, &lo);
        long hi = lo;
        if (i + 1 < plen && pat[i] == '-' && pat[i + 1] != ']') {
            i++;
            if (pat[i] == '\\' && i + 1 < plen)
                i++;
            i += pathgate__utf8_next((const unsigned char *)pat + i, plen - i, &hi);
        }
        if (cp >= lo && cp <= hi)
            hit = 1;
    }
    *pi = i + 1;
    return hit != negate;
}

/* One name against one glob segment (`*`, `?`, classes, `\x`). With
 * `dotrule`, a leading `.` of the name is matched only by a literal `.`. */
static int name_match(const char *pat, size_t plen, const char *name, size_t nlen, int dotrule)
{
    if (dotrule && nlen && name[0] == '.' &&
        !((plen && pat[0] == '.') || (plen > 1 && pat[0] == '\\' && pat[1] == '.')))
        return 0;
    size_t p = 0, n = 0, star_p = SIZE_MAX, star_n = 0;
    while (n < nlen) {
        if (p < plen) {
            char c = pat[p];
            if (c == '*') {
                while (p < plen && pat[p] == '*')
                    p++;
                star_p = p;
                star_n = n;
                continue;
            }
            long cp;
            size_t step = pathgate__utf8_next((const unsigned char *)name + n, nlen - n, &cp);
            if (c == '?') {
                p++;
                n += step;
                continue;
            }
            if (c == '[') {
                size_t q = p;
                int m = class_match(pat, plen, &q, cp);
                if (m == 1) {
                    p = q;
                    n += step;
                    continue;
                }
                if (m == 0)
                    goto backtrack;
                /* malformed: a literal '[' (compile refuses these) */
            }
            size_t lit = 1;
            if (c == '\\' && p + 1 < plen) {
                c = pat[p + 1];
                lit = 2;
            }
            if (name[n] == c) {
                p += lit;
                n++;
                continue;
            }
        }
    backtrack:
        if (star_p == SIZE_MAX)
            return 0;
        long cp;
        star_n += pathgate__utf8_next((const unsigned char *)name + star_n, nlen - star_n, &cp);
        n = star_n;
        p = star_p;
    }
    while (p < plen && pat[p] == '*')
        p++;
    return p == plen;
}

/* One name against one compiled segment (not `**`). */
static inline int seg_match(const pseg *s, const char *pat, const char *name, size_t nlen,
                            int dotrule)
{
    switch (s->kind) {
    case SEG_LIT: /* the ends first: most names differ there */
        return nlen == s->len && name[0] == pat[0] && name[nlen - 1] == pat[nlen - 1] &&
               memcmp(name, pat, nlen) == 0;
    case SEG_STAR:
        return !(dotrule && name[0] == '.');
    case SEG_SUFFIX:
        return nlen >= s->len && name[nlen - 1] == pat[s->len - 1] &&
               !(dotrule && name[0] == '.') && memcmp(name + nlen - s->len, pat, s->len) == 0;
    case SEG_PREFIX:
        return nlen >= s->len && name[0] == pat[0] && memcmp(name, pat, s->len) == 0;
    default:
        return name_match(pat, s->len, name, nlen, dotrule);
    }
}

/* ---------------------------------------------------------- one rule */

typedef struct view {
    const char *text;
    const uint16_t *off;
    const uint16_t *len;
    size_t n;
} view;

enum { M_EXACT = 0, M_PREFIX = 1, M_PARTIAL = 2 };

/* Rule segments [i, np) against path segments [j, ns). M_PREFIX: the rule
 * may end before the path does (it names a directory of it). M_PARTIAL:
 * also true when the path ends first (something below could match). */
static int match_from(const pathgate__ruleset *rs, const prule *r, size_t i, const view *v,
                      size_t j, int mode, int dotrule)
{
    const pseg *segs = rs->segs + r->seg;
    size_t np = r->nseg;
    for (;;) {
        if (i == np)
            return mode != M_EXACT || j == v->n;
        const pseg *s = &segs[i];
        if (s->kind == SEG_GLOBSTAR) {
            /* zero or more names; a final `**` at least one */
            size_t k = j + (i + 1 == np);
            for (; k <= v->n; k++) {
                if (k > j && dotrule && v->text[v->off[k - 1]] == '.')
                    return 0;
                if (match_from(rs, r, i + 1, v, k, mode, dotrule))
                    return 1;
            }
            return mode == M_PARTIAL;
        }
        if (j == v->n)
            return mode == M_PARTIAL;
        if (!seg_match(s, rs->text + s->off, v->text + v->off[j], v->len[j], dotrule))
            return 0;
        i++;
        j++;
    }
}

/* `**` then one segment, for a deny rule: some name of the path matches
 * it. One loop per kind, the cheapest byte compared first. */
static int any_name(const pathgate__ruleset *rs, const pseg *s, const view *v)
{
    const char *pat = rs->text + s->off;
    size_t L = s->len;
    switch (s->kind) {
    case SEG_LIT:
        for (size_t j = 0; j < v->n; j++) {
            const char *name = v->text + v->off[j];
            if (v->len[j] == L && name[0] == pat[0] && name[L - 1] == pat[L - 1] &&
                memcmp(name, pat, L) == 0)
                return 1;
        }
        return 0;
    case SEG_SUFFIX:
        for (size_t j = 0; j < v->n; j++) {
            const char *name = v->text + v->off[j];
            size_t n = v->len[j];
            if (n >= L && name[n - 1] == pat[L - 1] && memcmp(name + n - L, pat, L) == 0)
                return 1;
        }
        return 0;
    case SEG_PREFIX:
        for (size_t j = 0; j < v->n; j++) {
            const char *name = v->text + v->off[j];
            if (v->len[j] >= L && name[0] == pat[0] && memcmp(name, pat, L) == 0)
                return 1;
        }
        return 0;
    default:
        for (size_t j = 0; j < v->n; j++)
            if (seg_match(s, pat, v->text + v->off[j], v->len[j], 0))
                return 1;
        return 0;
    }
}

static inline int rule_applies(const pathgate__ruleset *rs, const prule *r, pathgate__ppath *p,
                               int mode)
{
    if (r->allow) {
        ppath_split_raw(p);
        view v = {p->raw, p->raw_off, p->raw_len_, p->nraw};
        return match_from(rs, r, 0, &v, 0, r->tree ? M_PREFIX : M_EXACT, 1);
    }
    view v = {p->fold, p->fold_off, p->fold_len, p->nfold};
    if (r->self && mode == M_PREFIX) /* the name itself, never what is below */
        return match_from(rs, r, 0, &v, 0, M_EXACT, 0);
    if (r->shape == SHAPE_ANY && mode == M_PREFIX)
        return any_name(rs, &rs->segs[r->seg + 1], &v);
    return match_from(rs, r, 0, &v, 0, mode, 0);
}

int pathgate__ruleset_match(const pathgate__ruleset *rs, size_t base, pathgate__ppath *p,
                            size_t *entry)
{
    for (size_t k = rs->nrules; k-- > 0;) {
        const prule *r = &rs->rules[k];
        if (r->base >= 0 && (size_t)r->base != base)
            continue;
        if (!r->allow && ((p->first_bits & r->need_first) != r->need_first ||
                          (p->last_bits & r->need_last) != r->need_last))
            continue; /* no name of the path can match its first segment */
        if (!rule_applies(rs, r, p, M_PREFIX))
            continue;
        if (r->allow)
            return 0;
        if (entry)
            *entry = r->entry;
        return 1;
    }
    return 0;
}

int pathgate__ruleset_may_deny_below(const pathgate__ruleset *rs, size_t base, pathgate__ppath *p)
{
    for (size_t k = 0; k < rs->nrules; k++) {
        const prule *r = &rs->rules[k];
        if (r->allow || (r->base >= 0 && (size_t)r->base != base))
            continue;
        if (rule_applies(rs, r, p, M_PARTIAL))
            return 1;
    }
    return 0;
}

int pathgate__ruleset_applies(const pathgate__ruleset *rs, size_t base)
{
    if (rs->has_global)
        return 1;
    for (size_t i = 0; i < rs->nbases; i++)
        if (rs->bases[i] >= 0 && (size_t)rs->bases[i] == base)
            return 1;
    return 0;
}

unsigned int pathgate__ruleset_denies(const pathgate__ruleset *rs)
{
    return rs->denies;
}

const char *pathgate__ruleset_entry(const pathgate__ruleset *rs, size_t i, const char **source)
{
    if (i >= rs->nentries)
        return NULL;
    if (source)
        *source = rs->sources[i];
    return rs->entries[i];
}

/* --------------------------------------------------------- compiling */

void pathgate__ruleset_free(pathgate__ruleset *rs)
{
    if (!rs)
        return;
    pathgate_allocator a = rs->alloc;
    for (size_t i = 0; i < rs->nentries; i++)
        pathgate__free(&a, rs->entries[i]);
    pathgate__free(&a, rs->entries);
    pathgate__free(&a, rs->sources);
    pathgate__free(&a, rs->rules);
    pathgate__free(&a, rs->segs);
    pathgate__free(&a, rs->text);
    pathgate__free(&a, rs->bases);
    pathgate__free(&a, rs);
}

/* A printable quote of an entry for messages (it is the operator's own
 * text, never a host path): cut, with control bytes replaced. */
static void quote(char *out, size_t cap, const char *s, size_t len)
{
    size_t o = 0;
    for (size_t i = 0; i < len && o + 4 < cap; i++) {
        unsigned char c = (unsigned char)s[i];
        out[o++] = (char)(c < 0x20 || c == 0x7F ? '?' : c);
    }
    if (o + 4 >= cap && len > o) {
        memcpy(out + o, "...", 3);
        o += 3;
    }
    out[o] = '\0';
}

typedef struct compiler {
    pathgate__ruleset *rs;
    const pathgate_allocator *a;
    pathgate_error *err;
    const char *entry; /* for messages */
    size_t entry_len;
    const char *list; /* "deny_read" / "deny_write" */
    int self;         /* the entry being compiled is self-only */
} compiler;

static int bad(compiler *c, const char *why)
{
    char q[96];
    quote(q, sizeof q, c->entry, c->entry_len);
    return pathgate__error_set(c->err, PATHGATE_ECONFIG, "%s entry '%s': %s", c->list, q, why);
}

static int push_text(compiler *c, const char *s, size_t len, uint32_t *off)
{
    pathgate__ruleset *rs = c->rs;
    if (rs->tlen + len + 1 > rs->tcap) {
        size_t cap = rs->tcap ? rs->tcap : 256;
        while (cap < rs->tlen + len + 1)
            cap *= 2;
        char *nt = pathgate__realloc(c->a, rs->text, cap);
        if (!nt)
            return PATHGATE_ENOMEM;
        rs->text = nt;
        rs->tcap = cap;
    }
    memcpy(rs->text + rs->tlen, s, len);
    *off = (uint32_t)rs->tlen;
    rs->tlen += len;
    rs->text[rs->tlen++] = '\0';
    return 0;
}

/* Checks one glob segment (classes closed, no dangling `\`) and tells
 * what kind it is. */
static int classify(compiler *c, const char *s, size_t len, int *kind)
{
    int special = 0;
    for (size_t i = 0; i < len; i++) {
        char ch = s[i];
        if (ch == '\\') {
            if (i + 1 == len)
                return bad(c, "ends in an escape character");
            i++;
            special = 1;
        } else if (ch == '*' || ch == '?') {
            special = 1;
        } else if (ch == '[') {
            size_t q = i;
            if (class_match(s, len, &q, 0) < 0)
                return bad(c, "a '[' is not closed");
            i = q - 1;
            special = 1;
        }
    }
    if (len == 2 && s[0] == '*' && s[1] == '*')
        *kind = SEG_GLOBSTAR;
    else if (!special)
        *kind = SEG_LIT;
    else {
        int all_stars = 1;
        for (size_t i = 0; i < len; i++)
            if (s[i] != '*')
                all_stars = 0;
        *kind = all_stars ? SEG_STAR : SEG_GLOB;
    }
    return 0;
}

/* One alternative (braces expanded) of an entry into a rule. */
static int add_rule(compiler *c, const char *s, size_t len, long base, int allow, size_t entry)
{
    pathgate__ruleset *rs = c->rs;
    int anchored = base >= 0, tree = 0;
    while (len && s[0] == '/') {
        anchored = 1;
        s++;
        len--;
    }
    while (len && s[len - 1] == '/') {
        tree = 1;
        len--;
    }
    int inner_slash = memchr(s, '/', len) != NULL;
    if (len == 0 && base < 0)
        return bad(c, "names nothing (write ** for everything)");
    size_t first = rs->nsegs;
    int last_globstar = 0;
    char folded[PATHGATE_PATH_MAX + 1];
    for (size_t i = 0; i <= len;) {
        size_t e = i;
        while (e < len && s[e] != '/')
            e++;
        const char *seg = s + i;
        size_t n = e - i;
        i = e + 1;
        if (n == 0 || (n == 1 && seg[0] == '.'))
            continue;
        if (n == 2 && seg[0] == '.' && seg[1] == '.')
            return bad(c, "'..' is not allowed in a pattern");
        int kind = SEG_LIT;
        int rc = classify(c, seg, n, &kind);
        if (rc < 0)
            return rc;
        if (kind == SEG_GLOBSTAR && last_globstar)
            continue;
        last_globstar = kind == SEG_GLOBSTAR;
        if (!allow) { /* what deny rules compare against: the folded form */
            n = fold_text(folded, seg, n);
            seg = folded;
            if (kind == SEG_LIT)
                n = trim_name(seg, n);
        }
        if (kind == SEG_GLOB && n > 1) { /* `*literal` and `literal*`: a comparison */
            int plain = 1;
            for (size_t k = 1; k + 1 < n && plain; k++)
                plain = !strchr("*?[\\", seg[k]);
            if (plain && seg[0] == '*' && !strchr("*?[\\", seg[n - 1])) {
                kind = SEG_SUFFIX;
                seg++;
                n--;
            } else if (plain && seg[n - 1] == '*' && !strchr("*?[\\", seg[0])) {
                kind = SEG_PREFIX;
                n--;
            }
        }
        if (rs->nsegs + 2 > rs->scap) {
            pseg *ns = pathgate__grow(c->a, rs->segs, &rs->scap, sizeof *ns, 16);
            if (!ns)
                return PATHGATE_ENOMEM;
            rs->segs = ns;
        }
        pseg *ps = &rs->segs[rs->nsegs++];
        ps->kind = (uint8_t)kind;
        ps->len = (uint32_t)n;
        if (push_text(c, seg, n, &ps->off) < 0)
            return PATHGATE_ENOMEM;
    }
    size_t nseg = rs->nsegs - first;
    if (nseg == 0 && base < 0)
        return bad(c, "names nothing (write ** for everything)");
    if (!anchored && !inner_slash && !(nseg && rs->segs[first].kind == SEG_GLOBSTAR)) {
        /* a name at any depth: ** in front */
        if (rs->nsegs + 1 > rs->scap) {
            pseg *ns = pathgate__grow(c->a, rs->segs, &rs->scap, sizeof *ns, 16);
            if (!ns)
                return PATHGATE_ENOMEM;
            rs->segs = ns;
        }
        memmove(&rs->segs[first + 1], &rs->segs[first], nseg * sizeof *rs->segs);
        rs->segs[first].kind = SEG_GLOBSTAR;
        rs->segs[first].off = 0;
        rs->segs[first].len = 2;
        rs->nsegs++;
        nseg++;
    }
    if (rs->nrules == rs->rcap) {
        prule *nr = pathgate__grow(c->a, rs->rules, &rs->rcap, sizeof *nr, 16);
        if (!nr)
            return PATHGATE_ENOMEM;
        rs->rules = nr;
    }
    prule *r = &rs->rules[rs->nrules++];
    r->seg = (uint32_t)first;
    r->nseg = (uint32_t)nseg;
    r->base = base;
    r->allow = (uint8_t)allow;
    r->tree = (uint8_t)tree;
    r->self = (uint8_t)(c->self && !allow);
    r->entry = (uint32_t)entry;
    r->shape = SHAPE_GENERAL;
    if (!allow && nseg == 2 && rs->segs[first].kind == SEG_GLOBSTAR)
        r->shape = SHAPE_ANY;
    r->need_first = r->need_last = 0;
    for (size_t k = first; k < first + nseg && !allow; k++) {
        const pseg *ps = &rs->segs[k];
        const char *t = rs->text + ps->off;
        if (ps->kind == SEG_GLOBSTAR)
            continue;
        if (ps->kind == SEG_LIT || ps->kind == SEG_PREFIX)
            r->need_first = BYTE_BIT(t[0]);
        if (ps->kind == SEG_LIT || ps->kind == SEG_SUFFIX)
            r->need_last = BYTE_BIT(t[ps->len - 1]);
        break; /* the first segment that is not ** must match some name */
    }
    return 0;
}

/* The first `{` with a top-level `,` before its `}` (not escaped, not in a
 * class): 1 and its span, 0 when there is none. */
static int find_braces(const char *s, size_t len, size_t *open, size_t *close)
{
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '\\') {
            i++;
            continue;
        }
        if (s[i] == '[') {
            size_t q = i;
            if (class_match(s, len, &q, 0) >= 0)
                i = q - 1;
            continue;
        }
        if (s[i] != '{')
            continue;
        int depth = 0, comma = 0;
        for (size_t k = i + 1; k < len; k++) {
            if (s[k] == '\\') {
                k++;
            } else if (s[k] == '{') {
                depth++;
            } else if (s[k] == '}') {
                if (depth-- == 0) {
                    if (comma) {
                        *open = i;
                        *close = k;
                        return 1;
                    }
                    break;
                }
            } else if (s[k] == ',' && depth == 0) {
                comma = 1;
            }
        }
    }
    return 0;
}

typedef struct expansion {
    compiler *c;
    long base;
    int allow;
    size_t entry;
    size_t count;
} expansion;

static int expand(expansion *x, const char *s, size_t len)
{
    size_t open, close;
    if (!find_braces(s, len, &open, &close)) {
        if (++x->count > PATHGATE__GLOB_MAX_ALTERNATIVES)
            return bad(x->c, "too many brace alternatives");
        return add_rule(x->c, s, len, x->base, x->allow, x->entry);
    }
    char *buf = pathgate__malloc(x->c->a, len + 1);
    if (!buf)
        return PATHGATE_ENOMEM;
    int rc = 0;
    size_t start = open + 1, depth = 0;
    for (size_t k = open + 1; k <= close && rc == 0; k++) {
        if (k < close && s[k] == '\\') {
            k++;
            continue;
        }
        if (k < close && s[k] == '{')
            depth++;
        else if (k < close && s[k] == '}')
            depth--;
        else if (k == close || (s[k] == ',' && depth == 0)) {
            size_t n = 0;
            memcpy(buf, s, open);
            n = open;
            memcpy(buf + n, s + start, k - start);
            n += k - start;
            memcpy(buf + n, s + close + 1, len - close - 1);
            n += len - close - 1;
            rc = expand(x, buf, n);
            start = k + 1;
        }
    }
    pathgate__free(x->c->a, buf);
    return rc;
}

static int note_base(compiler *c, long base)
{
    pathgate__ruleset *rs = c->rs;
    for (size_t i = 0; i < rs->nbases; i++)
        if (rs->bases[i] == base)
            return 0;
    if (rs->nbases == rs->bcap) {
        long *nb = pathgate__grow(c->a, rs->bases, &rs->bcap, sizeof *nb, 4);
        if (!nb)
            return PATHGATE_ENOMEM;
        rs->bases = nb;
    }
    rs->bases[rs->nbases++] = base;
    return 0;
}

static int compile_entry(compiler *c, const char *text, size_t len, size_t entry,
                         pathgate__base_lookup lookup, void *lookup_ctx)
{
    c->entry = text;
    c->entry_len = len;
    if (pathgate__text_check(text, len, PATHGATE_PATH_MAX, NULL) != 0)
        return bad(c, "not valid text (NUL byte, invalid UTF-8 or too long)");
    while (len && pathgate__is_space((unsigned char)text[0])) {
        text++;
        len--;
    }
    while (len && pathgate__is_space((unsigned char)text[len - 1]))
        len--;
    int allow = 0;
    if (len && text[0] == '!') {
        allow = 1;
        text++;
        len--;
    }
    if (len == 0)
        return bad(c, "empty pattern");
    long base = -1;
    int is_mod = len >= 4 && memcmp(text, "mod:", 4) == 0;
    if (is_mod || (len >= 5 && memcmp(text, "root:", 5) == 0)) {
        size_t ns = is_mod ? 4 : 5;
        const char *slash = memchr(text + ns, '/', len - ns);
        size_t nlen = (size_t)((slash ? slash : text + len) - (text + ns));
        base = lookup ? lookup(lookup_ctx, is_mod, text + ns, nlen) : -1;
        if (base < 0)
            return bad(c, is_mod ? "names no configured mod" : "names no configured root");
        size_t skip = ns + nlen;
        text += skip;
        len -= skip;
        int rc = note_base(c, base);
        if (rc < 0)
            return rc;
    } else {
        c->rs->has_global = 1;
    }
    expansion x = {c, base, allow, entry, 0};
    return expand(&x, text, len);
}

int pathgate__ruleset_compile(pathgate__ruleset **out, unsigned int denies,
                              const pathgate__rule_src *entries, size_t n,
                              pathgate__base_lookup lookup, void *lookup_ctx,
                              const pathgate_allocator *a, pathgate_error *err)
{
    *out = NULL;
    pathgate__ruleset *rs = pathgate__calloc(a, 1, sizeof *rs);
    if (!rs)
        return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
    rs->alloc = *a;
    rs->denies = denies;
    rs->entries = pathgate__calloc(a, n ? n : 1, sizeof *rs->entries);
    rs->sources = pathgate__calloc(a, n ? n : 1, sizeof *rs->sources);
    if (!rs->entries || !rs->sources) {
        pathgate__ruleset_free(rs);
        return pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
    }
    compiler c = {
        rs, a, err, NULL, 0, denies & PATHGATE_POLICY_DENY_READ ? "deny_read" : "deny_write", 0};
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        if (!entries[i].text) {
            rc = pathgate__error_set(err, PATHGATE_EINVAL, "%s entry #%zu is NULL", c.list, i + 1);
            break;
        }
        rs->entries[i] = pathgate__strndup(a, entries[i].text, entries[i].len);
        rs->sources[i] = entries[i].source;
        rs->nentries = i + 1;
        c.self = entries[i].self_only;
        if (!rs->entries[i]) {
            rc = PATHGATE_ENOMEM;
            break;
        }
        rc = compile_entry(&c, entries[i].text, entries[i].len, i, lookup, lookup_ctx);
    }
    if (rc == PATHGATE_ENOMEM)
        pathgate__error_set(err, rc, NULL);
    if (rc < 0) {
        pathgate__ruleset_free(rs);
        return rc;
    }
    *out = rs;
    return PATHGATE_OK;
}
