/*
 * fs_grep.c - grep: a line-based search (literal, or a PCRE2 regular
 * expression) over a contained, possibly parallel, walk.
 *
 * Each file is read in fixed GREP_CHUNK blocks into one buffer per thread;
 * a line that spans blocks is carried to the next one, and a line longer
 * than a block is searched in block-sized pieces (a literal match across
 * two pieces is still found; its text is cut to the piece). Memory is one
 * block per thread plus the matches, whatever the file sizes. Literal: a
 * memchr for the needle's rarest byte finds candidates, memrchr/memchr its
 * line, and newlines are counted (SWAR) only up to a match, so a file
 * without a match costs open + fstat + read + close and one pass. Regex
 * (and case-insensitive literal): the pattern is compiled and JIT-compiled
 * once per call and matched line by line, with a match limit. A NUL byte
 * marks a file binary: its matches are dropped and the rest of it is
 * skipped. Files larger than the search's max_file_size are skipped and
 * counted.
 */
#define _GNU_SOURCE
#define PCRE2_CODE_UNIT_WIDTH 8
#include <errno.h>
#include <fcntl.h>
#include <pcre2.h>
#include <pthread.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "alloc.h"
#include "error.h"
#include "fs_file.h"
#include "fs_policy.h"
#include "fs_result.h"
#include "fs_target.h"
#include "fs_text.h"
#include "glob.h"
#include "resolver_internal.h"
#include "text.h"
#include "walk.h"

#define GREP_CHUNK (256 * 1024)
/* Matches handed to a callback at a time. */
#define GREP_BATCH 256
/* Backtracking steps one line may cost a regular expression. */
#define GREP_MATCH_LIMIT 1000000

/*
 * The literal finder: memchr (vectorised in libc) for the needle's rarest
 * byte, then memcmp, which beats a general memmem on text. How common a
 * byte is in text and code, roughly (lower is rarer).
 */
static int byte_commonness(unsigned char c)
{
    static const char common[] = " etaoinsrhldcumfpgwybvk\n.,_()=;:\t-'\"/0123456789";
    const char *hit = c ? strchr(common, (char)c) : NULL;
    if (hit)
        return 1000 - (int)(hit - common);
    if (c >= 'a' && c <= 'z')
        return 500;
    if (c >= 'A' && c <= 'Z')
        return 300;
    if (c < 0x80)
        return 200;
    return 100;
}

typedef struct finder {
    const char *pat;
    size_t len;
    size_t rare; /* index of the rarest byte */
} finder;

static void finder_init(finder *f, const char *pat, size_t len)
{
    f->pat = pat;
    f->len = len;
    f->rare = 0;
    int best = 1 << 30;
    for (size_t i = 0; i < len; i++) {
        int score = byte_commonness((unsigned char)pat[i]);
        if (score < best) {
            best = score;
            f->rare = i;
        }
    }
}

static const char *finder_find(const finder *f, const char *hay, size_t n)
{
    if (n < f->len)
        return NULL;
    const unsigned char rare = (unsigned char)f->pat[f->rare];
    const char *p = hay + f->rare;
    const char *last = hay + (n - f->len) + f->rare; /* last place for the rare byte */
    size_t misses = 0;
    while (p <= last) {
        p = memchr(p, rare, (size_t)(last - p) + 1);
        if (!p)
            return NULL;
        const char *cand = p - f->rare;
        if (memcmp(cand, f->pat, f->len) == 0)
            return cand;
        /* the rare byte is not rare here: the general search does better */
        if (++misses > 16 && (size_t)(p - hay) < misses * 32)
            return pathgate__memmem(cand + 1, n - (size_t)(cand + 1 - hay), f->pat, f->len);
        p++;
    }
    return NULL;
}

typedef struct grep_ctx {
    const pathgate__fs_target *t;
    pathgate_fs_matches *out;
    const pathgate_allocator *a;
    const char *pat;
    size_t plen;
    finder find;
    pcre2_code *re; /* NULL: the literal finder */
    int req;        /* a byte every regex match holds, or -1 */
    size_t max_count;
    size_t file_cap; /* matches one file may add: max_count + 1 */
    uint64_t size_cap;
    int seq; /* one thread: visitor and emit run on the calling thread */
    pathgate_fs_match_cb cb;
    void *cb_ctx;
    size_t emitted;     /* matches handed to cb */
    pthread_mutex_t mu; /* guards err_set/err */
    int err_set;
    pathgate_error err; /* the first match-limit error */
} grep_ctx;

