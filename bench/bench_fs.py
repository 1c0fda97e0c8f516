#!/usr/bin/env python3
"""Benchmark of pathgate's grep and glob against ripgrep and fd, on the
generated trees of make_tree.py (50,000 files, and 500,000 with --big).

    python3 bench/bench_fs.py [--dir bench/tree] [--files 50000] [--big 500000]
                              [--rounds 5]

Measured in one run, warm page cache, best of --rounds, candidates
interleaved round by round so that machine load hits all alike. Every
candidate runs as its own process, so its peak resident memory (ru_maxrss
from wait4) is its own:

  grep literal:  pathgate grep, every core (threads=0) and threads=1
                 rg -F (ripgrep, its default: every core), rg -F -j1
  grep regex:    pathgate grep regex=True (PCRE2, every core)
                 rg (its default engine, every core), rg -j1
  glob *.txt:    pathgate glob "**/*.txt", every core and threads=1
                 rg --files -g '*.txt', fdfind -t f -e txt (when installed)

Times are the wall time of each process, so pathgate's include starting
Python and importing the module (printed on its own line: "python
startup"); the "call" column of pathgate is the time of the call itself.
Every candidate of an operation must report the same number of results
(checked). The goals of the scale issue are printed as ratios; nothing is
asserted about time: this is a report, not a test. pathgate is imported
from $PATHGATE_BUILD_DIR/python or build/python.
"""

import argparse
import os
import pathlib
import shutil
import subprocess
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import make_tree  # noqa: E402

NEEDLE = make_tree.NEEDLE
REGEX = NEEDLE[:-4] + r"[0-9a-f]{4} (marks|at)"

PG_CHILD = r"""
import sys, time
sys.path.insert(0, sys.argv[1])
import pathgate
from pathgate import _core
op, root, pattern, threads = sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
r = pathgate.Resolver(roots={"bench": root})
t = time.perf_counter()
if op == "glob":
    n = len(_core._fs_glob(r, pattern, threads=threads))
else:
    n = len(_core._fs_grep(r, pattern, None, None, None, threads=threads,
                           regex=op == "regex")[0])
print(n, time.perf_counter() - t)
"""


def build_python_dir():
    return pathlib.Path(os.environ.get("PATHGATE_BUILD_DIR", HERE.parent / "build")) / "python"


def run(argv):
    """(wall seconds, peak RSS KiB, stdout bytes, call seconds or None)."""
    t = time.perf_counter()
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    out = p.stdout.read()
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t
    p.returncode = os.waitstatus_to_exitcode(status)
    return wall, ru.ru_maxrss, out


def pg(op, root, pattern, threads):
    def f():
        wall, rss, out = run([sys.executable, "-c", PG_CHILD, str(build_python_dir()), op,
                              str(root), pattern, str(threads)])
        n, call = out.split()
        return wall, rss, int(n), float(call)
    return f


def tool(argv, count=lambda out: out.count(b"\n")):
    def f():
        wall, rss, out = run(argv)
        return wall, rss, count(out), None
    return f


def best_of(cands, rounds):
    """{name: fn} -> {name: (best wall, best call, max rss, count)}."""
    first = {name: fn() for name, fn in cands.items()}  # warm-up, and the answers
    walls = {name: [] for name in cands}
    calls = {name: [] for name in cands}
    rss = {name: first[name][1] for name in cands}
    for _ in range(rounds):
        for name, fn in cands.items():
            wall, r, _, call = fn()
            walls[name].append(wall)
            if call is not None:
                calls[name].append(call)
            rss[name] = max(rss[name], r)
    return {name: (min(walls[name]), min(calls[name]) if calls[name] else None, rss[name],
                   first[name][2]) for name in cands}


def python_startup(rounds):
    best = None
    for _ in range(rounds):
        wall, _, _ = run([sys.executable, "-c", f"import sys; sys.path.insert(0, "
                          f"{str(build_python_dir())!r}); import pathgate"])
        best = wall if best is None else min(best, wall)
    return best


