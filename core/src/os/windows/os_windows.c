/*
 * os_windows.c - the OS interface (os.h) on NT handles (docs/windows.md,
 * "The OS interface on NT handles").
 *
 * A handle of os.h is a C runtime descriptor made by _open_osfhandle: the
 * runtime's own table of HANDLEs, so that close, read, write and lseek of
 * the portable core work on it unchanged. Every name is one component,
 * checked by the Windows name rules (lex/winname.h) before any call
 * reaches the kernel, then looked up relative to its directory's HANDLE
 * (OBJECT_ATTRIBUTES.RootDirectory):
 *   - its entry as the directory lists it first (pathgate__os_win_listed):
 *     a reparse point (symlink, junction, mount point) is a link, never
 *     opened through; that is what wine can show;
 *   - then NtCreateFile with OBJ_DONT_REPARSE and FILE_OPEN_REPARSE_POINT,
 *     and the opened handle's attribute tag: on Windows these refuse a
 *     link made between the listing and the open.
 * Links are read (FSCTL_GET_REPARSE_POINT) and followed by the component
 * walk under pathgate's own rules (os/posix/contain_walk.c, over these calls):
 * a relative target is spliced in while it stays inside, an absolute one
 * (every junction) reads as "/C:/..." and is refused as absolute.
 * Directories are held without FILE_SHARE_DELETE (cap-std), so a
 * directory being walked cannot be renamed or deleted under the walk;
 * delete and rename are handle-relative NtSetInformationFile calls with
 * POSIX semantics where the volume has them.
 */
#include <errno.h>
#include <fcntl.h>
#include <io.h>
#include <windows.h>
/* after windows.h */
#include <bcrypt.h>
#include <winternl.h>

#include "alloc.h"
#include "os.h"
#include "os_windows.h"
#include "winname.h"

NTSTATUS NTAPI NtQueryDirectoryFile(HANDLE dir, HANDLE event, PVOID apc, PVOID apc_context,
                                    PIO_STATUS_BLOCK io, PVOID info, ULONG len, ULONG info_class,
                                    BOOLEAN single, PUNICODE_STRING mask, BOOLEAN restart);

#define W_FILE_SUPERSEDE 0
#define W_FILE_OPEN 1
#define W_FILE_CREATE 2
#define W_FILE_OPEN_IF 3
#define W_FILE_OVERWRITE 4
#define W_FILE_OVERWRITE_IF 5
#define W_FILE_DIRECTORY_FILE 0x00000001u
#define W_FILE_SYNCHRONOUS_IO_NONALERT 0x00000020u
#define W_FILE_NON_DIRECTORY_FILE 0x00000040u
#define W_FILE_OPEN_FOR_BACKUP_INTENT 0x00004000u
#define W_FILE_OPEN_REPARSE_POINT 0x00200000u
#define W_STATUS_REPARSE_POINT_ENCOUNTERED ((NTSTATUS)0xC000050BL)
#define W_STATUS_STOPPED_ON_SYMLINK ((NTSTATUS)0x8000002DL)
#define W_STATUS_NO_MORE_FILES ((NTSTATUS)0x80000006L)
#define W_STATUS_NO_SUCH_FILE ((NTSTATUS)0xC000000FL)
/* information classes */
#define W_FILE_ID_BOTH_DIRECTORY_INFORMATION 37
#define W_FILE_ATTRIBUTE_TAG_INFORMATION 35
#define W_FILE_DISPOSITION_INFORMATION 13
#define W_FILE_DISPOSITION_INFORMATION_EX 64
#define W_FILE_RENAME_INFORMATION 10
#define W_FILE_RENAME_INFORMATION_EX 65
#define W_FILE_LINK_INFORMATION 11
#define W_FILE_BASIC_INFORMATION 4
/* FileDispositionInformationEx flags */
#define W_DISPOSITION_DELETE 0x1u
#define W_DISPOSITION_POSIX_SEMANTICS 0x2u
#define W_DISPOSITION_IGNORE_READONLY 0x10u
/* FileRenameInformationEx flags */
#define W_RENAME_REPLACE_IF_EXISTS 0x1u
#define W_RENAME_POSIX_SEMANTICS 0x2u
#define W_RENAME_IGNORE_READONLY 0x40u
#define W_FSCTL_GET_REPARSE_POINT 0x000900A8u
#define W_IO_REPARSE_TAG_MOUNT_POINT 0xA0000003u
#define W_IO_REPARSE_TAG_SYMLINK 0xA000000Cu
#define W_SYMLINK_FLAG_RELATIVE 0x1u
/* FILETIME of the Unix epoch */
#define W_EPOCH 116444736000000000LL

#define UNITS PATHGATE__OS_WIN_NAME_UNITS

/* ------------------------------------------------------------ handles */

pathgate__os_win_handle pathgate__os_win_handle_of(int fd)
{
    if (fd < 0)
        return NULL;
    intptr_t h = _get_osfhandle(fd);
    return h == -1 || h == 0 ? NULL : (HANDLE)h;
}

/* A new os.h handle for h (which it then owns), or a negative error. */
static int fd_of(HANDLE h, int crt_flags)
{
    int fd = _open_osfhandle((intptr_t)h, crt_flags | _O_NOINHERIT);
    if (fd < 0) {
        CloseHandle(h);
        return -EMFILE;
    }
    return fd;
}

/* One component as UTF-16: "" and "." name the directory itself (0
 * units); everything else passes the Windows name rules. */
typedef struct wname {
    WCHAR w[UNITS + 1];
    int k;
} wname;

static int name_of(const char *name, wname *n)
{
    n->k = 0;
    if (!name)
        return -EINVAL;
    size_t len = strlen(name);
    if (len == 0 || (len == 1 && name[0] == '.'))
        return 0;
    if (len == 2 && name[0] == '.' && name[1] == '.')
        return -EXDEV; /* NT has no relative `..`: the walk applies it lexically */
    if (pathgate__winname_check(name, len) != PATHGATE__WINNAME_OK)
        return -EINVAL;
    n->k = pathgate__os_win_utf16(n->w, UNITS, name, len);
    return n->k > 0 ? 0 : -ENAMETOOLONG; /* valid UTF-8 (checked), so too long */
}

