#!/usr/bin/env python3
"""Benchmark of pathgate's apply_patch against GNU patch, in one run.

    python3 bench/bench_patch.py [--files 200] [--hunks 10] [--lines 300] [--rounds 7]
                                 [--dir DIR]

(--dir: where the trees are made, default the system's temp directory; on
this machine /tmp is ext4 and /dev/shm tmpfs.)

A tree of --files files (--lines lines each, in 20 directories) and the same
change written twice: as a Codex patch (one `*** Update File:` per file,
--hunks `@@` chunks each with 3 lines of context on both sides) and as the
equivalent unified diff (difflib, 3 lines of context: one hunk per change).
Defaults: 200 files, 2,000 hunks.

Candidates, each its own process on a fresh copy of the tree (the copy,
and a sync(2) after it so that its writeback does not fall into anyone's
run, are not timed), interleaved round by round so that machine load hits
all alike, best and median of --rounds:

  GNU patch          patch -p1 -s -d TREE < diff
  pathgate (C)       build/bench/bench_patch TREE patch: a native process
                     calling pathgate_fs_apply_patch, as patch is one
  pathgate call      Backend.apply_patch in a Python process: the call
                     itself (timed inside), and the whole process
  pathgate command   pathgate apply-patch < patch (the whole process:
                     Python's start, the command line, the call)

Every candidate must leave the same tree (checked). Then the last hunk is
broken (its removed line no longer in the file): pathgate must leave all
files as they were (checked); what GNU patch leaves is reported.

Times are wall times; the machine is shared and noisy, so the answer is
the ratio of medians measured in this run. Nothing is asserted about
time: this is a report, not a test. pathgate is imported from
$PATHGATE_BUILD_DIR/python or build/python.
"""

from __future__ import annotations

import argparse
import difflib
import os
import pathlib
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
BUILD = pathlib.Path(os.environ.get("PATHGATE_BUILD_DIR", HERE.parent / "build"))
PYPATH = str(BUILD / "python")


