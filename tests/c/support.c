/* support.c - cmocka allocator routing, failing allocator, temp dirs. */
#define _GNU_SOURCE
#include "support.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#ifdef _WIN32
#include <direct.h>
#include <io.h>
#include <windows.h>
#else
#include <fcntl.h>
#include <ftw.h>
#include <unistd.h>
#endif

/* cmocka's allocator is not thread-safe; the core allocates from worker
 * threads (parallel walks), so every call is serialised here. */
static pthread_mutex_t alloc_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_t lock_owner; /* atomic */
static int lock_held;        /* atomic */

/* A cmocka failure inside its allocator longjmps out with the lock held;
 * the thread that failed (never another) then finds it its own. */
static void alloc_enter(void)
{
    pthread_t self = pthread_self();
    if (__atomic_load_n(&lock_held, __ATOMIC_ACQUIRE) &&
        pthread_equal(__atomic_load_n(&lock_owner, __ATOMIC_RELAXED), self))
        return;
    pthread_mutex_lock(&alloc_lock);
    __atomic_store_n(&lock_owner, self, __ATOMIC_RELAXED);
    __atomic_store_n(&lock_held, 1, __ATOMIC_RELEASE);
}

static void alloc_leave(void)
{
    __atomic_store_n(&lock_held, 0, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&alloc_lock);
}

/*
 * cmocka keeps its list of blocks per thread, so only the test's own
 * thread allocates through it (and its leak check). Another thread (a
 * worker of a parallel walk) gets plain malloc; a header says which, and
 * the size, so that any thread can free or grow any block. LeakSanitizer
 * still checks the workers' blocks.
 */
#define HDR 16
#define FAMILY_CMOCKA 0x434d4f43u
#define FAMILY_LIBC 0x4c494243u
static pthread_t test_thread; /* atomic; the first caller of pg_test_alloc or
                                 pg_failing_alloc_init: cmocka's thread */