/* NtCreateFile of n relative to dir, never through a reparse point;
 * `link_ok`: the entry may itself be a link (delete, rename, readlink
 * open the link itself). 0 with *out, or a negative error. */
static int nt_open(HANDLE dir, const wname *n, ACCESS_MASK access, ULONG share, ULONG disposition,
                   ULONG options, int link_ok, HANDLE *out)
{
    UNICODE_STRING us = {(USHORT)(n->k * sizeof(WCHAR)), (USHORT)(n->k * sizeof(WCHAR)),
                         (PWSTR)n->w};
    OBJECT_ATTRIBUTES oa;
    InitializeObjectAttributes(&oa, &us, OBJ_CASE_INSENSITIVE | OBJ_DONT_REPARSE, dir, NULL);
    IO_STATUS_BLOCK io;
    HANDLE h = NULL;
    NTSTATUS st = NtCreateFile(
        &h, access | SYNCHRONIZE, &oa, &io, NULL, FILE_ATTRIBUTE_NORMAL, share, disposition,
        options | W_FILE_SYNCHRONOUS_IO_NONALERT | W_FILE_OPEN_REPARSE_POINT, NULL, 0);
    if (st == W_STATUS_REPARSE_POINT_ENCOUNTERED || st == W_STATUS_STOPPED_ON_SYMLINK)
        return -ELOOP;
    if (!NT_SUCCESS(st))
        return pathgate__os_win_errno_of_status(st);
    if (!link_ok) {
        struct {
            ULONG attributes, tag;
        } tag;
        st = NtQueryInformationFile(h, &io, &tag, sizeof tag,
                                    (FILE_INFORMATION_CLASS)W_FILE_ATTRIBUTE_TAG_INFORMATION);
        if (!NT_SUCCESS(st) || (tag.attributes & FILE_ATTRIBUTE_REPARSE_POINT)) {
            CloseHandle(h);
            return NT_SUCCESS(st) ? -ELOOP : pathgate__os_win_errno_of_status(st);
        }
    }
    *out = h;
    return 0;
}

/* The entry n of dir (the listing), or the attributes of dir itself when
 * n names it. */
static int lookup(HANDLE dir, const wname *n, pathgate__os_win_entry *e)
{
    if (n->k)
        return pathgate__os_win_listed(dir, n->w, n->k, e);
    memset(e, 0, sizeof *e);
    FILE_BASIC_INFO b;
    if (!GetFileInformationByHandleEx(dir, FileBasicInfo, &b, sizeof b))
        return pathgate__os_win_errno_of_win32(GetLastError());
    e->attributes = b.FileAttributes;
    return 0;
}

#define IS_LINK(attr) (((attr)&FILE_ATTRIBUTE_REPARSE_POINT) != 0)
#define IS_DIR(attr) (((attr)&FILE_ATTRIBUTE_DIRECTORY) != 0)

/* Sharing: files can be renamed and deleted while open (as on POSIX);
 * directories cannot while a handle holds them. */
#define SHARE_FILE (FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE)
#define SHARE_DIR (FILE_SHARE_READ | FILE_SHARE_WRITE)
#define DIR_ACCESS (FILE_LIST_DIRECTORY | FILE_TRAVERSE | FILE_READ_ATTRIBUTES)

pathgate__os_fd pathgate__os_open_root(const char *host_path)
{
    if (!host_path)
        return -EINVAL;
    pathgate__os_win_handle h = NULL;
    int rc = pathgate__os_win_open_root(host_path, strlen(host_path), &h);
    return rc ? rc : fd_of(h, _O_RDONLY);
}

pathgate__os_fd pathgate__os_openat(pathgate__os_fd dirfd, const char *name, int open_flags,
                                    unsigned int mode)
{
    (void)mode; /* no permission bits on Windows: ACLs are inherited */
    HANDLE dir = pathgate__os_win_handle_of(dirfd);
    if (!dir)
        return -EBADF;
    wname n;
    int rc = name_of(name, &n);
    if (rc)
        return rc;
    pathgate__os_win_entry e;
    int exists = 1;
    rc = lookup(dir, &n, &e);
    if (rc == -ENOENT && (open_flags & O_CREAT) && n.k)
        exists = 0;
    else if (rc)
        return rc;
    int acc = open_flags & O_ACCMODE;
    int is_dir = 0;
    if (exists) {
        if (IS_LINK(e.attributes))
            return -ELOOP; /* never opened through: the walk reads links */
        if ((open_flags & O_CREAT) && (open_flags & O_EXCL))
            return -EEXIST;
        is_dir = IS_DIR(e.attributes);
        if ((open_flags & O_DIRECTORY) && !is_dir)
            return -ENOTDIR;
        if (is_dir && (acc != O_RDONLY || (open_flags & (O_TRUNC | O_CREAT))))
            return -EISDIR;
    } else if (open_flags & O_DIRECTORY) {
        return -ENOENT;
    }
    ACCESS_MASK access;
    ULONG options, share, disposition;
    if (is_dir) {
        access = DIR_ACCESS;
        options = W_FILE_DIRECTORY_FILE | W_FILE_OPEN_FOR_BACKUP_INTENT;
        share = SHARE_DIR;
    } else {
        share = SHARE_FILE;
        options = W_FILE_NON_DIRECTORY_FILE;
        if (open_flags & PATHGATE__OS_O_PATH)
            access = FILE_READ_ATTRIBUTES;
        else {
            ACCESS_MASK wr = FILE_GENERIC_WRITE;
            if (open_flags & O_APPEND)
                wr &= ~(ACCESS_MASK)FILE_WRITE_DATA;
            access = acc == O_WRONLY ? wr
                     : acc == O_RDWR ? (wr | FILE_GENERIC_READ)
                                     : FILE_GENERIC_READ;
            access |= FILE_READ_ATTRIBUTES;
        }
    }
    /* A name the listing does not show is created, never opened: wine 8
     * leaves a dangling link out of listings, and an open-if through it
     * would create the file it points to, wherever that is. */
    if (!exists)
        disposition = W_FILE_CREATE;
    else if ((open_flags & O_TRUNC) && acc != O_RDONLY)
        disposition = W_FILE_OVERWRITE;
    else
        disposition = W_FILE_OPEN;
    HANDLE h = NULL;
    rc = nt_open(dir, &n, access, share, disposition, options, 0, &h);
    if (rc == -EEXIST && !exists && !(open_flags & O_EXCL)) {
        /* made by someone else since the listing, or hidden from it */
        int again = pathgate__os_win_listed(dir, n.w, n.k, &e);
        if (again == -ENOENT)
            return -ELOOP; /* there, but not listed: a dangling link (wine) */
        if (again)
            return again;
        if (IS_LINK(e.attributes))
            return -ELOOP;
        if (IS_DIR(e.attributes))
            return -EISDIR;
        disposition = ((open_flags & O_TRUNC) && acc != O_RDONLY) ? W_FILE_OVERWRITE : W_FILE_OPEN;
        rc = nt_open(dir, &n, access, share, disposition, options, 0, &h);
    }
    if (rc)
        return rc;
    int crt = acc == O_RDONLY ? _O_RDONLY : 0;
    if (open_flags & O_APPEND)
        crt |= _O_APPEND;
    return fd_of(h, crt);
}

