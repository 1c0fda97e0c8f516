/* os_windows_open.c - the building blocks of the NT backend (os_windows.h):
 * errors, UTF-16 names, a root from a Windows path, one entry's listing. */
#include <errno.h>
#include <windows.h>
/* after windows.h */
#include <winternl.h>

#include "os_windows.h"
#include "text.h"

/* Not in mingw's winternl.h. */
NTSTATUS NTAPI NtQueryDirectoryFile(HANDLE dir, HANDLE event, PVOID apc, PVOID apc_context,
                                    PIO_STATUS_BLOCK io, PVOID info, ULONG len, ULONG info_class,
                                    BOOLEAN single, PUNICODE_STRING mask, BOOLEAN restart);

#define WIN_FILE_ID_BOTH_DIRECTORY_INFORMATION 37

#define WIN_FILE_OPEN 0x00000001
#define WIN_FILE_DIRECTORY_FILE 0x00000001
#define WIN_FILE_SYNCHRONOUS_IO_NONALERT 0x00000020

/* The longest component in UTF-16 units (NTFS: 255). */
#define NAME_UNITS_MAX PATHGATE__OS_WIN_NAME_UNITS

int pathgate__os_win_errno_of_win32(unsigned long e)
{
    switch (e) {
    case ERROR_FILE_NOT_FOUND:
    case ERROR_PATH_NOT_FOUND:
    case ERROR_BAD_NETPATH:
    case ERROR_BAD_NET_NAME:
    case ERROR_INVALID_DRIVE:
        return -ENOENT;
    case ERROR_ACCESS_DENIED:
        return -EACCES;
    case ERROR_SHARING_VIOLATION:
        return -EBUSY;
    case ERROR_ALREADY_EXISTS:
    case ERROR_FILE_EXISTS:
        return -EEXIST;
    case ERROR_DIR_NOT_EMPTY:
        return -ENOTEMPTY;
    case ERROR_LOCK_VIOLATION:
        return -EAGAIN;
    case ERROR_INVALID_FUNCTION:
    case ERROR_NOT_SUPPORTED:
    case ERROR_CALL_NOT_IMPLEMENTED:
        return -ENOSYS;
    case ERROR_NOT_SAME_DEVICE:
        return -EXDEV;
    case ERROR_DISK_FULL:
    case ERROR_HANDLE_DISK_FULL:
        return -ENOSPC;
    case ERROR_WRITE_PROTECT:
        return -EROFS;
    case ERROR_INSUFFICIENT_BUFFER:
        return -ERANGE;
    case ERROR_DIRECTORY:
        return -ENOTDIR;
    case ERROR_INVALID_NAME:
    case ERROR_BAD_PATHNAME:
        return -EINVAL;
    case ERROR_FILENAME_EXCED_RANGE:
        return -ENAMETOOLONG;
    case ERROR_CANT_ACCESS_FILE:
    case ERROR_CANT_RESOLVE_FILENAME:
        return -ELOOP;
    case ERROR_NOT_ENOUGH_MEMORY:
    case ERROR_OUTOFMEMORY:
        return -ENOMEM;
    default:
        return -EIO;
    }
}

