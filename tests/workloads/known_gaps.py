"""Workloads that fail inside today's view, and why: the view's worklist.

Each entry makes its workload a STRICT expected failure: the test passes
while the inside still differs from the outside (harness.ViewMismatch), and
FAILS as soon as the workload passes, so that whoever fixes the view
removes the entry (and updates the table in docs/exec.md, "Workloads").
Any other error (a tool missing, a step that fails outside) fails the test
whatever this list says.

Keys are workload names (workloads.py), or `name@root` / `name@nobody` for
a gap seen only by a root caller or only by an unprivileged one. A gap
holds for both front ends (Python and C), which share the view.
"""

KNOWN_VIEW_GAPS: dict[str, str] = {
    # issue 34 item 10: a root caller's command is uid 0 without
    # capabilities and only uid 0 is mapped, so tarfile's chown to the
    # member's uid 1000 fails (EINVAL) and it skips the member's mode and
    # mtime: "run.sh 1796653466 0o644" and "./x/a/run.sh: Permission denied"
    "view_tar_extract@root": "only id 0 is mapped and the command holds no CAP_CHOWN: "
                             "tarfile's chown fails, mode and mtime are skipped",
    # issue 34 item 14: /proc's process files are refused (mountinfo names
    # host paths): "Error, do this: mount -t proc proc /proc", exit 47
    "view_ps": "the processes' files of /proc are not readable in a command",
}
