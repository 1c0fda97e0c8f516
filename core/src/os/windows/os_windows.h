/*
 * os_windows.h - internal to the Windows backend (docs/windows.md, "The OS
 * interface on NT handles"): the building blocks os_windows.c implements
 * os.h with. A root directory from a Windows host path; one entry as its
 * directory lists it (what shows a reparse point under wine, which ignores
 * OBJ_DONT_REPARSE); NT and Win32 errors as os.h's errno set; UTF-8 names
 * as UTF-16; the HANDLE behind an os.h handle; link targets from reparse
 * data.
 */
#ifndef PATHGATE_OS_WINDOWS_H
#define PATHGATE_OS_WINDOWS_H

#include <stddef.h>
#include <stdint.h>
#include <wchar.h>

/* A HANDLE, without windows.h in every includer. */
typedef void *pathgate__os_win_handle;

/* The longest component in UTF-16 units (NTFS: 255). */
#define PATHGATE__OS_WIN_NAME_UNITS 255

/* The HANDLE behind an os.h handle (a C runtime descriptor made by
 * _open_osfhandle: the runtime's own table of HANDLEs), or NULL. */
pathgate__os_win_handle pathgate__os_win_handle_of(int fd);

/* An NTSTATUS, a Win32 error: as os.h's negative errno set. */
int pathgate__os_win_errno_of_status(long status);
int pathgate__os_win_errno_of_win32(unsigned long error);

/* UTF-8 s[0..n) as UTF-16 into out (cap units, no NUL added): the unit
 * count, or -1 (invalid UTF-8, too long). */
int pathgate__os_win_utf16(wchar_t *out, int cap, const char *s, size_t n);

/* One entry as its directory lists it (FileIdBothDirectoryInformation):
 * times are FILETIMEs (100 ns since 1601). */
typedef struct pathgate__os_win_entry {
    unsigned long attributes;
    unsigned long reparse_tag; /* IO_REPARSE_TAG_*, when a reparse point */
    uint64_t file_id, size;
    int64_t created, accessed, written, changed;
    int name_units; /* the name as the directory stores it */
    wchar_t name[PATHGATE__OS_WIN_NAME_UNITS + 1];
} pathgate__os_win_entry;

/* The entry `name` (units UTF-16 units, no wildcard) of the directory
 * parent, through a fresh handle of parent (wine: see the .c). 0, -ENOENT,
 * or another negative error. */
int pathgate__os_win_listed(pathgate__os_win_handle parent, const wchar_t *name, int units,
                            pathgate__os_win_entry *e);

/* Opens the directory at a Windows host path (a root's configured
 * location, UTF-8): a drive path `C:\x`, a UNC path `\\server\share\x`, or
 * a `\\?\` path; `/` is read as `\`. Any length: the path is passed to the
 * kernel as a `\\?\` path, so MAX_PATH does not apply. 0, or -EINVAL
 * (relative, drive-relative `C:x`, `\\.\` devices, invalid UTF-8), -ENOENT,
 * -ENOTDIR, -EACCES, -EIO. */
int pathgate__os_win_open_root(const char *path, size_t len, pathgate__os_win_handle *out);

/* The target of a link from its REPARSE_DATA_BUFFER (len bytes, as
 * FSCTL_GET_REPARSE_POINT gives it) into buf, as os.h's readlink gives it:
 * a relative symlink with '/' separators; an absolute one (every
 * junction and mount point) beginning with '/' ("\??\C:\x" -> "/C:/x",
 * "\??\UNC\s\x" -> "//s/x"), so that every layer refusing absolute
 * targets refuses it. Its length, or -ELOOP (not a symlink or junction),
 * -EIO (malformed), -EINVAL (not valid UTF-16), -ENAMETOOLONG. */
long pathgate__os_win_reparse_target(const void *data, size_t len, char *buf, size_t size);

#endif