def bench_tree(root, files, rounds, rg, fd):
    ops = {}
    grep = {"pathgate grep (all cores)": pg("grep", root, NEEDLE, 0),
            "pathgate grep threads=1": pg("grep", root, NEEDLE, 1)}
    regex = {"pathgate grep regex (all cores)": pg("regex", root, REGEX, 0)}
    glob = {"pathgate glob (all cores)": pg("glob", root, "**/*.txt", 0),
            "pathgate glob threads=1": pg("glob", root, "**/*.txt", 1)}
    if rg:
        grep["rg -F"] = tool([rg, "-F", "-n", "--no-heading", "--no-messages", NEEDLE, str(root)])
        grep["rg -F -j1"] = tool([rg, "-j1", "-F", "-n", "--no-heading", "--no-messages", NEEDLE,
                                  str(root)])
        regex["rg"] = tool([rg, "-n", "--no-heading", "--no-messages", REGEX, str(root)])
        regex["rg -j1"] = tool([rg, "-j1", "-n", "--no-heading", "--no-messages", REGEX,
                                str(root)])
        glob["rg --files -g"] = tool([rg, "--files", "-g", "*.txt", str(root)])
    if fd:
        glob["fdfind -t f -e txt"] = tool([fd, "-t", "f", "-e", "txt", "-u", ".", str(root)])
    ops["grep literal"] = best_of(grep, rounds)
    ops["grep regex"] = best_of(regex, rounds)
    ops["glob *.txt"] = best_of(glob, rounds)
    return ops


def report(files, ops, startup):
    print(f"\n### {files} files\n")
    print("| operation | implementation | wall (ms) | call (ms) | peak RSS (MiB) | results |")
    print("|---|---|---:|---:|---:|---:|")
    for op, res in ops.items():
        for name, (wall, call, rss, count) in res.items():
            c = f"{call * 1000:.0f}" if call is not None else ""
            print(f"| {op} | {name} | {wall * 1000:.0f} | {c} | {rss / 1024:.1f} | {count} |")
    print(f"\npython startup + import pathgate: {startup * 1000:.0f} ms (in the pathgate walls)")
    for op, res in ops.items():
        counts = {r[3] for r in res.values()}
        print(f"{op}: {'same results' if len(counts) == 1 else 'RESULTS DIFFER: ' + str(res)}")


def goals(ops, startup):
    lit, rx, gl = ops["grep literal"], ops["grep regex"], ops["glob *.txt"]
    lines = []

    def ratio(a, b):
        return a / b if b else float("nan")

    if "rg -F" in lit:
        p = lit["pathgate grep (all cores)"]
        lines.append(f"literal grep vs rg -F (goal <= 0.8x): wall {ratio(p[0], lit['rg -F'][0]):.2f}x, "
                     f"call {ratio(p[1], lit['rg -F'][0]):.2f}x")
    if "rg" in rx:
        p = rx["pathgate grep regex (all cores)"]
        lines.append(f"regex grep vs rg (goal <= 1.2x): wall {ratio(p[0], rx['rg'][0]):.2f}x, "
                     f"call {ratio(p[1], rx['rg'][0]):.2f}x")
    if "fdfind -t f -e txt" in gl:
        p = gl["pathgate glob (all cores)"]
        lines.append(f"glob vs fd (goal <= 1.0x): wall {ratio(p[0], gl['fdfind -t f -e txt'][0]):.2f}x, "
                     f"call {ratio(p[1], gl['fdfind -t f -e txt'][0]):.2f}x")
    return lines


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dir", type=pathlib.Path, default=HERE / "tree")
    ap.add_argument("--files", type=int, default=50_000)
    ap.add_argument("--big", type=int, default=0, help="also a tree of this many files")
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()

    rg, fd = shutil.which("rg"), shutil.which("fdfind") or shutil.which("fd")
    trees = [(args.dir, args.files)]
    if args.big:
        trees.append((args.dir.with_name(args.dir.name + f"-{args.big}"), args.big))
    results = []
    for d, n in trees:
        make_tree.make(d, n)
        results.append((n, bench_tree(d.resolve(), n, args.rounds, rg, fd)))
    startup = python_startup(args.rounds)
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores, best of {args.rounds}, "
          f"{'ripgrep ' + subprocess.run([rg, '--version'], capture_output=True, text=True).stdout.split()[1] if rg else 'no ripgrep'}, "
          f"{'fd ' + subprocess.run([fd, '--version'], capture_output=True, text=True).stdout.split()[1] if fd else 'no fd'}")
    for n, ops in results:
        report(n, ops, startup)
        print()
        for line in goals(ops, startup):
            print("goal " + line)
    if len(results) == 2:
        (n1, a), (n2, b) = results
        print(f"\nper-file cost {n2} vs {n1} files (goal within 1.3x):")
        for op in a:
            name = next(iter(a[op]))  # pathgate, every core
            print(f"  {op}: {(b[op][name][1] / n2) / (a[op][name][1] / n1):.2f}x (call time)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