typedef struct grep_scratch {
    char *buf;
    pcre2_match_data *md;
    pcre2_match_context *mc;
} grep_scratch;

static int scratch_new(void *p, void **out)
{
    grep_ctx *c = p;
    grep_scratch *s = pathgate__calloc(c->a, 1, sizeof *s);
    if (!s)
        return PATHGATE_ENOMEM;
    *out = s;
    if (!(s->buf = pathgate__malloc(c->a, GREP_CHUNK)))
        return PATHGATE_ENOMEM;
    if (c->re) {
        s->md = pcre2_match_data_create_from_pattern(c->re, NULL);
        s->mc = pcre2_match_context_create(NULL);
        if (!s->md || !s->mc)
            return PATHGATE_ENOMEM;
        pcre2_set_match_limit(s->mc, GREP_MATCH_LIMIT);
        pcre2_set_depth_limit(s->mc, GREP_MATCH_LIMIT / 10);
    }
    return 0;
}

static void scratch_free(void *p, void *sp)
{
    grep_ctx *c = p;
    grep_scratch *s = sp;
    pathgate__free(c->a, s->buf);
    pcre2_match_data_free(s->md);
    pcre2_match_context_free(s->mc);
    pathgate__free(c->a, s);
}

static int sink_new(void *p, void **out)
{
    grep_ctx *c = p;
    pathgate_fs_matches *m = pathgate__calloc(c->a, 1, sizeof *m);
    if (!m)
        return PATHGATE_ENOMEM;
    m->alloc = *c->a;
    *out = m;
    return 0;
}

static void sink_free(void *p, void *sink)
{
    grep_ctx *c = p;
    pathgate_fs_matches_dispose(sink);
    pathgate__free(c->a, sink);
}

static int grep_emit(void *p, void *sink)
{
    grep_ctx *c = p;
    pathgate_fs_matches *m = sink;
    if (!c->cb)
        return pathgate__fs_matches_append(c->out, m, c->max_count) < 0 ? PATHGATE_ENOMEM
               : c->out->truncated                                      ? 1
                                                                        : 0;
    size_t room = c->max_count - c->emitted;
    size_t take = m->count < room ? m->count : room;
    int stop = m->count > take;
    c->emitted += take;
    /* the counts go to the summary, the items to the callback */
    c->out->unreadable_files += m->unreadable_files;
    c->out->skipped_large += m->skipped_large;
    c->out->files_scanned += m->files_scanned;
    if (stop)
        c->out->truncated = 1;
    if (take && c->cb(m->items, take, c->cb_ctx))
        return 1;
    return stop;
}

/* Records a match-limit error (the first wins) and returns its code. */
static int limit_error(grep_ctx *c, const char *path, size_t path_len, uint64_t line, int prc)
{
    pthread_mutex_lock(&c->mu);
    if (!c->err_set) {
        c->err_set = 1;
        if (prc == PCRE2_ERROR_MATCHLIMIT || prc == PCRE2_ERROR_DEPTHLIMIT ||
            prc == PCRE2_ERROR_JIT_STACKLIMIT || prc == PCRE2_ERROR_HEAPLIMIT)
            pathgate__error_set(&c->err, PATHGATE_ELIMIT,
                                "regular expression match limit exceeded on line %llu of '%.*s' "
                                "(simplify the pattern)",
                                (unsigned long long)line, (int)(path_len > 150 ? 150 : path_len),
                                path);
        else
            pathgate__error_set(&c->err, PATHGATE_EIO,
                                "regular expression failed on line %llu of "
                                "'%.*s' (PCRE2 error %d)",
                                (unsigned long long)line, (int)(path_len > 150 ? 150 : path_len),
                                path, prc);
    }
    int code = c->err.code;
    pthread_mutex_unlock(&c->mu);
    return code;
}

/* Pushes a match of line ls..le (terminator excluded). */
static int add_match(pathgate_fs_matches *m, size_t *file_left, const char *path, size_t path_len,
                     uint64_t line, const char *ls, const char *le)
{
    if (le > ls && le[-1] == '\r')
        le--; /* CRLF */
    int rc = pathgate__fs_matches_push(m, path, path_len, line, ls, (size_t)(le - ls));
    if (rc < 0)
        return rc;
    return --*file_left == 0 ? 1 : 0;
}

