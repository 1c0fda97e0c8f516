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
    # issue 34 item 14: /proc's process files are refused (mountinfo names
    # host paths): "Error, do this: mount -t proc proc /proc", exit 47
    "view_ps": "the processes' files of /proc are not readable in a command",
}