int pathgate__os_win_errno_of_status(long st)
{
    switch ((unsigned long)st) {
    case 0xC000000FUL: /* STATUS_NO_SUCH_FILE */
    case 0xC0000034UL: /* STATUS_OBJECT_NAME_NOT_FOUND */
    case 0xC000003AUL: /* STATUS_OBJECT_PATH_NOT_FOUND */
        return -ENOENT;
    case 0xC0000033UL: /* STATUS_OBJECT_NAME_INVALID */
    case 0xC000003BUL: /* STATUS_OBJECT_PATH_SYNTAX_BAD */
        return -EINVAL;
    case 0xC0000103UL: /* STATUS_NOT_A_DIRECTORY */
        return -ENOTDIR;
    case 0xC00000BAUL: /* STATUS_FILE_IS_A_DIRECTORY */
        return -EISDIR;
    case 0xC000050BUL: /* STATUS_REPARSE_POINT_ENCOUNTERED */
    case 0x8000002DUL: /* STATUS_STOPPED_ON_SYMLINK */
    case 0xC0000280UL: /* STATUS_REPARSE_POINT_NOT_RESOLVED (wine: a dangling link) */
    case 0xC0000279UL: /* STATUS_IO_REPARSE_TAG_NOT_HANDLED */
        return -ELOOP;
    case 0xC0000022UL: /* STATUS_ACCESS_DENIED */
    case 0xC0000121UL: /* STATUS_CANNOT_DELETE */
        return -EACCES;
    case 0xC0000043UL: /* STATUS_SHARING_VIOLATION: a handle held without sharing */
        return -EBUSY;
    case 0xC0000035UL: /* STATUS_OBJECT_NAME_COLLISION */
        return -EEXIST;
    case 0xC0000101UL: /* STATUS_DIRECTORY_NOT_EMPTY */
        return -ENOTEMPTY;
    case 0xC0000056UL: /* STATUS_DELETE_PENDING */
        return -ENOENT;
    case 0xC00000D4UL: /* STATUS_NOT_SAME_DEVICE */
        return -EXDEV;
    case 0xC000007FUL: /* STATUS_DISK_FULL */
        return -ENOSPC;
    case 0xC00000A2UL: /* STATUS_MEDIA_WRITE_PROTECTED */
        return -EROFS;
    case 0xC0000106UL: /* STATUS_NAME_TOO_LONG */
        return -ENAMETOOLONG;
    case 0xC000000DUL: /* STATUS_INVALID_PARAMETER */
    case 0xC0000275UL: /* STATUS_NOT_A_REPARSE_POINT */
        return -EINVAL;
    case 0xC0000002UL: /* STATUS_NOT_IMPLEMENTED */
    case 0xC0000003UL: /* STATUS_INVALID_INFO_CLASS */
    case 0xC00000BBUL: /* STATUS_NOT_SUPPORTED */
    case 0xC0000010UL: /* STATUS_INVALID_DEVICE_REQUEST */
        return -ENOSYS;
    case 0xC0000054UL: /* STATUS_FILE_LOCK_CONFLICT */
    case 0xC0000055UL: /* STATUS_LOCK_NOT_GRANTED */
        return -EAGAIN;
    case 0xC0000017UL: /* STATUS_NO_MEMORY */
    case 0xC000009AUL: /* STATUS_INSUFFICIENT_RESOURCES */
        return -ENOMEM;
    default:
        return pathgate__os_win_errno_of_win32(RtlNtStatusToDosError(st));
    }
}

/* UTF-8 s[0..n) as UTF-16 into out (cap units); the unit count, or -1
 * (invalid UTF-8, too long). */
int pathgate__os_win_utf16(wchar_t *out, int cap, const char *s, size_t n)
{
    if (n == 0)
        return 0;
    if (n > (size_t)cap * 3 || !pathgate__utf8_valid(s, n))
        return -1;
    int k = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, (int)n, out, cap);
    return k > 0 ? k : -1;
}

int pathgate__os_win_open_root(const char *path, size_t len, pathgate__os_win_handle *out)
{
    *out = NULL;
    if (!path || len == 0 || len > 32000 || memchr(path, '\0', len))
        return -EINVAL;
    /* The prefix, then the path with '/' as '\'. */
    static const WCHAR verbatim[] = L"\\\\?\\", unc[] = L"\\\\?\\UNC\\";
    size_t cap = len + 16;
    WCHAR *w = HeapAlloc(GetProcessHeap(), 0, cap * sizeof(WCHAR));
    if (!w)
        return -ENOMEM;
    size_t at = 0, skip = 0;
    int is_sep0 = path[0] == '\\' || path[0] == '/';
    int is_sep1 = len > 1 && (path[1] == '\\' || path[1] == '/');
    int rc = 0;
    if (len >= 4 && is_sep0 && is_sep1 && path[2] == '?' && (path[3] == '\\' || path[3] == '/')) {
        memcpy(w, verbatim, 4 * sizeof(WCHAR)); /* already \\?\ */
        at = 4, skip = 4;
    } else if (is_sep0 && is_sep1) {
        if (len > 2 && (path[2] == '.' || path[2] == '?'))
            rc = -EINVAL; /* \\.\ devices */
        memcpy(w, unc, 8 * sizeof(WCHAR));
        at = 8, skip = 2;
    } else if (len >= 3 && ((path[0] | 0x20) >= 'a' && (path[0] | 0x20) <= 'z') && path[1] == ':' &&
               (path[2] == '\\' || path[2] == '/')) {
        memcpy(w, verbatim, 4 * sizeof(WCHAR));
        at = 4;
    } else {
        rc = -EINVAL; /* relative, drive-relative (C:x), rooted without a drive (\x) */
    }
    int k = rc ? -1 : pathgate__os_win_utf16(w + at, (int)(cap - at - 1), path + skip, len - skip);
    if (k < 0) {
        HeapFree(GetProcessHeap(), 0, w);
        return rc ? rc : -EINVAL;
    }
    at += (size_t)k;
    for (size_t i = 4; i < at; i++)
        if (w[i] == L'/')
            w[i] = L'\\';
    w[at] = 0;
    HANDLE h = CreateFileW(
        w, FILE_LIST_DIRECTORY | FILE_TRAVERSE | FILE_READ_ATTRIBUTES | SYNCHRONIZE,
        FILE_SHARE_READ | FILE_SHARE_WRITE, NULL, OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, NULL);
    DWORD e = GetLastError();
    HeapFree(GetProcessHeap(), 0, w);
    if (h == INVALID_HANDLE_VALUE)
        return pathgate__os_win_errno_of_win32(e);
    FILE_BASIC_INFO info;
    if (!GetFileInformationByHandleEx(h, FileBasicInfo, &info, sizeof info)) {
        CloseHandle(h);
        return -EIO;
    }
    if (!(info.FileAttributes & FILE_ATTRIBUTE_DIRECTORY)) {
        CloseHandle(h);
        return -ENOTDIR;
    }
    *out = h;
    return 0;
}

