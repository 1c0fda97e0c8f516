"""The code that runs in a contained command's own processes (the builder,
the joiner, the init, the bridge, the preparer, the keeper, the idmapping
holder: PG_NOSAN functions, docs/exec.md) shares the host process's memory
and the thread-local storage of the host thread that cloned it. It may call
nothing but itself and raw system calls: a call into the C library (or a
sanitizer's interceptor, which is what `strlen` is under ThreadSanitizer)
would run on that thread's state while the thread runs too. The compiler
turns plain loops into such calls (a length loop into `strlen`), so the
compiled objects are checked: every call a PG_NOSAN function makes is to
another PG_NOSAN function, or to `syscall`.

Usage: check_child_code.py SOURCE_DIR OBJECT... (x86_64 objects; on other
architectures it says SKIPPED)."""

from __future__ import annotations

import platform
import re
import subprocess
import sys
from pathlib import Path

DIRS = ("core/src/exec/linux", "core/src/net/linux")
ALLOWED = {"syscall"}


def nosan_functions(src: Path) -> dict[str, set[str]]:
    """The PG_NOSAN functions of each source (by stem; a header's are in
    every source that includes it: "")."""
    by_file: dict[str, set[str]] = {}
    for d in DIRS:
        for f in sorted((src / d).glob("*.[ch]")):
            names = by_file.setdefault(f.stem if f.suffix == ".c" else "", set())
            text = f.read_text()
            for m in re.finditer(r"^(?:__attribute__\(\([^\n]*\)\)\s*)*(?:PG_NOSAN|__attribute__\(\([^\n]*no_sanitize)[^\n]*\n?[^\n]*?\b([A-Za-z_][A-Za-z0-9_]*)\(",
                                 text, re.M):
                if m.group(1) != "PG_NOSAN":
                    names.add(m.group(1))
    return by_file


def calls(obj: str) -> dict[str, set[str]]:
    out = subprocess.run(["objdump", "-dr", "--no-show-raw-insn", obj], check=True,
                         capture_output=True, text=True).stdout
    by_fn: dict[str, set[str]] = {}
    fn = None
    for line in out.splitlines():
        m = re.match(r"^[0-9a-f]+ <([^>]+)>:$", line)
        if m:
            fn = m.group(1)
            by_fn.setdefault(fn, set())
            continue
        m = re.search(r"R_X86_64_(?:PLT32|PC32)\s+([^\s+-]+)", line)
        if m and fn is not None:
            by_fn[fn].add(m.group(1))
    return by_fn


def main() -> int:
    if platform.machine() != "x86_64":
        print("SKIPPED: the check reads x86_64 relocations")
        return 0
    src = Path(sys.argv[1])
    by_file = nosan_functions(src)
    everywhere = set().union(*by_file.values())
    if len(everywhere) < 20:
        print(f"found only {len(everywhere)} PG_NOSAN functions: the source scan is broken")
        return 1
    bad = []
    checked = 0
    objects = [o for arg in sys.argv[2:] for o in arg.split(";") if o]  # (ctest: one list)
    for obj in objects:
        name = Path(obj).name
        if not any(name.startswith(Path(f).stem + ".") for d in DIRS for f in (src / d).glob("*.c")):
            continue
        stem = name.split(".")[0]
        own = by_file.get(stem, set()) | by_file.get("", set())
        for fn, targets in calls(obj).items():
            base = fn.split(".")[0]  # (fn.constprop.0, fn.isra.0, fn.part.0)
            if base not in own:
                continue
            checked += 1
            for t in sorted(targets):
                callee = t.split(".")[0]
                if (t.startswith(".") or callee in own or t in ALLOWED
                        or (callee.startswith("pathgate__") and callee in everywhere)):
                    continue
                bad.append(f"{name}: {fn} calls {t}")
    print(f"{checked} PG_NOSAN functions checked")
    for b in bad:
        print(b)
    return 1 if bad or not checked else 0


if __name__ == "__main__":
    sys.exit(main())
