/* bench_open.c - the cost of containment on Windows: a contained open and
 * read through os.h (pathgate__contain_open, the component walk the
 * portable core uses, then read) against a plain CreateFileW + ReadFile of
 * the same file, as ratios measured in one run (scripts/windows.sh prints
 * them; never a timed assertion).
 *
 *   bench_open.exe TREE   (the tree of make_tree.sh, a Unix path: Z:) */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <windows.h>

#include "os.h"

#define ROUNDS 5
#define ITERS 60

static double now(void)
{
    LARGE_INTEGER t, f;
    QueryPerformanceCounter(&t);
    QueryPerformanceFrequency(&f);
    return (double)t.QuadPart / (double)f.QuadPart;
}

static int walked(int root, const char *rel)
{
    char buf[64];
    int fd = pathgate__contain_open(root, rel, O_RDONLY, 0, 0);
    if (fd < 0)
        return -1;
    int n = read(fd, buf, sizeof buf);
    close(fd);
    return n > 0 ? 0 : -1;
}

static int plain(const WCHAR *path)
{
    HANDLE h = CreateFileW(path, GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE, NULL,
                           OPEN_EXISTING, 0, NULL);
    if (h == INVALID_HANDLE_VALUE)
        return -1;
    char buf[64];
    DWORD n = 0;
    BOOL ok = ReadFile(h, buf, sizeof buf, &n, NULL);
    CloseHandle(h);
    return ok && n > 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
    if (argc != 2)
        return 2;
    char root_path[1024];
    snprintf(root_path, sizeof root_path, "Z:%s/root", argv[1]);
    int root_fd = pathgate__os_open_root(root_path);
    if (root_fd < 0)
        return 1;
    char deep[512] = "";
    for (int i = 0; i < 30; i++)
        strcat(deep, "d123456789/");
    strcat(deep, "deep.txt");
    const char *rels[] = {"top.txt", "a/b/file.txt", deep};
    const int comps[] = {1, 3, 31};
    printf("containment cost under wine (%d x %d opens + reads each; ratio = contained / plain;\n"
           "contained = pathgate__contain_open + read):\n",
           ROUNDS, ITERS);
    for (int k = 0; k < 3; k++) {
        char full[2048];
        snprintf(full, sizeof full, "\\\\?\\%s/%s", root_path, rels[k]);
        WCHAR wfull[2048];
        MultiByteToWideChar(CP_UTF8, 0, full, -1, wfull, 2048);
        for (WCHAR *p = wfull + 4; *p; p++)
            if (*p == L'/')
                *p = L'\\';
        double tp = 0, tw = 0;
        for (int r = 0; r < ROUNDS; r++) { /* interleaved: the machine's noise hits both */
            double t1 = now();
            for (int i = 0; i < ITERS; i++)
                if (plain(wfull))
                    return 1;
            double t2 = now();
            for (int i = 0; i < ITERS; i++)
                if (walked(root_fd, rels[k]))
                    return 1;
            double t3 = now();
            tp += t2 - t1;
            tw += t3 - t2;
        }
        double n = (double)ROUNDS * ITERS;
        printf("  %2d component(s): contained %.1f us, plain %.1f us, ratio %.2f, per component "
               "%.1f us\n",
               comps[k], 1e6 * tw / n, 1e6 * tp / n, tw / tp, 1e6 * tw / n / comps[k]);
    }
    close(root_fd);
    return 0;
}
