/* exec_mask.c - the resolver's policy in a command's view, the child's
 * side (exec_policy.h): hides and mounts read-only what the parent's scan
 * found, in the command's own mount namespace, by descriptors. Runs in
 * memory shared with the host process: raw system calls only, no errno,
 * no allocation, no sanitizer (exec_raw.h). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include "exec_policy.h"
#include "exec_raw.h"

#define M_MOVE_MOUNT_F_EMPTY_PATH 0x4
#define M_MOVE_MOUNT_T_EMPTY_PATH 0x40
#define M_OPEN_TREE_CLONE 1u
#define M_AT_RECURSIVE 0x8000
#define M_FSOPEN_CLOEXEC 1u
#define M_FSMOUNT_CLOEXEC 1u
#define M_FSCONFIG_SET_STRING 1u
#define M_FSCONFIG_CMD_CREATE 6u
#define M_MOUNT_ATTR_RDONLY 0x1ULL
#define M_MOUNT_ATTR_NOSUID 0x2ULL
#define M_MOUNT_ATTR_NODEV 0x4ULL
#define M_MOUNT_ATTR_NOEXEC 0x8ULL

#if PG_RAW_INLINE

struct m_mount_attr {
    unsigned long long attr_set, attr_clr, propagation, userns_fd;
};

PG_NOSAN static long set_attr(long fd, unsigned int flags, unsigned long long attr)
{
    struct m_mount_attr ma = {attr, 0, 0, 0};
    return pg_raw(__NR_mount_setattr, fd, "", AT_EMPTY_PATH | flags, &ma, sizeof ma);
}

/* The sources of the hidden entries: a small detached tmpfs holding an
 * empty file and an empty directory, both mode 0 (owned by the view's
 * uid 0, which without capabilities may not read them), read-only. */
PG_NOSAN static long make_sources(long *file, long *dir)
{
    long fs = pg_raw(__NR_fsopen, "tmpfs", M_FSOPEN_CLOEXEC);
    if (fs < 0)
        return fs;
    long rc = pg_raw(__NR_fsconfig, fs, M_FSCONFIG_SET_STRING, "size", "4k", 0);
    if (rc >= 0)
        rc = pg_raw(__NR_fsconfig, fs, M_FSCONFIG_SET_STRING, "nr_inodes", "8", 0);
    if (rc >= 0)
        rc = pg_raw(__NR_fsconfig, fs, M_FSCONFIG_SET_STRING, "mode", "0", 0);
    if (rc >= 0)
        rc = pg_raw(__NR_fsconfig, fs, M_FSCONFIG_CMD_CREATE, 0, 0, 0);
    long mnt = rc;
    if (rc >= 0)
        mnt = pg_raw(__NR_fsmount, fs, M_FSMOUNT_CLOEXEC,
                     M_MOUNT_ATTR_NOSUID | M_MOUNT_ATTR_NODEV | M_MOUNT_ATTR_NOEXEC);
    pg_raw(SYS_close, fs);
    if (mnt < 0)
        return mnt;
    /* made without opening them: a descriptor open for writing, even
     * closed at once, could be held a moment longer by a copy of the
     * shared descriptor table (another command's init being started),
     * and a mount with a writer cannot be made read-only (EBUSY) */
    rc = pg_raw(SYS_mkdirat, mnt, "d", 0);
    if (rc >= 0)
        rc = pg_raw(SYS_mknodat, mnt, "f", S_IFREG, 0);
    if (rc >= 0)
        rc = set_attr(mnt, 0, M_MOUNT_ATTR_RDONLY);
    if (rc >= 0) {
        *file = pg_raw(__NR_open_tree, mnt, "f", M_OPEN_TREE_CLONE | O_CLOEXEC);
        *dir = *file < 0 ? *file : pg_raw(__NR_open_tree, mnt, "d", M_OPEN_TREE_CLONE | O_CLOEXEC);
        rc = *file < 0 ? *file : *dir;
    }
    pg_raw(SYS_close, mnt);
    return rc < 0 ? rc : 0;
}

/* Opens rel beneath the directory fd one name at a time, no symlink
 * followed (the last may be one: O_PATH of the link itself). The fd or
 * -errno. */