/* 1 when the regex matches subject[0..n); 0 no; negative: an error code. */
static int re_match(grep_ctx *c, grep_scratch *s, const char *subject, size_t n, uint32_t opts,
                    const char *path, size_t path_len, uint64_t line)
{
    int prc = pcre2_match(c->re, (PCRE2_SPTR)subject, n, 0, opts, s->md, s->mc);
    if (prc >= 0)
        return 1;
    if (prc == PCRE2_ERROR_NOMATCH || prc == PCRE2_ERROR_PARTIAL)
        return 0;
    return limit_error(c, path, path_len, line, prc);
}

/*
 * Searches the complete lines buf[0..end) whose first line is *line_no.
 * Updates *line_no to the line after them (only when `need_count`). 0, 1
 * (this file's cap reached), or a negative code.
 */
static int search_region(grep_ctx *c, grep_scratch *s, pathgate_fs_matches *m, size_t *file_left,
                         const char *path, size_t path_len, const char *buf, size_t end,
                         uint64_t *line_no, int need_count)
{
    const char *p = buf, *stop = buf + end;
    uint64_t line = *line_no;
    int rc = 0;
    if (c->re) {
        int last_unterminated = 0;
        while (p < stop) {
            if (c->req >= 0) {
                /* a line without the byte every match holds cannot match */
                const char *hit = memchr(p, c->req, (size_t)(stop - p));
                if (!hit) {
                    line += pathgate__fs_count_newlines(p, (size_t)(stop - p));
                    break;
                }
                const char *nl0 = pathgate__memrchr(p, '\n', (size_t)(hit - p));
                if (nl0) {
                    line += pathgate__fs_count_newlines(p, (size_t)(nl0 + 1 - p));
                    p = nl0 + 1;
                }
            }
            const char *nl = memchr(p, '\n', (size_t)(stop - p));
            const char *le = nl ? nl : stop;
            const char *ce = le > p && le[-1] == '\r' ? le - 1 : le;
            if ((rc = re_match(c, s, p, (size_t)(ce - p), 0, path, path_len, line)) < 0)
                return rc;
            if (rc && (rc = add_match(m, file_left, path, path_len, line, p, le)) != 0)
                return rc;
            line++;
            last_unterminated = !nl;
            p = nl ? nl + 1 : stop;
        }
        if (last_unterminated)
            line--; /* the last line has no terminator: not counted */
        *line_no = line;
        return 0;
    }
    const char *counted = buf;
    while (p < stop) {
        const char *mt;
        if (c->plen == 0)
            mt = p;
        else if (!(mt = finder_find(&c->find, p, (size_t)(stop - p))))
            break;
        /* p is always at a line start */
        const char *ls = pathgate__memrchr(p, '\n', (size_t)(mt - p));
        ls = ls ? ls + 1 : p;
        const char *le = memchr(mt, '\n', (size_t)(stop - mt));
        if (!le)
            le = stop;
        line += pathgate__fs_count_newlines(counted, (size_t)(ls - counted));
        if ((rc = add_match(m, file_left, path, path_len, line, ls, le)) != 0)
            return rc;
        if (le == stop) {
            counted = stop;
            p = stop;
            break;
        }
        p = le + 1;
        counted = p;
        line++;
    }
    if (need_count)
        line += pathgate__fs_count_newlines(counted, (size_t)(stop - counted));
    *line_no = line;
    return 0;
}

/* Searches one piece piece[0..n) of a line longer than a block: 1 when it
 * matched (the match is pushed, its text cut to the piece), 0 no, or a
 * negative code. */
static int search_piece(grep_ctx *c, grep_scratch *s, pathgate_fs_matches *m, size_t *file_left,
                        const char *path, size_t path_len, const char *piece, size_t n,
                        uint64_t line, int not_bol, int not_eol)
{
    int hit;
    if (c->re) {
        const char *ce = !not_eol && n && piece[n - 1] == '\r' ? piece + n - 1 : piece + n;
        hit = re_match(c, s, piece, (size_t)(ce - piece),
                       (not_bol ? PCRE2_NOTBOL : 0) | (not_eol ? PCRE2_NOTEOL : 0), path, path_len,
                       line);
        if (hit < 0)
            return hit;
    } else
        hit = c->plen == 0 || finder_find(&c->find, piece, n) != NULL;
    if (!hit)
        return 0;
    int rc = add_match(m, file_left, path, path_len, line, piece, piece + n);
    return rc < 0 ? rc : rc == 1 ? 2 : 1;
}

