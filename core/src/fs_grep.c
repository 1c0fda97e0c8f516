/*
 * fs_grep.c - grep: a literal, line-based search over a contained walk.
 *
 * Each file is read into one reused buffer in large chunks; memmem finds a
 * match, memrchr/memchr its line, and newlines are counted (SWAR) only up
 * to a match or when a chunk is left behind, so a file without a match
 * costs open + fstat + read + close and one memmem/memchr pass. No
 * allocation happens per line; a match copies its line into the result
 * arena. A NUL byte marks a file binary: its matches are dropped and the
 * rest of it is skipped.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "alloc.h"
#include "error.h"
#include "fs_internal.h"
#include "glob.h"

#define GREP_CHUNK (256 * 1024)

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
            return memmem(cand + 1, n - (size_t)(cand + 1 - hay), f->pat, f->len);
        p++;
    }
    return NULL;
}

typedef struct grep_ctx {
    const pathgate__fs_target *t;
    pathgate_fs_matches *out;
    const char *pat;
    size_t plen;
    finder find;
    size_t max_count;
    char *buf;
    size_t cap;
    int done; /* the cap was reached */
} grep_ctx;

/* Pushes a match; 1 when the cap stops the search first. */
static int add_match(grep_ctx *c, const char *path, size_t path_len, uint64_t line,
                     const char *ls, const char *le)
{
    if (c->out->count >= c->max_count) {
        c->out->truncated = 1;
        c->done = 1;
        return 1;
    }
    if (le > ls && le[-1] == '\r')
        le--; /* CRLF */
    return pathgate__fs_matches_push(c->out, path, path_len, line, ls, (size_t)(le - ls));
}

/*
 * Searches the complete lines buf[0..end) whose first line is *line_no.
 * Updates *line_no to the line after them (only when `need_count`). 0, 1
 * (cap reached), or ENOMEM.
 */