/* The entry named `name` (units UTF-16 units) in the directory parent, as
 * the directory lists it (os_windows.h). Wine 8 answers
 * NtQueryAttributesFile relative to a handle with "not found" and keeps a
 * handle's first listing mask for good, so the directory is listed
 * through a fresh handle of itself, with the name as the mask (the name
 * rules have refused every wildcard character). */
int pathgate__os_win_listed(pathgate__os_win_handle parent, const wchar_t *name, int units,
                            pathgate__os_win_entry *e)
{
    UNICODE_STRING self = {0, 0, NULL};
    UNICODE_STRING us = {(USHORT)(units * sizeof(WCHAR)), (USHORT)(units * sizeof(WCHAR)),
                         (PWSTR)name};
    OBJECT_ATTRIBUTES oa;
    InitializeObjectAttributes(&oa, &self, 0, parent, NULL);
    IO_STATUS_BLOCK io;
    HANDLE dir = NULL;
    NTSTATUS st =
        NtCreateFile(&dir, FILE_LIST_DIRECTORY | SYNCHRONIZE, &oa, &io, NULL, 0,
                     FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, WIN_FILE_OPEN,
                     WIN_FILE_DIRECTORY_FILE | WIN_FILE_SYNCHRONOUS_IO_NONALERT, NULL, 0);
    if (!NT_SUCCESS(st))
        return pathgate__os_win_errno_of_status(st);
    union {
        FILE_ID_BOTH_DIR_INFORMATION d;
        char bytes[sizeof(FILE_ID_BOTH_DIR_INFORMATION) + 2 * (NAME_UNITS_MAX + 1)];
    } buf;
    st = NtQueryDirectoryFile(dir, NULL, NULL, NULL, &io, &buf, sizeof buf,
                              WIN_FILE_ID_BOTH_DIRECTORY_INFORMATION, TRUE, &us, TRUE);
    CloseHandle(dir);
    if (st == (NTSTATUS)0x80000006L) /* STATUS_NO_MORE_FILES: no such entry */
        return -ENOENT;
    if (!NT_SUCCESS(st))
        return pathgate__os_win_errno_of_status(st);
    e->attributes = buf.d.FileAttributes;
    e->reparse_tag = (buf.d.FileAttributes & FILE_ATTRIBUTE_REPARSE_POINT) ? buf.d.EaSize : 0;
    e->file_id = (uint64_t)buf.d.FileId.QuadPart;
    e->size = (uint64_t)buf.d.EndOfFile.QuadPart;
    e->created = buf.d.CreationTime.QuadPart;
    e->accessed = buf.d.LastAccessTime.QuadPart;
    e->written = buf.d.LastWriteTime.QuadPart;
    e->changed = buf.d.ChangeTime.QuadPart;
    e->name_units = (int)(buf.d.FileNameLength / sizeof(WCHAR));
    if (e->name_units > NAME_UNITS_MAX)
        return -EIO;
    memcpy(e->name, buf.d.FileName, buf.d.FileNameLength);
    e->name[e->name_units] = 0;
    return 0;
}