static void set_test_thread(void)
{
    pthread_t none = 0, self = pthread_self();
    __atomic_compare_exchange_n(&test_thread, &none, self, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}

static void *t_malloc(size_t size, void *ctx)
{
    (void)ctx;
    if (size > (size_t)-1 - HDR)
        return NULL;
    int mine = pthread_equal(pthread_self(), __atomic_load_n(&test_thread, __ATOMIC_SEQ_CST));
    char *p;
    if (mine) {
        alloc_enter();
        p = _test_malloc(size + HDR, __FILE__, __LINE__);
        alloc_leave();
    } else
        p = malloc(size + HDR);
    if (!p)
        return NULL;
    uint32_t fam = mine ? FAMILY_CMOCKA : FAMILY_LIBC;
    uint64_t sz = size;
    memcpy(p, &fam, 4);
    memcpy(p + 8, &sz, 8);
    return p + HDR;
}
static void t_free(void *ptr, void *ctx)
{
    (void)ctx;
    if (!ptr)
        return;
    char *p = (char *)ptr - HDR;
    uint32_t fam;
    memcpy(&fam, p, 4);
    if (fam == FAMILY_LIBC) {
        free(p);
        return;
    }
    alloc_enter();
    _test_free(p, __FILE__, __LINE__);
    alloc_leave();
}
static void *t_realloc(void *ptr, size_t size, void *ctx)
{
    if (!ptr)
        return t_malloc(size, ctx);
    uint64_t old;
    memcpy(&old, (char *)ptr - HDR + 8, 8);
    void *n = t_malloc(size, ctx);
    if (!n)
        return NULL;
    memcpy(n, ptr, old < size ? (size_t)old : size);
    t_free(ptr, ctx);
    return n;
}

static const pathgate_allocator test_alloc = {t_malloc, t_realloc, t_free, NULL};

const pathgate_allocator *pg_test_alloc(void)
{
    set_test_thread();
    return &test_alloc;
}

static int should_fail(pg_failing_alloc *fa)
{
    alloc_enter();
    int fail = 0;
    fa->calls++;
    if (fa->fail_at > 0 && (fa->calls == fa->fail_at || (fa->sticky && fa->calls > fa->fail_at))) {
        fa->failed = 1;
        fail = 1;
    }
    alloc_leave();
    return fail;
}
static void *f_malloc(size_t size, void *ctx)
{
    return should_fail(ctx) ? NULL : t_malloc(size, NULL);
}
static void *f_realloc(void *ptr, size_t size, void *ctx)
{
    return should_fail(ctx) ? NULL : t_realloc(ptr, size, NULL);
}

void pg_failing_alloc_init(pg_failing_alloc *fa, long fail_at, int sticky)
{
    set_test_thread();
    memset(fa, 0, sizeof *fa);
    fa->alloc.malloc = f_malloc;
    fa->alloc.realloc = f_realloc;
    fa->alloc.free = t_free;
    fa->alloc.ctx = fa;
    fa->fail_at = fail_at;
    fa->sticky = sticky;
}

long pg_for_each_failing_alloc(int (*body)(const pathgate_allocator *alloc, void *ctx), void *ctx)
{
    for (long n = 1; n < 100000; n++) {
        pg_failing_alloc fa;
        pg_failing_alloc_init(&fa, n, 0);
        int rc = body(&fa.alloc, ctx);
        if (!fa.failed) {
            assert_int_equal(rc, 0);
            return fa.calls;
        }
        if (rc != 0 && rc != PATHGATE_ENOMEM)
            fail_msg("allocation %ld failed: expected 0 or ENOMEM, got %d (%s)", n, rc,
                     pathgate_errname(rc));
    }
    fail_msg("more than 100000 allocations");
    return -1;
}

char *pg_read_file(const char *path, size_t *len)
{
    FILE *fp = pg_fopen(path, "rb");
    if (!fp)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap + 1);
    size_t got;
    while (buf && (got = fread(buf + n, 1, cap - n, fp)) > 0) {
        n += got;
        if (n == cap) {
            char *grown = realloc(buf, 2 * cap + 1);
            if (!grown) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = grown;
            cap *= 2;
        }
    }
    int bad = ferror(fp);
    fclose(fp);
    if (!buf || bad) {
        free(buf);
        return NULL;
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}

void pg_err_junk(pathgate_error *err)
{
    err->code = PG_ERR_JUNK_CODE;
    memset(err->message, 0xA5, sizeof err->message);
}

void pg__assert_err_filled(int rc, const pathgate_error *err, const char *func, const char *file,
                           int line)
{
    if (rc >= 0)
        return;
    const char *what = NULL;
    if (err->code != rc)
        what = "err->code";
    else if (!memchr(err->message, '\0', sizeof err->message))
        what = "err->message unterminated";
    else if ((unsigned char)err->message[0] == 0xA5)
        what = "err->message";
    if (what) {
        print_error("ERROR: %s failed with %d (%s) but did not fill %s (code %d)\n", func, rc,
                    pathgate_errname(rc), what, err->code);
        _fail(file, line);
    }
}

void pg__assert_buf(pathgate_buf *buf, const char *expected, const char *file, int line)
{
    if (!expected) {
        if (buf->ptr)
            _fail(file, line);
        pathgate_buf_dispose(buf);
        return;
    }
    if (!buf->ptr) {
        print_error("expected \"%s\", got absent\n", expected);
        _fail(file, line);
    }
    if (buf->len != strlen(buf->ptr) || strcmp(buf->ptr, expected) != 0) {
        print_error("expected \"%s\", got \"%s\" (len %zu)\n", expected, buf->ptr, buf->len);
        pathgate_buf_dispose(buf);
        _fail(file, line);
    }
    pathgate_buf_dispose(buf);
}

#ifndef _WIN32
char *pg_tmpdir_make(void)
{
    const char *base = getenv("TMPDIR");
    char *path = NULL;
    if (asprintf(&path, "%s/pathgate-test-XXXXXX", base && *base ? base : "/tmp") < 0)
        return NULL;
    if (!mkdtemp(path)) {
        free(path);
        return NULL;
    }
    return path;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

void pg_tmpdir_remove(char *dir)
{
    if (!dir)
        return;
    nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    free(dir);
}

int pg_mkdir(const char *path)
{
    return mkdir(path, 0777);
}

FILE *pg_fopen(const char *path, const char *mode)
{
    return fopen(path, mode);
}

int pg_symlink(const char *target, const char *path)
{
    return symlink(target, path);
}

long pg_readlink(const char *path, char *buf, size_t size)
{
    ssize_t n = size ? readlink(path, buf, size - 1) : -1;
    if (n < 0)
        return -1;
    buf[n] = '\0';
    return n;
}

int pg_lkind(const char *path)
{
    struct stat st;
    if (lstat(path, &st) < 0)
        return errno == ENOENT ? PG_KIND_NONE : -1;
    return S_ISLNK(st.st_mode)   ? PG_KIND_LINK
           : S_ISDIR(st.st_mode) ? PG_KIND_DIR
           : S_ISREG(st.st_mode) ? PG_KIND_FILE
                                 : PG_KIND_OTHER;
}

int pg_privileged(void)
{
    return geteuid() == 0;
}

int pg_lstat_times(const char *path, unsigned int *mode, long long *mtime)
{
    struct stat st;
    if (lstat(path, &st) < 0)
        return -1;
    if (mode)
        *mode = (unsigned int)st.st_mode & 07777;
    if (mtime)
        *mtime = (long long)st.st_mtime;
    return 0;
}

long pg_pwrite(int fd, const void *buf, size_t n, long long off)
{
    return (long)pwrite(fd, buf, n, (off_t)off);
}

int pg_fd_inherited(int fd)
{
    int flags = fcntl(fd, F_GETFD);
    return flags < 0 ? -1 : !(flags & FD_CLOEXEC);
}

int pg_same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    if (stat(a, &sa) < 0 || stat(b, &sb) < 0)
        return -1;
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int pg_stat_times(const char *path, pg_times *t)
{
    struct stat st;
    if (stat(path, &st) < 0)
        return -1;
    t->atime_sec = (long long)st.st_atim.tv_sec;
    t->atime_nsec = (long)st.st_atim.tv_nsec;
    t->mtime_sec = (long long)st.st_mtim.tv_sec;
    t->mtime_nsec = (long)st.st_mtim.tv_nsec;
    return 0;
}
#else
/* The build machine's temporary folder, as wine's drive Z sees it. */
static void tmp_base(char *out, size_t size)
{
    const char *base = getenv("TMPDIR");
    snprintf(out, size, "Z:%s", base && base[0] == '/' ? base : "/tmp");
}

char *pg_tmpdir_make(void)
{
    static long counter;
    char base[1024], path[1200];
    tmp_base(base, sizeof base);
    for (int tries = 0; tries < 1000; tries++) {
        snprintf(path, sizeof path, "%s/pathgate-test-%lu-%lu-%ld", base,
                 (unsigned long)GetCurrentProcessId(), (unsigned long)GetTickCount(),
                 __atomic_add_fetch(&counter, 1, __ATOMIC_RELAXED));
        if (_mkdir(path) == 0)
            return strdup(path);
    }
    return NULL;
}

const char *pg_unix_path(const char *path, char *buf, size_t size)
{
    if (!((path[0] == 'Z' || path[0] == 'z') && path[1] == ':' &&
          (path[2] == '/' || path[2] == '\\')) ||
        strlen(path + 2) >= size)
        return NULL;
    size_t i = 0;
    for (const char *p = path + 2; *p; p++)
        buf[i++] = *p == '\\' ? '/' : *p;
    buf[i] = '\0';
    return buf;
}

/* A path quoted for sh ('...'); NULL when it holds a quote. */
static const char *sh_quote(const char *s, char *buf, size_t size)
{
    if (strchr(s, '\'') || strlen(s) + 3 > size)
        return NULL;
    snprintf(buf, size, "'%s'", s);
    return buf;
}

int pg_host_sh(const char *script, char *out, size_t outsize)
{
    static long counter;
    char base[1024], stem[1200], file[1300], done[1300], ubase[1200], ustem[1300];
    tmp_base(base, sizeof base);
    snprintf(stem, sizeof stem, "%s/pathgate-sh-%lu-%ld", base,
             (unsigned long)GetCurrentProcessId(),
             __atomic_add_fetch(&counter, 1, __ATOMIC_RELAXED));
    if (!pg_unix_path(stem, ustem, sizeof ustem) || !pg_unix_path(base, ubase, sizeof ubase))
        return -1;
    /* the script, its output and its status: the status is renamed into
     * place last, so its presence means the rest is written */
    snprintf(file, sizeof file, "%s.sh", stem);
    snprintf(done, sizeof done, "%s.done", stem);
    FILE *fp = fopen(file, "wb");
    if (!fp)
        return -1;
    fprintf(fp,
            "exec >'%s.out' 2>/dev/null </dev/null\n{\n%s\n}\necho $? >'%s.tmp'\nmv '%s.tmp' "
            "'%s.done'\n",
            ustem, script, ustem, ustem, ustem);
    if (fclose(fp) != 0)
        return -1;
    wchar_t cmd[1400];
    swprintf(cmd, sizeof cmd / sizeof cmd[0], L"sh %hs.sh", ustem);
    STARTUPINFOW si;
    PROCESS_INFORMATION pi;
    memset(&si, 0, sizeof si);
    memset(&pi, 0, sizeof pi);
    si.cb = sizeof si;
    int status = -1;
    if (CreateProcessW(L"Z:\\bin\\sh", cmd, NULL, NULL, FALSE, 0, NULL, NULL, &si, &pi)) {
        /* wine starts a Unix program with no process handle, and leaves a
         * value in pi.hThread that is no handle of it (measured: stderr's,
         * which closing it closed): both are closed only with a process */
        if (pi.hProcess) {
            CloseHandle(pi.hThread);
            CloseHandle(pi.hProcess);
        }
        /* wine does not track the Linux process: poll for its marker
         * (bounded, so that a script that never ends fails the test) */
        for (int i = 0; i < 60000 && GetFileAttributesA(done) == INVALID_FILE_ATTRIBUTES; i++)
            Sleep(1);
        FILE *st = fopen(done, "rb");
        if (st) {
            if (fscanf(st, "%d", &status) != 1)
                status = -1;
            fclose(st);
        }
    }
    char outfile[1300];
    snprintf(outfile, sizeof outfile, "%s.out", stem);
    if (out && outsize) {
        size_t n = 0;
        char *text = pg_read_file(outfile, &n);
        snprintf(out, outsize, "%s", text ? text : "");
        free(text);
    }
    remove(outfile);
    remove(done);
    remove(file);
    return status;
}

void pg_tmpdir_remove(char *dir)
{
    if (!dir)
        return;
    char u[1200], q[1210], script[1300];
    if (pg_unix_path(dir, u, sizeof u) && sh_quote(u, q, sizeof q)) {
        snprintf(script, sizeof script, "rm -rf -- %s", q);
        pg_host_sh(script, NULL, 0);
    }
    free(dir);
}

/* path (UTF-8) as UTF-16 in w; 0, or -1 when it does not fit. */
static int wide(const char *path, wchar_t *w, int size)
{
    return MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, path, -1, w, size) > 0 ? 0 : -1;
}

int pg_mkdir(const char *path)
{
    wchar_t w[2048];
    return wide(path, w, 2048) == 0 ? _wmkdir(w) : -1;
}

FILE *pg_fopen(const char *path, const char *mode)
{
    wchar_t w[2048], m[16];
    if (wide(path, w, 2048) != 0 || wide(mode, m, 16) != 0)
        return NULL;
    return _wfopen(w, m);
}

int pg_symlink(const char *target, const char *path)
{
    char ut[1200], up[1200], qt[1210], qp[1210], script[2600];
    const char *t = target;
    if (target[0] && target[1] == ':') { /* a drive path: the Unix path it names */
        if (!(t = pg_unix_path(target, ut, sizeof ut)))
            return -1;
    }
    if (!pg_unix_path(path, up, sizeof up) || !sh_quote(t, qt, sizeof qt) ||
        !sh_quote(up, qp, sizeof qp))
        return -1;
    snprintf(script, sizeof script, "ln -s -- %s %s", qt, qp);
    return pg_host_sh(script, NULL, 0) == 0 ? 0 : -1;
}

long pg_readlink(const char *path, char *buf, size_t size)
{
    char up[1200], qp[1210], script[1300];
    if (!size || !pg_unix_path(path, up, sizeof up) || !sh_quote(up, qp, sizeof qp))
        return -1;
    snprintf(script, sizeof script, "readlink -- %s", qp);
    if (pg_host_sh(script, buf, size) != 0)
        return -1;
    buf[strcspn(buf, "\n")] = '\0';
    return (long)strlen(buf);
}

int pg_lkind(const char *path)
{
    wchar_t w[2048];
    if (wide(path, w, 2048) != 0)
        return -1;
    DWORD a = GetFileAttributesW(w);
    if (a == INVALID_FILE_ATTRIBUTES) {
        /* wine shows no dangling or looping Unix symlink: ask Linux */
        char up[1200], qp[1210], script[1400], out[8];
        if (!pg_unix_path(path, up, sizeof up) || !sh_quote(up, qp, sizeof qp))
            return -1;
        snprintf(script, sizeof script,
                 "p=%s; if [ -L \"$p\" ]; then echo L; elif [ -e \"$p\" ]; then echo E; "
                 "else echo N; fi",
                 qp);
        if (pg_host_sh(script, out, sizeof out) != 0)
            return -1;
        return out[0] == 'L' ? PG_KIND_LINK : out[0] == 'N' ? PG_KIND_NONE : -1;
    }
    return (a & FILE_ATTRIBUTE_REPARSE_POINT) ? PG_KIND_LINK
           : (a & FILE_ATTRIBUTE_DIRECTORY)   ? PG_KIND_DIR
                                              : PG_KIND_FILE;
}

int pg_privileged(void)
{
    return 0;
}

int pg_lstat_times(const char *path, unsigned int *mode, long long *mtime)
{
    wchar_t w[2048];
    struct _stat64 st;
    if (wide(path, w, 2048) != 0 || _wstat64(w, &st) != 0)
        return -1;
    if (mode)
        *mode = (unsigned int)st.st_mode & 07777;
    if (mtime)
        *mtime = (long long)st.st_mtime;
    return 0;
}

long pg_pwrite(int fd, const void *buf, size_t n, long long off)
{
    long long here = _lseeki64(fd, 0, SEEK_CUR);
    if (here < 0 || _lseeki64(fd, off, SEEK_SET) < 0)
        return -1;
    long got = n > 0x7fffffff ? -1 : _write(fd, buf, (unsigned)n);
    if (_lseeki64(fd, here, SEEK_SET) < 0)
        return -1;
    return got;
}

int pg_fd_inherited(int fd)
{
    HANDLE h = (HANDLE)_get_osfhandle(fd);
    DWORD flags;
    if (h == INVALID_HANDLE_VALUE || !GetHandleInformation(h, &flags))
        return -1;
    return (flags & HANDLE_FLAG_INHERIT) != 0;
}

/* A handle of path (links followed) for its attributes; INVALID_HANDLE_VALUE
 * when it cannot be opened. */
static HANDLE attr_handle(const char *path)
{
    wchar_t w[2048];
    if (wide(path, w, 2048) != 0)
        return INVALID_HANDLE_VALUE;
    return CreateFileW(w, FILE_READ_ATTRIBUTES,
                       FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL, OPEN_EXISTING,
                       FILE_FLAG_BACKUP_SEMANTICS, NULL);
}

int pg_same_file(const char *a, const char *b)
{
    BY_HANDLE_FILE_INFORMATION ia, ib;
    HANDLE ha = attr_handle(a), hb = attr_handle(b);
    int ok = ha != INVALID_HANDLE_VALUE && hb != INVALID_HANDLE_VALUE &&
             GetFileInformationByHandle(ha, &ia) && GetFileInformationByHandle(hb, &ib);
    if (ha != INVALID_HANDLE_VALUE)
        CloseHandle(ha);
    if (hb != INVALID_HANDLE_VALUE)
        CloseHandle(hb);
    if (!ok)
        return -1;
    return ia.dwVolumeSerialNumber == ib.dwVolumeSerialNumber &&
           ia.nFileIndexHigh == ib.nFileIndexHigh && ia.nFileIndexLow == ib.nFileIndexLow;
}

/* A FILETIME (100 ns steps since 1601) as seconds and nanoseconds since 1970. */
static void unix_time(FILETIME ft, long long *sec, long *nsec)
{
    long long t = (long long)(((unsigned long long)ft.dwHighDateTime << 32) | ft.dwLowDateTime) -
                  116444736000000000LL;
    *sec = t / 10000000;
    *nsec = (long)(t % 10000000) * 100;
}

int pg_stat_times(const char *path, pg_times *t)
{
    HANDLE h = attr_handle(path);
    FILETIME at, mt;
    int ok = h != INVALID_HANDLE_VALUE && GetFileTime(h, NULL, &at, &mt);
    if (h != INVALID_HANDLE_VALUE)
        CloseHandle(h);
    if (!ok)
        return -1;
    unix_time(at, &t->atime_sec, &t->atime_nsec);
    unix_time(mt, &t->mtime_sec, &t->mtime_nsec);
    return 0;
}
#endif

int pg_backend_is(const char *name)
{
    const char *b = getenv("PATHGATE_OS_BACKEND");
    return b && strcmp(b, name) == 0;
}

/* ------------------------------------------------------------ trees of files */

#ifndef _WIN32
#include <dirent.h>
#include <fcntl.h>
#endif

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Appends a copy of name; 0 or -1. */
static int names_add(char ***v, long *n, long *cap, const char *name)
{
    if (*n == *cap) {
        long grown = *cap ? 2 * *cap : 16;
        char **nv = realloc(*v, (size_t)grown * sizeof **v);
        if (!nv)
            return -1;
        *v = nv;
        *cap = grown;
    }
    if (!((*v)[*n] = strdup(name)))
        return -1;
    (*n)++;
    return 0;
}

void pg_dir_names_free(char **names, long n)
{
    for (long i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

long pg_dir_names(const char *dir, char ***names)
{
    char **v = NULL;
    long n = 0, cap = 0;
    int bad = 0;
    *names = NULL;
#ifdef _WIN32
    wchar_t w[2052];
    if (wide(dir, w, 2048) != 0)
        return -1;
    wcscat(w, L"\\*");
    WIN32_FIND_DATAW fd;
    HANDLE h = FindFirstFileW(w, &fd);
    if (h == INVALID_HANDLE_VALUE)
        return -1;
    do {
        char name[1024];
        if (!wcscmp(fd.cFileName, L".") || !wcscmp(fd.cFileName, L".."))
            continue;
        if (WideCharToMultiByte(CP_UTF8, 0, fd.cFileName, -1, name, sizeof name, NULL, NULL) <= 0 ||
            names_add(&v, &n, &cap, name) != 0)
            bad = 1;
    } while (!bad && FindNextFileW(h, &fd));
    FindClose(h);
#else
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    struct dirent *e;
    while (!bad && (e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
            names_add(&v, &n, &cap, e->d_name) != 0)
            bad = 1;
    closedir(d);
#endif
    if (bad) {
        pg_dir_names_free(v, n);
        return -1;
    }
    if (n)
        qsort(v, (size_t)n, sizeof *v, cmp_names);
    *names = v;
    return n;
}

#ifdef _WIN32
char *pg_read_file_nofollow(const char *path, size_t *len)
{
    return pg_read_file(path, len);
}

int pg_write_file(const char *path, const void *data, size_t len)
{
    FILE *fp = pg_fopen(path, "wb");
    if (!fp)
        return -1;
    int bad = fwrite(data, 1, len, fp) != len;
    return fclose(fp) != 0 || bad ? -1 : 0;
}

/* Removes what wine lists in dir with Win32 calls; -1 at the first link
 * (wine would act on what it leads to) or failure. */
static int clear_listed(const char *dir)
{
    char **names;
    long n = pg_dir_names(dir, &names);
    if (n < 0)
        return -1;
    int rc = 0;
    for (long i = 0; i < n && rc == 0; i++) {
        char p[2048];
        wchar_t w[2048];
        if (snprintf(p, sizeof p, "%s/%s", dir, names[i]) >= (int)sizeof p ||
            wide(p, w, 2048) != 0) {
            rc = -1;
            break;
        }
        DWORD a = GetFileAttributesW(w);
        if (a == INVALID_FILE_ATTRIBUTES || (a & FILE_ATTRIBUTE_REPARSE_POINT))
            rc = -1;
        else if (a & FILE_ATTRIBUTE_DIRECTORY)
            rc = clear_listed(p) == 0 && RemoveDirectoryW(w) ? 0 : -1;
        else {
            if (a & FILE_ATTRIBUTE_READONLY)
                SetFileAttributesW(w, (a & ~FILE_ATTRIBUTE_READONLY)
                                          ? (a & ~FILE_ATTRIBUTE_READONLY)
                                          : FILE_ATTRIBUTE_NORMAL);
            rc = DeleteFileW(w) ? 0 : -1;
        }
    }
    pg_dir_names_free(names, n);
    return rc;
}

int pg_clear_dir(const char *dir)
{
    if (clear_listed(dir) == 0)
        return 0;
    /* a link, or what Win32 could not remove: the Linux side removes the rest */
    char u[1200], q[1210], script[1300];
    if (!pg_unix_path(dir, u, sizeof u) || !sh_quote(u, q, sizeof q))
        return -1;
    snprintf(script, sizeof script, "find %s -mindepth 1 -delete", q);
    return pg_host_sh(script, NULL, 0) == 0 ? 0 : -1;
}
#else
char *pg_read_file_nofollow(const char *path, size_t *len)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    ssize_t r = 0;
    while (buf && (r = read(fd, buf + n, cap - n - 1)) > 0) {
        n += (size_t)r;
        if (cap - n < 2) {
            char *grown = realloc(buf, cap *= 2);
            if (!grown)
                free(buf);
            buf = grown;
        }
    }
    close(fd);
    if (!buf || r < 0) {
        free(buf);
        return NULL;
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}

int pg_write_file(const char *path, const void *data, size_t len)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return -1;
    const char *p = data;
    while (len > 0) {
        ssize_t w = write(fd, p, len);
        if (w <= 0) {
            close(fd);
            return -1;
        }
        p += w;
        len -= (size_t)w;
    }
    return close(fd);
}

static int clear_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    return ftw->level == 0 ? 0 : remove(path);
}

int pg_clear_dir(const char *dir)
{
    return nftw(dir, clear_entry, 16, FTW_DEPTH | FTW_PHYS) == 0 ? 0 : -1;
}
#endif
