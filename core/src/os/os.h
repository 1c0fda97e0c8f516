/*
 * os.h - internal: the one interface between the portable core and the
 * operating system (docs/os.md).
 *
 * The portable folders (util/, lex/, resolve/, policy/, fs/, walk/, edit/,
 * exec/, net/) reach the OS through these prototypes; one backend folder
 * implements them, and CMake picks it (-DPATHGATE_OS=linux|posix|windows):
 *
 *   os/linux/    the kernel's own beneath-lookup, path-only handles, extended
 *                stat, raw listings, atomic no-replace and exchange renames,
 *                in-kernel copies and reflinks, each with a runtime fallback
 *   os/posix/    POSIX 2008 (macOS, the BSDs): the O_NOFOLLOW component
 *                walk, fdopendir + readdir, fstatat, renameat, link
 *   os/windows/  NT handles, each name relative to its directory's HANDLE,
 *                the component walk of os/posix/contain_walk.c
 *
 * The model is libgit2's p_* prototypes (src/util/unix, src/util/win32)
 * and libuv's uv__ functions with runtime fallbacks. Each backend also
 * provides "os_platform.h" (included below): the values of the flags named
 * here, and inline bodies of the calls on a hot path, so that the Linux
 * build pays nothing for the layer.
 *
 * Conventions:
 * - A handle is an int (pathgate__os_fd), -1 for none. POSIX backends use
 *   the file descriptor; the Windows backend a C runtime descriptor over
 *   its HANDLE (_open_osfhandle). PATHGATE__OS_AT_BASE is never a handle.
 * - Calls return 0 (or a handle, a length) on success and a negative
 *   error on failure: the negation of an <errno.h> code of the set below
 *   (every platform's C library defines them, Windows' too), or one of
 *   pathgate's own PATHGATE__OS_E* sentinels. A backend maps its native
 *   errors onto that set; anything else reads as -EIO.
 *     ENOENT ENOTDIR EISDIR EEXIST ENOTEMPTY EXDEV ELOOP ENAMETOOLONG
 *     EACCES EPERM EROFS EBUSY EINVAL ENOMEM ENOSPC EAGAIN EINTR ENOSYS
 *     EMFILE EBADF ERANGE EIO
 * - `rel` arguments are normalised relative paths with '/' separators
 *   ("" names the directory itself); `name` arguments are one component.
 */
#ifndef PATHGATE_OS_H
#define PATHGATE_OS_H

#include <stddef.h>
#include <stdint.h>

#include "pathgate/common.h"

typedef int pathgate__os_fd;

/* pathgate's own errors, beside the errno set: never an errno value on any
 * platform (mapped by pathgate__errno_to_code). */
#define PATHGATE__OS_EHIDDEN (-0x7001)    /* the policy hides it: EINVALIDPATH */
#define PATHGATE__OS_EPROTECTED (-0x7002) /* the policy protects it: EPOLICY */

/*
 * Open flags. The access modes and O_CREAT/O_EXCL/O_TRUNC/O_APPEND/
 * O_NONBLOCK/O_CLOEXEC/O_DIRECTORY/O_NOFOLLOW keep their POSIX names
 * (<fcntl.h>; a backend whose C library lacks one defines it in its
 * os_platform.h); what POSIX lacks is named here, with values from the
 * backend's os_platform.h:
 *
 *   PATHGATE__OS_O_PATH       a handle that only names the entry: no read
 *                             permission needed, a FIFO does not block
 *                             (Linux's path-only handle). The POSIX backend opens for
 *                             reading, non-blocking (docs/os.md: mode-000
 *                             files and search-only directories differ).
 *                             With O_NOFOLLOW, Linux opens a final symlink
 *                             itself; where the OS cannot
 *                             (PATHGATE__OS_HAS_LINK_HANDLE 0) that fails
 *                             with -ELOOP.
 *   PATHGATE__OS_O_TMPFILE    an unnamed file in a directory, where the OS
 *                             has one (PATHGATE__OS_HAS_TMPFILE)
 */

/* ------------------------------------------------ open beneath a directory */

/* Most symlinks followed in one walk (the kernel's own limit). */
#define PATHGATE__CONTAIN_MAX_LINKS 40
/* Most directory levels the component walk holds open at once. */
#define PATHGATE__CONTAIN_MAX_DEPTH 256
/* How pathgate__contain_open_how and pathgate__contain_probe_how look up. */
#define PATHGATE__CONTAIN_FALLBACK 0x1u /* the component walk, never the kernel's */
#define PATHGATE__CONTAIN_NO_LINKS 0x2u /* a symlink anywhere on the way: -ELOOP */

