/* os_windows_sys.c - os.h's processor count, realpath and error words on
 * Windows. */
#include <errno.h>
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