def make(tmp: pathlib.Path, files: int, hunks: int, lines: int, broken: bool
         ) -> tuple[pathlib.Path, str, str]:
    """The tree, the Codex patch and the unified diff."""
    tree = tmp / "tree"
    codex = ["*** Begin Patch"]
    diff: list[str] = []
    step = lines // hunks
    for f in range(files):
        rel = f"d{f % 20:02d}/f{f:03d}.txt"
        old = [f"file {f} line {i} some text to make it longer\n" for i in range(lines)]
        new = list(old)
        codex.append(f"*** Update File: {rel}")
        for h in range(hunks):
            at = h * step + step // 2
            new[at] = f"file {f} LINE {at} changed\n"
            codex.append("@@")
            codex += [" " + old[i].rstrip("\n") for i in range(at - 3, at)]
            gone = old[at].rstrip("\n") if not (broken and f == files - 1 and h == hunks - 1) else "not in the file"
            codex += ["-" + gone, "+" + new[at].rstrip("\n")]
            codex += [" " + old[i].rstrip("\n") for i in range(at + 1, at + 4)]
        p = tree / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text("".join(old))
        d = list(difflib.unified_diff(old, new, f"a/{rel}", f"b/{rel}", n=3))
        if broken and f == files - 1:  # the same break in the diff
            d = [line.replace(old[(hunks - 1) * step + step // 2], "not in the file\n")
                 if line.startswith("-file") else line for line in d]
        diff += d
    codex.append("*** End Patch")
    return tree, "\n".join(codex) + "\n", "".join(diff)


def snapshot(root: pathlib.Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


CALL = r"""
import sys, time
sys.path.insert(0, sys.argv[1])
import pathgate
b = pathgate.Backend(pathgate.Session(pathgate.Resolver(roots={"t": sys.argv[2]})))
patch = open(sys.argv[3]).read()
t0 = time.perf_counter()
r = b.apply_patch(patch)
t1 = time.perf_counter()
print(t1 - t0, r.kind or "ok", len(r.files))
"""


CPU: list[float] = [0.0]  # the CPU time (user + system) of the last run's process


def run(cmd: list[str], stdin: str | None = None, env: dict[str, str] | None = None) -> tuple[float, str]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.run(cmd, input=stdin, capture_output=True, text=True, env=env)
    t1 = time.perf_counter()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    CPU[0] = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return t1 - t0, p.stdout + p.stderr


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--files", type=int, default=200)
    ap.add_argument("--hunks", type=int, default=10)
    ap.add_argument("--lines", type=int, default=300)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--dir", help="where to make the trees (default: the temp directory)")
    args = ap.parse_args()
    gnu = shutil.which("patch")
    if gnu is None:
        print("GNU patch is not installed")
        return 1
    env = dict(os.environ, PYTHONPATH=PYPATH)
    with tempfile.TemporaryDirectory(prefix="pathgate-bench-patch-", dir=args.dir) as t:
        tmp = pathlib.Path(t)
        base, codex, diff = make(tmp / "good", args.files, args.hunks, args.lines, broken=False)
        (tmp / "patch.txt").write_text(codex)
        (tmp / "patch.diff").write_text(diff)
        nhunks = codex.count("\n@@\n")
        print(f"{args.files} files of {args.lines} lines, {nhunks} hunks; Codex patch "
              f"{len(codex) / 1024:.0f} KiB, unified diff {len(diff) / 1024:.0f} KiB")
        fstype = subprocess.run(["stat", "-f", "-c", "%T", t], capture_output=True, text=True).stdout.strip()
        print(f"GNU {subprocess.run([gnu, '--version'], capture_output=True, text=True).stdout.splitlines()[0]}; "
              f"trees on {fstype}")
        native = BUILD / "bench" / "bench_patch"
        names = ["GNU patch"] + (["pathgate (C)"] if native.exists() else []) + \
            ["pathgate call", "pathgate apply-patch"]
        times: dict[str, list[float]] = {n: [] for n in names}
        times["pathgate call (process)"] = []
        cpu: dict[str, list[float]] = {n: [] for n in times}
        trees: dict[str, dict[str, bytes]] = {}
        for _ in range(args.rounds):
            for name in names:
                work = tmp / "work"
                shutil.rmtree(work, ignore_errors=True)
                shutil.copytree(base, work)
                os.sync()  # the copy's writeback done before the clock starts (untimed)
                if name == "GNU patch":
                    dt, out = run([gnu, "-p1", "-s", "-d", str(work)], stdin=diff)
                    times[name].append(dt)
                elif name == "pathgate (C)":
                    dt, out = run([str(native), str(work), str(tmp / "patch.txt")])
                    assert out.startswith("Success."), out
                    times[name].append(dt)
                elif name == "pathgate call":
                    dt, out = run([sys.executable, "-c", CALL, PYPATH, str(work), str(tmp / "patch.txt")], env=env)
                    call, kind, nfiles = out.split()
                    assert kind == "ok" and int(nfiles) == args.files, out
                    times[name].append(float(call))
                    times["pathgate call (process)"].append(dt)
                else:
                    dt, out = run([sys.executable, "-m", "pathgate", "--root", f"t={work}", "apply-patch"],
                                  stdin=codex, env=env)
                    assert out.startswith("Success."), out
                    times[name].append(dt)
                cpu[name].append(CPU[0])
                if name == "pathgate call":
                    cpu["pathgate call (process)"].append(CPU[0])
                snap = snapshot(work)
                assert trees.setdefault(name, snap) == snap
        assert all(trees[n] == trees["GNU patch"] for n in names), "different trees"
        print("every candidate left the same tree")
        print()
        print(f"| candidate ({args.rounds} rounds) | wall best ms | wall median ms | median of the "
              "round's wall / GNU patch's | CPU median ms | CPU / GNU patch's |")
        print("|---|---|---|---|---|---|")
        gnu_wall, gnu_cpu = times["GNU patch"], cpu["GNU patch"]
        for name, v in times.items():
            ratio = statistics.median(a / b for a, b in zip(v, gnu_wall))
            c = statistics.median(cpu[name])
            print(f"| {name} | {min(v) * 1000:.1f} | {statistics.median(v) * 1000:.1f} | {ratio:.2f} | "
                  f"{c * 1000:.1f} | {c / statistics.median(gnu_cpu):.2f} |")
        print("(wall: the whole process, except 'pathgate call': the call alone; CPU: the process's "
              "user + system time)")

        # the last hunk broken
        bad_base, bad_codex, bad_diff = make(tmp / "bad", args.files, args.hunks, args.lines, broken=True)
        before = snapshot(bad_base)
        work = tmp / "work"
        shutil.rmtree(work, ignore_errors=True)
        shutil.copytree(bad_base, work)
        (tmp / "bad.txt").write_text(bad_codex)
        _, out = run([sys.executable, "-c", CALL, PYPATH, str(work), str(tmp / "bad.txt")], env=env)
        assert out.split()[1] == "patch_conflict", out
        assert snapshot(work) == before, "pathgate changed files although the last hunk failed"
        print()
        print(f"last hunk broken: pathgate left all {args.files} files as they were")
        shutil.rmtree(work)
        shutil.copytree(bad_base, work)
        run([gnu, "-p1", "-s", "-d", str(work)], stdin=bad_diff)
        after = snapshot(work)
        changed = sum(1 for k in before if after.get(k) != before[k])
        rejects = sum(1 for k in after if k.endswith(".rej"))
        print(f"last hunk broken: GNU patch changed {changed} of {args.files} files and left "
              f"{rejects} .rej file(s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
