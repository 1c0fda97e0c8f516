#!/usr/bin/env python3
"""Generates the benchmark tree of bench_fs.py: N files (default 50,000) of
source-like text in a fixed, seeded layout, so every run measures the same
bytes.

    python3 bench/make_tree.py [--dir bench/tree] [--files 50000]

Layout: <dir>/pkgNN/modNN/fileNNN.<ext> (50 x 10 x 100 for 50,000 files),
extensions cycling through .txt .py .c .md (a quarter are .txt). Files are
1-6 KB of lines drawn from a fixed vocabulary; one file in 50 holds the
needle line `NEEDLE_7f3a marks this line` (twice in some). No hidden files
and no .gitignore, so ripgrep's defaults search exactly what pathgate
searches. A marker file records the parameters; an existing tree with the
same parameters is reused.
"""

import argparse
import os
import pathlib
import random
import shutil
import sys

NEEDLE = "NEEDLE_7f3a"
EXTS = (".txt", ".py", ".c", ".md")
WORDS = (
    "alpha beta gamma delta epsilon zeta theta lambda kappa sigma omega return import "
    "static const struct int char void if else for while switch case break continue "
    "trait culture dynasty province title county duchy kingdom empire modifier effect "
    "trigger scope limit value factor weight add multiply desc name key"
).split()
MARKER = ".pathgate-bench-tree"  # NB: a dot-file, so neither tool counts it


def make(root: pathlib.Path, files: int, seed: int = 20261122) -> None:
    params = f"files={files} seed={seed} v1\n"
    marker = root / MARKER
    if marker.exists() and marker.read_text() == params:
        return
    if root.exists():
        shutil.rmtree(root)
    rng = random.Random(seed)
    per_mod = 100
    mods_per_pkg = 10
    n = 0
    while n < files:
        pkg = n // (per_mod * mods_per_pkg)
        mod = (n // per_mod) % mods_per_pkg
        d = root / f"pkg{pkg:02d}" / f"mod{mod:02d}"
        d.mkdir(parents=True, exist_ok=True)
        for i in range(per_mod):
            if n >= files:
                break
            lines = []
            for _ in range(rng.randint(20, 120)):
                lines.append(" ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 12))))
            if n % 50 == 7:
                lines.insert(rng.randrange(len(lines)), f"{NEEDLE} marks this line")
                if n % 200 == 7:
                    lines.append(f"again {NEEDLE} at the end")
            ext = EXTS[n % len(EXTS)]
            (d / f"file{i:03d}{ext}").write_text("\n".join(lines) + "\n")
            n += 1
    marker.write_text(params)


def main() -> int:
    here = pathlib.Path(__file__).resolve().parent
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dir", type=pathlib.Path, default=here / "tree")
    ap.add_argument("--files", type=int, default=50_000)
    args = ap.parse_args()
    make(args.dir, args.files)
    count = sum(len(f) for _, _, f in os.walk(args.dir)) - 1
    print(f"{args.dir}: {count} files", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