/*
 * Opens `rel` beneath dirfd with containment enforced: the kernel's lookup
 * where it has one (Linux's beneath-lookup), else a component
 * walk that opens one name at a time without following links and splices
 * a symlink's target in only while it stays inside. open_flags as above
 * (close-on-exec always added). Returns the handle or a negative error:
 * -EXDEV for an escape (`..` above dirfd, absolute or outward symlink,
 * magic link), -ENOENT, -ENOTDIR, -ELOOP, -EISDIR, ...
 */
int pathgate__contain_open(pathgate__os_fd dirfd, const char *rel, int open_flags,
                           unsigned int mode, int force_fallback);
int pathgate__contain_open_how(pathgate__os_fd dirfd, const char *rel, int open_flags,
                               unsigned int mode, unsigned int how);

/*
 * Existence and containment of `rel` beneath dirfd, symlinks followed
 * while they stay inside: 0 exists, -ENOENT missing (and nothing existing
 * on the way leads out; what follows a missing component is read
 * lexically), -EXDEV escapes, another negative error. With NO_LINKS:
 * -ELOOP when a link is on the way.
 */
int pathgate__contain_probe(pathgate__os_fd dirfd, const char *rel, int force_fallback);
int pathgate__contain_probe_how(pathgate__os_fd dirfd, const char *rel, unsigned int how);

/* The real relative path of `rel` beneath dirfd (every symlink on the way
 * followed, a missing tail kept as written) into out: 0, -EXDEV, -ELOOP,
 * -ENAMETOOLONG. */
int pathgate__contain_real_rel(char *out, size_t cap, pathgate__os_fd dirfd, const char *rel,
                               int force_fallback);

/* A negative error of this interface as a pathgate code (PATHGATE__OS_E*
 * included). */
int pathgate__errno_to_code(int neg_errno);

/* The description of the errno value e (positive), as strerror words it
 * ("No space left on device"): static text, safe on every thread, naming
 * no path; NULL for a value the backend does not describe. */
const char *pathgate__os_strerror(int e);

/* Opens a directory given by a host path (a root's configured location):
 * PATHGATE__OS_O_PATH | O_DIRECTORY, following links (the root may be a link). */
pathgate__os_fd pathgate__os_open_root(const char *host_path);

/* Opens one name in dirfd (no containment walk: name is one component or
 * ".."), open_flags as above. The handle or a negative error. */
pathgate__os_fd pathgate__os_openat(pathgate__os_fd dirfd, const char *name, int open_flags,
                                    unsigned int mode);

/* ------------------------------------------------------------------ stat */

/* The entry types of stat and of directory listings. */
#define PATHGATE__OS_T_UNKNOWN 0
#define PATHGATE__OS_T_REG 1
#define PATHGATE__OS_T_DIR 2
#define PATHGATE__OS_T_LNK 3
#define PATHGATE__OS_T_OTHER 4 /* FIFO, socket, device */

typedef struct pathgate__os_stat {
    unsigned int type; /* PATHGATE__OS_T_* */
    unsigned int mode; /* permission bits (07777) */
    uint64_t size;
    uint64_t dev, ino;
    uint64_t nlink;
    int64_t atime_sec, mtime_sec, ctime_sec, btime_sec;
    long atime_nsec, mtime_nsec, ctime_nsec, btime_nsec;
    int has_btime; /* the OS reported a birth time */
} pathgate__os_stat;

/* pathgate__os_statat flags */
#define PATHGATE__OS_STAT_NOFOLLOW 0x1u /* lstat: a final symlink is the entry */
#define PATHGATE__OS_STAT_BTIME 0x2u    /* ask for the birth time where it costs nothing more */

/* stat (or lstat) of name in dirfd; name "" is dirfd itself (which may be
 * a PATHGATE__OS_O_PATH handle). 0 or a negative error. */
int pathgate__os_statat(pathgate__os_fd dirfd, const char *name, unsigned int flags,
                        pathgate__os_stat *out);

/* ------------------------------------------------------------ directories */

/* One entry of a listing read by pathgate__os_dir_read_all. */
typedef struct pathgate__os_dirent {
    const char *name; /* NUL-terminated, inside the listing's buffer */
    size_t len;
    unsigned int type; /* PATHGATE__OS_T_*; UNKNOWN: ask pathgate__os_statat */
} pathgate__os_dirent;

/*
 * Reads the entries of the directory open as fd (from its current
 * position: callers pass a fresh handle, or rewind it with
 * pathgate__os_dir_rewind) into *buf, grown with a (*cap bytes, at least
 * `min` when it grows; *used bytes of records). `.` and `..` may be among
 * them. Returns 0, -ENOMEM (the buffer could not grow), or a negative
 * error of the read (what was read before it is kept in *buf).
 */
