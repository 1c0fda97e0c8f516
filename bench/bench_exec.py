#!/usr/bin/python3
"""Per-call cost of a contained command against a plain process start.

Usage: PYTHONPATH=build/python /usr/bin/python3 bench/bench_exec.py [--calls N]

In one run, round-robin (every variant sees the same machine load; the
median per call resists a shared machine's outliers):

  subprocess.run(["/bin/sh", "-c", "true"])   what a Python user would write
  Backend.execute("true")                      contained (Landlock, seccomp,
                                               no capabilities, private tmp)
  the same with Landlock off (test flag)       isolates what Landlock costs
  mkdir + rmdir of a /tmp directory            the private temporary
                                               directory's share

and prints a table with ratios. Not a test: it asserts nothing about time.
Goal: Landlock setup adds at most 20% to process start.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import tempfile
import time

import pathgate
from pathgate import _core


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--calls", type=int, default=200)
    args = ap.parse_args()
    abi = pathgate.landlock_abi()
    if abi < 1:
        raise SystemExit("no Landlock on this kernel")
    with tempfile.TemporaryDirectory() as top:
        resolver = pathgate.Resolver(roots={"repo": top})
        backend = pathgate.Backend(resolver)

        def sub() -> None:
            subprocess.run(["/bin/sh", "-c", "true"], check=True)

        def contained() -> None:
            assert backend.execute("true").exit_code == 0

        def landlock_off() -> None:
            assert _core._execute(resolver, "true", _test_no_landlock=True,
                                  allow_unconfined=True)[1] == 0

        def tmpdir() -> None:
            d = tempfile.mkdtemp(prefix="pathgate-bench-", dir="/tmp")
            os.rmdir(d)

        variants = [
            ('subprocess.run(["/bin/sh", "-c", "true"])', sub),
            ('Backend.execute("true")', contained),
            ("  same, Landlock off (test flag)", landlock_off),
            ("  part: mkdir + rmdir in /tmp", tmpdir),
        ]
        samples: list[list[float]] = [[] for _ in variants]
        for _, fn in variants:
            fn()  # warm up
        for _ in range(args.calls):
            for k, (_, fn) in enumerate(variants):
                t0 = time.perf_counter()
                fn()
                samples[k].append(time.perf_counter() - t0)
    med = [statistics.median(s) * 1e6 for s in samples]
    print(f"Python {platform.python_version()}, Linux {platform.release()}, Landlock ABI {abi}, "
          f"{args.calls} calls each, interleaved\n")
    print("| per call | median us | vs subprocess.run |")
    print("|---|---:|---:|")
    for (name, _), m in zip(variants, med):
        print(f"| {name} | {m:.0f} | {m / med[0]:.2f}x |")
    landlock = med[1] - med[2]
    print(f"\nLandlock (ruleset + restrict_self) adds {landlock:.0f} us = "
          f"{100 * landlock / med[0]:.0f}% of a subprocess.run start")
    print(f"everything pathgate adds: {med[1] - med[0]:.0f} us = "
          f"{100 * (med[1] - med[0]) / med[0]:.0f}%, of which the /tmp directory ~{med[3]:.0f} us")


if __name__ == "__main__":
    main()