static int search_region(grep_ctx *c, const char *path, size_t path_len, const char *buf,
                         size_t end, uint64_t *line_no, int need_count)
{
    const char *p = buf, *stop = buf + end;
    const char *counted = buf;
    uint64_t line = *line_no;
    int rc = 0;
    while (p < stop) {
        const char *m;
        if (c->plen == 0)
            m = p;
        else if (!(m = finder_find(&c->find, p, (size_t)(stop - p))))
            break;
        /* p is always at a line start */
        const char *ls = memrchr(p, '\n', (size_t)(m - p));
        ls = ls ? ls + 1 : p;
        const char *le = memchr(m, '\n', (size_t)(stop - m));
        if (!le)
            le = stop;
        line += pathgate__fs_count_newlines(counted, (size_t)(ls - counted));
        if ((rc = add_match(c, path, path_len, line, ls, le)) != 0)
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

/* Searches the regular file fd. 0, 1 (cap reached) or ENOMEM. */
static int search_fd(grep_ctx *c, int fd, const struct stat *st, const char *path,
                     size_t path_len)
{
    const size_t first = c->out->count;
    const uint64_t size = st->st_size > 0 ? (uint64_t)st->st_size : 0;
    uint64_t got = 0, line = 1;
    size_t carry = 0;
    for (;;) {
        if (carry == c->cap) {
            /* one line longer than the buffer: grow it */
            char *nb = pathgate__realloc(&c->out->alloc, c->buf, c->cap * 2);
            if (!nb)
                return PATHGATE_ENOMEM;
            c->buf = nb;
            c->cap *= 2;
        }
        ssize_t r = read(fd, c->buf + carry, c->cap - carry);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            r = 0; /* unreadable from here: what was read is searched */
        }
        got += (uint64_t)r;
        /* fstat's size saves the read that would answer 0 */
        const int eof = r == 0 || got >= size;
        if (r > 0 && memchr(c->buf + carry, '\0', (size_t)r)) {
            /* binary: forget this file's matches */
            c->out->count = first;
            return 0;
        }
        size_t n = carry + (size_t)r;
        size_t end = n;
        if (!eof) {
            const char *last = memrchr(c->buf, '\n', n);
            if (!last) {
                carry = n;
                continue;
            }
            end = (size_t)(last - c->buf) + 1;
        }
        int rc = search_region(c, path, path_len, c->buf, end, &line, !eof);
        if (rc)
            return rc;
        if (eof)
            return 0;
        carry = n - end;
        memmove(c->buf, c->buf + end, carry);
    }
}

static int grep_visit(void *p, const pathgate__walk_file *f)
{
    grep_ctx *c = p;
    int fd;
    if (f->is_link)
        fd = pathgate__fs_open(c->t, f->rel, O_RDONLY | O_NONBLOCK | O_NOCTTY, 0);
    else
        fd = openat(f->dirfd, f->name, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return 0; /* gone, unreadable, replaced by a link: skipped */
    struct stat st;
    int rc = 0;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
        rc = search_fd(c, fd, &st, f->path, f->path_len);
    close(fd);
    return rc;
}

int pathgate_fs_grep(pathgate_fs_matches *out, pathgate_resolver *resolver, const char *pattern,
                     size_t pattern_len, const char *address, size_t address_len,
                     const char *glob, size_t glob_len, size_t max_count,
                     const pathgate_fs_options *opts, pathgate_error *err)
{
    if (!out || (!pattern && pattern_len))
        return pathgate__error_set(err, PATHGATE_EINVAL, "invalid argument");
    memset(out, 0, sizeof *out);
    if (pattern_len && (memchr(pattern, '\n', pattern_len) || memchr(pattern, '\r', pattern_len)))
        return pathgate__error_set(err, PATHGATE_EINVAL,
                                   "grep pattern must not contain a line break");
    pathgate__fs_target t;
    int rc = pathgate__fs_target_of(&t, resolver, opts, address, address_len, err);
    if (rc < 0)
        return rc;
    out->alloc = *t.alloc;
    pathgate__glob *g = NULL;
    if (glob && (rc = pathgate__glob_compile(&g, glob, glob_len, t.alloc, err)) < 0) {
        memset(out, 0, sizeof *out);
        return rc;
    }
    grep_ctx c = {&t, out, pattern, pattern_len, {NULL, 0, 0}, max_count, NULL, GREP_CHUNK, 0};
    finder_init(&c.find, pattern, pattern_len);
    c.buf = pathgate__malloc(t.alloc, c.cap);
    if (!c.buf) {
        rc = pathgate__error_set(err, PATHGATE_ENOMEM, NULL);
        goto done;
    }

    /* a file operand is searched alone; a directory is walked */
    int fd = pathgate__fs_open(&t, NULL, O_RDONLY | O_NONBLOCK | O_NOCTTY, 0);
    if (fd < 0) {
        rc = pathgate__fs_fail_errno(err, fd, &t, PATHGATE__FS_DIRECTORY);
        goto done;
    }
    struct stat st;
    if (fstat(fd, &st) < 0) {
        rc = pathgate__fs_fail_errno(err, -errno, &t, PATHGATE__FS_DIRECTORY);
        close(fd);
        goto done;
    }
    if (S_ISREG(st.st_mode)) {
        rc = search_fd(&c, fd, &st, t.address, t.address_len);
        close(fd);
        if (rc == 1)
            rc = 0;
        if (rc < 0)
            pathgate__error_set(err, rc, NULL);
        goto done;
    }
    close(fd);
    if (!S_ISDIR(st.st_mode)) {
        rc = pathgate__fs_fail(err, PATHGATE_ENOTREG, &t, PATHGATE__FS_FILE);
        goto done;
    }
    pathgate__walk w = {&t, g, 0, grep_visit, &c, 0};
    rc = pathgate__fs_walk(&w, err);

done:
    pathgate__free(t.alloc, c.buf);
    pathgate__glob_free(g);
    if (rc < 0)
        pathgate_fs_matches_dispose(out);
    return rc;
}
