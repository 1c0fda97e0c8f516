"""ctest's entry to the deepagents interoperability suite.

The suite needs the pinned third-party copies (conftest.py says where they
are looked for). Where they are absent, it is reported to ctest as skipped
(exit status 77, the test's SKIP_RETURN_CODE) with the reason on stdout,
rather than letting pytest skip every module and exit 5 (nothing collected),
which ctest would count as a failure. Where they are present it runs, and a
pytest exit status 5 fails the test like any other.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _thirdparty import HAVE_THIRD_PARTY, SKIP_REASON  # noqa: E402

SKIPPED = 77

if __name__ == "__main__":
    if not HAVE_THIRD_PARTY:
        print(f"SKIPPED: {SKIP_REASON}")
        sys.exit(SKIPPED)
    sys.exit(pytest.main(["-q", "-p", "no:cacheprovider", str(Path(__file__).resolve().parent), *sys.argv[1:]]))
