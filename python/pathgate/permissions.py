"""deepagents' ``FilesystemPermission`` rules as pathgate policy lists.

``PathgateBackend(session, permissions=[FilesystemPermission(...)])``
hands its rules to :func:`policy_lists`, and the lists to
``Resolver.restrict`` (docs/policy.md "deepagents"), so that they hold in
the C core, for every spelling of a path, rather than in deepagents'
middleware only. This module needs no deepagents: a rule is anything with
``operations`` (``"read"`` / ``"write"``), ``paths`` (patterns beginning
with ``/`` in the agent's namespace) and ``mode`` (``"allow"``,
``"deny"``, ``"interrupt"``).

The translation:

* deepagents tries the rules in order and the first that matches wins;
  in a pathgate list the last rule that applies wins, so each operation's
  rules are listed in reverse, a ``deny`` (and an ``interrupt``, which
  pathgate cannot pause for: it fails closed) as a pattern and an
  ``allow`` as an exception (``!pattern``).
* ``read`` rules become ``deny_read`` (a path denied to read is hidden,
  and so cannot be written either), ``write`` rules ``deny_write``.
* A path names the agent's namespace (see ``PathgateBackend``): ``/x`` is
  ``x`` in the home base, ``/root:<key>/x`` and ``/mod:<Name>/x`` the
  other bases, an absolute path inside a base's directory that base. A
  leading ``/**`` spans every base; a wildcard in the first name applies
  to the home base and to every base whose spelling it matches.
* Where the two matchers differ, the result is stricter, never looser: a
  deny rule also covers what lies below what it matches, folds case and
  lets ``*`` match a leading dot; an exception matches exactly as written
  and its wildcards never match a leading dot (as deepagents' own matcher,
  without ``DOTGLOB``). A deny ``/d/**`` hides ``/d`` itself too.
"""

from __future__ import annotations

import fnmatch
import re
import collections.abc as _abc
from typing import Any as _Any

__all__ = ["policy_lists"]

_GLOB = re.compile(r"[*?\[{]")
_BASE = re.compile(r"(?:root|mod):.+")


def _first_glob(text: str) -> int:
    m = _GLOB.search(text)
    return m.start() if m else len(text)


def _braces(pattern: str) -> list[str]:
    """The alternatives of `{a,b}` groups (deepagents' BRACE flag)."""
    depth, start = 0, -1
    for i, c in enumerate(pattern):
        if c == "{":
            if depth == 0:
                start = i
            depth += 1
        elif c == "}" and depth:
            depth -= 1
            if depth == 0:
                inner, parts, level, last = pattern[start + 1:i], [], 0, 0
                for k, d in enumerate(inner):
                    level += (d == "{") - (d == "}")
                    if d == "," and level == 0:
                        parts.append(inner[last:k])
                        last = k + 1
                parts.append(inner[last:])
                if len(parts) > 1:
                    return [x for p in parts for x in _braces(pattern[:start] + p + pattern[i + 1:])]
    return [pattern]


def _spelling_matches(pattern: str, spelling: str) -> bool:
    """Whether a first-name glob of a permission matches a base's spelling
    (``root:docs``), as deepagents' matcher would."""
    return any(fnmatch.fnmatchcase(spelling, p) for p in _braces(pattern))


def _scoped(base: str, rest: str) -> str:
    return f"{base}/{rest}" if rest else base


def _translate(path: str, home: str, bases: _abc.Sequence[tuple[str, str]], deny: bool) -> list[str]:
    """The pathgate patterns (base-prefixed, or global) one permission path
    stands for. bases: (host directory, address) of every base."""
    if not isinstance(path, str) or not path.startswith("/"):
        raise ValueError(f"a permission path must start with '/': {path!r}")
    rest = path.lstrip("/")
    if deny and rest.endswith("/**"):  # the directory itself too
        rest = rest[: -len("/**")] + "/"
    head, _, tail = rest.partition("/")
    if head == "**":
        return [rest]  # every base: all of them appear under some prefix
    if _BASE.fullmatch(head) and any(head == address for _, address in bases):
        return [_scoped(head, tail)]
    literal = path[: _first_glob(path)]
    for host, address in bases:  # a host path names its base (as PathgateBackend reads it)
        prefix = host.rstrip("/") + "/"
        if literal == host or literal.startswith(prefix):
            return [_scoped(address, path[len(prefix):] if path != host else "")]
    out = [_scoped(home, rest)]
    if _GLOB.search(head):
        for _, address in bases:
            if address != home and _spelling_matches(head, address):
                out.append(_scoped(address, tail))
    return out


def policy_lists(rules: _abc.Iterable[_Any], *, home: str,
                 bases: _abc.Sequence[tuple[str, str]]) -> tuple[list[str], list[str], list[str]]:
    """(deny_read, deny_write, interrupting) for ``Resolver.restrict`` from
    deepagents' rules; ``interrupting`` lists the paths of ``interrupt``
    rules, enforced as denials. ``home`` is the address the agent's ``/``
    names; ``bases`` the (host directory, address) of every base."""
    rules = list(rules)
    lists: dict[str, list[str]] = {"read": [], "write": []}
    interrupting: list[str] = []
    for op in ("read", "write"):
        for rule in reversed(rules):
            if op not in getattr(rule, "operations", ()):
                continue
            mode = getattr(rule, "mode", "allow")
            if mode not in ("allow", "deny", "interrupt"):
                raise ValueError(f"unknown permission mode {mode!r}")
            paths = getattr(rule, "paths", ())
            if isinstance(paths, str):
                raise TypeError("FilesystemPermission.paths must be a list of paths")
            for p in paths:
                if mode == "interrupt" and p not in interrupting:
                    interrupting.append(p)
                prefix = "!" if mode == "allow" else ""
                lists[op].extend(prefix + q for q in _translate(p, home, bases, mode != "allow"))
    return lists["read"], lists["write"], interrupting
