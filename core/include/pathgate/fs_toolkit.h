/*
 * pathgate/fs_toolkit.h - handles and the contained file toolkit (docs/fs.md
 * "Handles and the toolkit"): what Go's os.Root and cap-std's Dir offer,
 * through canonical addresses.
 *
 *   pathgate_fs_open          a descriptor opened beneath the base
 *   pathgate_fs_atomic_*      a temporary file that takes its name on commit
 *   pathgate_fs_scandir_*     one directory's entries, lazily
 *   pathgate_fs_walk_*        a tree, one directory at a time (os.walk)
 *   pathgate_fs_exists        what an address names, never failing on a miss
 *   pathgate_fs_lstat         stat of the entry itself (a symlink not followed)
 *   pathgate_fs_copy          a contained copy (a reflink where possible)
 *   pathgate_fs_link          a hard link
 *   pathgate_fs_symlink       a relative symlink that stays inside
 *   pathgate_fs_readlink      a symlink's target, when it stays inside
 *   pathgate_fs_chmod         permission bits (never setuid, setgid, sticky)
 *   pathgate_fs_utime         access and modification times
 *   pathgate_fs_remove_tree   a file, link or tree; a miss is success
 *   pathgate_fs_subroot       a resolver rooted at a directory inside a base
 *
 * The rules of fs.h hold for all of them: every name is reached beneath its
 * base's directory fd (openat2 RESOLVE_BENEATH, or the O_NOFOLLOW walk); a
 * read-only base refuses every change with PATHGATE_EACCES; only regular
 * files are opened, FIFOs and devices are refused (PATHGATE_ENOTREG) without
 * blocking; messages name canonical addresses only.
 *
 * Symlinks at the last component. Operations that use what a name leads to
 * (open, atomic_open, chmod, utime, copy's source, exists, subroot) follow
 * it while it stays inside the base, one link at a time, each step opened
 * beneath the base, so the directory a file really lives in is known (and
 * checked against read-only bases). Operations on the name itself (lstat,
 * readlink, link's source, remove_tree, symlink's new name) do not follow it.
 * Either way an address whose last component is a symlink leading out of
 * the base is PATHGATE_EINVALIDPATH, as for every other operation; a link
 * that loops or dangles inside the base is an entry like any other.
 */
#ifndef PATHGATE_FS_TOOLKIT_H
#define PATHGATE_FS_TOOLKIT_H

#include "fs.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- open */

#define PATHGATE_FS_OPEN_READ 0x01u
#define PATHGATE_FS_OPEN_WRITE 0x02u
#define PATHGATE_FS_OPEN_APPEND 0x04u   /* writes go to the end (implies WRITE) */
#define PATHGATE_FS_OPEN_CREATE 0x08u   /* create the file when missing */
#define PATHGATE_FS_OPEN_EXCL 0x10u     /* with CREATE: the name must not exist */
#define PATHGATE_FS_OPEN_TRUNCATE 0x20u /* with WRITE: start empty */

/*
 * Opens address and gives its descriptor (O_CLOEXEC, blocking, positioned
 * at 0; caller-owned) in *fd. flags: READ and/or WRITE (or APPEND), with
 * CREATE, EXCL, TRUNCATE. mode: permission bits of a created file (0 =
 * 0666, the umask applies); anything beyond 0777 is PATHGATE_EINVAL.
 * Reading follows symlinks inside the base; writing also does (see above),
 * except with EXCL, which refuses any existing name, a symlink included
 * (PATHGATE_EEXIST). Directories are PATHGATE_EISDIR, FIFOs, sockets and
 * devices PATHGATE_ENOTREG. path (optional) gets the address. Writes
 * through the descriptor are not atomic: for that, see pathgate_fs_atomic.
 */
PATHGATE_EXTERN int pathgate_fs_open(int *fd, pathgate_buf *path, pathgate_resolver *resolver,
                                     const char *address, size_t len, unsigned int flags,
                                     unsigned int mode, const pathgate_fs_options *opts,
                                     pathgate_error *err);

/* ------------------------------------------------------ atomic handles */

typedef struct pathgate_fs_atomic pathgate_fs_atomic;

