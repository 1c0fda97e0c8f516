#!/usr/bin/env python3
"""Benchmark of pathgate's grep and glob (docs/spec.md section 7) against
ripgrep and plain Python, on the 50,000-file tree of make_tree.py.

    python3 bench/bench_fs.py [--dir bench/tree] [--files 50000] [--rounds 7]

Measured in one run, warm page cache, best of --rounds, candidates
interleaved round by round so that machine load hits all alike:

  grep of a literal:  pathgate.Backend.grep   (single thread, in-process)
                      rg -j1 -F -n            (ripgrep, single thread; the
                                               script installs Debian's
                                               ripgrep with apt-get if missing)
                      os.walk + str.find      (plain Python)
  glob("**/*.txt"):   pathgate.Backend.glob
                      pathlib.Path.rglob("*.txt")           (bare)
                      rglob + is_file()       (the same answer: regular files)

Every candidate must report the same number of matches (checked). The
output is a Markdown table and the goal ratios (grep within 1.5x of rg -j1,
>= 10x faster than the Python walk; glob >= 5x faster than rglob). Nothing
is asserted about time: this is a report, not a test. pathgate is imported
from the environment, else from $PATHGATE_BUILD_DIR/python or build/python.
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


def import_pathgate():
    try:
        import pathgate
        return pathgate
    except ImportError:
        pass
    build = pathlib.Path(os.environ.get("PATHGATE_BUILD_DIR", HERE.parent / "build"))
    sys.path.insert(0, str(build / "python"))
    import pathgate
    return pathgate


def ensure_ripgrep():
    rg = shutil.which("rg")
    if rg:
        return rg
    if os.geteuid() == 0 and shutil.which("apt-get"):
        print("bench_fs: installing ripgrep (apt-get)", file=sys.stderr)
        env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
        subprocess.run(["apt-get", "install", "-y", "-qq", "ripgrep"], check=False, env=env,
                       stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
        return shutil.which("rg")
    print("bench_fs: ripgrep is missing; run as root: apt-get install -y ripgrep", file=sys.stderr)
    return None


# ------------------------------------------------------------ candidates


def rg_grep(rg, root):
    out = subprocess.run([rg, "-j1", "-F", "-n", "--no-heading", "--no-messages", NEEDLE, str(root)],
                         stdout=subprocess.PIPE, check=False).stdout
    return out.count(b"\n")


def python_grep(root):
    """What an agent backend would write without pathgate: walk, read, find."""
    matches = []
    for d, dirs, files in os.walk(root):
        dirs.sort()
        for name in sorted(files):
            path = os.path.join(d, name)
            try:
                with open(path, encoding="utf-8") as f:
                    text = f.read()
            except (OSError, UnicodeDecodeError):
                continue
            for number, line in enumerate(text.splitlines(), 1):
                if line.find(NEEDLE) != -1:
                    matches.append({"path": path, "line": number, "text": line})
    return len(matches)


def best_of(cands, rounds):
    """cands: {name: fn -> count}; returns {name: (best seconds, count)}."""
    counts = {name: fn() for name, fn in cands.items()}  # warm-up, and the answers
    times = {name: [] for name in cands}
    for _ in range(rounds):
        for name, fn in cands.items():
            t = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - t)
    return {name: (min(times[name]), counts[name]) for name in cands}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dir", type=pathlib.Path, default=HERE / "tree")
    ap.add_argument("--files", type=int, default=50_000)
    ap.add_argument("--rounds", type=int, default=7)
    args = ap.parse_args()

    make_tree.make(args.dir, args.files)
    root = args.dir.resolve()
    pathgate = import_pathgate()
    rg = ensure_ripgrep()
    backend = pathgate.Backend(pathgate.Resolver(roots={"bench": root}))

    grep = {"pathgate Backend.grep": lambda: len(backend.grep(NEEDLE).matches)}
    if rg:
        grep["rg -j1 -F"] = lambda: rg_grep(rg, root)
    grep["os.walk + str.find"] = lambda: python_grep(root)
    glob = {
        "pathgate Backend.glob": lambda: len(backend.glob("**/*.txt").matches),
        "pathlib rglob": lambda: len(list(root.rglob("*.txt"))),
        "pathlib rglob + is_file": lambda: sum(1 for p in root.rglob("*.txt") if p.is_file()),
    }
    g = best_of(grep, args.rounds)
    # the slow Python walk needs fewer rounds to say what it is
    gl = best_of(glob, args.rounds)

    def ok(res):
        counts = {c for _, c in res.values()}
        return "same matches" if len(counts) == 1 else f"MATCH COUNTS DIFFER: {res}"

    print(f"tree: {args.files} files, {root}")
    print(f"python {sys.version.split()[0]}, pathgate {pathgate.__version__}, "
          f"{'ripgrep ' + subprocess.run([rg, '--version'], capture_output=True, text=True).stdout.split()[1] if rg else 'no ripgrep'}, "
          f"best of {args.rounds}")
    print()
    print("| operation | implementation | best (ms) | matches | vs pathgate |")
    print("|---|---|---:|---:|---:|")
    for op, res, ref in (("grep literal", g, "pathgate Backend.grep"),
                         ("glob **/*.txt", gl, "pathgate Backend.glob")):
        base = res[ref][0]
        for name, (t, count) in res.items():
            print(f"| {op} | {name} | {t * 1000:.1f} | {count} | {t / base:.2f}x |")
    print()
    print(f"grep: {ok(g)}; glob: {ok(gl)}")
    pg = g["pathgate Backend.grep"][0]
    if rg:
        print(f"goal grep <= 1.5x rg -j1:          {pg / g['rg -j1 -F'][0]:.2f}x of rg")
    print(f"goal grep >= 10x the Python walk:  {g['os.walk + str.find'][0] / pg:.1f}x faster")
    pgl = gl["pathgate Backend.glob"][0]
    print(f"goal glob >= 5x rglob:             {gl['pathlib rglob'][0] / pgl:.1f}x faster than bare rglob, "
          f"{gl['pathlib rglob + is_file'][0] / pgl:.1f}x than rglob + is_file")
    return 0


if __name__ == "__main__":
    sys.exit(main())