/* ------------------------------------------------------------------ stat */

static void time_of(int64_t ft, int64_t *sec, long *nsec)
{
    int64_t t = ft - W_EPOCH; /* 100 ns since 1970 */
    int64_t s = t / 10000000, r = t % 10000000;
    if (r < 0)
        s--, r += 10000000;
    *sec = s;
    *nsec = (long)(r * 100);
}

static void stat_times(pathgate__os_stat *out, int64_t created, int64_t accessed, int64_t written,
                       int64_t changed)
{
    time_of(accessed, &out->atime_sec, &out->atime_nsec);
    time_of(written, &out->mtime_sec, &out->mtime_nsec);
    time_of(changed, &out->ctime_sec, &out->ctime_nsec);
    time_of(created, &out->btime_sec, &out->btime_nsec);
    out->has_btime = 1;
}

static unsigned int mode_of(unsigned long attr)
{
    unsigned int m = IS_DIR(attr) ? 0777 : 0666;
    return (attr & FILE_ATTRIBUTE_READONLY) ? (m & ~0222u) : m;
}

static int stat_handle(HANDLE h, pathgate__os_stat *out)
{
    BY_HANDLE_FILE_INFORMATION bh;
    FILE_BASIC_INFO b;
    if (!GetFileInformationByHandle(h, &bh) ||
        !GetFileInformationByHandleEx(h, FileBasicInfo, &b, sizeof b))
        return pathgate__os_win_errno_of_win32(GetLastError());
    memset(out, 0, sizeof *out);
    unsigned long attr = bh.dwFileAttributes;
    out->type = IS_LINK(attr)                      ? PATHGATE__OS_T_LNK
                : IS_DIR(attr)                     ? PATHGATE__OS_T_DIR
                : GetFileType(h) == FILE_TYPE_DISK ? PATHGATE__OS_T_REG
                                                   : PATHGATE__OS_T_OTHER;
    out->mode = mode_of(attr);
    out->size = IS_DIR(attr) ? 0 : ((uint64_t)bh.nFileSizeHigh << 32 | bh.nFileSizeLow);
    out->dev = bh.dwVolumeSerialNumber;
    out->ino = (uint64_t)bh.nFileIndexHigh << 32 | bh.nFileIndexLow;
    out->nlink = bh.nNumberOfLinks;
    stat_times(out, b.CreationTime.QuadPart, b.LastAccessTime.QuadPart, b.LastWriteTime.QuadPart,
               b.ChangeTime.QuadPart);
    return 0;
}

int pathgate__os_statat(pathgate__os_fd dirfd, const char *name, unsigned int flags,
                        pathgate__os_stat *out)
{
    HANDLE dir = pathgate__os_win_handle_of(dirfd);
    if (!dir)
        return -EBADF;
    wname n;
    int rc = name_of(name, &n);
    if (rc)
        return rc;
    if (n.k == 0)
        return stat_handle(dir, out);
    pathgate__os_win_entry e;
    if ((rc = pathgate__os_win_listed(dir, n.w, n.k, &e)) != 0)
        return rc;
    HANDLE h = NULL;
    if (IS_LINK(e.attributes)) {
        if (flags & PATHGATE__OS_STAT_NOFOLLOW) {
            /* the link itself, as its directory lists it */
            BY_HANDLE_FILE_INFORMATION bh;
            memset(out, 0, sizeof *out);
            out->type = PATHGATE__OS_T_LNK;
            out->mode = 0777;
            out->size = e.size;
            out->ino = e.file_id;
            out->nlink = 1;
            if (GetFileInformationByHandle(dir, &bh))
                out->dev = bh.dwVolumeSerialNumber;
            stat_times(out, e.created, e.accessed, e.written, e.changed);
            return 0;
        }
        /* stat follows a final link, as POSIX's does (metadata only; the
         * walk decides what a link may lead to) */
        UNICODE_STRING us = {(USHORT)(n.k * sizeof(WCHAR)), (USHORT)(n.k * sizeof(WCHAR)), n.w};
        OBJECT_ATTRIBUTES oa;
        InitializeObjectAttributes(&oa, &us, OBJ_CASE_INSENSITIVE, dir, NULL);
        IO_STATUS_BLOCK io;
        NTSTATUS st = NtCreateFile(
            &h, FILE_READ_ATTRIBUTES | SYNCHRONIZE, &oa, &io, NULL, 0, SHARE_FILE, W_FILE_OPEN,
            W_FILE_SYNCHRONOUS_IO_NONALERT | W_FILE_OPEN_FOR_BACKUP_INTENT, NULL, 0);
        if (!NT_SUCCESS(st))
            return pathgate__os_win_errno_of_status(st);
    } else {
        rc = nt_open(dir, &n, FILE_READ_ATTRIBUTES, SHARE_FILE, W_FILE_OPEN,
                     W_FILE_OPEN_FOR_BACKUP_INTENT, 0, &h);
        if (rc)
            return rc;
    }
    rc = stat_handle(h, out);
    CloseHandle(h);
    return rc;
}

