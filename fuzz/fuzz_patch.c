/* fuzz_patch.c - apply_patch's parser and chunk application
 * (core/src/edit/fs_patch_parse.c, fs_patch_seek.c) on arbitrary bytes: the
 * input is `file content \0 patch text` (no NUL: all patch). For valid
 * UTF-8 input:
 *  - the parse succeeds, or fails with PATHGATE_EPATCH and a message that
 *    starts "Invalid patch: " or "Invalid patch hunk on line ";
 *  - every span of the parse lies inside the patch text;
 *  - each Update hunk applied to the content either answers
 *    PATHGATE_ECONFLICT with a "Failed to find ..." message, or content
 *    that is valid UTF-8 and ends with a line break (or is empty);
 *  - a hunk whose chunks only hold context lines changes nothing but the
 *    line break an unterminated last line gets. */
#include "fuzz_common.h"
/* core/src is not on the fuzzers' include path */
#include "../core/src/edit/fs_patch_internal.h"
#include "../core/src/util/alloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int inside(pathgate__span s, const char *base, size_t len)
{
    return s.len == 0 || (s.p >= base && s.p + s.len <= base + len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    const char *nul = memchr(text, '\0', size);
    const char *content = nul ? text : "";
    size_t content_len = nul ? (size_t)(nul - text) : 0;
    const char *patch = nul ? nul + 1 : text;
    size_t patch_len = nul ? size - content_len - 1 : size;
    if (!pathgate__fz_utf8(patch, patch_len) || !pathgate__fz_utf8(content, content_len))
        return 0;
    pathgate__patch p;
    pathgate_allocator alloc; /* libc's: what the parse allocates is free()d */
    pathgate__alloc_init(&alloc, NULL);
    pathgate__patch_init(&p, &alloc);
    char *msg = NULL;
    size_t msg_len = 0;
    int rc = pathgate__patch_parse(&p, patch, patch_len, &msg, &msg_len);
    FZ_CHECK(rc == 0 || rc == PATHGATE_EPATCH || rc == PATHGATE_ENOMEM, "rc %d", rc);
    if (rc == PATHGATE_EPATCH) {
        FZ_CHECK(msg && (strncmp(msg, "Invalid patch: ", 15) == 0 ||
                         strncmp(msg, "Invalid patch hunk on line ", 27) == 0),
                 "message %s", msg ? msg : "(null)");
        free(msg);
    }
    for (size_t i = 0; rc == 0 && i < p.nhunks; i++) {
        const pathgate__patch_hunk *h = &p.hunks[i];
        FZ_CHECK(inside(h->path, patch, patch_len), "path outside the text");
        FZ_CHECK(!h->has_move || inside(h->move_to, patch, patch_len), "move outside the text");
        if (h->kind != PATHGATE__HUNK_UPDATE)
            continue;
        int context_only = 1;
        for (size_t k = 0; k < h->chunk_count; k++) {
            const pathgate__patch_chunk *c = &p.chunks[h->chunk_first + k];
            FZ_CHECK(c->ctx_count <= c->old_count && c->ctx_count <= c->new_count, "ctx count");
            for (size_t j = 0; j < c->old_count; j++)
                FZ_CHECK(inside(p.olds[c->old_first + j], patch, patch_len), "old line outside");
            context_only &= c->old_count == c->new_count && c->ctx_count == c->old_count;
        }
        char *out = NULL, *m = NULL;
        size_t out_len = 0, m_len = 0;
        int u = pathgate__patch_update(&out, &out_len, &m, &m_len, &p, h, "root:t/f", content,
                                       content_len, &alloc);
        FZ_CHECK(u == 0 || u == PATHGATE_ECONFLICT || u == PATHGATE_ENOMEM, "update rc %d", u);
        if (u == PATHGATE_ECONFLICT)
            FZ_CHECK(m && strncmp(m, "Failed to find ", 15) == 0, "conflict message");
        if (u == 0) {
            FZ_CHECK(pathgate__fz_utf8(out, out_len), "not UTF-8 out");
            FZ_CHECK(out_len == 0 || out[out_len - 1] == '\n', "no final line break");
            if (context_only) {
                /* the same lines; an unterminated last one now ends with
                 * the file's line break (that of its first line) */
                size_t cl = content_len;
                const char *nl = memchr(content, '\n', cl);
                size_t ending = nl && nl > content && nl[-1] == '\r' ? 2 : 1;
                size_t adds = cl && content[cl - 1] != '\n' ? ending : 0;
                FZ_CHECK(out_len == cl + adds && memcmp(out, content, cl) == 0,
                         "a context-only hunk changed the file");
            }
        }
        free(out);
        free(m);
    }
    pathgate__patch_free(&p);
    return 0;
}
