#!/usr/bin/python3
"""pathgate's Python front end against what a Python user would write.

Usage: PYTHONPATH=build/python /usr/bin/python3 bench/bench_python.py [--rounds N]

Measures in one run, on the same inputs, alternating the two sides round by
round so machine load hits both alike (best round of each is kept):

  resolve (existing)   Resolver.resolve(address) of existing files at depths
                       1-6 vs bench/reference_resolver.py (the seed's sketch
                       finished with pathlib resolve + relative_to, uuid4,
                       a lock)
  resolve (missing)    the same with require_exists=False on missing files
  each for two layouts of the same roots: "shallow" (right under the scratch
  directory) and "install-like" (where a repo, a Steam game and a workshop
  mod live on a modder's machine). pathgate's cost does not depend on where a
  root lives (it opens beneath the root's fd); the reference's does
  (Path.resolve lstat()s every component of the absolute path).
  Python vs C          the same resolves through Resolver.resolve and
                       through the C call (build/bench/bench_resolve --pair,
                       a fresh resolver per round, rounds alternating with
                       Python's); goal: Python within 1.3x of C
  native->URI->str     str(PathUri.from_native(p)) vs PurePosixPath(p).as_uri()
                       and PureWindowsPath(p).as_uri() (pathgate also
                       normalises dot segments and validates UTF-8)

and prints a table of microseconds per operation with the ratio. Not a
test: it asserts nothing about time. Goals: resolve >= 20x, PathUri >= 10x.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import platform
import sys
import shutil
import tempfile
import time
from pathlib import Path, PurePosixPath, PureWindowsPath

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import pathgate  # noqa: E402
from reference_resolver import WorldAdapterV2  # noqa: E402

DIRS = ["common", "traits", "history", "characters", "events", "localization"]


LAYOUTS = {
    # roots right under the scratch directory (/tmp/pgb-XXXX/shallow/repo)
    "shallow": ("repo", "game", "mods/Some Mod"),
    # where these directories live on a modder's machine (CK3 + Steam)
    "install-like": (
        "home/user/projects/ck3raven",
        "home/user/.local/share/Steam/steamapps/common/Crusader Kings III/game",
        "home/user/.local/share/Steam/steamapps/workshop/content/1158310/2216670956",
    ),
}


def make_tree(top: Path, layout: str) -> tuple[dict, dict, list[str], list[str]]:
    """A repo root, a game root and a mod, with files at depths 1..6."""
    repo, game, mod = (top / layout / d for d in LAYOUTS[layout])
    roots = {"repo": repo, "game": game}
    mods = {"Some Mod": mod}
    existing, missing = [], []
    for prefix, base in [("root:repo", repo), ("root:game", game), ("mod:Some Mod", mod)]:
        for depth in range(1, 7):
            rel = "/".join(DIRS[:depth - 1] + [f"file_{depth}.txt"])
            (base / rel).parent.mkdir(parents=True, exist_ok=True)
            (base / rel).write_text("x\n")
            existing.append(f"{prefix}/{rel}")
            missing.append(f"{prefix}/{rel[:-4]}_missing.txt")
    return roots, mods, existing, missing


def native_corpus() -> tuple[list[str], list[str]]:
    posix = [
        "/home/user/project/src/main.c",
        "/srv/data/mods/Some Mod/common/traits/00_traits.txt",
        "/tmp/a b/c#d/e%f.txt",
        "/usr/share/doc/caf\u00e9/r\u00e9sum\u00e9.md",
        "/var/lib/game/localization/english/events_l_english.yml",
        "/x",
    ]
    windows = [
        "C:\\Users\\me\\Documents\\Paradox Interactive\\Crusader Kings III\\mod\\x.mod",
        "D:\\SteamLibrary\\steamapps\\common\\Game\\game\\common\\traits\\00_traits.txt",
        "\\\\server\\share\\folder\\file.txt",
        "C:\\Program Files (x86)\\Tool\\bin\\tool.exe",
        "E:\\data\\caf\u00e9\\r\u00e9sum\u00e9.docx",
        "C:\\x",
    ]
    return posix, windows


def timed(fn, items, reps: int) -> float:
    """Seconds per call of fn over items, reps times."""
    t0 = time.perf_counter()
    for _ in range(reps):
        for it in items:
            fn(it)
    return (time.perf_counter() - t0) / (reps * len(items))


def pair(name, ours, theirs, setup, items, reps, rounds):
    """Best-of-rounds for both sides, alternating; returns a table row."""
    best_ours = best_theirs = float("inf")
    for _ in range(rounds):
        a, b = setup()
        best_ours = min(best_ours, timed(ours(a), items, reps))
        best_theirs = min(best_theirs, timed(theirs(b), items, reps))
    return name, best_ours, best_theirs


def python_vs_c(roots, mods, existing, args):
    """Best-of-rounds seconds per resolve through Python and through C."""
    exe = Path(args.c_bench)
    if not exe.is_file():
        return None
    cmd = [str(exe), "--pair", str(roots["repo"]), str(roots["game"]),
           str(mods["Some Mod"]), str(args.reps), "1", *existing]
    best_py = best_c = float("inf")
    for _ in range(args.rounds):
        r = pathgate.Resolver(roots, mods, max_tokens=10 * args.reps * len(existing))
        best_py = min(best_py, timed(r.resolve, existing, args.reps))
        del r
        out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
        best_c = min(best_c, float(out.split()[0]) / 1e9)
    return best_py, best_c


def bench_resolve(tree: Path, layout: str, args) -> list:
    roots, mods, existing, missing = make_tree(tree, layout)

    def resolvers():
        big = 10 * args.reps * len(existing)
        return (pathgate.Resolver(roots, mods, max_tokens=big),
                WorldAdapterV2(roots=roots, mod_paths=mods, max_tokens=big))

    # same answers before timing anything
    pg, ref = resolvers()
    for addr in existing:
        a, b = pg.resolve(addr), ref.resolve(addr)
        assert a.ok and b.ok and str(a.ref) == str(b.ref) == addr, (a, b)
        assert pg.host_path(a.ref) == ref.host_path(b.ref)
    for addr in missing:
        a, b = pg.resolve(addr, require_exists=False), ref.resolve(addr, require_exists=False)
        assert a.ok and b.ok and a.exists is False and b.exists is False

    vs_c = python_vs_c(roots, mods, existing, args)
    if vs_c is not None:
        PY_VS_C.append((f"resolve, existing file, {layout} roots", *vs_c))
    return [
        pair(f"resolve, existing file, {layout} roots", lambda r: r.resolve,
             lambda r: r.resolve, resolvers, existing, args.reps, args.rounds),
        pair(f"resolve, missing file (require_exists=False), {layout} roots",
             lambda r: lambda t: r.resolve(t, require_exists=False),
             lambda r: lambda t: r.resolve(t, require_exists=False),
             resolvers, missing, args.reps, args.rounds),
    ]


PY_VS_C: list = []


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--reps", type=int, default=100, help="passes over the inputs per round")
    ap.add_argument("--c-bench", default=str(HERE.parent / "build" / "bench" / "bench_resolve"),
                    help="bench_resolve binary for the Python-vs-C rows (skipped when absent)")
    ap.add_argument("--tree", default=None,
                    help="where to make the scratch trees (default: the temp directory)")
    args = ap.parse_args()

    rows = []
    tree = Path(tempfile.mkdtemp(prefix="pgb-", dir=args.tree)).resolve()
    try:
        for layout in LAYOUTS:
            rows += bench_resolve(tree, layout, args)
    finally:
        shutil.rmtree(tree, ignore_errors=True)

    posix, windows = native_corpus()
    P = pathgate.PathUri
    for name, corpus, conv, pure in (("native->URI->str, POSIX", posix, "posix", PurePosixPath),
                                     ("native->URI->str, Windows", windows, "windows",
                                      PureWindowsPath)):
        for p in corpus:  # both accept every input
            str(P.from_native(p, conv)), pure(p).as_uri()
        rows.append(pair(name, lambda _: lambda p: str(P.from_native(p)),
                         lambda _: lambda p: pure(p).as_uri(), lambda: (None, None),
                         corpus, args.reps * 20, args.rounds))

    core = Path(pathgate._core.__file__).name
    print(f"pathgate {pathgate.__version__} ({core}), CPython {platform.python_version()}, "
          f"{platform.machine()}, best of {args.rounds} alternating rounds")
    print()
    print("| operation | pathgate µs/op | reference µs/op | speed-up |")
    print("|---|---:|---:|---:|")
    for name, ours, theirs in rows:
        ref_name = "reference_resolver" if name.startswith("resolve") else "pathlib"
        print(f"| {name} (vs {ref_name}) | {ours * 1e6:.3f} | {theirs * 1e6:.3f} | "
              f"{theirs / ours:.1f}x |")
    if PY_VS_C:
        print()
        print("| operation | Python call µs/op | C call µs/op | Python / C |")
        print("|---|---:|---:|---:|")
        for name, py, c in PY_VS_C:
            print(f"| {name} | {py * 1e6:.3f} | {c * 1e6:.3f} | {py / c:.2f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