/* ------------------------------------------------------------ directories */

#define REC_ALIGN 8
#define LIST_CHUNK 65536

/* A fresh listing handle of the directory h (wine keeps a handle's first
 * mask and position for good; a fresh handle always lists from the
 * start). */
static int list_handle(HANDLE h, HANDLE *out)
{
    wname self;
    self.k = 0;
    return nt_open(h, &self, FILE_LIST_DIRECTORY, SHARE_FILE, W_FILE_OPEN,
                   W_FILE_DIRECTORY_FILE | W_FILE_OPEN_FOR_BACKUP_INTENT, 1, out);
}

static int append_entry(const pathgate_allocator *a, char **buf, size_t *cap, size_t *used,
                        size_t min, const FILE_ID_BOTH_DIR_INFORMATION *d)
{
    const WCHAR *w = d->FileName;
    int units = (int)(d->FileNameLength / sizeof(WCHAR));
    if ((units == 1 && w[0] == L'.') || (units == 2 && w[0] == L'.' && w[1] == L'.'))
        return 0;
    char name[3 * UNITS + 4];
    int len = units ? WideCharToMultiByte(CP_UTF8, WC_ERR_INVALID_CHARS, w, units, name,
                                          (int)sizeof name - 1, NULL, NULL)
                    : 0;
    if (len <= 0)
        return 0; /* not valid UTF-16 (a lone surrogate): no UTF-8 name, left out */
    size_t hdr = offsetof(struct pathgate__os_win_dirent, name);
    size_t size = (hdr + (size_t)len + 1 + REC_ALIGN - 1) & ~(size_t)(REC_ALIGN - 1);
    if (*cap - *used < size) {
        size_t ncap = *cap ? *cap : min;
        if (ncap == 0)
            ncap = 4096;
        while (ncap - *used < size || ncap < min)
            ncap *= 2;
        char *nb = pathgate__realloc(a, *buf, ncap);
        if (!nb)
            return -ENOMEM;
        *buf = nb;
        *cap = ncap;
    }
    struct pathgate__os_win_dirent *r = (struct pathgate__os_win_dirent *)(void *)(*buf + *used);
    r->reclen = (uint32_t)size;
    r->type = IS_LINK(d->FileAttributes)  ? PATHGATE__OS_T_LNK
              : IS_DIR(d->FileAttributes) ? PATHGATE__OS_T_DIR
                                          : PATHGATE__OS_T_REG;
    r->len = (uint32_t)len;
    memcpy(r->name, name, (size_t)len);
    r->name[len] = '\0';
    *used += size;
    return 0;
}

int pathgate__os_dir_read_all(pathgate__os_fd fd, const pathgate_allocator *a, char **buf,
                              size_t *cap, size_t *used, size_t min)
{
    *used = 0;
    HANDLE h = pathgate__os_win_handle_of(fd), dir = NULL;
    if (!h)
        return -EBADF;
    int rc = list_handle(h, &dir);
    if (rc)
        return rc;
    char *chunk = pathgate__malloc(a, LIST_CHUNK);
    if (!chunk) {
        CloseHandle(dir);
        return -ENOMEM;
    }
    for (int first = 1; rc == 0; first = 0) {
        IO_STATUS_BLOCK io;
        NTSTATUS st =
            NtQueryDirectoryFile(dir, NULL, NULL, NULL, &io, chunk, LIST_CHUNK,
                                 W_FILE_ID_BOTH_DIRECTORY_INFORMATION, FALSE, NULL, (BOOLEAN)first);
        if (st == W_STATUS_NO_MORE_FILES || (first && st == W_STATUS_NO_SUCH_FILE))
            break;
        if (!NT_SUCCESS(st)) {
            rc = pathgate__os_win_errno_of_status(st);
            break;
        }
        for (size_t off = 0;;) {
            const FILE_ID_BOTH_DIR_INFORMATION *d =
                (const FILE_ID_BOTH_DIR_INFORMATION *)(const void *)(chunk + off);
            if ((rc = append_entry(a, buf, cap, used, min, d)) != 0 || d->NextEntryOffset == 0)
                break;
            off += d->NextEntryOffset;
        }
    }
    pathgate__free(a, chunk);
    CloseHandle(dir);
    return rc;
}

int pathgate__os_stored_name(pathgate__os_fd dirfd, const char *name, char *out, size_t cap)
{
    HANDLE dir = pathgate__os_win_handle_of(dirfd);
    if (!dir)
        return -EBADF;
    wname n;
    int rc = name_of(name, &n);
    if (rc == 0 && n.k == 0) {
        size_t len = strlen(name);
        if (len >= cap)
            return -ENAMETOOLONG;
        memcpy(out, name, len + 1);
        return 0;
    }
    pathgate__os_win_entry e;
    if (rc || (rc = pathgate__os_win_listed(dir, n.w, n.k, &e)) != 0)
        return rc;
    int len = WideCharToMultiByte(CP_UTF8, WC_ERR_INVALID_CHARS, e.name, e.name_units, NULL, 0,
                                  NULL, NULL);
    if (len <= 0)
        return -EINVAL;
    if ((size_t)len >= cap)
        return -ENAMETOOLONG;
    WideCharToMultiByte(CP_UTF8, WC_ERR_INVALID_CHARS, e.name, e.name_units, out, len, NULL, NULL);
    out[len] = '\0';
    return 0;
}

int pathgate__os_dir_rewind(pathgate__os_fd fd)
{
    /* every pathgate__os_dir_read_all lists from the start already */
    return pathgate__os_win_handle_of(fd) ? 0 : -EBADF;
}

/* ------------------------------------------------------------- changes */

int pathgate__os_mkdirat(pathgate__os_fd dirfd, const char *name, unsigned int mode)
{
    (void)mode;
    HANDLE dir = pathgate__os_win_handle_of(dirfd), h = NULL;
    if (!dir)
        return -EBADF;
    wname n;
    int rc = name_of(name, &n);
    if (rc)
        return rc;
    if (n.k == 0)
        return -EEXIST;
    rc = nt_open(dir, &n, FILE_LIST_DIRECTORY, SHARE_DIR, W_FILE_CREATE, W_FILE_DIRECTORY_FILE, 1,
                 &h);
    if (rc)
        return rc;
    CloseHandle(h);
    return 0;
}

