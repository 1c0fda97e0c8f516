/* os_windows_sys.c - os.h's processor count and realpath on Windows. */
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
