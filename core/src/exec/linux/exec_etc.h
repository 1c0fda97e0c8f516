/*
 * exec_etc.h - internal: the /etc of a command's view (docs/exec.md,
 * "The view: /etc").
 *
 * What everyday tools read and nothing secret: the loader cache, name
 * service, time zone, certificates, alternatives and the configuration of
 * the interpreters whose files in /usr link into /etc, copied into the
 * prepared view (so that the view's own Landlock rule on /etc covers
 * them); passwd and group made for the command's own ids (and nobody's),
 * with its home directory; nsswitch.conf, hosts and hostname made for the
 * view. Never shadow, gshadow, sudoers, ssh host keys, ssl/private, pip's
 * or npm's configuration (which may hold tokens), the environment file.
 */
#ifndef PATHGATE_EXEC_ETC_H
#define PATHGATE_EXEC_ETC_H

#include <stddef.h>

#include "exec_view.h"

/* The command's identity in the view. */
typedef struct pathgate__exec_identity {
    unsigned int uid, gid; /* its ids inside the view */
    char name[64];         /* its user name ("" when the host has none for uid) */
    char home[128];        /* its home directory in the view */
    char shell[64];        /* its shell in the view */
} pathgate__exec_identity;

/* Fills id for the ids (uid, gid) from the host's passwd: the name, and
 * the private home "/home/<name>" ("/home/user" without a name) unless
 * home is given (a view path, e.g. a writable base's directory). */
void pathgate__exec_identity_make(pathgate__exec_identity *id, unsigned int uid, unsigned int gid,
                                  const char *home);

/* Adds /etc to the plan for the identity. PATHGATE_ENOMEM. */
int pathgate__exec_etc_add(pathgate__exec_view *v, const pathgate__exec_identity *id);

/* Adds /etc/gitconfig: the host's, then `safe.directory = *`, so git
 * reads a repository of a read-only base or of another host user's files
 * (docs/exec.md "git in the view"). PATHGATE_ENOMEM. */
int pathgate__exec_etc_add_gitconfig(pathgate__exec_view *v);

#endif