int pathgate__os_dir_read_all(pathgate__os_fd fd, const pathgate_allocator *a, char **buf,
                              size_t *cap, size_t *used, size_t min);

/* The entry at *off of a listing (buf, used): 1 with e filled and *off
 * advanced, 0 at the end. Inline in os_platform.h. */
static inline int pathgate__os_dir_next(const char *buf, size_t used, size_t *off,
                                        pathgate__os_dirent *e);

/*
 * One spelling per file: the name `name` (one component) of dirfd as the
 * directory stores it, into out (cap bytes). A filesystem that finds
 * names in any case (Windows: PATHGATE__OS_NAMES_FOLD 1) answers `readme.md`
 * for `README.MD`; where names are exact (PATHGATE__OS_NAMES_FOLD 0) it is
 * name itself, copied with no call. 0, -ENOENT, -ENAMETOOLONG, or another
 * negative error. Declared by os_platform.h (inline where names are exact):
 *   int pathgate__os_stored_name(pathgate__os_fd dirfd, const char *name,
 *                                char *out, size_t cap);
 *
 * The same for a whole relative path: rewrites rel[0..len) ('/' between
 * names) in place so that each name of it that exists beneath dirfd has
 * the spelling its directory stores, entering each directory without
 * following a link; from the first name that is missing, a link, or
 * stored with another length, the rest stays as given (nothing stores
 * it). The one way the core respells an address (the resolver, file
 * operations). Where names are exact it is an empty inline body: no call.
 *   void pathgate__os_stored_rel(pathgate__os_fd dirfd, char *rel, size_t len);
 */

/* Puts fd's listing position back to its start: 0 or a negative error. */
int pathgate__os_dir_rewind(pathgate__os_fd fd);

/* ------------------------------------------------------------- changes */

int pathgate__os_mkdirat(pathgate__os_fd dirfd, const char *name, unsigned int mode);
/* unlink (flags 0) or rmdir (PATHGATE__OS_REMOVE_DIR) of name in dirfd */
#define PATHGATE__OS_REMOVE_DIR 0x1u
int pathgate__os_unlinkat(pathgate__os_fd dirfd, const char *name, unsigned int flags);

/* rename flags: 0 replaces; NOREPLACE fails with -EEXIST when the new name
 * exists (atomically; the POSIX backend links then unlinks, for files; a
 * directory there is renamed after a check, the residual of docs/os.md);
 * EXCHANGE swaps the two (-ENOSYS where the OS cannot). */
#define PATHGATE__OS_RENAME_NOREPLACE 0x1u
#define PATHGATE__OS_RENAME_EXCHANGE 0x2u
int pathgate__os_renameat(pathgate__os_fd olddir, const char *oldname, pathgate__os_fd newdir,
                          const char *newname, unsigned int flags);

/* A hard link of the entry `oldname` in olddir (never following it). */
int pathgate__os_linkat(pathgate__os_fd olddir, const char *oldname, pathgate__os_fd newdir,
                        const char *newname);
int pathgate__os_symlinkat(const char *target, pathgate__os_fd dirfd, const char *name);
/* The target of the symlink name in dirfd ("" : the PATHGATE__OS_O_PATH handle dirfd
 * itself, where the OS has link handles) into buf: its length (< size) or
 * a negative error (-EINVAL: not a symlink, -ENAMETOOLONG). */
long pathgate__os_readlinkat(pathgate__os_fd dirfd, const char *name, char *buf, size_t size);

/* chmod and utime of the entry a handle holds (a PATHGATE__OS_O_PATH
 * handle): never through a name. times: NULL = both now; else
 * {atime_sec, atime_nsec, mtime_sec, mtime_nsec}, a nsec of
 * PATHGATE__OS_UTIME_NOW sets that one to now, PATHGATE__OS_UTIME_OMIT
 * keeps it. */
#define PATHGATE__OS_UTIME_NOW (-1L)
#define PATHGATE__OS_UTIME_OMIT (-2L)
int pathgate__os_fchmod(pathgate__os_fd fd, unsigned int mode);
int pathgate__os_futimes(pathgate__os_fd fd, const int64_t times[4]);

/* ------------------------------------------------------ files and bytes */

/* Copies the whole of in (from offset 0) to out (at its current offset,
 * its offset left at the end; a is for a read/write buffer):
 * sharing the extents (a reflink, macOS clonefile) where the filesystem
 * can, else the kernel's in-place copy, else read/write. 0 or a negative
 * error. */
int pathgate__os_copy_fd(pathgate__os_fd out, pathgate__os_fd in, const pathgate_allocator *a);

