"""PathgateBackend.apply_patch: a Codex patch written with the agent's
paths (/x under the home base, /root:<key>/x for the others), answered
with the agent's paths."""

from __future__ import annotations

import pytest

from _thirdparty import HAVE_THIRD_PARTY, SKIP_REASON

if not HAVE_THIRD_PARTY:
    pytest.skip(SKIP_REASON, allow_module_level=True)

import pathgate  # noqa: E402
from pathgate.deepagents import PathgateBackend  # noqa: E402


@pytest.fixture
def tree(tmp_path):
    repo, docs = tmp_path / "repo", tmp_path / "docs"
    for d in (repo / "src", docs):
        d.mkdir(parents=True)
    (repo / "src" / "x.py").write_text("x = 1\n")
    (docs / "guide.md").write_text("old\n")
    resolver = pathgate.Resolver(roots={"repo": repo, "docs": docs})
    return {"tmp": tmp_path, "repo": repo, "docs": docs,
            "backend": PathgateBackend(pathgate.Session(resolver))}


def test_agent_paths_both_ways(tree):
    b = tree["backend"]
    r = b.apply_patch("*** Begin Patch\n"
                      "*** Update File: /src/x.py\n*** Move to: /src/y.py\n@@\n-x = 1\n+x = 2\n"
                      "*** Add File: /new/n.txt\n+n\n"
                      "*** Update File: /root:docs/guide.md\n@@\n-old\n+new\n"
                      "*** End Patch")
    assert r.error is None, r
    assert r.output == ("Success. Updated the following files:\nA /new/n.txt\n"
                        "M /src/y.py\nM /root:docs/guide.md\n")
    assert r.files[1] == {"change": "M", "path": "/src/y.py", "from": "/src/x.py"}
    assert (tree["repo"] / "src" / "y.py").read_text() == "x = 2\n"
    assert (tree["repo"] / "new" / "n.txt").read_text() == "n\n"
    assert (tree["docs"] / "guide.md").read_text() == "new\n"


def test_failures_in_agent_paths(tree):
    b = tree["backend"]
    r = b.apply_patch("*** Begin Patch\n*** Update File: /src/x.py\n@@\n-nope\n+x\n*** End Patch")
    assert (r.kind, r.error) == ("patch_conflict", "Failed to find expected lines in /src/x.py:\nnope")
    r = b.apply_patch("*** Begin Patch\n*** Add File: /../escape.txt\n+x\n*** End Patch")
    assert r.kind == "invalid_path" and "escape" not in str(tree["tmp"].iterdir())
    assert str(tree["tmp"]) not in repr(r)