/* Searches the regular file fd. 0, 1 (this file's cap reached) or a
 * negative code. */
static int search_fd(grep_ctx *c, grep_scratch *s, pathgate_fs_matches *m, int fd,
                     const pathgate__os_stat *st, const char *path, size_t path_len)
{
    const size_t first = m->count;
    const uint64_t size = st->size > 0 ? (uint64_t)st->size : 0;
    size_t file_left = c->file_cap;
    uint64_t got = 0, line = 1;
    size_t carry = 0;
    int in_long = 0, long_hit = 0;
    int bom_seen = 0; /* the start of the file was looked at */
    /* a literal match may straddle two pieces of a long line */
    const size_t overlap = c->re ? 0 : c->plen ? c->plen - 1 : 0;
    char *buf = s->buf;
    m->files_scanned++;
    for (;;) {
        int64_t r = pathgate__os_read(fd, buf + carry, GREP_CHUNK - carry);
        if (r < 0) {
            m->unreadable_files++; /* what was read is searched */
            r = 0;
        }
        got += (uint64_t)r;
        /* fstat's size saves the read that would answer 0 */
        const int eof = r == 0 || got >= size;
        if (r > 0 && memchr(buf + carry, '\0', (size_t)r)) {
            m->count = first; /* binary: forget this file's matches */
            return 0;
        }
        size_t n = carry + (size_t)r;
        if (!bom_seen && (n >= 3 || eof)) {
            /* A UTF-8 byte-order mark is not text (ripgrep's default): `^`
             * matches the first line after it, and no match's text holds
             * it. Line numbers are not affected. */
            bom_seen = 1;
            if (n >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0) {
                memmove(buf, buf + 3, n - 3);
                n -= 3;
            }
        }
        size_t end = n;
        int rc;
        if (!eof) {
            const char *last = pathgate__memrchr(buf, '\n', n);
            if (!last && n < GREP_CHUNK) {
                carry = n;
                continue;
            }
            if (!last) {
                /* a piece of a line longer than the block */
                if (!long_hit) {
                    rc =
                        search_piece(c, s, m, &file_left, path, path_len, buf, n, line, in_long, 1);
                    if (rc < 0 || rc == 2)
                        return rc < 0 ? rc : 1;
                    long_hit = rc;
                }
                size_t keep = overlap < n ? overlap : 0;
                memmove(buf, buf + n - keep, keep);
                carry = keep;
                in_long = 1;
                continue;
            }
            end = (size_t)(last - buf) + 1;
        }
        size_t from = 0;
        if (in_long) {
            /* the rest of the long line, up to its terminator */
            const char *nl = memchr(buf, '\n', end);
            size_t piece = nl ? (size_t)(nl - buf) : end;
            if (!long_hit) {
                rc = search_piece(c, s, m, &file_left, path, path_len, buf, piece, line, 1, 0);
                if (rc < 0 || rc == 2)
                    return rc < 0 ? rc : 1;
            }
            line++;
            from = nl ? piece + 1 : end;
            in_long = long_hit = 0;
        }
        rc =
            search_region(c, s, m, &file_left, path, path_len, buf + from, end - from, &line, !eof);
        if (rc)
            return rc;
        if (eof)
            return 0;
        carry = n - end;
        memmove(buf, buf + end, carry);
    }
}

static int grep_visit(void *p, void *sp, void *sink, const pathgate__walk_file *f)
{
    grep_ctx *c = p;
    pathgate_fs_matches *m = sink;
    int fd;
    if (f->is_link)
        fd = pathgate__fs_open(c->t, f->rel, O_RDONLY | O_NONBLOCK | O_NOCTTY, 0);
    else
        fd = pathgate__os_openat(f->dirfd, f->name,
                                 O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC, 0);
    if (fd < 0) {
        int e = -fd;
        if (e != ENOENT && e != ELOOP && e != EXDEV)
            m->unreadable_files++; /* gone or replaced by a link is no loss */
        return 0;
    }
    pathgate__os_stat st;
    int rc = 0;
    if (pathgate__os_statat(fd, "", 0, &st) == 0 && st.type == PATHGATE__OS_T_REG) {
        if ((uint64_t)st.size > c->size_cap)
            m->skipped_large++;
        else
            rc = search_fd(c, sp, m, fd, &st, f->path, f->path_len);
    }
    pathgate__os_close(fd);
    if (rc < 0)
        return rc;
    /* enough for this task (or, one thread, for the whole call) */
    if (m->count + (c->seq ? c->emitted : 0) > c->max_count)
        return 1;
    if (c->cb && c->seq && m->count >= GREP_BATCH)
        return 2;
    return 0;
}