PG_NOSAN static long walk(long dirfd, const char *rel)
{
    char name[256];
    long fd = pg_raw(SYS_openat, dirfd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
    while (fd >= 0) {
        while (*rel == '/')
            rel++;
        size_t n = 0;
        while (rel[n] && rel[n] != '/')
            n++;
        if (n == 0 || n >= sizeof name) {
            pg_raw(SYS_close, fd);
            return n ? -ENAMETOOLONG : -EINVAL;
        }
        for (size_t i = 0; i < n; i++) {
            name[i] = rel[i];
            /* a plain loop: never turned into a call of libc's memcpy
             * (no library code here, nor a sanitizer's interceptor) */
            __asm__ volatile("" ::: "memory");
        }
        name[n] = '\0';
        rel += n;
        int last = *rel == '\0';
        long next = pg_raw(SYS_openat, fd, name,
                           O_PATH | O_NOFOLLOW | O_CLOEXEC | (last ? 0 : O_DIRECTORY));
        pg_raw(SYS_close, fd);
        fd = next;
        if (last)
            break;
    }
    return fd;
}

/* One entry: 0 done or skipped, -errno. */
PG_NOSAN static long apply_one(long base, const char *rel, int kind, long *file, long *dir,
                               const char **step)
{
    long fd = walk(base, rel);
    /* gone since the scan; or beyond a directory this process (the
     * command's uid with capabilities over the ids it maps) may not
     * search, which the command, the same uid without them, cannot
     * reach either */
    if (fd == -ENOENT || fd == -EACCES)
        return 0;
    *step = "policy entry";
    if (fd < 0)
        return fd; /* ENOTDIR, ELOOP: a name on the way changed: fail closed */
    struct stat st;
    long rc = pg_raw(SYS_newfstatat, fd, "", &st, AT_EMPTY_PATH);
    long tree = -1;
    if (rc >= 0 && S_ISLNK(st.st_mode)) {
        pg_raw(SYS_close, fd);
        return 0;
    }
    if (rc >= 0 && kind == PATHGATE__MASK_PIN) {
        *step = "policy pin";
        if (!S_ISDIR(st.st_mode)) {
            pg_raw(SYS_close, fd);
            return -ENOTDIR; /* a directory on the way changed: fail closed */
        }
        rc = tree = pg_raw(__NR_open_tree, fd, "",
                           M_OPEN_TREE_CLONE | O_CLOEXEC | AT_EMPTY_PATH | M_AT_RECURSIVE);
    } else if (rc >= 0 && kind == PATHGATE__MASK_READ_ONLY) {
        *step = "policy read-only";
        tree = pg_raw(__NR_open_tree, fd, "",
                      M_OPEN_TREE_CLONE | O_CLOEXEC | AT_EMPTY_PATH | M_AT_RECURSIVE);
        rc = tree < 0 ? tree
                      : set_attr(tree, M_AT_RECURSIVE,
                                 M_MOUNT_ATTR_RDONLY | M_MOUNT_ATTR_NOSUID | M_MOUNT_ATTR_NODEV);
    } else if (rc >= 0) {
        *step = "policy mask";
        if (*file < 0 && (rc = make_sources(file, dir)) < 0) {
            pg_raw(SYS_close, fd);
            return rc;
        }
        tree = pg_raw(__NR_open_tree, S_ISDIR(st.st_mode) ? *dir : *file, "",
                      M_OPEN_TREE_CLONE | O_CLOEXEC | AT_EMPTY_PATH);
        rc = tree;
    }
    if (rc >= 0)
        rc = pg_raw(__NR_move_mount, tree, "", fd, "",
                    M_MOVE_MOUNT_F_EMPTY_PATH | M_MOVE_MOUNT_T_EMPTY_PATH);
    if (tree >= 0)
        pg_raw(SYS_close, tree);
    pg_raw(SYS_close, fd);
    return rc < 0 ? rc : 0;
}

PG_NOSAN long pathgate__exec_masks_apply(const pathgate__exec_masks *m, const char **step)
{
    long file = -1, dir = -1, base = -1, rc = 0;
    uint32_t base_dir = UINT32_MAX;
    for (size_t i = 0; rc >= 0 && m && i < m->n; i++) {
        const pathgate__exec_mask *e = &m->v[i];
        if (e->dir != base_dir) {
            if (base >= 0)
                pg_raw(SYS_close, base);
            *step = "policy base";
            base = pg_raw(SYS_openat, AT_FDCWD, m->buf + e->dir,
                          O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            base_dir = e->dir;
            if ((rc = base) < 0)
                break;
        }
        rc = apply_one(base, m->buf + e->rel, e->kind, &file, &dir, step);
    }
    if (base >= 0)
        pg_raw(SYS_close, base);
    if (file >= 0)
        pg_raw(SYS_close, file);
    if (dir >= 0)
        pg_raw(SYS_close, dir);
    return rc;
}

#else

long pathgate__exec_masks_apply(const pathgate__exec_masks *m, const char **step)
{
    (void)m;
    *step = "policy";
    return -ENOSYS;
}

#endif