/*
 * A write handle that replaces address atomically: a temp file
 * `.pathgate-<16 hex>.tmp` is created O_EXCL beside the file address leads
 * to (a symlink inside the base is followed, as open does), and *fd (O_RDWR,
 * caller-owned) refers to it. pathgate_fs_atomic_commit then renames it over
 * the name; pathgate_fs_atomic_abort removes it: until one of them the old
 * content is untouched, and a crash leaves only the temp file.
 *
 * flags as for pathgate_fs_open, WRITE (or APPEND) required:
 *   without TRUNCATE, an existing file's content is copied into the temp
 *     file first (a reflink where the filesystem can): "a" and "r+" modes;
 *   without CREATE the file must exist (PATHGATE_ENOTFOUND);
 *   EXCL: it must not, and the commit never replaces what appeared since
 *     (PATHGATE_EEXIST);
 *   APPEND: the descriptor is O_APPEND (after the copy); otherwise at 0.
 * The permission bits of a replaced file are kept (never setuid, setgid or
 * sticky); a new file gets 0666 less the umask. Missing parent directories
 * are not created. path (optional) gets the address.
 */
PATHGATE_EXTERN int pathgate_fs_atomic_open(pathgate_fs_atomic **out, int *fd, pathgate_buf *path,
                                            pathgate_resolver *resolver, const char *address,
                                            size_t len, unsigned int flags,
                                            const pathgate_fs_options *opts, pathgate_error *err);

/* fsync(fd) (when fd >= 0: the caller closes it afterwards) and renames the
 * temp file over the name; frees atomic. On failure the temp file is
 * removed and the old content stays. */
PATHGATE_EXTERN int pathgate_fs_atomic_commit(pathgate_fs_atomic *atomic, int fd,
                                              pathgate_error *err);

/* Removes the temp file and frees atomic (NULL: no-op). */
PATHGATE_EXTERN void pathgate_fs_atomic_abort(pathgate_fs_atomic *atomic);

/* ------------------------------------------------------------- scandir */

/* One entry of a directory. Strings live until the next call. */
typedef struct pathgate_fs_dirent {
    const char *name; /* the name in its directory */
    size_t name_len;
    const char *path; /* canonical address */
    size_t path_len;
    /* The entry itself, not followed: FILE, DIRECTORY, SYMLINK or OTHER. */
    pathgate_fs_type type;
} pathgate_fs_dirent;

typedef struct pathgate_fs_scandir pathgate_fs_scandir;

/*
 * Opens the directory address (symlinks inside the base followed) and reads
 * its entries, sorted by name (byte order), `.` and `..` left out, and
 * names no address can spell skipped (counted: pathgate_fs_scandir_skipped).
 * Entries are handed out by next: 1 and *out set, 0 at the end.
 */
PATHGATE_EXTERN int pathgate_fs_scandir_open(pathgate_fs_scandir **out, pathgate_resolver *resolver,
                                             const char *address, size_t len,
                                             const pathgate_fs_options *opts, pathgate_error *err);
PATHGATE_EXTERN int pathgate_fs_scandir_next(const pathgate_fs_dirent **out,
                                             pathgate_fs_scandir *dir, pathgate_error *err);
/* Stat of the entry last returned (fstatat on the directory held open:
 * follow = 0 the entry itself, 1 a symlink followed while it stays inside
 * the base; one leading out is PATHGATE_EINVALIDPATH). */
PATHGATE_EXTERN int pathgate_fs_scandir_stat(pathgate_fs_stat_result *out, pathgate_fs_scandir *dir,
                                             int follow, pathgate_error *err);
PATHGATE_EXTERN size_t pathgate_fs_scandir_skipped(const pathgate_fs_scandir *dir);
/* Entries the host's policy hides (deny_read, pathgate/policy.h), left out
 * of the listing: names it hides and symlinks leading to what it hides. */
PATHGATE_EXTERN size_t pathgate_fs_scandir_skipped_denied(const pathgate_fs_scandir *dir);
PATHGATE_EXTERN void pathgate_fs_scandir_free(pathgate_fs_scandir *dir);

/* ---------------------------------------------------------------- walk */

/* One directory of a walk. Strings live until the next call. */
typedef struct pathgate_fs_walk_dir {
    const char *path; /* canonical address of the directory */
    size_t path_len;
    /* Its subdirectories (and symlinks inside the base leading to one,
     * listed but never entered), then its other entries (regular files,
     * symlinks inside the base leading to one), each sorted by name. */
    const char *const *dirs;
    const size_t *dir_lens;
    size_t ndirs;
    const char *const *files;
    const size_t *file_lens;
    size_t nfiles;
} pathgate_fs_walk_dir;

