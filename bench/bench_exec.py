#!/usr/bin/python3
"""Per-call cost of a contained command against a plain process start.

Usage: PYTHONPATH=build/python /usr/bin/python3 bench/bench_exec.py [--calls N]

In one run, round-robin (every variant sees the same machine load; the
median per call resists a shared machine's outliers):

  subprocess.run(["/bin/sh", "-c", "true"])   what a Python user would write
  Backend.execute("true")                      contained: namespaces (the view),
                                               Landlock, seccomp, limits; as root:
                                               uid 65534, idmapped writable bases
  the same as the caller's root (test flag)    the view without the uid change
                                               (root callers: what it cost before)
  the same without namespaces (test flag)      the previous confinement:
                                               Landlock, seccomp, private /tmp dir

and prints a table with ratios. Not a test: it asserts nothing about time.
Goal: the whole contained call within 1.5x subprocess.run.
"""

from __future__ import annotations

import argparse
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
            res = backend.execute("true")
            assert res.exit_code == 0 and "namespaces" in res.protections, res

        def caller_uid() -> None:
            assert _core._execute(resolver, "true", _test_no_idmap=True,
                                  allow_unconfined=True)[1] == 0

        def no_namespaces() -> None:
            assert _core._execute(resolver, "true", _test_no_namespaces=True,
                                  allow_unconfined=True)[1] == 0

        variants = [
            ('subprocess.run(["/bin/sh", "-c", "true"])', sub),
            ('Backend.execute("true"), namespaces + Landlock', contained),
            ("  same, the caller's uid (no idmapped mounts)", caller_uid),
            ("  same, no namespaces (the previous confinement)", no_namespaces),
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
    print(f"\nthe unprivileged uid (maps written by the parent, idmapped bases) adds "
          f"{med[1] - med[2]:.0f} us over the caller's uid (root callers only)")
    print(f"namespaces (the view) add {med[2] - med[3]:.0f} us over the previous confinement; "
          f"the contained call is {med[1] / med[0]:.2f}x subprocess.run (goal <= 1.5x)")


if __name__ == "__main__":
    main()