/* A byte that every match must hold (PCRE2's "last code unit"), for the
 * line prefilter; -1 when there is none, or when caseless matching (the
 * option, or an inline "(?" group that may set it) could make it a
 * different byte. */
static int required_byte(const pcre2_code *re, const char *pattern, size_t len, unsigned int flags)
{
    if (!re || (flags & PATHGATE_FS_SEARCH_IGNORE_CASE) ||
        pathgate__memmem(pattern, len, "(?", 2) || pathgate__memmem(pattern, len, "(*", 2))
        return -1;
    uint32_t type = 0, unit = 0;
    if (pcre2_pattern_info(re, PCRE2_INFO_LASTCODETYPE, &type) != 0 || type != 1 ||
        pcre2_pattern_info(re, PCRE2_INFO_LASTCODEUNIT, &unit) != 0 || unit > 0xFF ||
        unit == '\n' || unit == '\r')
        return -1;
    return (int)unit;
}

/* Compiles the regular expression (or the case-insensitive literal). */
static int compile(pcre2_code **out, const char *pattern, size_t len, unsigned int flags,
                   pathgate_error *err)
{
    uint32_t o = PCRE2_UTF | PCRE2_MATCH_INVALID_UTF;
    if (!(flags & PATHGATE_FS_SEARCH_REGEX))
        o |= PCRE2_LITERAL;
    if (flags & PATHGATE_FS_SEARCH_IGNORE_CASE)
        o |= PCRE2_CASELESS;
    int ecode;
    PCRE2_SIZE eoff;
    pcre2_code *re = pcre2_compile((PCRE2_SPTR)(len ? pattern : ""), len, o, &ecode, &eoff, NULL);
    if (!re) {
        PCRE2_UCHAR msg[160];
        if (pcre2_get_error_message(ecode, msg, sizeof msg) < 0)
            strcpy((char *)msg, "unknown error");
        return pathgate__error_set(err, PATHGATE_EINVAL,
                                   "invalid regular expression at offset %zu: %s", (size_t)eoff,
                                   (const char *)msg);
    }
    (void)pcre2_jit_compile(re, PCRE2_JIT_COMPLETE); /* the interpreter if JIT is missing */
    *out = re;
    return 0;
}

/* A file operand: searched alone, on this thread. 0 or a failure (err
 * filled, here or in c->err). */
static int grep_file(grep_ctx *c, int fd, const pathgate__os_stat *st, pathgate_error *err)
{
    void *s = NULL, *sink = NULL;
    int rc;
    c->seq = 1;
    if ((rc = scratch_new(c, &s)) == 0 && (rc = sink_new(c, &sink)) == 0) {
        if ((uint64_t)st->size > c->size_cap)
            ((pathgate_fs_matches *)sink)->skipped_large++;
        else
            rc = search_fd(c, s, sink, fd, st, c->t->address, c->t->address_len);
        if (rc >= 0)
            rc = grep_emit(c, sink);
    }
    if (s)
        scratch_free(c, s);
    if (sink)
        sink_free(c, sink);
    if (rc == 1)
        rc = 0;
    if (rc < 0 && !c->err_set)
        pathgate__error_set(err, rc, NULL);
    return rc;
}

/* A directory operand: walked (fs_walk_plan.c), each file searched by
 * grep_visit, the walk's counts copied to the result. */
static int grep_tree(grep_ctx *c, const pathgate__glob *g, unsigned int threads,
                     pathgate_error *err)
{
    pathgate__walk w;
    memset(&w, 0, sizeof w);
    w.t = c->t;
    w.glob = g;
    w.threads = threads;
    w.ctx = c;
    w.scratch_new = scratch_new;
    w.scratch_free = scratch_free;
    w.sink_new = sink_new;
    w.sink_free = sink_free;
    w.visit = grep_visit;
    w.emit = grep_emit;
    int rc = pathgate__fs_walk(&w, err);
    c->out->truncated |= w.stats.truncated;
    c->out->unreadable_dirs = w.stats.unreadable_dirs;
    c->out->skipped_names = w.stats.skipped_names;
    c->out->skipped_denied = w.stats.skipped_denied;
    return rc;
}