/* FILE_BASIC_INFORMATION: times of 0 and attributes of 0 are left as
 * they are. */
typedef struct basic_info {
    LARGE_INTEGER created, accessed, written, changed;
    ULONG attributes;
} basic_info;

/* The attributes a FileBasicInformation may set (not the directory,
 * reparse, compression, encryption or sparse bits). */
#define VALID_SET_ATTRIBUTES                                                                       \
    (FILE_ATTRIBUTE_READONLY | FILE_ATTRIBUTE_HIDDEN | FILE_ATTRIBUTE_SYSTEM |                     \
     FILE_ATTRIBUTE_ARCHIVE | FILE_ATTRIBUTE_NORMAL | FILE_ATTRIBUTE_TEMPORARY |                   \
     FILE_ATTRIBUTE_OFFLINE | FILE_ATTRIBUTE_NOT_CONTENT_INDEXED)

/* Opens the entry n of dir for a change of its name (DELETE access), the
 * entry itself even when it is a link. *e is its listing. */
static int open_for_delete(HANDLE dir, const wname *n, ACCESS_MASK more,
                           const pathgate__os_win_entry *e, HANDLE *out)
{
    ULONG options = IS_LINK(e->attributes)  ? 0
                    : IS_DIR(e->attributes) ? W_FILE_DIRECTORY_FILE | W_FILE_OPEN_FOR_BACKUP_INTENT
                                            : W_FILE_NON_DIRECTORY_FILE;
    int rc = nt_open(dir, n, DELETE | FILE_READ_ATTRIBUTES | more, SHARE_FILE, W_FILE_OPEN, options,
                     1, out);
    if (rc || !IS_LINK(e->attributes))
        return rc;
    /* The listing says link: the handle must hold the link itself. Wine 8
     * opens a link's target even under FILE_OPEN_REPARSE_POINT, and a
     * delete through that handle would delete the target (measured: an
     * empty directory outside the root); such an open is refused. */
    struct {
        ULONG attributes, tag;
    } tag;
    IO_STATUS_BLOCK io;
    NTSTATUS st = NtQueryInformationFile(*out, &io, &tag, sizeof tag,
                                         (FILE_INFORMATION_CLASS)W_FILE_ATTRIBUTE_TAG_INFORMATION);
    if (NT_SUCCESS(st) && (tag.attributes & FILE_ATTRIBUTE_REPARSE_POINT))
        return 0;
    CloseHandle(*out);
    *out = NULL;
    return NT_SUCCESS(st) ? -ELOOP : pathgate__os_win_errno_of_status(st);
}

/* NtSetInformationFile; a class the volume (or wine) does not have is
 * -ENOSYS. */
static int set_info(HANDLE h, void *info, ULONG len, int cls)
{
    IO_STATUS_BLOCK io;
    NTSTATUS st = NtSetInformationFile(h, &io, info, len, (FILE_INFORMATION_CLASS)cls);
    return NT_SUCCESS(st) ? 0 : pathgate__os_win_errno_of_status(st);
}

int pathgate__os_unlinkat(pathgate__os_fd dirfd, const char *name, unsigned int flags)
{
    HANDLE dir = pathgate__os_win_handle_of(dirfd), h = NULL;
    if (!dir)
        return -EBADF;
    wname n;
    int rc = name_of(name, &n);
    if (rc)
        return rc;
    if (n.k == 0)
        return -EINVAL;
    pathgate__os_win_entry e;
    if ((rc = pathgate__os_win_listed(dir, n.w, n.k, &e)) != 0)
        return rc;
    int is_dir = IS_DIR(e.attributes) && !IS_LINK(e.attributes);
    if ((flags & PATHGATE__OS_REMOVE_DIR) && !is_dir)
        return -ENOTDIR;
    if (!(flags & PATHGATE__OS_REMOVE_DIR) && is_dir)
        return -EISDIR;
    int readonly = (e.attributes & FILE_ATTRIBUTE_READONLY) != 0;
    if ((rc = open_for_delete(dir, &n, readonly ? FILE_WRITE_ATTRIBUTES : 0, &e, &h)) != 0)
        return rc;
    /* POSIX semantics: the name goes now, even while others hold the
     * file open, read-only or not; else the classic delete-on-close. */
    ULONG ex = W_DISPOSITION_DELETE | W_DISPOSITION_POSIX_SEMANTICS | W_DISPOSITION_IGNORE_READONLY;
    rc = set_info(h, &ex, sizeof ex, W_FILE_DISPOSITION_INFORMATION_EX);
    if (rc == -ENOSYS || rc == -EINVAL) {
        BOOLEAN del = TRUE;
        rc = set_info(h, &del, sizeof del, W_FILE_DISPOSITION_INFORMATION);
        if (rc == -EACCES && readonly) {
            /* the classic delete refuses a read-only file, which POSIX
             * deletes: the attribute goes first, and comes back if the
             * delete still fails */
            basic_info b;
            memset(&b, 0, sizeof b);
            b.attributes = (e.attributes & ~(ULONG)FILE_ATTRIBUTE_READONLY) & VALID_SET_ATTRIBUTES;
            if (!b.attributes)
                b.attributes = FILE_ATTRIBUTE_NORMAL;
            if (set_info(h, &b, sizeof b, W_FILE_BASIC_INFORMATION) == 0) {
                rc = set_info(h, &del, sizeof del, W_FILE_DISPOSITION_INFORMATION);
                if (rc) {
                    b.attributes |= FILE_ATTRIBUTE_READONLY;
                    b.attributes &= ~(ULONG)FILE_ATTRIBUTE_NORMAL;
                    set_info(h, &b, sizeof b, W_FILE_BASIC_INFORMATION);
                }
            }
        }
    }
    CloseHandle(h);
    return rc;
}

/* FILE_RENAME_INFORMATION(_EX) and FILE_LINK_INFORMATION: one layout (the
 * BOOLEAN ReplaceIfExists of the classic ones is the low byte of Flags). */
typedef struct rename_info {
    ULONG flags;
    HANDLE root;
    ULONG bytes;
    WCHAR name[UNITS + 1];
} rename_info;

