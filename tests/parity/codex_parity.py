#!/usr/bin/python3
"""Counts how many of Codex's own test vectors pathgate answers alike.

Usage: PYTHONPATH=build/python /usr/bin/python3 tests/parity/codex_parity.py [--list]

Reads tests/parity/codex_vectors.tsv (Codex's answers, format of
tests/data/uri_cases.tsv; `!error` = Codex fails with any error) and runs each
vector through the Python front end. A vector is *agreed* when pathgate gives
the same text, or fails where Codex fails (an expected `!kind` also needs that
kind); *inexpressible* when the operation does not exist in the build being
measured (so the script also measures older builds); else *different*.
Every difference must be one docs/uri.md explains (DELIBERATE below, keyed by
line); the exit status is 1 when an undocumented one appears. It asserts
nothing about time.
"""

from __future__ import annotations

import os
import re
import sys
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
VECTORS = os.path.join(HERE, "codex_vectors.tsv")

# Vectors where pathgate deliberately answers otherwise (docs/uri.md,
# "Where pathgate answers differently from Codex"), by their text.
DELIBERATE: dict[tuple[str, str], str] = {}

_ESCAPE = re.compile(rb"\\(\\|t|n|r|x[0-9A-Fa-f]{2}|.)")


def unescape(field: str):
    if field == "\\N":
        return None
    raw = field.encode("utf-8")

    def sub(m):
        code = m.group(1)
        if code == b"\\":
            return b"\\"
        if code in (b"t", b"n", b"r"):
            return {b"t": b"\t", b"n": b"\n", b"r": b"\r"}[code]
        if code[:1] == b"x" and len(code) == 3:
            return bytes([int(code[1:], 16)])
        raise ValueError(f"malformed escape \\{code!r}")

    return _ESCAPE.sub(sub, raw).decode("utf-8", "surrogateescape")


def load():
    rows = []
    with open(VECTORS, encoding="utf-8") as f:
        for lineno, line in enumerate(f.read().split("\n"), 1):
            if not line or line.startswith("#"):
                continue
            op, inp, arg, exp = line.split("\t")
            expected = ("error", exp[1:]) if exp.startswith("!") else unescape(exp)
            rows.append((lineno, op, unescape(inp), unescape(arg), expected))
    return rows


class Inexpressible(Exception):
    pass


def run(pathgate, op, inp, arg):
    P, L = pathgate.PathUri, pathgate.LegacyAppPathString

    def need(obj, name):
        if not hasattr(obj, name):
            raise Inexpressible(name)
        return getattr(obj, name)

    conv = None if arg in (None, "", "infer") else arg
    if op == "parse":
        return str(P.parse(inp))
    if op == "from_native":
        return str(P.from_native(inp, conv))
    if op == "native_roundtrip":
        return P.from_native(inp, conv).to_native(conv)
    if op == "is_opaque_native":
        return "true" if P.from_native(inp, conv).is_opaque else "false"
    if op == "legacy_to_uri":
        return str(L(inp).to_uri(conv))
    if op == "legacy_infer":
        return L(inp).infer_convention()
    if op == "resolve_against":
        cwd, home = arg.split(" ")
        return str(L(inp).resolve_against(P.parse(cwd), None if home == "-" else P.parse(home)))
    if op == "legacy_roundtrip":
        return str(L.from_uri(L(inp).to_uri(conv), conv))
    if op == "path_segments":
        return "|".join(need(pathgate, "path_segments")(inp, arg))
    if op == "platform":
        return need(pathgate, "platform_convention")(inp)
    if op in ("resolve_config", "config_path"):
        c, base, home = arg.split(" ")
        r = need(L, "resolve_config")(
            L(inp), None if base == "-" else P.parse(base),
            home=None if home == "-" else P.parse(home), convention=None if c == "infer" else c)
        return str(r) if op == "resolve_config" else r.to_config_path(None if c == "infer" else c)
    u = P.parse(inp)
    if op == "to_native":
        return u.to_native(conv)
    if op == "host_path":
        return str(u.to_host_path())
    if op == "parent":
        p = u.parent
        return None if p is None else str(p)
    if op == "basename":
        return u.basename
    if op == "join":
        return str(u.join(arg))
    if op == "join_descendant":
        return str(u.join_descendant(arg))
    if op == "join_bytes":
        if not hasattr(pathgate, "path_segments"):  # join(bytes) came with the others
            raise Inexpressible("join(bytes)")
        return str(u.join(os.fsencode(arg)))
    if op in ("starts_with", "equal"):
        v = P.parse(arg)
        r = u.starts_with(v) if op == "starts_with" else u == v
        return "true" if r else "false"
    if op == "relative_to":
        return u.relative_to(P.parse(arg))
    if op == "convention":
        return u.convention
    if op == "display":
        return u.display()
    if op == "from_uri":
        return str(L.from_uri(u, conv))
    if op == "encoded_path":
        return need(u, "encoded_path")
    if op == "overlaps":
        r = need(u, "overlaps")(P.parse(arg))
        return None if r is None else ("true" if r else "false")
    if op == "lexical_depth":
        d = need(u, "lexical_depth")
        return None if d is None else str(d)
    if op == "ancestors":
        return " ".join(str(a) for a in need(u, "ancestors")())
    if op in ("validate_config", "validate_glob"):
        fn = need(u, "validate_config" if op == "validate_config" else "validate_glob_directory")
        fn(conv)
        return "ok"
    raise AssertionError(f"unknown op {op}")


def measure(pathgate, listing=False):
    """(counts, undocumented line numbers) for the pathgate module given."""
    counts = Counter()
    by_op = Counter()
    undocumented = []
    for lineno, op, inp, arg, expected in load():
        try:
            got = run(pathgate, op, inp, arg)
            outcome = ("value", got)
        except Inexpressible:
            counts["inexpressible"] += 1
            continue
        except pathgate.Error as e:
            outcome = ("error", e.kind)
        if isinstance(expected, tuple):
            agree = outcome[0] == "error" and expected[1] in ("error", outcome[1])
        else:
            agree = outcome == ("value", expected)
        if agree:
            counts["agreed"] += 1
            continue
        counts["different"] += 1
        by_op[op] += 1
        why = DELIBERATE.get((op, inp))
        if why is None:
            undocumented.append(lineno)
        if listing or why is None:
            print(f"line {lineno}: {op} {inp!r} {arg!r}: Codex {expected!r}, pathgate {outcome!r}"
                  + (f" [deliberate: {why}]" if why else " [UNDOCUMENTED]"))
    return counts, undocumented


def main() -> int:
    import pathgate

    counts, undocumented = measure(pathgate, "--list" in sys.argv)
    expressible = counts["agreed"] + counts["different"]
    print(f"{counts['agreed']}/{expressible} expressible vectors agree"
          f" ({100 * counts['agreed'] / max(expressible, 1):.0f}%),"
          f" {counts['inexpressible']} inexpressible")
    return 1 if undocumented else 0


if __name__ == "__main__":
    sys.exit(main())
