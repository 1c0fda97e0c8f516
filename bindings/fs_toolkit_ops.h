/*
 * fs_toolkit_ops.h - the toolkit operations of fs_toolkit.h that fit the
 * table of fs_ops.h (an address or two in, an address, a text or a stat
 * out), described once for both bindings. Included by fs_ops.h, whose
 * PG_FS_OPS lists them through PG_FS_TOOLKIT_OPS. The handles, the
 * iterators, exists, utime and subroot have their own glue
 * (bindings/python/handle.c, walk.c, toolkit.c; bindings/lua/handle.c,
 * walk.c, toolkit.c).
 */
#ifndef PATHGATE_BINDINGS_FS_TOOLKIT_OPS_H
#define PATHGATE_BINDINGS_FS_TOOLKIT_OPS_H

#include "pathgate/fs_toolkit.h"

PG_OP(copy, copy, PG_R_ADDR,
      pathgate_fs_copy(&r->buf, a->resolver, PG_TXT(a, 0), PG_TXT(a, 1),
                       a->v[2].i ? PATHGATE_FS_COPY_REPLACE : 0u, &a->opts, &a->err),
      {"source", PG_TEXT, PG_POS | PG_REQ, 0}, {"destination", PG_TEXT, PG_POS | PG_REQ, 0},
      {"replace", PG_BOOL, 0, 0})

PG_OP(link, link, PG_R_ADDR,
      pathgate_fs_link(&r->buf, a->resolver, PG_TXT(a, 0), PG_TXT(a, 1), &a->opts, &a->err),
      {"source", PG_TEXT, PG_POS | PG_REQ, 0}, {"destination", PG_TEXT, PG_POS | PG_REQ, 0})

PG_OP(symlink, symlink, PG_R_ADDR,
      pathgate_fs_symlink(&r->buf, a->resolver, PG_TXT(a, 0), PG_TXT(a, 1), &a->opts, &a->err),
      {"target", PG_TEXT, PG_POS | PG_REQ, 0}, PG_PATH)

PG_OP(readlink, readlink, PG_R_ADDR,
      pathgate_fs_readlink(&r->buf, a->resolver, PG_TXT(a, 0), &a->opts, &a->err), PG_PATH)

PG_OP(chmod, chmod, PG_R_ADDR,
      pathgate_fs_chmod(&r->buf, a->resolver, PG_TXT(a, 0),
                        a->v[1].i<0 || a->v[1].i> 07777 ? 0xFFFFu : (unsigned int)a->v[1].i,
                        &a->opts, &a->err),
      PG_PATH, {"mode", PG_INT, PG_POS | PG_REQ, 0})

PG_OP(remove_tree, remove_tree, PG_R_ADDR,
      pathgate_fs_remove_tree(&r->buf, NULL, a->resolver, PG_TXT(a, 0), &a->opts, &a->err), PG_PATH)

PG_OP(lstat, lstat, PG_R_STAT,
      pathgate_fs_lstat(&r->stat, a->resolver, PG_TXT(a, 0), &a->opts, &a->err), PG_PATH)

/* clang-format off */
#define PG_FS_TOOLKIT_OPS(X) X(copy) X(link) X(symlink) X(readlink) X(chmod) X(remove_tree) X(lstat)
/* clang-format on */

#endif