static int grep_one(pathgate_fs_matches *out, pathgate_resolver *resolver, const char *pattern,
                    size_t pattern_len, const char *address, size_t address_len,
                    pathgate_fs_match_cb cb, void *cb_ctx, const pathgate_fs_search_options *opts,
                    pathgate_error *err)
{
    if (!out || (!pattern && pattern_len))
        return pathgate__error_set(err, PATHGATE_EINVAL, "invalid argument");
    memset(out, 0, sizeof *out);
    int rc = pathgate__fs_search_check(opts, err);
    if (rc < 0)
        return rc;
    if (pattern_len && (memchr(pattern, '\n', pattern_len) || memchr(pattern, '\r', pattern_len)))
        return pathgate__error_set(err, PATHGATE_EINVAL,
                                   "grep pattern must not contain a line break");
    const unsigned int flags = opts ? opts->flags : 0;
    const char *glob = opts ? opts->glob : NULL;
    const size_t max_count = opts ? opts->max_count : PATHGATE_FS_NO_LIMIT;
    pcre2_code *re = NULL;
    if ((flags & (PATHGATE_FS_SEARCH_REGEX | PATHGATE_FS_SEARCH_IGNORE_CASE)) &&
        (rc = compile(&re, pattern, pattern_len, flags, err)) < 0)
        return rc;
    pathgate__fs_target t;
    if ((rc = pathgate__fs_target_of(&t, "grep", resolver, PATHGATE__FS_OF(opts), address,
                                     address_len, err)) < 0) {
        pcre2_code_free(re);
        return rc;
    }
    out->alloc = *t.alloc;
    pathgate__glob *g = NULL;
    if (glob && (rc = pathgate__glob_compile(&g, glob, opts->glob_len, t.alloc, err)) < 0) {
        pcre2_code_free(re);
        memset(out, 0, sizeof *out);
        return rc;
    }
    unsigned int threads = pathgate__fs_threads(opts);
    grep_ctx c;
    memset(&c, 0, sizeof c);
    c.t = &t;
    c.out = out;
    c.a = t.alloc;
    c.pat = pattern;
    c.plen = pattern_len;
    c.re = re;
    c.req = required_byte(re, pattern, pattern_len, flags);
    c.max_count = max_count;
    c.file_cap = max_count == PATHGATE_FS_NO_LIMIT ? max_count : max_count + 1;
    c.size_cap = pathgate__fs_grep_max_file(opts);
    c.seq = threads == 1;
    c.cb = cb;
    c.cb_ctx = cb_ctx;
    finder_init(&c.find, pattern, pattern_len);
    pthread_mutex_init(&c.mu, NULL);

    /* a file operand is searched alone; a directory is walked */
    int fd = pathgate__fs_open(&t, NULL, O_RDONLY | O_NONBLOCK | O_NOCTTY, 0);
    pathgate__os_stat st;
    if (fd < 0) {
        rc = pathgate__fs_fail_errno(err, fd, &t, PATHGATE__FS_DIRECTORY);
        goto done;
    }
    if (pathgate__os_statat(fd, "", 0, &st) < 0) {
        rc = pathgate__fs_fail_errno(err, -errno, &t, PATHGATE__FS_DIRECTORY);
        pathgate__os_close(fd);
        goto done;
    }
    if (st.type == PATHGATE__OS_T_REG) {
        rc = grep_file(&c, fd, &st, err);
        pathgate__os_close(fd);
        goto done;
    }
    pathgate__os_close(fd);
    if (st.type != PATHGATE__OS_T_DIR) {
        rc = pathgate__fs_fail(err, PATHGATE_ENOTREG, &t, PATHGATE__FS_FILE);
        goto done;
    }
    rc = grep_tree(&c, g, threads, err);

done:
    if (rc < 0 && c.err_set && err)
        *err = c.err;
    pthread_mutex_destroy(&c.mu);
    pathgate__glob_free(g);
    pcre2_code_free(re);
    if (rc < 0) {
        pathgate_fs_matches_dispose(out);
        return rc;
    }
    out->incomplete = out->unreadable_dirs || out->unreadable_files || out->skipped_names ||
                      out->skipped_large || out->skipped_denied;
    pathgate__fs_audit_hidden(&t, out->skipped_denied);
    return rc;
}

