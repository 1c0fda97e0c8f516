"""A pure-Python reference resolver, finished from the sketch in the Sprint 0
directive (seeds/001) the way a Python user would finish it: parse the
canonical address, join it onto the base directory, ``Path.resolve()`` it and
check containment with ``relative_to``, ``exists()``, then mint a ``uuid4``
token under a ``threading.Lock`` with the 10,000-token cap.

It is the comparison point for bench/bench_python.py, not a second
implementation of pathgate: it checks containment with strings after
resolving symlinks (racy where pathgate asks the kernel), and accepts only the
canonical forms and the two legacy aliases.
"""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from threading import Lock
from typing import Dict, Optional

MAX_TOKENS = 10_000
INVALID = "Invalid path / not found"
CAPACITY = "Visibility registry capacity exceeded \u2014 restart server"


@dataclass(frozen=True, slots=True)
class VisibilityRef:
    token: str
    session_abs: str

    def __str__(self) -> str:
        return self.session_abs

    def __repr__(self) -> str:
        return f"VisibilityRef({self.session_abs})"


@dataclass(frozen=True, slots=True)
class VisibilityResolution:
    ok: bool
    ref: Optional[VisibilityRef] = None
    root_category: Optional[str] = None
    relative_path: Optional[str] = None
    exists: Optional[bool] = None
    error_message: Optional[str] = None


_LEGACY_ROOT = re.compile(r"^ROOT_([A-Z][A-Z0-9_]*):/(.*)$", re.S)


class WorldAdapterV2:
    def __init__(self, *, roots: dict, mod_paths: dict, max_tokens: int = MAX_TOKENS):
        # Resolved once, like a careful user would, so containment compares
        # real paths.
        self._roots = {k: Path(v).resolve() for k, v in roots.items()}
        self._mod_paths = {k: Path(v).resolve() for k, v in mod_paths.items()}
        self._max_tokens = max_tokens
        self._token_registry: Dict[str, Path] = {}
        self._registry_lock = Lock()

    def resolve(self, input_str: str, *, require_exists: bool = True) -> VisibilityResolution:
        parsed = self._parse_and_compute(input_str)
        if parsed is None:
            return VisibilityResolution(ok=False, error_message=INVALID)

        session_abs, host_abs, root_category, rel_path = parsed

        # TOCTOU Note: exists_now is advisory; file may change after check.
        exists_now = host_abs.exists()

        if require_exists and not exists_now:
            return VisibilityResolution(ok=False, error_message=INVALID)

        token = str(uuid.uuid4())

        with self._registry_lock:
            if len(self._token_registry) >= self._max_tokens:
                return VisibilityResolution(ok=False, error_message=CAPACITY)
            self._token_registry[token] = host_abs

        return VisibilityResolution(
            ok=True,
            ref=VisibilityRef(token=token, session_abs=session_abs),
            root_category=root_category,
            relative_path=rel_path,
            exists=exists_now,
        )

    def host_path(self, ref: VisibilityRef) -> Optional[Path]:
        with self._registry_lock:
            return self._token_registry.get(ref.token)

    def release(self, ref: VisibilityRef) -> bool:
        with self._registry_lock:
            return self._token_registry.pop(ref.token, None) is not None

    def __len__(self) -> int:
        with self._registry_lock:
            return len(self._token_registry)

    def _parse_and_compute(self, input_str: str):
        """(session_abs, host_abs, root_category, rel_path) or None."""
        text = input_str.strip()
        if not text or "\0" in text:
            return None
        m = _LEGACY_ROOT.match(text)
        if m:
            text = f"root:{m.group(1).lower()}/{m.group(2)}"
        if text.startswith("root:"):
            namespace, rest = "root", text[5:]
        elif text.startswith("mod:"):
            namespace, rest = "mod", text[4:]
        else:
            return None
        key, _, rel = rest.partition("/")
        if namespace == "mod" and key.endswith(":") and rest[len(key) : len(key) + 1] == "/":
            key = key[:-1]  # legacy mod:Name:/rel
        bases = self._roots if namespace == "root" else self._mod_paths
        base = bases.get(key)
        if base is None:
            return None
        # Lexical normalisation of <rel>; `..` may not climb above the base.
        parts: list[str] = []
        for seg in rel.replace("\\", "/").split("/"):
            if seg in ("", "."):
                continue
            if seg == "..":
                if not parts:
                    return None
                parts.pop()
            else:
                parts.append(seg)
        rel_path = str(PurePosixPath(*parts)) if parts else ""
        host_abs = (base / rel_path).resolve()
        try:
            host_abs.relative_to(base)  # containment, after symlinks
        except ValueError:
            return None
        session_abs = f"{namespace}:{key}/{rel_path}" if rel_path else f"{namespace}:{key}"
        return session_abs, host_abs, (key if namespace == "root" else None), rel_path