/* The host path of the directory fd holds, where the OS can say it
 * (Linux's proc links, F_GETPATH on macOS, GetFinalPathNameByHandle):
 * 0, -ENOSYS where it cannot, or another negative error. */
int pathgate__os_fd_path(pathgate__os_fd fd, char *out, size_t cap);

/* The absolute path, every symlink resolved, of a host path (realpath):
 * 0, -ENOSYS where the OS has no such call (Windows, where
 * pathgate__os_fd_path answers for any handle), or another negative
 * error. */
int pathgate__os_realpath(const char *path, char *out, size_t cap);

/* Whether real, a resolved host path, is a home directory (1) or an
 * ancestor of one (2), else 0: the directories that are never an implicit
 * root nor a toolchain, since they hold a user's keys and settings.
 * POSIX: $HOME, the caller's account and every account of /etc/passwd
 * (a home at `/` skipped), each as given and resolved. Windows:
 * %USERPROFILE%, resolved, compared without case. */
int pathgate__os_host_holds_home(const char *real);

/* An advisory whole-file lock on fd: exclusive, non-blocking. 0, -EAGAIN
 * (held by another), -ENOSYS (the file system has none). */
int pathgate__os_lock_try(pathgate__os_fd fd);

/* Flushes the file system fd lives on (one call on Linux), or fd itself where the OS
 * has no such call. 0 or a negative error. */
int pathgate__os_sync_fs(pathgate__os_fd fd);

/* ------------------------------------------------------ handles' bytes
 *
 * What the portable core does with a handle it holds, beside the calls
 * above. Each returns a negative error on failure, never -1 with errno:
 *   close      always releases the handle (0 or the close's error);
 *   read/write a count (0 at the end of a read) or a negative error, EINTR
 *              retried; write may write fewer bytes than asked;
 *   pread      at an offset, the handle's position unchanged;
 *   seek       whence SEEK_SET/SEEK_CUR/SEEK_END (<stdio.h>): the new
 *              offset;
 *   fsync      the file's data and metadata on stable storage;
 *   truncate   to len bytes;
 *   dup        a second handle of the same open file (close-on-exec);
 *   set_append turns O_APPEND on (writes at the end) for an open handle;
 *   set_blocking turns O_NONBLOCK off (it was set to open a FIFO without
 *              blocking).
 * The POSIX backends define them inline over the system calls (os_fd_posix.h);
 * on Windows a handle is a C runtime descriptor over the NT HANDLE
 * (_open_osfhandle), so a C caller of the public API can read the int
 * handles pathgate_fs_open returns with the C runtime's own calls.
 *
 *   int pathgate__os_close(pathgate__os_fd fd);
 *   int64_t pathgate__os_read(pathgate__os_fd fd, void *buf, size_t n);
 *   int64_t pathgate__os_write(pathgate__os_fd fd, const void *buf, size_t n);
 *   int64_t pathgate__os_pread(pathgate__os_fd fd, void *buf, size_t n, uint64_t off);
 *   int64_t pathgate__os_seek(pathgate__os_fd fd, int64_t off, int whence);
 *   int pathgate__os_fsync(pathgate__os_fd fd);
 *   int pathgate__os_truncate(pathgate__os_fd fd, uint64_t len);
 *   pathgate__os_fd pathgate__os_dup(pathgate__os_fd fd);
 *   int pathgate__os_set_append(pathgate__os_fd fd);
 *   int pathgate__os_set_blocking(pathgate__os_fd fd);
 * are declared (or defined inline) by os_platform.h. */

/* How many processors this process may run on (at least 1). */
unsigned int pathgate__os_ncpu(void);

/* n random bytes from the OS (getentropy, BCryptGenRandom, ...):
 * 0 or a negative error. */
int pathgate__os_random(void *out, size_t n);

#include "os_platform.h"

#include <string.h>

/* base (a host path) joined with rel (the `/`-separated relative part of
 * an address; "" for the base itself) in the host's spelling, its own
 * separator throughout (`\` on Windows), into out, which has room for
 * base_len + 1 + rel_len + 1 bytes: its length. */
static inline size_t pathgate__os_host_join(char *out, const char *base, size_t base_len,
                                            const char *rel, size_t rel_len)
{
    size_t n = base_len;
    memcpy(out, base, base_len);
    if (rel_len) {
        if (!(base_len == 1 && base[0] == '/')) /* "/" itself */
            out[n++] = PATHGATE__OS_HOST_SEP;
        for (size_t i = 0; i < rel_len; i++)
            out[n++] = rel[i] == '/' ? PATHGATE__OS_HOST_SEP : rel[i];
    }
    out[n] = '\0';
    return n;
}

#endif