/* The caller's callback, counting what it was handed and whether it asked
 * to stop (all_bases: the next base is not searched then). */
typedef struct counting_cb {
    pathgate_fs_match_cb cb;
    void *ctx;
    size_t n;
    int stopped;
} counting_cb;

static int count_matches(const pathgate_fs_match *items, size_t count, void *ctx)
{
    counting_cb *w = ctx;
    w->n += count;
    int rc = w->cb(items, count, w->ctx);
    if (rc)
        w->stopped = 1;
    return rc;
}

/* grep_one, or with PATHGATE_FS_SEARCH_ALL_BASES every base in turn (roots,
 * then mods, in configuration order), max_count counting over all. */
static int grep_run(pathgate_fs_matches *out, pathgate_resolver *resolver, const char *pattern,
                    size_t pattern_len, const char *address, size_t address_len,
                    pathgate_fs_match_cb cb, void *cb_ctx, const pathgate_fs_search_options *opts,
                    pathgate_error *err)
{
    if (!opts || !(opts->flags & PATHGATE_FS_SEARCH_ALL_BASES))
        return grep_one(out, resolver, pattern, pattern_len, address, address_len, cb, cb_ctx, opts,
                        err);
    if (!resolver && opts->fs.session) /* a session's operation */
        resolver = pathgate_session_resolver(opts->fs.session);
    if (!out || !resolver)
        return pathgate__error_set(err, PATHGATE_EINVAL, "invalid argument");
    memset(out, 0, sizeof *out);
    if (address || address_len)
        return pathgate__error_set(err, PATHGATE_EINVAL,
                                   "grep: all_bases searches every base and takes no path");
    out->alloc = *pathgate__resolver_allocator(resolver);
    pathgate_fs_search_options one = *opts;
    one.flags &= ~PATHGATE_FS_SEARCH_ALL_BASES;
    counting_cb w = {cb, cb_ctx, 0, 0};
    for (size_t i = 0; i < pathgate__resolver_base_count(resolver); i++) {
        const char *base = pathgate__resolver_base_address(resolver, i);
        size_t total = cb ? w.n : out->count;
        if (opts->max_count != PATHGATE_FS_NO_LIMIT)
            one.max_count = opts->max_count - total;
        pathgate_fs_matches part;
        int rc = grep_one(&part, resolver, pattern, pattern_len, base, strlen(base),
                          cb ? count_matches : NULL, cb ? &w : NULL, &one, err);
        if (rc < 0) {
            pathgate_fs_matches_dispose(out);
            return rc;
        }
        /* the counts append does not carry */
        out->unreadable_dirs += part.unreadable_dirs;
        out->skipped_names += part.skipped_names;
        out->skipped_denied += part.skipped_denied;
        out->incomplete |= part.incomplete;
        rc = pathgate__fs_matches_append(out, &part, opts->max_count);
        pathgate_fs_matches_dispose(&part);
        if (rc < 0) {
            pathgate_fs_matches_dispose(out);
            return pathgate__error_set(err, rc, NULL);
        }
        if (out->truncated || w.stopped)
            break;
    }
    return 0;
}

int pathgate_fs_grep(pathgate_fs_matches *out, pathgate_resolver *resolver, const char *pattern,
                     size_t pattern_len, const char *address, size_t address_len,
                     const pathgate_fs_search_options *opts, pathgate_error *err)
{
    return grep_run(out, resolver, pattern, pattern_len, address, address_len, NULL, NULL, opts,
                    err);
}

int pathgate_fs_grep_each(pathgate_fs_matches *summary, pathgate_resolver *resolver,
                          const char *pattern, size_t pattern_len, const char *address,
                          size_t address_len, pathgate_fs_match_cb cb, void *cb_ctx,
                          const pathgate_fs_search_options *opts, pathgate_error *err)
{
    if (!cb)
        return pathgate__error_set(err, PATHGATE_EINVAL, "invalid argument");
    return grep_run(summary, resolver, pattern, pattern_len, address, address_len, cb, cb_ctx, opts,
                    err);
}
