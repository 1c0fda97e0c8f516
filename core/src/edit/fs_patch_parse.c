/* fs_patch_parse.c - the patch text into hunks and chunks, with the
 * grammar, leniency and messages of Codex's parser.rs (docs/patch.md). */
#include <string.h>

#include "alloc.h"
#include "fs_patch_internal.h"
#include "strbuf.h"

#define BEGIN_PATCH "*** Begin Patch"
#define END_PATCH "*** End Patch"
#define ADD_FILE "*** Add File: "
#define DELETE_FILE "*** Delete File: "
#define UPDATE_FILE "*** Update File: "
#define MOVE_TO "*** Move to: "
#define END_OF_FILE "*** End of File"

#define MSG_FIRST "The first line of the patch must be '*** Begin Patch'"
#define MSG_LAST "The last line of the patch must be '*** End Patch'"
#define MSG_NO_LINES "Update hunk does not contain any lines"

void pathgate__patch_init(pathgate__patch *p, const pathgate_allocator *a)
{
    memset(p, 0, sizeof *p);
    p->a = a;
}

void pathgate__patch_free(pathgate__patch *p)
{
    pathgate__free(p->a, p->hunks);
    pathgate__free(p->a, p->chunks);
    pathgate__free(p->a, p->olds);
    pathgate__free(p->a, p->news);
    pathgate__free(p->a, p->ctx);
    pathgate__free(p->a, p->adds);
    pathgate__patch_init(p, p->a);
}

/* Appends one element to a growing array: 0, or -1 out of memory. */
#define PUSH(p, arr, n, cap, value)                                                                \
    (((n) < (cap) || ((arr) = pathgate__grow((p)->a, (arr), &(cap), sizeof *(arr), 16)) != NULL)   \
         ? ((arr)[(n)++] = (value), 0)                                                             \
         : -1)

static int eq(pathgate__span s, const char *lit)
{
    size_t n = strlen(lit);
    return s.len == n && memcmp(s.p, lit, n) == 0;
}

/* s without the prefix lit, when it starts with it. */
static int strip(pathgate__span s, const char *lit, pathgate__span *rest)
{
    size_t n = strlen(lit);
    if (s.len < n || memcmp(s.p, lit, n) != 0)
        return 0;
    rest->p = s.p + n;
    rest->len = s.len - n;
    return 1;
}

/* ------------------------------------------------------------ messages */

typedef struct parse {
    pathgate__patch *p;
    pathgate__sb msg;
    int code; /* 0, PATHGATE_EPATCH or PATHGATE_ENOMEM */
} parse;

static int invalid_patch(parse *ps, const char *what)
{
    pathgate__sb_puts(&ps->msg, "Invalid patch: ");
    pathgate__sb_puts(&ps->msg, what);
    return ps->code = PATHGATE_EPATCH;
}

/* "Invalid patch hunk on line N: " + a + quoted + b. */
static int invalid_hunk(parse *ps, size_t line, const char *a, pathgate__span quoted, const char *b)
{
    pathgate__sb_printf(&ps->msg, "Invalid patch hunk on line %zu: %s", line, a);
    pathgate__sb_put(&ps->msg, quoted.p, quoted.len);
    pathgate__sb_puts(&ps->msg, b);
    return ps->code = PATHGATE_EPATCH;
}

static int nomem(parse *ps)
{
    return ps->code = PATHGATE_ENOMEM;
}

/* ---------------------------------------------------------- boundaries */

/* check_patch_boundaries_strict: 0 and the body, or the error code. */
static int strict(parse *ps, const pathgate__span *lines, size_t n, const pathgate__span **body,
                  size_t *nbody)
{
    if (n > 0) {
        pathgate__span first = pathgate__rs_trim(lines[0]);
        pathgate__span last = pathgate__rs_trim(lines[n - 1]);
        if (eq(first, BEGIN_PATCH) && eq(last, END_PATCH)) {
            *body = lines + 1;
            *nbody = n - 2;
            return 0;
        }
        if (!eq(first, BEGIN_PATCH))
            return invalid_patch(ps, MSG_FIRST);
    }
    return invalid_patch(ps, MSG_LAST);
}

/* check_patch_boundaries_lenient: the strict check, else the heredoc
 * wrapper (<<EOF, <<'EOF' or <<"EOF" ... a last line ending in EOF). */
