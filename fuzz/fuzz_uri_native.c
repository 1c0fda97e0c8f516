/* fuzz_uri_native.c - pathgate_uri_from_native on arbitrary bytes under
 * both conventions (and inferred): every URI built parses back equal, its
 * native rendering converts back to the same URI (a fixed point after one
 * round), an opaque URI never renders, and LegacyAppPathString agrees. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int valid_ui(const pathgate_buf *b)
{
    for (size_t i = 0; i < b->len; i++) {
        unsigned char c = (unsigned char)b->ptr[i];
        if (c < 0x20 || c == 0x7F)
            return 0;
    }
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    pathgate_uri *by_conv[3] = {NULL, NULL, NULL};
    int rc_conv[3];
    pathgate_legacy *legacy = NULL;
    FZ_CHECK(pathgate_legacy_new(&legacy, text, size, NULL, NULL) == 0, "legacy_new failed");

    for (int c = PATHGATE_CONVENTION_NONE; c <= PATHGATE_CONVENTION_WINDOWS; c++) {
        pathgate_convention conv = (pathgate_convention)c;
        pathgate_uri *u = NULL;
        int rc = rc_conv[c] = pathgate_uri_from_native(&u, text, size, conv, NULL, NULL);

        /* LegacyAppPathString.to_uri is the same conversion */
        pathgate_uri *l = NULL;
        pathgate_error err;
        int rl = pathgate_legacy_to_uri(&l, legacy, conv, &err);
        FZ_CHECK(rl == rc, "legacy_to_uri %d != from_native %d", rl, rc);
        if (rc < 0) {
            fz_known_error(rc);
            FZ_CHECK(u == NULL && l == NULL, "out set on failure");
            FZ_CHECK(strncmp(err.message, "cannot convert '", 16) == 0, "message: %s", err.message);
            continue;
        }
        const char *s = pathgate_uri_string(u, NULL);
        FZ_CHECK(strcmp(s, pathgate_uri_string(l, NULL)) == 0, "legacy_to_uri differs: %s", s);
        pathgate_uri_free(l);
        by_conv[c] = u;
        fz_check_uri(u);
        if (conv == PATHGATE_CONVENTION_NONE)
            continue;

        pathgate_buf native = PATHGATE_BUF_INIT;
        rc = pathgate_uri_to_native(&native, u, conv, NULL);
        if (pathgate_uri_is_opaque(u)) {
            FZ_CHECK(rc == PATHGATE_EOPAQUE, "opaque rendered: %s", s);
            /* ...but rendering for a client decodes the payload: the text
             * itself (UTF-8 text; Windows with '/' read as '\') */
            pathgate_legacy *back = NULL;
            rc = pathgate_legacy_from_uri(&back, u, conv, NULL);
            size_t blen = 0;
            const char *bt = rc == 0 ? pathgate_legacy_text(back, &blen) : NULL;
            if (pathgate__fz_utf8(text, size) &&
                (conv == PATHGATE_CONVENTION_WINDOWS || text[0] == '/')) {
                FZ_CHECK(rc == 0 && blen == size, "opaque %s does not render its text", s);
                for (size_t i = 0; i < size; i++)
                    FZ_CHECK(bt[i] == text[i] || (text[i] == '/' && bt[i] == '\\'),
                             "opaque %s renders other text", s);
            }
            pathgate_legacy_free(back);
            continue;
        }
        FZ_CHECK(rc == 0, "to_native(from_native(x, %d), %d) failed: %s (%s)", c, c, s,
                 pathgate_errname(rc));
        /* native -> URI again gives the same URI string, but for a bare
         * drive: `file:///C:` renders `C:\`, which is `file:///C:/` (as in
         * Codex, both are the drive's root) */
        pathgate_uri *again = NULL;
        rc = pathgate_uri_from_native(&again, native.ptr, native.len, conv, NULL, NULL);
        FZ_CHECK(rc == 0, "from_native(to_native(u)) failed: %s -> %s (%s)", s, native.ptr,
                 pathgate_errname(rc));
        const char *as = pathgate_uri_string(again, NULL);
        size_t sl = strlen(s);
        int bare_drive = conv == PATHGATE_CONVENTION_WINDOWS && s[sl - 1] == ':' &&
                         strncmp(as, s, sl) == 0 && strcmp(as + sl, "/") == 0;
        FZ_CHECK(strcmp(as, s) == 0 || bare_drive, "round trip moved: %s -> %s -> %s", s,
                 native.ptr, as);
        pathgate_uri_free(again);
        /* the legacy rendering is the same text when that is UTF-8 (else
         * it is the lossy, valid UTF-8 one) */
        pathgate_legacy *back = NULL;
        FZ_CHECK(pathgate_legacy_from_uri(&back, u, conv, NULL) == 0, "legacy_from_uri failed: %s",
                 s);
        size_t blen;
        const char *bt = pathgate_legacy_text(back, &blen);
        if (pathgate__fz_utf8(native.ptr, native.len))
            FZ_CHECK(blen == native.len && memcmp(bt, native.ptr, blen) == 0,
                     "legacy_from_uri differs");
        else
            FZ_CHECK(pathgate__fz_utf8(bt, blen), "legacy_from_uri is not UTF-8: %s", s);
        pathgate_legacy_free(back);
        pathgate_buf_dispose(&native);
    }
    /* inference: when it succeeds it equals the explicit convention it names */
    if (rc_conv[0] == 0) {
        pathgate_convention inf = pathgate_legacy_infer_convention(legacy);
        FZ_CHECK(inf != PATHGATE_CONVENTION_NONE, "inferred from text with no convention");
        FZ_CHECK(by_conv[inf] && strcmp(pathgate_uri_string(by_conv[0], NULL),
                                        pathgate_uri_string(by_conv[inf], NULL)) == 0,
                 "inferred URI differs from the explicit one");
    } else if (rc_conv[0] == PATHGATE_ENOTABS) {
        FZ_CHECK(pathgate_legacy_infer_convention(legacy) == PATHGATE_CONVENTION_NONE,
                 "legacy infers a convention the URI module refuses");
    }
    for (int c = 0; c < 3; c++)
        pathgate_uri_free(by_conv[c]);

    pathgate_buf ui = PATHGATE_BUF_INIT;
    FZ_CHECK(pathgate_legacy_render_for_ui(&ui, legacy) == 0, "render_for_ui failed");
    FZ_CHECK(valid_ui(&ui) && strlen(ui.ptr) == ui.len, "render_for_ui left a control byte");
    pathgate_buf_dispose(&ui);
    pathgate_legacy_free(legacy);
    return 0;
}