static int set_name(HANDLE h, HANDLE newdir, const wname *nn, ULONG flags, int cls, int classic)
{
    rename_info r;
    memset(&r, 0, sizeof r);
    r.flags = flags;
    r.root = newdir;
    r.bytes = (ULONG)(nn->k * sizeof(WCHAR));
    memcpy(r.name, nn->w, r.bytes);
    /* at least the size of the structure with its one-unit name (wine
     * checks it: STATUS_INVALID_PARAMETER_3 for a one-letter name) */
    ULONG len = (ULONG)(offsetof(rename_info, name) + r.bytes + sizeof(WCHAR));
    if (len < 24)
        len = 24;
    int rc = set_info(h, &r, len, cls);
    if ((rc == -ENOSYS || rc == -EINVAL) && classic) {
        r.flags = (flags & W_RENAME_REPLACE_IF_EXISTS) ? 1u : 0u;
        rc = set_info(h, &r, len, classic);
    }
    return rc;
}

/* What renameat and linkat both begin with: the two directories'
 * handles, the two names (either empty: -empty_errno) and the source's
 * listing entry. 0 or a negative error. */
static int name_pair(pathgate__os_fd olddir, const char *oldname, pathgate__os_fd newdir,
                     const char *newname, int empty_errno, HANDLE *od, HANDLE *nd, wname *on,
                     wname *nn, pathgate__os_win_entry *e)
{
    *od = pathgate__os_win_handle_of(olddir);
    *nd = pathgate__os_win_handle_of(newdir);
    if (!*od || !*nd)
        return -EBADF;
    int rc = name_of(oldname, on);
    if (rc == 0)
        rc = name_of(newname, nn);
    if (rc)
        return rc;
    if (on->k == 0 || nn->k == 0)
        return -empty_errno;
    return pathgate__os_win_listed(*od, on->w, on->k, e);
}

int pathgate__os_renameat(pathgate__os_fd olddir, const char *oldname, pathgate__os_fd newdir,
                          const char *newname, unsigned int flags)
{
    if (flags & PATHGATE__OS_RENAME_EXCHANGE)
        return -ENOSYS;
    HANDLE od, nd, h = NULL;
    wname on, nn;
    pathgate__os_win_entry e;
    int rc = name_pair(olddir, oldname, newdir, newname, EBUSY, &od, &nd, &on, &nn, &e);
    if (rc)
        return rc;
    if (!(flags & PATHGATE__OS_RENAME_NOREPLACE)) {
        /* POSIX's answers where a file and a directory would replace each
         * other (Windows says "access denied"; wine 8 even replaces a file
         * with a directory), and a directory never replaces another here */
        pathgate__os_win_entry t;
        rc = pathgate__os_win_listed(nd, nn.w, nn.k, &t);
        if (rc == 0) {
            int sdir = IS_DIR(e.attributes) && !IS_LINK(e.attributes);
            int tdir = IS_DIR(t.attributes) && !IS_LINK(t.attributes);
            if (sdir != tdir)
                return sdir ? -ENOTDIR : -EISDIR;
            if (sdir && t.file_id != e.file_id)
                return -EEXIST; /* POSIX would replace an empty one: not atomic here */
        } else if (rc != -ENOENT) {
            return rc;
        }
    }
    if ((rc = open_for_delete(od, &on, 0, &e, &h)) != 0)
        return rc;
    ULONG f = W_RENAME_POSIX_SEMANTICS | W_RENAME_IGNORE_READONLY;
    if (!(flags & PATHGATE__OS_RENAME_NOREPLACE))
        f |= W_RENAME_REPLACE_IF_EXISTS;
    rc = set_name(h, nd, &nn, f, W_FILE_RENAME_INFORMATION_EX, W_FILE_RENAME_INFORMATION);
    CloseHandle(h);
    return rc;
}

int pathgate__os_linkat(pathgate__os_fd olddir, const char *oldname, pathgate__os_fd newdir,
                        const char *newname)
{
    HANDLE od, nd, h = NULL;
    wname on, nn;
    pathgate__os_win_entry e;
    int rc = name_pair(olddir, oldname, newdir, newname, EPERM, &od, &nd, &on, &nn, &e);
    if (rc)
        return rc;
    if (IS_DIR(e.attributes) && !IS_LINK(e.attributes))
        return -EPERM; /* no hard link of a directory, as on POSIX */
    rc = nt_open(od, &on, FILE_READ_ATTRIBUTES, SHARE_FILE, W_FILE_OPEN,
                 IS_LINK(e.attributes) ? 0 : W_FILE_NON_DIRECTORY_FILE, 1, &h);
    if (rc)
        return rc;
    rc = set_name(h, nd, &nn, 0, W_FILE_LINK_INFORMATION, 0);
    CloseHandle(h);
    return rc;
}

int pathgate__os_symlinkat(const char *target, pathgate__os_fd dirfd, const char *name)
{
    /* Making a link needs a privilege (or developer mode) on Windows, and
     * wine cannot make one at all: pathgate does not make links there. */
    (void)target;
    (void)dirfd;
    (void)name;
    return -ENOSYS;
}

/* REPARSE_DATA_BUFFER, the two link kinds. */
typedef struct reparse_data {
    ULONG tag;
    USHORT data_len, reserved;
    USHORT sub_off, sub_len, print_off, print_len;
    union {
        struct {
            ULONG flags;
            WCHAR path[1];
        } symlink;
        struct {
            WCHAR path[1];
        } mount;
    } u;
} reparse_data;

/* An absolute NT target as the walk sees it: "\??\C:\x" -> "/C:/x",
 * "\??\UNC\s\x" -> "//s/x"; always beginning with '/', so every layer that
 * refuses an absolute link target refuses it. */