typedef struct pathgate_fs_walk pathgate_fs_walk;

/* Parents before children (the default), as os.walk(topdown=True). */
#define PATHGATE_FS_WALK_TOP_DOWN 0x0u
/* Children before their parent, as os.walk(topdown=False). */
#define PATHGATE_FS_WALK_BOTTOM_UP 0x1u

/*
 * The tree below the directory address, one directory per next (1 and *out
 * set, 0 at the end), each directory opened relative to its parent's fd
 * with O_NOFOLLOW (a directory symlink is never entered, so there are no
 * loops). What ls lists is what a walk lists: directories, regular files,
 * and symlinks resolving inside the base to one of those; other entries,
 * and names no address can spell, are left out. A directory that cannot
 * be read, or that lies deeper than PATHGATE_FS_MAX_DEPTH, is skipped and
 * counted (pathgate_fs_walk_stats); only the start failing is an error.
 */
PATHGATE_EXTERN int pathgate_fs_walk_open(pathgate_fs_walk **out, pathgate_resolver *resolver,
                                          const char *address, size_t len, unsigned int flags,
                                          const pathgate_fs_options *opts, pathgate_error *err);
PATHGATE_EXTERN int pathgate_fs_walk_next(const pathgate_fs_walk_dir **out, pathgate_fs_walk *walk,
                                          pathgate_error *err);
/* Top-down only, between two nexts: of the directory last returned, enter
 * only the subdirectories named in keep (names it did not list are
 * ignored), as pruning os.walk's dirnames does. Not calling it enters all. */
PATHGATE_EXTERN int pathgate_fs_walk_prune(pathgate_fs_walk *walk, const char *const *keep,
                                           const size_t *keep_lens, size_t nkeep,
                                           pathgate_error *err);
/* What was left out so far. */
PATHGATE_EXTERN void pathgate_fs_walk_stats(const pathgate_fs_walk *walk, size_t *unreadable_dirs,
                                            size_t *skipped_names, int *truncated);
/* Entries the host's policy hides (deny_read, pathgate/policy.h) left out
 * so far, as for scandir; a hidden directory is not entered. */
PATHGATE_EXTERN size_t pathgate_fs_walk_skipped_denied(const pathgate_fs_walk *walk);
PATHGATE_EXTERN void pathgate_fs_walk_free(pathgate_fs_walk *walk);

/* ---------------------------------------------------- the little tools */

/*
 * What address names, following symlinks inside the base: *type gets
 * FILE, DIRECTORY or OTHER, or 0 when nothing is there or the text names
 * nothing a caller may reach (invalid, escaping, a loop). Returns a
 * negative code only for misuse or PATHGATE_ENOMEM.
 */
PATHGATE_EXTERN int pathgate_fs_exists(pathgate_fs_type *type, pathgate_resolver *resolver,
                                       const char *address, size_t len,
                                       const pathgate_fs_options *opts, pathgate_error *err);

/* stat of the entry itself: a symlink is not followed (type SYMLINK, size
 * the target's length). */
PATHGATE_EXTERN int pathgate_fs_lstat(pathgate_fs_stat_result *out, pathgate_resolver *resolver,
                                      const char *address, size_t len,
                                      const pathgate_fs_options *opts, pathgate_error *err);

/* copy: replace an existing destination (atomically); without it an
 * existing destination is PATHGATE_EEXIST. */
#define PATHGATE_FS_COPY_REPLACE 0x1u

/*
 * Copies the regular file source (symlinks inside its base followed) to
 * destination, within a base or across bases: the new file is written as
 * a temp file beside destination and renamed into place, so a reader sees
 * the old file or the whole copy. The bytes are shared (FICLONE) when the
 * filesystem can, else copied (copy_file_range, then read/write). A new
 * file gets the source's permission bits; a replaced one keeps its own.
 * The destination's parent must exist. A directory source is
 * PATHGATE_EISDIR. path (optional) gets the destination address.
 */
PATHGATE_EXTERN int pathgate_fs_copy(pathgate_buf *path, pathgate_resolver *resolver,
                                     const char *source, size_t source_len, const char *destination,
                                     size_t destination_len, unsigned int flags,
                                     const pathgate_fs_options *opts, pathgate_error *err);

