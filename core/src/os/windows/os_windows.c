/* os_windows.c - the OS interface (os.h) on Windows: so far random bytes
 * (BCryptGenRandom); the contained opens on NT handles come next
 * (docs/windows.md). */
#include <errno.h>
#include <windows.h>
/* after windows.h */
#include <bcrypt.h>

#include "os.h"

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