static int boundaries(parse *ps, const pathgate__span *lines, size_t n, const pathgate__span **body,
                      size_t *nbody)
{
    parse probe = {ps->p, PATHGATE__SB_INIT(ps->p->a), 0};
    int rc = strict(&probe, lines, n, body, nbody);
    if (rc == 0)
        return 0;
    if (n >= 4 && (eq(lines[0], "<<EOF") || eq(lines[0], "<<'EOF'") || eq(lines[0], "<<\"EOF\"")) &&
        lines[n - 1].len >= 3 && memcmp(lines[n - 1].p + lines[n - 1].len - 3, "EOF", 3) == 0) {
        pathgate__sb_free(&probe.msg);
        return strict(ps, lines + 1, n - 2, body, nbody);
    }
    pathgate__sb_free(&ps->msg);
    ps->msg = probe.msg;
    return ps->code = probe.code;
}

/* --------------------------------------------------------------- hunks */

/* parse_update_file_chunk: *used gets the lines it took. */
static int parse_chunk(parse *ps, const pathgate__span *lines, size_t n, size_t line_number,
                       int allow_missing_context, size_t *used)
{
    pathgate__patch *p = ps->p;
    pathgate__patch_chunk c;
    memset(&c, 0, sizeof c);
    c.old_first = p->nolds;
    c.new_first = p->nnews;
    c.ctx_first = p->nctx / 2;
    size_t start;
    pathgate__span rest;
    if (n == 0)
        return invalid_hunk(ps, line_number, MSG_NO_LINES, (pathgate__span){"", 0}, "");
    if (eq(lines[0], "@@")) {
        start = 1;
    } else if (strip(lines[0], "@@ ", &rest)) {
        c.has_context = 1;
        c.context = rest;
        start = 1;
    } else if (!allow_missing_context) {
        return invalid_hunk(ps, line_number,
                            "Expected update hunk to start with a @@ context marker, got: '",
                            lines[0], "'");
    } else {
        start = 0;
    }
    if (start >= n)
        return invalid_hunk(ps, line_number + 1, MSG_NO_LINES, (pathgate__span){"", 0}, "");
    size_t parsed = 0;
    for (size_t i = start; i < n; i++) {
        pathgate__span line = lines[i];
        if (eq(line, END_OF_FILE)) {
            if (parsed == 0)
                return invalid_hunk(ps, line_number + 1, MSG_NO_LINES, (pathgate__span){"", 0}, "");
            c.eof = 1;
            parsed++;
            break;
        }
        pathgate__span text = {line.p + (line.len ? 1 : 0), line.len ? line.len - 1 : 0};
        char lead = line.len ? line.p[0] : '\0';
        if (lead == '\0' || lead == ' ') { /* context: on both sides */
            if (PUSH(p, p->ctx, p->nctx, p->xcap, p->nolds - c.old_first) < 0 ||
                PUSH(p, p->ctx, p->nctx, p->xcap, p->nnews - c.new_first) < 0 ||
                PUSH(p, p->olds, p->nolds, p->ocap, text) < 0 ||
                PUSH(p, p->news, p->nnews, p->ncap, text) < 0)
                return nomem(ps);
        } else if (lead == '+') {
            if (PUSH(p, p->news, p->nnews, p->ncap, text) < 0)
                return nomem(ps);
        } else if (lead == '-') {
            if (PUSH(p, p->olds, p->nolds, p->ocap, text) < 0)
                return nomem(ps);
        } else {
            if (parsed == 0)
                return invalid_hunk(ps, line_number + 1, "Unexpected line found in update hunk: '",
                                    line,
                                    "'. Every line should start with ' ' (context line), '+' "
                                    "(added line), or '-' (removed line)");
            break; /* the start of the next chunk */
        }
        parsed++;
    }
    c.old_count = p->nolds - c.old_first;
    c.new_count = p->nnews - c.new_first;
    c.ctx_count = p->nctx / 2 - c.ctx_first;
    if (PUSH(p, p->chunks, p->nchunks, p->ccap, c) < 0)
        return nomem(ps);
    *used = parsed + start;
    return 0;
}

static int add_contents(parse *ps, pathgate__span s)
{
    pathgate__patch *p = ps->p;
    while (p->nadds + s.len + 1 > p->acap) {
        char *na = pathgate__grow(p->a, p->adds, &p->acap, 1, 256);
        if (!na)
            return nomem(ps);
        p->adds = na;
    }
    memcpy(p->adds + p->nadds, s.p, s.len);
    p->nadds += s.len;
    p->adds[p->nadds++] = '\n';
    return 0;
}

