"""Shared fixtures and the hypothesis profiles of the Python suite.

CI=true (or 1/yes) selects the deterministic "ci" profile (derandomize=True,
database=None) so that a CI run is reproducible; otherwise "dev" (random,
with the example database). Deadlines are off: the same tests run under
AddressSanitizer, where timing means nothing.
"""

import os
import pathlib

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci",
    derandomize=True,
    database=None,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("dev", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(
    "ci" if os.environ.get("CI", "").strip().lower() in ("1", "true", "yes") else "dev"
)

DATA_DIR = pathlib.Path(__file__).resolve().parents[1] / "data"


@pytest.fixture
def tree(tmp_path):
    """Two roots and a mod with a few files, plus a file outside them all.

    Returns a dict with the host directories (for assertions that the host
    path never leaks) and the outside file.
    """
    repo = tmp_path / "repo"
    game = tmp_path / "game"
    mod = tmp_path / "mods" / "Some Mod"
    outside = tmp_path / "outside"
    for d in (repo / "common" / "traits", repo / "docs", game / "common", mod / "common", outside):
        d.mkdir(parents=True)
    (repo / "common" / "traits" / "00_traits.txt").write_text("traits\n")
    (repo / "README.md").write_text("readme\n")
    (game / "common" / "x.txt").write_text("x\n")
    (mod / "common" / "m.txt").write_text("m\n")
    (outside / "secret.txt").write_text("secret\n")
    (repo / "escape").symlink_to(outside)
    (repo / "inner").symlink_to("docs")  # relative: stays inside
    return {"tmp": tmp_path, "repo": repo, "game": game, "mod": mod, "outside": outside}


@pytest.fixture
def resolver(tree):
    import pathgate

    return pathgate.Resolver(
        roots={"repo": tree["repo"], "game": str(tree["game"])},
        mods={"Some Mod": tree["mod"]},
    )
