#!/usr/bin/env python3
"""Benchmark of pathgate's handles and walk against the language's own file
APIs (issue 26), ratios measured in one run:

  read 100 MiB   Python: open(path, "rb").read() vs Backend.open(address, "rb").read(),
                 and the same in text mode ("r", UTF-8);
                 Lua (bench_handles.lua, a child lua5.4): io.open(path, "rb"):read("a")
                 vs r:open(address, "rb"):read("a"), and :lines() over the file
  walk           os.walk(tree) vs Backend.walk("root:bench") over the tree of
                 make_tree.py (500,000 files by default), counting every file

    python3 bench/bench_handles.py [--tree DIR] [--files 500000] [--size-mib 100]
                                  [--rounds 7] [--walk-rounds 5]

Warm page cache; the candidates of each line alternate round by round (so
machine load hits both alike) and the best round of each is compared; the
median is printed too. Times are the process's CPU time (user + system,
time.process_time; Lua's os.clock), which time spent descheduled on a
shared machine does not inflate; --wall measures wall time instead. Both candidates of a line must answer the same byte
or file count (checked). Nothing is asserted about time: this is a report.
pathgate is imported from $PATHGATE_BUILD_DIR/python or build/python.
"""

import argparse
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
BUILD = pathlib.Path(os.environ.get("PATHGATE_BUILD_DIR", HERE.parent / "build"))
sys.path.insert(0, str(BUILD / "python"))
sys.path.insert(0, str(HERE))
import make_tree  # noqa: E402

import pathgate  # noqa: E402


CLOCK = time.process_time


def timed(fn):
    t = CLOCK()
    n = fn()
    return CLOCK() - t, n


def compare(label, base_name, base, pg_name, pg, rounds):
    """Alternates the two candidates; prints best and median and the ratio
    of the bests. Returns the ratio."""
    tb, tp = [], []
    nb = np_ = None
    for i in range(rounds):
        order = [(base, tb), (pg, tp)] if i % 2 == 0 else [(pg, tp), (base, tb)]
        for fn, acc in order:
            t, n = timed(fn)
            acc.append(t)
            if fn is base:
                nb = n
            else:
                np_ = n
    assert nb == np_, f"{label}: {base_name} counted {nb}, {pg_name} {np_}"
    ratio = min(tp) / min(tb)
    mratio = statistics.median(tp) / statistics.median(tb)
    print(f"{label:<24} {base_name:<28} best {min(tb) * 1e3:9.1f} ms  median "
          f"{statistics.median(tb) * 1e3:9.1f} ms")
    print(f"{'':<24} {pg_name:<28} best {min(tp) * 1e3:9.1f} ms  median "
          f"{statistics.median(tp) * 1e3:9.1f} ms   ratio {ratio:.3f}x   ({nb} counted)")
    return ratio, mratio


def make_big_file(path, size):
    line = b"trait_%07d = { category = personality diplomacy = 1 } # padding padding\n"
    with open(path, "wb") as f:
        n, i = 0, 0
        while n < size:
            chunk = b"".join(line % (i + k) for k in range(4096))
            f.write(chunk[: size - n])
            n += min(len(chunk), size - n)
            i += 4096


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tree", type=pathlib.Path, default=HERE / "tree-500000")
    ap.add_argument("--files", type=int, default=500_000)
    ap.add_argument("--size-mib", type=int, default=100)
    ap.add_argument("--rounds", type=int, default=11)
    ap.add_argument("--walk-rounds", type=int, default=7)
    ap.add_argument("--no-lua", action="store_true")
    ap.add_argument("--wall", action="store_true", help="wall time instead of CPU time")
    args = ap.parse_args()
    global CLOCK
    if args.wall:
        CLOCK = time.perf_counter

    ratios = {}
    with tempfile.TemporaryDirectory(prefix="pathgate-bench-") as tmp:
        big = pathlib.Path(tmp) / "big.txt"
        make_big_file(big, args.size_mib << 20)
        size = big.stat().st_size
        r = pathgate.Resolver(roots={"bench": tmp})
        b = pathgate.Backend(r)
        clock = "wall time" if args.wall else "CPU time"
        print(f"# read: one {size >> 20} MiB file; best of {args.rounds} rounds ({clock})")

        def builtin_rb():
            with open(big, "rb") as f:
                return len(f.read())

        def pg_rb():
            with b.open("root:bench/big.txt", "rb") as f:
                return len(f.read())

        def builtin_r():
            with open(big, encoding="utf-8") as f:
                return len(f.read())

        def pg_r():
            with b.open("root:bench/big.txt") as f:
                return len(f.read())

        builtin_rb()  # warm the page cache
        ratios["python read rb"] = compare("python open+read rb", "open()", builtin_rb,
                                           "Backend.open()", pg_rb, args.rounds)
        ratios["python read r"] = compare("python open+read r", "open(encoding=utf-8)",
                                          builtin_r, "Backend.open()", pg_r, args.rounds)
        if not args.no_lua:
            lua = subprocess.run(
                ["lua5.4", str(HERE / "bench_handles.lua"), tmp, str(args.rounds)],
                capture_output=True, text=True,
                env=dict(os.environ, LUA_CPATH=f"{BUILD}/lua/?.so;;"))
            sys.stdout.write(lua.stdout)
            if lua.returncode != 0:
                sys.stderr.write(lua.stderr)
                raise SystemExit("bench_handles.lua failed")
            for line in lua.stdout.splitlines():
                if line.startswith("RATIO "):
                    _, name, best, median = line.split(" ")
                    ratios[name.replace("_", " ")] = (float(best), float(median))

    make_tree.make(args.tree, args.files)
    r = pathgate.Resolver(roots={"bench": args.tree})
    b = pathgate.Backend(r)

    def os_walk():
        return sum(len(files) for _, _, files in os.walk(args.tree))

    def pg_walk():
        return sum(len(files) for _, _, files in b.walk("root:bench"))

    print(f"# walk: make_tree.py, {args.files} files; best of {args.walk_rounds} rounds "
          f"({'wall time' if args.wall else 'CPU time'})")
    os_walk()
    ratios["python walk"] = compare(f"walk {args.files} files", "os.walk()", os_walk,
                                    "Backend.walk()", pg_walk, args.walk_rounds)
    print("# ratios (pathgate / the language's own API; goals: read <= 1.1, walk <= 1.2)")
    print(f"  {'':<22} {'best':>7}  {'median':>7}")
    for name, (best, median) in ratios.items():
        print(f"  {name:<22} {best:6.3f}x  {median:6.3f}x")


if __name__ == "__main__":
    main()