/*
 * A hard link destination -> source (the entry source names, not
 * followed: a symlink is linked as itself). Both must be writable: a new
 * name for a file that lives in a read-only base would make it writable.
 * Directories are PATHGATE_EISDIR; an existing destination
 * PATHGATE_EEXIST; across filesystems PATHGATE_EUNSUPPORTED.
 */
PATHGATE_EXTERN int pathgate_fs_link(pathgate_buf *path, pathgate_resolver *resolver,
                                     const char *source, size_t source_len, const char *destination,
                                     size_t destination_len, const pathgate_fs_options *opts,
                                     pathgate_error *err);

/*
 * Creates the symlink address -> target. target is relative text that,
 * read from the directory the link lives in, stays beneath the base (its
 * `..` never climb above it); an absolute or escaping target, or an empty
 * one, is PATHGATE_EINVAL. Whether the target exists does not matter. An
 * existing name is PATHGATE_EEXIST. On Windows pathgate makes no links:
 * PATHGATE_EUNSUPPORTED once every check has passed.
 */
PATHGATE_EXTERN int pathgate_fs_symlink(pathgate_buf *path, pathgate_resolver *resolver,
                                        const char *target, size_t target_len, const char *address,
                                        size_t len, const pathgate_fs_options *opts,
                                        pathgate_error *err);

/* The target text of the symlink address, only when it stays inside the
 * base (else PATHGATE_EINVALIDPATH); not a symlink: PATHGATE_ENOTLINK. */
PATHGATE_EXTERN int pathgate_fs_readlink(pathgate_buf *target, pathgate_resolver *resolver,
                                         const char *address, size_t len,
                                         const pathgate_fs_options *opts, pathgate_error *err);

/* Sets the permission bits (mode <= 0777: setuid, setgid and sticky are
 * refused with PATHGATE_EINVAL) of what address leads to. */
PATHGATE_EXTERN int pathgate_fs_chmod(pathgate_buf *path, pathgate_resolver *resolver,
                                      const char *address, size_t len, unsigned int mode,
                                      const pathgate_fs_options *opts, pathgate_error *err);

/* A time of pathgate_fs_utime: seconds and nanoseconds since the epoch, or
 * nsec PATHGATE_FS_TIME_NOW / PATHGATE_FS_TIME_OMIT (utimensat's). */
typedef struct pathgate_fs_time {
    int64_t sec;
    long nsec;
} pathgate_fs_time;
#define PATHGATE_FS_TIME_NOW ((1L << 30) - 1L)
#define PATHGATE_FS_TIME_OMIT ((1L << 30) - 2L)

/* Sets the access (times[0]) and modification (times[1]) times of what
 * address leads to; times NULL: both now. */
PATHGATE_EXTERN int pathgate_fs_utime(pathgate_buf *path, pathgate_resolver *resolver,
                                      const char *address, size_t len,
                                      const pathgate_fs_time *times,
                                      const pathgate_fs_options *opts, pathgate_error *err);

/*
 * Removes the entry address names (not followed: a symlink goes, never what
 * it leads to) and, for a directory, everything below it, through directory
 * descriptors, never following a symlink. Nothing there is success
 * (*removed, optional, gets 0; else 1). The base itself, a read-only base,
 * or a directory holding one are PATHGATE_EACCES.
 */
PATHGATE_EXTERN int pathgate_fs_remove_tree(pathgate_buf *path, int *removed,
                                            pathgate_resolver *resolver, const char *address,
                                            size_t len, const pathgate_fs_options *opts,
                                            pathgate_error *err);

/*
 * A new resolver with one root, `root:<key>`, at the directory address
 * names (symlinks inside the base followed), as Go's Root.OpenRoot: it
 * cannot reach anything above it. key (NULL: derived from the directory's
 * last name, lower-cased, other characters than [a-z0-9_] as `_`, `d`
 * prepended when it does not start with a letter; at a base itself, the
 * base's key or mod name so derived) must match [a-z][a-z0-9_]*. The
 * subroot is read-only when the directory is, lies in, or holds a
 * read-only base's directory. It uses the resolver's allocator and
 * containment flags, and is independent of it afterwards (free both).
 */
PATHGATE_EXTERN int pathgate_fs_subroot(pathgate_resolver **out, pathgate_resolver *resolver,
                                        const char *address, size_t len, const char *key,
                                        size_t key_len, const pathgate_fs_options *opts,
                                        pathgate_error *err);

#ifdef __cplusplus
}
#endif
#endif /* PATHGATE_FS_TOOLKIT_H */