static long link_text(const WCHAR *w, int units, int relative, char *buf, size_t size)
{
    WCHAR tmp[32768 / sizeof(WCHAR)];
    int at = 0, skip = 0;
    if (!relative) {
        if (units >= 8 && wcsncmp(w, L"\\??\\UNC\\", 8) == 0) {
            tmp[at++] = L'/';
            skip = 7; /* keeps the '\' before the server: "//s/x" */
        } else if (units >= 4 &&
                   (wcsncmp(w, L"\\??\\", 4) == 0 || wcsncmp(w, L"\\\\?\\", 4) == 0)) {
            tmp[at++] = L'/';
            skip = 4;
        }
    }
    if (units - skip + at > (int)(sizeof tmp / sizeof *tmp))
        return -ENAMETOOLONG;
    for (int i = skip; i < units; i++)
        tmp[at++] = w[i] == L'\\' ? L'/' : w[i];
    if (at == 0)
        return 0;
    int len = WideCharToMultiByte(CP_UTF8, WC_ERR_INVALID_CHARS, tmp, at, NULL, 0, NULL, NULL);
    if (len <= 0)
        return -EINVAL; /* not valid UTF-16 */
    if ((size_t)len >= size)
        return -ENAMETOOLONG;
    WideCharToMultiByte(CP_UTF8, WC_ERR_INVALID_CHARS, tmp, at, buf, len, NULL, NULL);
    buf[len] = '\0';
    return len;
}

long pathgate__os_readlinkat(pathgate__os_fd dirfd, const char *name, char *buf, size_t size)
{
    HANDLE dir = pathgate__os_win_handle_of(dirfd), h = NULL;
    if (!dir)
        return -EBADF;
    wname n;
    int rc = name_of(name, &n);
    if (rc)
        return rc;
    if (n.k == 0)
        return -EINVAL; /* no handle on a link itself */
    pathgate__os_win_entry e;
    if ((rc = pathgate__os_win_listed(dir, n.w, n.k, &e)) != 0)
        return rc;
    if (!IS_LINK(e.attributes))
        return -EINVAL;
    if ((rc = nt_open(dir, &n, FILE_READ_ATTRIBUTES, SHARE_FILE, W_FILE_OPEN,
                      W_FILE_OPEN_FOR_BACKUP_INTENT, 1, &h)) != 0)
        return rc;
    union {
        reparse_data r;
        char bytes[16 * 1024]; /* MAXIMUM_REPARSE_DATA_BUFFER_SIZE */
    } data;
    IO_STATUS_BLOCK io;
    NTSTATUS st = NtFsControlFile(h, NULL, NULL, NULL, &io, W_FSCTL_GET_REPARSE_POINT, NULL, 0,
                                  &data, sizeof data);
    CloseHandle(h);
    if (!NT_SUCCESS(st)) {
        /* a reparse point whose target cannot be read (wine 8: no
         * FSCTL_GET_REPARSE_POINT) is never followed, and since nothing
         * says where it leads, it is taken to lead out (-EXDEV): an
         * address through it is refused as an escape, not served as a
         * name that may be acted on (-ELOOP, a loop) */
        return -EXDEV;
    }
    return pathgate__os_win_reparse_target(&data, io.Information, buf, size);
}

long pathgate__os_win_reparse_target(const void *data, size_t len, char *buf, size_t size)
{
    const reparse_data *r = data;
    const size_t head = offsetof(reparse_data, u);
    if (len < head + sizeof(ULONG) || len > 16 * 1024)
        return -EIO;
    const WCHAR *base;
    int relative = 0;
    if (r->tag == W_IO_REPARSE_TAG_SYMLINK) {
        base = r->u.symlink.path;
        relative = (r->u.symlink.flags & W_SYMLINK_FLAG_RELATIVE) != 0;
    } else if (r->tag == W_IO_REPARSE_TAG_MOUNT_POINT) {
        base = r->u.mount.path;
    } else {
        return -ELOOP; /* another kind of reparse point: not a link pathgate reads */
    }
    size_t at = (size_t)((const char *)base - (const char *)data);
    if ((r->sub_off | r->sub_len) & 1 || at + r->sub_off + r->sub_len > len)
        return -EIO;
    return link_text(base + r->sub_off / sizeof(WCHAR), r->sub_len / (int)sizeof(WCHAR), relative,
                     buf, size);
}

/* A second handle of the entry h holds, with `access` (the os.h handle
 * may be a PATHGATE__OS_O_PATH one, for reading attributes only). */
static int reopen(HANDLE h, ACCESS_MASK access, HANDLE *out)
{
    wname self;
    self.k = 0;
    return nt_open(h, &self, access, SHARE_FILE, W_FILE_OPEN, W_FILE_OPEN_FOR_BACKUP_INTENT, 1,
                   out);
}

int pathgate__os_fchmod(pathgate__os_fd fd, unsigned int mode)
{
    HANDLE h = pathgate__os_win_handle_of(fd), w = NULL;
    if (!h)
        return -EBADF;
    /* the one permission Windows has: the read-only attribute */
    FILE_BASIC_INFO b;
    if (!GetFileInformationByHandleEx(h, FileBasicInfo, &b, sizeof b))
        return pathgate__os_win_errno_of_win32(GetLastError());
    ULONG attr = b.FileAttributes;
    attr =
        (mode & 0200) ? (attr & ~(ULONG)FILE_ATTRIBUTE_READONLY) : (attr | FILE_ATTRIBUTE_READONLY);
    if (attr == b.FileAttributes)
        return 0;
    int rc = reopen(h, FILE_WRITE_ATTRIBUTES, &w);
    if (rc)
        return rc;
    basic_info s;
    memset(&s, 0, sizeof s); /* times 0: unchanged */
    attr &= VALID_SET_ATTRIBUTES;
    s.attributes = attr ? attr : FILE_ATTRIBUTE_NORMAL;
    rc = set_info(w, &s, sizeof s, W_FILE_BASIC_INFORMATION);
    CloseHandle(w);
    return rc;
}

