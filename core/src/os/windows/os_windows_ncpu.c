/* os_windows_ncpu.c - os.h's processor count on Windows. */
#include <windows.h>

#include "os.h"

unsigned int pathgate__os_ncpu(void)
{
    DWORD n = GetActiveProcessorCount(ALL_PROCESSOR_GROUPS);
    return n < 1 ? 1u : (unsigned int)n;
}