/* parse_one_hunk: *used gets the lines it took. */
static int parse_hunk(parse *ps, const pathgate__span *lines, size_t n, size_t line_number,
                      size_t *used)
{
    pathgate__patch *p = ps->p;
    pathgate__patch_hunk h;
    memset(&h, 0, sizeof h);
    pathgate__span first = pathgate__rs_trim(lines[0]);
    size_t parsed = 1;
    if (strip(first, ADD_FILE, &h.path)) {
        h.kind = PATHGATE__HUNK_ADD;
        h.add_off = p->nadds;
        pathgate__span text;
        for (; parsed < n && strip(lines[parsed], "+", &text); parsed++)
            if (add_contents(ps, text) < 0)
                return ps->code;
        h.add_len = p->nadds - h.add_off;
    } else if (strip(first, DELETE_FILE, &h.path)) {
        h.kind = PATHGATE__HUNK_DELETE;
    } else if (strip(first, UPDATE_FILE, &h.path)) {
        h.kind = PATHGATE__HUNK_UPDATE;
        if (parsed < n && strip(lines[parsed], MOVE_TO, &h.move_to)) {
            h.has_move = 1;
            parsed++;
        }
        h.chunk_first = p->nchunks;
        while (parsed < n) {
            if (pathgate__rs_trim(lines[parsed]).len == 0) { /* blank lines between chunks */
                parsed++;
                continue;
            }
            if (lines[parsed].len && lines[parsed].p[0] == '*')
                break;
            size_t k;
            if (parse_chunk(ps, lines + parsed, n - parsed, line_number + parsed,
                            p->nchunks == h.chunk_first, &k) < 0)
                return ps->code;
            parsed += k;
        }
        h.chunk_count = p->nchunks - h.chunk_first;
        if (h.chunk_count == 0)
            return invalid_hunk(ps, line_number, "Update file hunk for path '", h.path,
                                "' is empty");
    } else {
        return invalid_hunk(ps, line_number, "'", first,
                            "' is not a valid hunk header. Valid hunk headers: '*** Add File: "
                            "{path}', '*** Delete File: {path}', '*** Update File: {path}'");
    }
    if (PUSH(p, p->hunks, p->nhunks, p->hcap, h) < 0)
        return nomem(ps);
    *used = parsed;
    return 0;
}

/* ---------------------------------------------------------------- parse */

int pathgate__patch_parse(pathgate__patch *p, const char *text, size_t len, char **msg,
                          size_t *msg_len)
{
    *msg = NULL;
    *msg_len = 0;
    parse ps = {p, PATHGATE__SB_INIT(p->a), 0};
    /* patch.trim().lines(): split at "\n", a "\r" before it dropped */
    pathgate__span all = pathgate__rs_trim((pathgate__span){text, len});
    size_t n = 0;
    if (all.len) {
        n = 1;
        for (const char *q = all.p; (q = memchr(q, '\n', (size_t)(all.p + all.len - q))); q++)
            n++;
    }
    pathgate__span *lines = pathgate__calloc(p->a, n ? n : 1, sizeof *lines);
    if (!lines)
        return PATHGATE_ENOMEM;
    const char *q = all.p, *end = all.p + all.len;
    for (size_t i = 0; i < n; i++) {
        const char *nl = memchr(q, '\n', (size_t)(end - q));
        const char *e = nl ? nl : end;
        lines[i].p = q;
        lines[i].len = (size_t)(e - q);
        if (nl && lines[i].len && e[-1] == '\r')
            lines[i].len--;
        q = nl ? nl + 1 : end;
    }
    const pathgate__span *body = NULL;
    size_t nbody = 0;
    int rc = boundaries(&ps, lines, n, &body, &nbody);
    for (size_t i = 0, line_number = 2; rc == 0 && i < nbody;) {
        size_t k = 0;
        rc = parse_hunk(&ps, body + i, nbody - i, line_number, &k);
        i += k;
        line_number += k;
    }
    pathgate__free(p->a, lines);
    if (rc == 0) {
        pathgate__sb_free(&ps.msg);
        return 0;
    }
    if (rc == PATHGATE_ENOMEM || ps.msg.oom) {
        pathgate__sb_free(&ps.msg);
        return PATHGATE_ENOMEM;
    }
    *msg = ps.msg.p;
    *msg_len = ps.msg.len;
    return rc;
}