int pathgate__os_futimes(pathgate__os_fd fd, const int64_t times[4])
{
    HANDLE h = pathgate__os_win_handle_of(fd), w = NULL;
    if (!h)
        return -EBADF;
    FILETIME now;
    GetSystemTimePreciseAsFileTime(&now);
    int64_t now_ft = (int64_t)((uint64_t)now.dwHighDateTime << 32 | now.dwLowDateTime);
    int64_t ft[2];
    for (int i = 0; i < 2; i++) {
        long ns = times ? (long)times[2 * i + 1] : PATHGATE__OS_UTIME_NOW;
        if (ns == PATHGATE__OS_UTIME_OMIT) {
            ft[i] = 0; /* 0: left as it is */
            continue;
        }
        if (ns == PATHGATE__OS_UTIME_NOW) {
            ft[i] = now_ft;
            continue;
        }
        int64_t sec = times[2 * i];
        if (ns < 0 || ns > 999999999 || sec < -W_EPOCH / 10000000 + 1 ||
            sec > (INT64_MAX - W_EPOCH) / 10000000 - 1)
            return -EINVAL;
        ft[i] = sec * 10000000 + ns / 100 + W_EPOCH;
    }
    int rc = reopen(h, FILE_WRITE_ATTRIBUTES, &w);
    if (rc)
        return rc;
    basic_info s;
    memset(&s, 0, sizeof s);
    s.accessed.QuadPart = ft[0];
    s.written.QuadPart = ft[1];
    rc = set_info(w, &s, sizeof s, W_FILE_BASIC_INFORMATION);
    CloseHandle(w);
    return rc;
}

/* ------------------------------------------------------ files and bytes */

#define COPY_BUF 65536

int pathgate__os_copy_fd(pathgate__os_fd out, pathgate__os_fd in, const pathgate_allocator *a)
{
    HANDLE hi = pathgate__os_win_handle_of(in), ho = pathgate__os_win_handle_of(out);
    if (!hi || !ho)
        return -EBADF;
    char *buf = pathgate__malloc(a, COPY_BUF);
    if (!buf)
        return -ENOMEM;
    uint64_t off = 0;
    int rc = 0;
    for (;;) {
        OVERLAPPED ov;
        memset(&ov, 0, sizeof ov);
        ov.Offset = (DWORD)off;
        ov.OffsetHigh = (DWORD)(off >> 32);
        DWORD r = 0;
        if (!ReadFile(hi, buf, COPY_BUF, &r, &ov)) {
            DWORD e = GetLastError();
            if (e != ERROR_HANDLE_EOF)
                rc = pathgate__os_win_errno_of_win32(e);
            break;
        }
        if (r == 0)
            break;
        off += r;
        for (DWORD done = 0; done < r;) {
            DWORD w = 0;
            if (!WriteFile(ho, buf + done, r - done, &w, NULL)) {
                rc = pathgate__os_win_errno_of_win32(GetLastError());
                break;
            }
            done += w;
        }
        if (rc)
            break;
    }
    pathgate__free(a, buf);
    return rc;
}

int pathgate__os_fd_path(pathgate__os_fd fd, char *out, size_t cap)
{
    HANDLE h = pathgate__os_win_handle_of(fd);
    if (!h)
        return -EBADF;
    enum { W = 32768 };
    WCHAR *w = HeapAlloc(GetProcessHeap(), 0, W * sizeof(WCHAR));
    if (!w)
        return -ENOMEM;
    DWORD k = GetFinalPathNameByHandleW(h, w, W, FILE_NAME_NORMALIZED | VOLUME_NAME_DOS);
    int rc = 0;
    if (k == 0 || k >= W) {
        rc = k ? -ENAMETOOLONG : pathgate__os_win_errno_of_win32(GetLastError());
    } else {
        /* \\?\C:\x -> C:\x, \\?\UNC\s\x -> \\s\x */
        WCHAR *p = w;
        if (k >= 8 && wcsncmp(w, L"\\\\?\\UNC\\", 8) == 0) {
            p = w + 6;
            p[0] = L'\\';
        } else if (k >= 4 && wcsncmp(w, L"\\\\?\\", 4) == 0) {
            p = w + 4;
        }
        int units = (int)(k - (DWORD)(p - w));
        int len = WideCharToMultiByte(CP_UTF8, WC_ERR_INVALID_CHARS, p, units, NULL, 0, NULL, NULL);
        if (len <= 0)
            rc = -EINVAL;
        else if ((size_t)len >= cap)
            rc = -ENAMETOOLONG;
        else {
            WideCharToMultiByte(CP_UTF8, WC_ERR_INVALID_CHARS, p, units, out, len, NULL, NULL);
            out[len] = '\0';
        }
    }
    HeapFree(GetProcessHeap(), 0, w);
    return rc;
}

int pathgate__os_lock_try(pathgate__os_fd fd)
{
    HANDLE h = pathgate__os_win_handle_of(fd);
    if (!h)
        return -EBADF;
    BY_HANDLE_FILE_INFORMATION bh;
    if (!GetFileInformationByHandle(h, &bh))
        return pathgate__os_win_errno_of_win32(GetLastError());
    if (IS_DIR(bh.dwFileAttributes))
        return -ENOSYS; /* Windows locks byte ranges of files only */
    /* Windows' locks are mandatory: one byte far past any content, so the
     * lock excludes other lockers and never a reader or a writer. */
    OVERLAPPED ov;
    memset(&ov, 0, sizeof ov);
    ov.Offset = 0xFFFFFFFEu;
    ov.OffsetHigh = 0x7FFFFFFFu;
    if (LockFileEx(h, LOCKFILE_EXCLUSIVE_LOCK | LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, &ov))
        return 0;
    DWORD e = GetLastError();
    return e == ERROR_LOCK_VIOLATION || e == ERROR_IO_PENDING ? -EAGAIN : -ENOSYS;
}

int pathgate__os_sync_fs(pathgate__os_fd fd)
{
    HANDLE h = pathgate__os_win_handle_of(fd);
    if (!h)
        return -EBADF;
    if (FlushFileBuffers(h))
        return 0;
    /* a volume is flushed only through a handle of the volume (an
     * administrator's), a directory not at all: nothing to call */
    return -ENOSYS;
}

int pathgate__os_random(void *out, size_t n)
{
    unsigned char *buf = out;
    while (n > 0) {
        ULONG k = n > 0x10000000u ? 0x10000000u : (ULONG)n;
        if (!BCRYPT_SUCCESS(BCryptGenRandom(NULL, buf, k, BCRYPT_USE_SYSTEM_PREFERRED_RNG)))
            return -EIO;
        buf += k;
        n -= k;
    }
    return 0;
}
