/* os_windows_sys.c - os.h's processor count, realpath, home directory
 * and error words on Windows. */
#include <errno.h>
#include <string.h>
#include <windows.h>

#include "os.h"

unsigned int pathgate__os_ncpu(void)
{
    DWORD n = GetActiveProcessorCount(ALL_PROCESSOR_GROUPS);
    return n < 1 ? 1u : (unsigned int)n;
}

int pathgate__os_realpath(const char *path, char *out, size_t cap)
{
    (void)path;
    (void)out;
    (void)cap;
    return -ENOSYS; /* pathgate__os_fd_path answers for every handle */
}

const char *pathgate__os_strerror(int e)
{
    /* glibc's words for the errors os.h answers (the C runtime's strerror
     * words differ, and use a shared buffer) */
    switch (e) {
    case ENOENT:
        return "No such file or directory";
    case ENOTDIR:
        return "Not a directory";
    case EISDIR:
        return "Is a directory";
    case EEXIST:
        return "File exists";
    case ENOTEMPTY:
        return "Directory not empty";
    case EXDEV:
        return "Invalid cross-device link";
    case ELOOP:
        return "Too many levels of symbolic links";
    case ENAMETOOLONG:
        return "File name too long";
    case EACCES:
        return "Permission denied";
    case EPERM:
        return "Operation not permitted";
    case EROFS:
        return "Read-only file system";
    case EBUSY:
        return "Device or resource busy";
    case EINVAL:
        return "Invalid argument";
    case ENOMEM:
        return "Cannot allocate memory";
    case ENOSPC:
        return "No space left on device";
    case EAGAIN:
        return "Resource temporarily unavailable";
    case EINTR:
        return "Interrupted system call";
    case ENOSYS:
        return "Function not implemented";
    case EMFILE:
        return "Too many open files";
    case EBADF:
        return "Bad file descriptor";
    case ERANGE:
        return "Numerical result out of range";
    case EIO:
        return "Input/output error";
    case EFBIG:
        return "File too large";
    case ENXIO:
        return "No such device or address";
    case EMLINK:
        return "Too many links";
    default:
        return NULL;
    }
}

/* 1 when a and b are the same character of a path: ASCII letters without
 * case, `/` as `\\`. */
static int same_char(char a, char b)
{
    if (a == '/')
        a = '\\';
    if (b == '/')
        b = '\\';
    if (a >= 'A' && a <= 'Z')
        a = (char)(a - 'A' + 'a');
    if (b >= 'A' && b <= 'Z')
        b = (char)(b - 'A' + 'a');
    return a == b;
}

int pathgate__os_host_holds_home(const char *real)
{
    enum { W = 32768 };
    static const WCHAR name[] = L"USERPROFILE";
    WCHAR *w = HeapAlloc(GetProcessHeap(), 0, W * sizeof(WCHAR));
    char *profile = HeapAlloc(GetProcessHeap(), 0, 3 * W);
    char *home = HeapAlloc(GetProcessHeap(), 0, 3 * W);
    int rel = 0;
    DWORD k = w && profile && home ? GetEnvironmentVariableW(name, w, W) : 0;
    int len = k && k < W ? WideCharToMultiByte(CP_UTF8, WC_ERR_INVALID_CHARS, w, (int)k, profile,
                                               3 * W - 1, NULL, NULL)
                         : 0;
    pathgate__os_fd fd = -1;
    if (len > 0) {
        profile[len] = '\0';
        fd = pathgate__os_open_root(profile);
    }
    if (fd >= 0 && pathgate__os_fd_path(fd, home, 3 * W) == 0) {
        /* the same path (1), or real and a separator start it (2) */
        size_t ld = strlen(real), lh = strlen(home), i = 0;
        while (lh > 3 && (home[lh - 1] == '\\' || home[lh - 1] == '/'))
            lh--;
        while (i < ld && i < lh && same_char(real[i], home[i]))
            i++;
        if (i == ld && i == lh)
            rel = 1;
        else if (i == ld && ld < lh &&
                 (home[ld] == '\\' || home[ld] == '/' || real[ld - 1] == '\\'))
            rel = 2;
    }
    if (fd >= 0)
        pathgate__os_close(fd);
    void *held[] = {home, profile, w};
    for (int i = 0; i < 3; i++)
        if (held[i])
            HeapFree(GetProcessHeap(), 0, held[i]);
    return rel;
}
