/* random.c - a per-owner pool of the OS's random bytes (pathgate__os_random),
 * refilled a page at a time. */
#include "random.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>
#ifdef _WIN32
/* Windows: no sysconf, no madvise (no fork either); SecureZeroMemory. */
#include <windows.h>
#else
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>
#endif

#include "alloc.h"
#include "os.h"

/* The whole page is wiped in a forked child (MADV_WIPEONFORK), which turns
 * `avail` into 0: the child's next take refills from the kernel. */
struct pathgate__random_page {
    size_t avail; /* unread bytes: bytes[capacity - avail .. capacity) */
    unsigned char bytes[];
};

#define RANDOM_TAKE_MAX 64

int pathgate__random_init(pathgate__random *r, const pathgate_allocator *alloc)
{
    memset(r, 0, sizeof *r);
#ifdef _WIN32
    size_t page = 4096;
#else
    long ps = sysconf(_SC_PAGESIZE); /* read from the auxiliary vector: no syscall */
    size_t page = ps >= 1024 ? (size_t)ps : 4096;
#endif
    /* Two pages so that a whole aligned page lies inside the block: the
     * madvise below must touch no byte that is not ours. */
    void *block = pathgate__malloc(alloc, 2 * page);
    if (!block)
        return PATHGATE_ENOMEM;
    uintptr_t p = ((uintptr_t)block + page - 1) & ~(uintptr_t)(page - 1);
    r->block = block;
    r->page = (pathgate__random_page *)p;
    r->page_size = page;
    r->capacity = page - sizeof(pathgate__random_page);
    r->page->avail = 0;
#ifdef MADV_WIPEONFORK
    r->wipe_on_fork = madvise(r->page, page, MADV_WIPEONFORK) == 0;
#endif
    return PATHGATE_OK;
}

void pathgate__random_dispose(pathgate__random *r, const pathgate_allocator *alloc)
{
    if (!r->block)
        return;
#ifdef _WIN32
    SecureZeroMemory(r->page, r->page_size);
#else
    explicit_bzero(r->page, r->page_size);
#endif
#ifdef MADV_KEEPONFORK
    /* The memory goes back to the allocator: other objects may live there
     * next, and they must survive a fork. */
    if (r->wipe_on_fork)
        (void)madvise(r->page, r->page_size, MADV_KEEPONFORK);
#endif
    pathgate__free(alloc, r->block);
    memset(r, 0, sizeof *r);
}

static int fill(unsigned char *buf, size_t n)
{
    return pathgate__os_random(buf, n) == 0 ? 0 : -1;
}

int pathgate__random_bytes(void *out, size_t n)
{
    return fill(out, n) == 0 ? PATHGATE_OK : PATHGATE_EIO;
}

int pathgate__random_take(pathgate__random *r, void *out, size_t n)
{
    if (!r->page || n > RANDOM_TAKE_MAX)
        return PATHGATE_EINVAL;
    pathgate__random_page *pg = r->page;
    if (pg->avail < n || pg->avail > r->capacity) {
        if (fill(pg->bytes, r->capacity) != 0) {
            pg->avail = 0;
            return PATHGATE_EIO;
        }
        pg->avail = r->capacity;
    }
    unsigned char *src = pg->bytes + (r->capacity - pg->avail);
    memcpy(out, src, n);
    memset(src, 0, n); /* a byte handed out is never handed out again */
    pg->avail -= n;
    return PATHGATE_OK;
}

int pathgate__random_peek(const pathgate__random *r, void *out, size_t n)
{
    if (!r->page || n > RANDOM_TAKE_MAX)
        return -1;
    const pathgate__random_page *pg = r->page;
    if (pg->avail < n || pg->avail > r->capacity)
        return -1;
    memcpy(out, pg->bytes + (r->capacity - pg->avail), n);
    return 0;
}
