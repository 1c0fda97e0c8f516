/* fuzz_address.c - the resolver's address parser (pathgate__address_parse)
 * on arbitrary bytes, against a fixed set of roots and mods. Every input
 * parses to a reason of the table; an address it accepts builds a
 * canonical form (or is refused as escaping / too long) that is itself an
 * exactly canonical address: split accepts it, it parses back to the same
 * base, and, when the walks would list every name of it, building it
 * again gives the same bytes (normalisation is idempotent). */
#include "fuzz_common.h"
/* core/src is not on the fuzzers' include path */
#include "../core/src/lex/address.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const roots[] = {"repo", "game", "ck3raven_data", "r"};
/* valid mod names only (the resolver refuses others when it is built) */
static const char *const mods[] = {"Some Mod", "Some", "\xC3\xBCn\xC3\xAF", "A\\B", "m"};
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static long find(const char *const *set, size_t n, const char *s, size_t len)
{
    for (size_t i = 0; i < n; i++)
        if (strlen(set[i]) == len && memcmp(set[i], s, len) == 0)
            return (long)i;
    return -1;
}
static long find_root(void *ctx, const char *s, size_t len)
{
    (void)ctx;
    return find(roots, COUNT(roots), s, len);
}
static long find_mod(void *ctx, const char *s, size_t len)
{
    (void)ctx;
    return find(mods, COUNT(mods), s, len);
}
static const pathgate__names names = {find_root, find_mod, NULL};

/* <rel> of a canonical address: no empty, `.` or `..` segment, no `\`. */
static void check_rel(const char *rel, size_t len, const char *addr)
{
    FZ_CHECK(!memchr(rel, '\\', len), "backslash in %s", addr);
    size_t i = 0;
    while (i < len) {
        size_t e = i;
        while (e < len && rel[e] != '/')
            e++;
        size_t n = e - i;
        FZ_CHECK(n > 0, "empty segment in %s", addr);
        FZ_CHECK(!(n == 1 && rel[i] == '.') && !(n == 2 && rel[i] == '.' && rel[i + 1] == '.'),
                 "dot segment in %s", addr);
        i = e + 1;
        FZ_CHECK(e == len || i < len, "trailing slash in %s", addr);
    }
}

/* 1 when every name of <rel> is one ls, glob and grep list. */
static int rel_listable(const char *rel, size_t len)
{
    for (size_t i = 0; i < len;) {
        size_t e = i;
        while (e < len && rel[e] != '/')
            e++;
        if (!pathgate__address_name_listable(rel + i, e - i))
            return 0;
        i = e + 1;
    }
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    pathgate__parsed p;
    pathgate_reason r = pathgate__address_parse(&p, text, size, &names, PATHGATE_CONVENTION_POSIX);
    FZ_CHECK(r >= PATHGATE_REASON_OK && r < PATHGATE__REASON_LAST, "reason %d", (int)r);
    /* a Windows host reads host paths its own way, and addresses alike */
    pathgate__parsed pw;
    pathgate_reason rw =
        pathgate__address_parse(&pw, text, size, &names, PATHGATE_CONVENTION_WINDOWS);
    FZ_CHECK(rw >= PATHGATE_REASON_OK && rw < PATHGATE__REASON_LAST, "reason %d", (int)rw);
    if (r == PATHGATE_REASON_OK && p.form == PATHGATE__FORM_ADDRESS)
        FZ_CHECK(rw == r && pw.form == p.form && pw.index == p.index && pw.is_mod == p.is_mod &&
                     pw.text == p.text && pw.len == p.len,
                 "an address reads otherwise on a Windows host");
    if (rw == PATHGATE_REASON_OK)
        FZ_CHECK(pw.text >= text && pw.text + pw.len <= text + size,
                 "parsed text outside the input");
    FZ_CHECK(strcmp(pathgate_reason_name(r), "") != 0, "unnamed reason %d", (int)r);
    if (r != PATHGATE_REASON_OK)
        return 0;
    FZ_CHECK(p.text >= text && p.text + p.len <= text + size, "parsed text outside the input");
    if (p.form != PATHGATE__FORM_ADDRESS)
        return 0;
    const char *name = p.is_mod ? mods[p.index] : roots[p.index];
    FZ_CHECK(p.index >= 0 && (size_t)p.index < (p.is_mod ? COUNT(mods) : COUNT(roots)), "index %ld",
             p.index);

    char buf[PATHGATE_PATH_MAX + 64];
    size_t len = 0, rel_off = 0;
    r = pathgate__address_build(buf, sizeof buf, &len, &rel_off, p.is_mod, name, strlen(name), "",
                                0, p.text, p.len);
    if (r != PATHGATE_REASON_OK) {
        FZ_CHECK(r == PATHGATE_REASON_ESCAPES_ROOT || r == PATHGATE_REASON_TOO_LONG, "build: %s",
                 pathgate_reason_name(r));
        return 0;
    }
    FZ_CHECK(strlen(buf) == len && rel_off <= len, "build length");
    const char *prefix = p.is_mod ? "mod:" : "root:";
    FZ_CHECK(strncmp(buf, prefix, strlen(prefix)) == 0, "prefix of %s", buf);
    FZ_CHECK(rel_off == len || buf[rel_off - 1] == '/', "rel offset in %s", buf);
    check_rel(buf + rel_off, len - rel_off, buf);

    /* exactly canonical: split accepts it, naming the same base and rel */
    int is_mod = -1;
    long index = -1;
    const char *rel = NULL;
    size_t rel_len = 0;
    FZ_CHECK(pathgate__address_split(&is_mod, &index, &rel, &rel_len, buf, len, &names) == 0,
             "split refuses %s", buf);
    FZ_CHECK(is_mod == p.is_mod && index == p.index, "split names another base: %s", buf);
    FZ_CHECK(rel_len == len - rel_off && memcmp(rel, buf + rel_off, rel_len) == 0,
             "split rel of %s", buf);

    /* and a fixed point: parse + build give the same bytes again, for
     * every address a walk can show, i.e. whose names are all listable
     * (the walks skip the others: a name with whitespace at either end,
     * `x `, would read back as another, docs/spec.md section 4). */
    if (!rel_listable(buf + rel_off, len - rel_off))
        return 0;
    pathgate__parsed q;
    r = pathgate__address_parse(&q, buf, len, &names, PATHGATE_CONVENTION_POSIX);
    FZ_CHECK(r == PATHGATE_REASON_OK && q.form == PATHGATE__FORM_ADDRESS, "%s does not parse: %s",
             buf, pathgate_reason_name(r));
    FZ_CHECK(q.is_mod == p.is_mod && q.index == p.index, "reparse names another base: %s", buf);
    char again[sizeof buf];
    size_t len2 = 0, off2 = 0;
    r = pathgate__address_build(again, sizeof again, &len2, &off2, q.is_mod, name, strlen(name), "",
                                0, q.text, q.len);
    FZ_CHECK(r == PATHGATE_REASON_OK && len2 == len && memcmp(again, buf, len) == 0,
             "not idempotent: %s -> %s", buf, again);
    return 0;
}
