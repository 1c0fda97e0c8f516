#!/usr/bin/python3
"""Compares the C core's PathUri conversions with CPython's pathlib.

Usage: /usr/bin/python3 bench/bench_uri.py [--bench PATH] [--base PATH]
                                           [--seconds S] [--rounds N]
                                           [--callgrind]

Runs the C program bench_uri (default: build/bench/bench_uri) and, in the
same run, the same work over the same corpus (read from `bench_uri
--corpus`) with pathlib:

  native_to_uri    PureWindowsPath(p).as_uri() / PurePosixPath(p).as_uri()
                   (pathgate: from_native + string + free; pathgate also
                   normalises dot segments and checks UTF-8, pathlib does not)
  parse_to_native  the closest pathlib equivalent of parse + to_native:
                   urllib.parse.urlsplit + unquote + PureWindowsPath /
                   PurePosixPath + str (no validation of scheme, query,
                   fragment, credentials or encoded NUL, which pathgate does)

Each of N rounds (default 15) runs every side in turn, C and pathlib
interleaved; within a round each side keeps its best of 3 measurements of
S seconds. Both sides count CPU time of their own thread, not wall time
(the machine running CI is shared: time spent descheduled is no one's
work). It prints, per operation, the median ops/s of each side, the
median of the per-round ratios and the lowest per-round ratio. --base
PATH adds another bench_uri (an older build) to the same rounds, for a
before/after table. --callgrind adds instructions/op of each bench_uri
from two runs of `bench_uri --count` under valgrind (the difference of
the counts over the difference of the operations, so start-up cancels).
It asserts nothing about time.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
import urllib.parse
from pathlib import PurePosixPath, PureWindowsPath
from typing import Callable

Item = tuple[str, str, str]  # convention, native text, URI

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_BENCH = os.path.join(HERE, "..", "build", "bench", "bench_uri")


def load_corpus(bench: str) -> list[tuple[str, str, str]]:
    out = subprocess.run([bench, "--corpus"], check=True, stdout=subprocess.PIPE).stdout
    rows = []
    for line in out.decode("utf-8").splitlines():
        conv, native, uri = line.split("\t")
        rows.append((conv, native, uri))
    return rows


def measure(fn: Callable[[Item], str], items: list[Item], seconds: float, rounds: int = 3) -> float:
    """ops per CPU second of fn over items: best of rounds."""
    best = 0.0
    for _ in range(rounds):
        ops = 0
        t0 = time.thread_time()
        while True:
            for _rep in range(16):
                for it in items:
                    fn(it)
                ops += len(items)
            t = time.thread_time() - t0
            if t >= seconds:
                break
        best = max(best, ops / t)
    return best


def run_c(bench: str, seconds: float) -> dict[str, float]:
    out = subprocess.run([bench, str(seconds)], check=True, stdout=subprocess.PIPE).stdout
    rates = {}
    for line in out.decode().splitlines():
        name, value = line.split()
        if name in OPS:
            rates[name] = float(value)
    return rates


def callgrind_per_op(bench: str, op: str, corpus_n: int) -> float | None:
    """Instructions per operation of op in bench, from two counted runs."""
    counts = []
    for reps in (50, 550):
        try:
            res = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
                                  bench, "--count", str(reps), op],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=True)
        except (OSError, subprocess.CalledProcessError):
            return None
        for line in res.stderr.decode().splitlines():
            if "refs:" in line:
                counts.append(int(line.split("refs:")[1].replace(",", "")))
    if len(counts) != 2:
        return None
    return (counts[1] - counts[0]) / (500 * corpus_n)


def pathlib_native_to_uri(it: Item) -> str:
    conv, native, _ = it
    return (PureWindowsPath(native) if conv == "windows" else PurePosixPath(native)).as_uri()


def pathlib_parse_to_native(it: Item) -> str:
    conv, _, uri = it
    parts = urllib.parse.urlsplit(uri)
    path = urllib.parse.unquote(parts.path)
    if conv == "windows":
        if parts.netloc:
            return str(PureWindowsPath("//" + parts.netloc + path))
        return str(PureWindowsPath(path[1:]))
    return str(PurePosixPath(path))


OPS = ("native_to_uri", "parse_to_native")
LABELS = {"native_to_uri": "native -> URI -> string", "parse_to_native": "parse -> native"}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bench", default=DEFAULT_BENCH, help="path of the bench_uri program")
    ap.add_argument("--base", help="an older bench_uri to measure in the same rounds")
    ap.add_argument("--seconds", type=float, default=0.1, help="seconds per measurement")
    ap.add_argument("--rounds", type=int, default=15, help="rounds, sides interleaved")
    ap.add_argument("--callgrind", action="store_true", help="also count instructions/op")
    args = ap.parse_args()
    benches = [("pathgate", args.bench)] + ([("base", args.base)] if args.base else [])
    for _, path in benches:
        if not os.path.exists(path):
            print(f"bench_uri not found at {path}: build first (cmake --build build)",
                  file=sys.stderr)
            return 2

    corpus = load_corpus(args.bench)
    # the pathlib work must give the same answers pathgate gives
    for it in corpus:
        conv, native, uri = it
        back = pathlib_parse_to_native(it)
        if back != native:
            print(f"note: pathlib renders {uri} as {back!r}, not {native!r}", file=sys.stderr)

    py_fns = {"native_to_uri": pathlib_native_to_uri, "parse_to_native": pathlib_parse_to_native}
    rates: dict[tuple[str, str], list[float]] = {}
    ratios: dict[tuple[str, str], list[float]] = {}
    for rnd in range(args.rounds):
        # the order of the sides turns each round, so none always goes first
        sides = [name for name, _ in benches] + ["pathlib"]
        sides = sides[rnd % len(sides):] + sides[:rnd % len(sides)]
        got: dict[str, dict[str, float]] = {}
        for side in sides:
            if side == "pathlib":
                got[side] = {op: measure(py_fns[op], corpus, args.seconds) for op in OPS}
            else:
                got[side] = run_c(dict(benches)[side], args.seconds)
        for side, by_op in got.items():
            for op, v in by_op.items():
                rates.setdefault((side, op), []).append(v)
                if side != "pathlib":
                    ratios.setdefault((side, op), []).append(v / got["pathlib"][op])

    med = statistics.median
    print(f"corpus: {len(corpus)} paths (Windows drive, UNC, POSIX, non-ASCII); {args.rounds} "
          f"rounds, C and pathlib interleaved, each side best of 3 x {args.seconds:.2f} CPU s "
          "per round; medians")
    print()
    cg: dict[tuple[str, str], float | None] = {}
    if args.callgrind:
        for name, path in benches:
            for op in OPS:
                cg[(name, op)] = callgrind_per_op(path, op, len(corpus))
    head = f"| {'operation':<24} | {'build':<8} | {'C ops/s':>11} | {'pathlib ops/s':>13} | " \
           f"{'ratio':>6} | {'lowest':>6} |" + (f" {'instr/op':>8} |" if cg else "")
    print(head)
    print("|" + "|".join("-" * (len(c)) for c in head.split("|")[1:-1]) + "|")
    for op in OPS:
        for name, _ in benches:
            c = med(rates[(name, op)])
            p = med(rates[("pathlib", op)])
            r = ratios[(name, op)]
            line = f"| {LABELS[op]:<24} | {name:<8} | {c:>11,.0f} | {p:>13,.0f} | " \
                   f"{med(r):>5.1f}x | {min(r):>5.1f}x |"
            if cg:
                count = cg[(name, op)]
                line += f" {count:>8.0f} |" if count is not None else f" {'n/a':>8} |"
            print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
