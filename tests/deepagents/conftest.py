"""The deepagents interoperability suite: finds the pinned third-party copies.

deepagents cannot be installed from a package index on the CI machines, so
``../shared/third_party`` (next to the repository; override with
``PATHGATE_THIRD_PARTY``) holds deepagents 0.7.8 with its own tests, wcmatch,
bracex and inert stand-ins for the langchain packages. When it is there its
directories go on ``sys.path`` and every test here runs; when it is absent
every test here is skipped with the reason. Nothing of it is copied into
the project.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from _thirdparty import HAVE_THIRD_PARTY, SKIP_REASON


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if HAVE_THIRD_PARTY:
        return
    for item in items:
        item.add_marker(pytest.mark.skip(reason=SKIP_REASON))


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    # loaded by test_suites.py's subprocess (-p), never collected here
    return collection_path.name in ("pathgate_deepagents_plugin.py", "_thirdparty.py") or None
