#!/usr/bin/python3
"""Per-call cost of a contained command against a plain process start and
other sandboxes, measured side by side in one run.

Usage:
  PYTHONPATH=build/python /usr/bin/python3 bench/bench_exec.py [--calls N]
      [--load N] [--srt-dir DIR] [--no-srt] [--allow-domains] [--policy]

Variants, round-robin (every variant sees the same machine; the median per
call resists a shared machine's outliers), each running `/bin/sh -c true`:

  subprocess.run(["/bin/sh", "-c", "true"])   what a Python user would write
  Backend.execute("true")                      pathgate: the view (user, mount,
                                               PID, IPC, UTS, network namespaces),
                                               Landlock, seccomp, cgroup, limits
  bwrap, an equivalent view                    bubblewrap (Debian `bubblewrap`)
                                               started with subprocess.run: every
                                               namespace (--unshare-all), the
                                               system directories and a few /etc
                                               files read-only, the root read-write
                                               at the same path, /dev, /proc, a
                                               tmpfs /tmp and home, no capability

With --allow-domains, one more variant: Backend.execute("true") with
allow_domains=["example.com"] (the network allowlist: a proxy on the host
for the call, the bridge in the command's namespace; docs/exec.md
"Network"), and its ratio to the plain Backend.execute.

With --policy, one more variant (issue 24, docs/exec.md "Policy in
commands"): Backend.execute("true") on a resolver with ten patterns
(deny_read and deny_write) over the same root, which holds a tree of
3,000 files in 150 directories with a few matches: each call scans the
tree for what matches and mounts the masks in the command's view.

Then Anthropic's sandbox-runtime (npm `@anthropic-ai/sandbox-runtime`, which
drives bubblewrap), measured by Node in its own process against that
process's plain spawnSync (its library API: SandboxManager.wrapWithSandbox,
then spawnSync), in the same phase. It is installed with npm into DIR
(default build/bench-srt, ignored by git); it needs `socat` (Debian),
which this script does not install (`apt-get install socat`).

Two phases: quiet (the machine as it is: the load average is printed) and
loaded (N busy loops, default 2, one per core here, running meanwhile).
Prints one table per phase with ratios. Not a test: it asserts nothing
about time. Goals (issue 21): the contained call within 1.5x
subprocess.run, and at least 3x faster than bubblewrap.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Callable

import pathgate

SRT_VERSION = "0.0.83"

SRT_SCRIPT = r"""
import { spawnSync } from 'node:child_process';
const [dir, root, calls] = process.argv.slice(2);
const { SandboxManager } = await import(dir + '/node_modules/@anthropic-ai/sandbox-runtime/dist/index.js');
await SandboxManager.initialize({
  filesystem: { allowWrite: [root], denyRead: [], denyWrite: [] },
  network: { allowedDomains: [], deniedDomains: [] },
});
const plain = [], srt = [];
const run = (cmd) => { const r = spawnSync('/bin/sh', ['-c', cmd], { cwd: root }); if (r.status !== 0) throw new Error('exit ' + r.status + ' ' + r.stderr); };
for (let i = 0; i < 3; i++) { run('true'); run(await SandboxManager.wrapWithSandbox('true')); }
for (let i = 0; i < Number(calls); i++) {
  let t = process.hrtime.bigint(); run('true'); plain.push(Number(process.hrtime.bigint() - t) / 1e3);
  t = process.hrtime.bigint(); run(await SandboxManager.wrapWithSandbox('true'));
  srt.push(Number(process.hrtime.bigint() - t) / 1e3);
}
const med = (a) => { a.sort((x, y) => x - y); return a[Math.floor(a.length / 2)]; };
console.log(JSON.stringify({ plain: med(plain), srt: med(srt), node: process.version }));
await SandboxManager.reset();
process.exit(0);
"""


def bwrap_argv(root: str) -> list[str]:
    """bubblewrap with a view equivalent to pathgate's: every namespace,
    the system directories and the /etc files tools read, the root at the
    same path, /dev, /proc, private /tmp, /dev/shm and home."""
    argv = ["bwrap", "--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL",
            "--ro-bind", "/usr", "/usr"]
    for d in ("bin", "sbin", "lib", "lib32", "lib64", "libx32"):
        p = Path("/") / d
        if p.is_symlink():
            argv += ["--symlink", os.readlink(p), f"/{d}"]
        elif p.is_dir():
            argv += ["--ro-bind", str(p), f"/{d}"]
    for e in ("ld.so.cache", "passwd", "group", "nsswitch.conf", "hosts", "localtime",
              "ssl/certs", "alternatives"):
        if os.path.exists(f"/etc/{e}"):
            argv += ["--ro-bind", f"/etc/{e}", f"/etc/{e}"]
    argv += ["--bind", root, "/pathgate/root/bench", "--dev", "/dev", "--proc", "/proc",
             "--tmpfs", "/tmp", "--tmpfs", "/dev/shm", "--tmpfs", "/home/user",
             "--chdir", "/pathgate/root/bench", "--setenv", "HOME", "/home/user",
             "/bin/sh", "-c", "true"]
    return argv


def ensure_srt(dir_: Path) -> Path | None:
    if (dir_ / "node_modules" / "@anthropic-ai" / "sandbox-runtime").is_dir():
        return dir_
    if shutil.which("npm") is None:
        return None
    dir_.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run(["npm", "install", "--prefix", str(dir_), "--no-audit", "--no-fund",
                           f"@anthropic-ai/sandbox-runtime@{SRT_VERSION}"],
                          capture_output=True, text=True)
    return dir_ if proc.returncode == 0 else None


def srt_ratio(dir_: Path, root: str, calls: int) -> dict | str:
    if shutil.which("socat") is None or shutil.which("bwrap") is None:
        return "needs socat and bwrap"
    with tempfile.NamedTemporaryFile("w", suffix=".mjs", delete=False) as f:
        f.write(SRT_SCRIPT)
    try:
        proc = subprocess.run(["node", f.name, str(dir_.resolve()), root, str(calls)],
                              capture_output=True, text=True, timeout=600)
    finally:
        os.unlink(f.name)
    if proc.returncode != 0:
        return (proc.stderr.strip().splitlines() or ["failed"])[-1][:200]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def make_tree(top: str) -> dict:
    """3,000 files in 150 directories (depth 3), a .env in 10 of them, a
    git directory; returns ten patterns as Resolver keywords."""
    for i in range(150):
        d = Path(top, f"d{i // 25}", f"e{i // 5}", f"f{i}")
        d.mkdir(parents=True, exist_ok=True)
        for k in range(20):
            (d / f"file{k}.txt").write_text("x\n")
        if i % 15 == 0:
            (d / ".env").write_text("SECRET=1\n")
    hooks = Path(top, ".git", "hooks")
    hooks.mkdir(parents=True, exist_ok=True)
    (hooks / "pre-commit").write_text("#!/bin/sh\n")
    Path(top, ".git", "config").write_text("[core]\n")
    return {"deny_read": ["**/.env", "**/.env.*", "**/*.pem", "**/*.key", "**/id_rsa*",
                          "secrets/"],
            "deny_write": ["**/.git/hooks/", "**/.git/config", ".gitmodules", "*.lock"]}


def measure(variants: list[tuple[str, Callable[[], None]]], calls: int) -> list[float]:
    samples: list[list[float]] = [[] for _ in variants]
    for _, fn in variants:
        fn()  # warm up (the prepared view is built here)
    for _ in range(calls):
        for k, (_, fn) in enumerate(variants):
            t0 = time.perf_counter()
            fn()
            samples[k].append(time.perf_counter() - t0)
    return [statistics.median(s) * 1e6 for s in samples]


def table(title: str, variants: list[tuple[str, Callable[[], None]]], med: list[float],
          srt: dict | str | None) -> None:
    print(f"\n{title} (load average {os.getloadavg()[0]:.1f} at the end)\n")
    print("| per call | median us | vs subprocess.run |")
    print("|---|---:|---:|")
    for (name, _), m in zip(variants, med):
        print(f"| {name} | {m:.0f} | {m / med[0]:.2f}x |")
    print(f"\nBackend.execute is {med[1] / med[0]:.2f}x subprocess.run (goal <= 1.5x)", end="")
    if len(med) > 2:
        print(f"; bubblewrap is {med[2] / med[1]:.1f}x Backend.execute (goal >= 3x)")
    else:
        print()
    for (name, _), m in zip(variants, med):
        if "allow_domains" in name:
            print(f"with allow_domains: {m / med[1]:.2f}x Backend.execute without it "
                  f"(+{m - med[1]:.0f} us per call)")
        if "ten patterns" in name:
            print(f"with ten patterns over 3,000 files: {m / med[1]:.2f}x Backend.execute "
                  f"without a policy (+{m - med[1]:.0f} us per call)")
    if isinstance(srt, dict):
        print(f"sandbox-runtime {SRT_VERSION} (Node {srt['node']}, its library API): "
              f"{srt['srt']:.0f} us per call, {srt['srt'] / srt['plain']:.1f}x its process's plain "
              f"spawnSync ({srt['plain']:.0f} us); {srt['srt'] / med[1]:.1f}x Backend.execute")
    elif srt is not None:
        print(f"sandbox-runtime: not measured ({srt})")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--calls", type=int, default=300)
    ap.add_argument("--load", type=int, default=2, help="busy loops in the loaded phase")
    ap.add_argument("--srt-dir", default="build/bench-srt")
    ap.add_argument("--no-srt", action="store_true")
    ap.add_argument("--allow-domains", action="store_true",
                    help="also measure a command with allow_domains (the proxy and its bridge)")
    ap.add_argument("--policy", action="store_true",
                    help="add a variant with ten policy patterns over a 3,000-file tree")
    args = ap.parse_args()
    abi = pathgate.landlock_abi()
    if abi < 1:
        raise SystemExit("no Landlock on this kernel")
    srt_dir = None if args.no_srt else ensure_srt(Path(args.srt_dir))
    with tempfile.TemporaryDirectory() as top:
        resolver = pathgate.Resolver(roots={"bench": top})
        backend = pathgate.Backend(resolver)
        policed = None
        mounted: list[int] = []
        if args.policy:
            def audit(e: dict) -> None:
                if e["operation"] == "execute" and e["outcome"] == "allowed":
                    mounted.append(e["count"])
            policed = pathgate.Backend(pathgate.Resolver(roots={"bench": top}, audit=audit,
                                                         **make_tree(top)))
        bwrap = bwrap_argv(top)

        def sub() -> None:
            subprocess.run(["/bin/sh", "-c", "true"], check=True)

        def contained() -> None:
            res = backend.execute("true")
            assert res.exit_code == 0 and "namespaces" in res.protections, res

        def bubblewrap() -> None:
            subprocess.run(bwrap, check=True)

        variants: list[tuple[str, Callable[[], None]]] = [
            ('subprocess.run(["/bin/sh", "-c", "true"])', sub),
            ('Backend.execute("true")', contained),
        ]
        if shutil.which("bwrap"):
            variants.append(("bwrap --unshare-all, an equivalent view", bubblewrap))
        if args.allow_domains:
            net_backend = pathgate.Backend(resolver)
            net_backend.configure_execute(allow_domains=["example.com"])

            def with_allowlist() -> None:
                res = net_backend.execute("true")
                assert res.exit_code == 0 and "network_allowlist" in res.protections, res

            variants.append(('Backend.execute("true"), allow_domains=["example.com"]',
                             with_allowlist))
        if policed is not None:
            def with_policy() -> None:
                res = policed.execute("true")
                assert res.exit_code == 0 and "namespaces" in res.protections, res

            variants.append(('Backend.execute("true"), ten patterns, 3,000 files', with_policy))
        res = backend.execute("true")
        print(f"Python {platform.python_version()}, Linux {platform.release()}, "
              f"{os.cpu_count()} CPUs, Landlock ABI {abi}, {args.calls} calls each, interleaved; "
              f"pathgate's protections: {', '.join(sorted(res.protections))}")
        if policed is not None:
            policed.execute("true")
            print(f"--policy: ten patterns, 3,000 files, {mounted[-1]} entries hidden, read-only "
                  "or pinned per call")
        for phase in ("quiet", "loaded"):
            burners = []
            if phase == "loaded":
                burners = [subprocess.Popen(["/bin/sh", "-c", "while :; do :; done"])
                           for _ in range(args.load)]
                time.sleep(0.5)
            try:
                med = measure(variants, args.calls)
                srt = (srt_ratio(srt_dir, top, max(20, args.calls // 10)) if srt_dir
                       else (None if args.no_srt else "npm install failed"))
            finally:
                for b in burners:
                    b.kill()
                    b.wait()
            table(f"{phase}" + (f" ({args.load} busy loops)" if burners else ""), variants, med,
                  srt)


if __name__ == "__main__":
    main()
