/*
 * pathgate.h - the umbrella header of libpathgate.
 *
 * pathgate resolves the paths an LLM agent or a game-tooling script names
 * (canonical addresses such as `root:repo/common/x.txt`, file:// URIs, raw
 * native paths of any OS) strictly inside configured roots, and hands back
 * opaque references whose string form is the canonical address.
 *
 * Conventions (see docs/conventions.md):
 *  - functions return int: 0 (PATHGATE_OK) or a negative PATHGATE_E* code;
 *    an optional caller-owned pathgate_error receives code and message;
 *  - out-parameters come first; handles are opaque; *_free(NULL) is a no-op;
 *  - text is (pointer, length): an embedded NUL is an error, never a
 *    truncation;
 *  - allocation goes through an optional per-handle pathgate_allocator.
 *
 * THREAD SAFETY
 *  - The library has no mutable global state: no "last error", no errno
 *    contract, no process-wide chdir, no lazily initialised statics.
 *  - A pathgate_resolver (and the token registry inside it) may be shared
 *    by any number of threads at once; it is internally locked.
 *  - A pathgate_session is guarded by its own lock and may be shared too,
 *    but its operations are serialised.
 *  - Immutable values (pathgate_uri, pathgate_legacy, pathgate_ref) may be
 *    shared read-only by any number of threads.
 *  - Everything else (a pathgate_resolution, a pathgate_buf, a
 *    pathgate_error) belongs to one thread at a time.
 */
#ifndef PATHGATE_H
#define PATHGATE_H

#include "common.h"
#include "uri.h"
#include "legacy.h"
#include "resolver.h"
#include "policy.h"
#include "session.h"
#include "fs.h"
#include "fs_toolkit.h"
#include "fs_patch.h"
#include "editor.h"
#include "exec.h"

#endif /* PATHGATE_H */
