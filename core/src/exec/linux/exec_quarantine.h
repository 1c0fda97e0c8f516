/*
 * exec_quarantine.h - internal: protected names a command planted
 * (docs/exec.md "Planted links"). A command may create, in a writable
 * place, an entry under a name the policy protects that did not exist
 * at its start (the view is computed once per call). A symbolic link or a
 * file with more than one link left there would outlive the call: `.env
 * -> public.txt` hands the user's next secret to a readable file, `.envrc
 * -> run.sh` or `.vscode -> pub` keep a protected file writable through
 * its target. So when the command has ended, before the call returns,
 * every such entry that was not there at the start (and every such entry
 * inside a protected directory that was not there) is moved out of the
 * base into the quarantine, reported in the result and as an audit event.
 */
#ifndef PATHGATE_EXEC_QUARANTINE_H
#define PATHGATE_EXEC_QUARANTINE_H

#include "exec_policy.h"
#include "pathgate/exec.h"
#include "pathgate/resolver.h"

/* The environment variable naming the quarantine's directory (else
 * $XDG_STATE_HOME/pathgate/quarantine, else
 * $HOME/.local/state/pathgate/quarantine). */
#define PATHGATE__QUARANTINE_ENV "PATHGATE_QUARANTINE_DIR"

/* Entries looked at inside one new protected directory, at most. */
#define PATHGATE__QUARANTINE_WALK_MAX 4096

/*
 * After a command of r whose view had the masks `start` (what the policy
 * protected at its start): finds what it planted, quarantines it, adds
 * the addresses to out->quarantined (out->nquarantined) and emits one
 * audit event each (operation "execute", outcome "quarantined", reason
 * "symlink" or "hard_link"). 0, or a set error (ENOMEM; EIO when a
 * planted entry could be neither quarantined nor removed).
 */
int pathgate__exec_quarantine(pathgate_exec_result *out, pathgate_resolver *r,
                              const pathgate__exec_masks *start, pathgate_error *err);

#endif
