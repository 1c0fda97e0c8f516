"""Where the pinned third-party copies are (see conftest.py)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

SOURCE = Path(os.environ.get("PATHGATE_SOURCE_DIR", Path(__file__).resolve().parents[2]))
THIRD_PARTY = Path(os.environ.get("PATHGATE_THIRD_PARTY", SOURCE.parent / "shared" / "third_party"))
PATHS = [THIRD_PARTY / "python-stubs", THIRD_PARTY / "python", THIRD_PARTY / "deepagents"]
HAVE_THIRD_PARTY = (THIRD_PARTY / "deepagents" / "deepagents" / "__init__.py").is_file()
SKIP_REASON = (
    f"deepagents' pinned copy not found at {THIRD_PARTY} (set PATHGATE_THIRD_PARTY); "
    "these interoperability tests run where it is present, as in CI"
)
HERE = Path(__file__).resolve().parent

if HAVE_THIRD_PARTY:
    for _p in reversed(PATHS):
        if str(_p) not in sys.path:
            sys.path.insert(0, str(_p))


def third_party_env() -> dict[str, str]:
    """The environment of a subprocess that imports deepagents and pathgate."""
    env = dict(os.environ)
    build_python = [os.path.abspath(p) for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    env["PYTHONPATH"] = os.pathsep.join([str(HERE), *map(str, PATHS), *build_python])
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env
