#!/usr/bin/env python3
"""The OS layer's cost: the same operations on builds made from different
commits or with different OS backends, run alternately in one session.

    python3 bench/bench_os.py [--files 20000] [--rounds 7] NAME=BUILD_DIR ...

For each round, every build runs once per operation in its own process, in
turn, so that machine load hits all alike; the table shows each build's
median over the rounds and its ratio to the first build's:

  C resolve     bench_resolve --pair (ns per resolve of an existing file)
  Py resolve    Resolver.resolve of existing files (us per call)
  read          Backend-free _core._fs_read of a small file (us per call)
  walk          _core._fs_glob("**/*.txt") over the tree (ms, one thread)
  grep          _core._fs_grep literal over the tree (ms, one thread)

The tree is make_tree.py's (--files files). Nothing is asserted: a report.

    python3 bench/bench_os.py --instructions [--files 2000] NAME=BUILD_DIR ...

counts instead, under valgrind's callgrind, the user-space instructions of
each operation (a run of N operations less a run of none, over N): a
figure the load of a shared machine does not move, for the comparisons
that wall time on such a machine cannot make to a few percent. System
calls are counted apart (strace), as the kernel's share is not in it.
"""

import argparse
import pathlib
import statistics
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import make_tree  # noqa: E402

CHILD = r"""
import sys, time
sys.path.insert(0, sys.argv[1])
from pathgate import _core
import pathgate
op, root = sys.argv[2], sys.argv[3]
r = pathgate.Resolver(roots={"bench": root})
files = [l for l in sys.argv[4].split(",") if l]
def best(f, n, reps=5):
    b = None
    for _ in range(reps):
        t = time.perf_counter(); f(n); d = (time.perf_counter() - t) / n
        b = d if b is None or d < b else b
    return b
if op == "resolve":
    def f(n):
        for i in range(n):
            r.resolve("root:bench/" + files[i % len(files)])
    print(best(f, 20000) * 1e6)
elif op == "read":
    def f(n):
        for i in range(n):
            _core._fs_read(r, "root:bench/" + files[i % len(files)])
    print(best(f, 5000) * 1e6)
elif op == "walk":
    def f(n):
        _core._fs_glob(r, "**/*.txt", threads=1)
    print(best(f, 1, 3) * 1e3)
elif op == "grep":
    def f(n):
        _core._fs_grep(r, make_tree_needle, None, None, None, threads=1)
    make_tree_needle = sys.argv[5]
    print(best(f, 1, 3) * 1e3)
"""


# One process: its set-up, then exactly n operations (none when n is 0),
# so that two counts differ by the operations alone.
COUNT_CHILD = r"""
import sys
sys.path.insert(0, sys.argv[1])
from pathgate import _core
import pathgate
op, root, n = sys.argv[2], sys.argv[3], int(sys.argv[6])
r = pathgate.Resolver(roots={"bench": root})
files = [l for l in sys.argv[4].split(",") if l]
needle = sys.argv[5]
for i in range(n):
    if op == "resolve":
        r.resolve("root:bench/" + files[i % len(files)])
    elif op == "read":
        _core._fs_read(r, "root:bench/" + files[i % len(files)])
    elif op == "walk":
        _core._fs_glob(r, "**/*.txt", threads=1)
    elif op == "grep":
        _core._fs_grep(r, needle, None, None, None, threads=1)
"""


def callgrind_ir(argv: list[str]) -> int:
    out = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *argv],
                         capture_output=True, text=True, check=True).stderr
    return int(out.split("Collected :")[-1].split()[0])


def instructions(builds: list[list[str]], root: pathlib.Path, files: list[str], dirs: list[str]) -> None:
    repo, game, mod = dirs
    ops = {"C resolve": 2000, "Py resolve": 2000, "read": 1000, "walk": 3, "grep": 3}
    print("| operation (instructions per call) | " + " | ".join(n for n, _ in builds)
          + " | " + " | ".join(f"{n}/{builds[0][0]}" for n, _ in builds[1:]) + " |")
    print("|" + "---|" * (2 * len(builds)))
    for op, n in ops.items():
        per = []
        for _, bdir in builds:
            if op == "C resolve":
                def run(k: int) -> int:
                    return callgrind_ir([f"{bdir}/bench/bench_resolve", "--pair", repo, game, mod, str(max(k, 1)),
                                         "1", "root:repo/src/main.c"])
                # bench_resolve's rounds all resolve: count 1 against n
                per.append((run(n) - run(1)) / (n - 1))
            else:
                def run(k: int) -> int:
                    return callgrind_ir([sys.executable, "-c", COUNT_CHILD, f"{bdir}/python", op.split()[-1],
                                         str(root), ",".join(files), make_tree.NEEDLE, str(k)])
                per.append((run(n) - run(0)) / n)
        print(f"| {op} | " + " | ".join(f"{x:,.0f}" for x in per)
              + " | " + " | ".join(f"{x / per[0]:.3f}" for x in per[1:]) + " |")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--files", type=int, default=20000)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--instructions", action="store_true",
                    help="count instructions under callgrind instead of timing")
    ap.add_argument("builds", nargs="+", help="NAME=BUILD_DIR")
    a = ap.parse_args()
    builds = [b.split("=", 1) for b in a.builds]
    with tempfile.TemporaryDirectory(prefix="pathgate-bench-os-") as tmp:
        root = pathlib.Path(tmp) / "tree"
        root.mkdir()
        make_tree.make(root, a.files)
        files = sorted(str(p.relative_to(root)) for p in root.rglob("*.txt"))[:200]
        repo, game, mod = (pathlib.Path(tmp) / d for d in ("repo", "game", "mod"))
        for d in (repo, game, mod):
            d.mkdir()
        (repo / "src").mkdir()
        (repo / "src" / "main.c").write_text("x")
        if a.instructions:
            instructions(builds, root, files, [str(repo), str(game), str(mod)])
            return 0
        ops = ["C resolve", "Py resolve", "read", "walk", "grep"]
        res = {(n, op): [] for n, _ in builds for op in ops}
        for _ in range(a.rounds):
            for op in ops:
                for name, bdir in builds:
                    if op == "C resolve":
                        out = subprocess.run(
                            [f"{bdir}/bench/bench_resolve", "--pair", str(repo), str(game),
                             str(mod), "2000", "5", "root:repo/src/main.c"],
                            capture_output=True, text=True, check=True).stdout
                    else:
                        kind = op.split()[-1]
                        out = subprocess.run(
                            [sys.executable, "-c", CHILD, f"{bdir}/python", kind, str(root),
                             ",".join(files), make_tree.NEEDLE],
                            capture_output=True, text=True, check=True).stdout
                    res[(name, op)].append(float(out.split()[-1]))
        unit = {"C resolve": "ns", "Py resolve": "us", "read": "us", "walk": "ms", "grep": "ms"}
        head = "| operation | " + " | ".join(f"{n}" for n, _ in builds)
        head += " | " + " | ".join(f"{n}/{builds[0][0]}" for n, _ in builds[1:]) + " |"
        print(head)
        print("|" + "---|" * (1 + 2 * len(builds) - 1))
        for op in ops:
            med = [statistics.median(res[(n, op)]) for n, _ in builds]
            cells = [f"{m:.2f} {unit[op]}" for m in med]
            ratios = [f"{m / med[0]:.3f}" for m in med[1:]]
            print(f"| {op} | " + " | ".join(cells + ratios) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
