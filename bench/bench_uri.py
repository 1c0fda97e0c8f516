#!/usr/bin/python3
"""Compares the C core's PathUri conversions with CPython's pathlib.

Usage: /usr/bin/python3 bench/bench_uri.py [--bench PATH] [--seconds S]

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

and prints ops/s of each (best rounds, the two sides alternating) and the
ratio. It asserts nothing about time.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
import urllib.parse
from pathlib import PurePosixPath, PureWindowsPath

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_BENCH = os.path.join(HERE, "..", "build", "bench", "bench_uri")


def load_corpus(bench: str) -> list[tuple[str, str, str]]:
    out = subprocess.run([bench, "--corpus"], check=True, stdout=subprocess.PIPE).stdout
    rows = []
    for line in out.decode("utf-8").splitlines():
        conv, native, uri = line.split("\t")
        rows.append((conv, native, uri))
    return rows


def measure(fn, items, seconds: float, rounds: int = 3) -> float:
    best = 0.0
    for _ in range(rounds):
        ops = 0
        t0 = time.perf_counter()
        while True:
            for _rep in range(16):
                for it in items:
                    fn(it)
                ops += len(items)
            t = time.perf_counter() - t0
            if t >= seconds:
                break
        best = max(best, ops / t)
    return best


def pathlib_native_to_uri(it) -> str:
    conv, native, _ = it
    return (PureWindowsPath(native) if conv == "windows" else PurePosixPath(native)).as_uri()


def pathlib_parse_to_native(it) -> str:
    conv, _, uri = it
    parts = urllib.parse.urlsplit(uri)
    path = urllib.parse.unquote(parts.path)
    if conv == "windows":
        if parts.netloc:
            return str(PureWindowsPath("//" + parts.netloc + path))
        return str(PureWindowsPath(path[1:]))
    return str(PurePosixPath(path))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bench", default=DEFAULT_BENCH, help="path of the bench_uri program")
    ap.add_argument("--seconds", type=float, default=1.0, help="seconds per measurement round")
    args = ap.parse_args()
    if not os.path.exists(args.bench):
        print(f"bench_uri not found at {args.bench}: build first (cmake --build build)", file=sys.stderr)
        return 2

    corpus = load_corpus(args.bench)
    # the pathlib work must give the same answers pathgate gives
    for it in corpus:
        conv, native, uri = it
        back = pathlib_parse_to_native(it)
        if back != native:
            print(f"note: pathlib renders {uri} as {back!r}, not {native!r}", file=sys.stderr)

    # C and Python rounds alternate, best of each kept, so that load from
    # other processes on the machine hits both sides alike.
    core: dict[str, float] = {}
    py: dict[str, float] = {}
    py_fns = {"native_to_uri": pathlib_native_to_uri, "parse_to_native": pathlib_parse_to_native}
    for _round in range(3):
        out = subprocess.run([args.bench, str(args.seconds / 3)], check=True,
                             stdout=subprocess.PIPE).stdout
        for line in out.decode().splitlines():
            name, value = line.split()
            core[name] = max(core.get(name, 0.0), float(value))
        for name, fn in py_fns.items():
            py[name] = max(py.get(name, 0.0), measure(fn, corpus, args.seconds / 3))
    labels = {
        "native_to_uri": "native -> URI -> string",
        "parse_to_native": "parse -> native",
    }
    print(f"corpus: {len(corpus)} paths (Windows drive, UNC, POSIX, non-ASCII); best of 9 rounds of {args.seconds / 3:.2f} s, C and pathlib alternating")
    print()
    print(f"| {'operation':<24} | {'pathgate (C) ops/s':>19} | {'pathlib ops/s':>14} | {'ratio':>7} |")
    print(f"|{'-' * 26}|{'-' * 21}|{'-' * 16}|{'-' * 9}|")
    for key in ("native_to_uri", "parse_to_native"):
        c, p = core[key], py[key]
        print(f"| {labels[key]:<24} | {c:>19,.0f} | {p:>14,.0f} | {c / p:>6.1f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
