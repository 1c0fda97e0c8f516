"""Resolver(read_only=...): bases that file operations may read but never write."""

from __future__ import annotations

from pathlib import Path

import pytest

import pathgate


@pytest.fixture()
def bases(tmp_path: Path) -> tuple[Path, Path, Path]:
    repo, game, mod = tmp_path / "repo", tmp_path / "game", tmp_path / "mod"
    for d in (repo, game, mod):
        d.mkdir()
        (d / "f.txt").write_text("original\n")
    return repo, game, mod


def test_read_only_bases_refuse_every_write(bases: tuple[Path, Path, Path]) -> None:
    repo, game, mod = bases
    r = pathgate.Resolver(roots={"repo": repo, "game": game}, mods={"Some Mod": mod},
                          read_only=["game", "Some Mod"])
    b = pathgate.Backend(r)
    for address in ("root:game/f.txt", "mod:Some Mod/f.txt"):
        assert b.read(address).error is None
        assert b.write(address, "x").error
        assert b.edit(address, "original", "changed").error
        assert b.delete(address).error
        assert b.write(address.replace("f.txt", "new.txt"), "x").error
        [up] = b.upload_files([(address, b"x")])
        assert up.error == "permission_denied"
    for d in (game, mod):
        assert (d / "f.txt").read_text() == "original\n"
        assert sorted(p.name for p in d.iterdir()) == ["f.txt"]
    # the writable base still writes
    assert b.write("root:repo/f.txt", "changed\n").error is None
    assert (repo / "f.txt").read_text() == "changed\n"


def test_read_only_names_are_checked(bases: tuple[Path, Path, Path]) -> None:
    repo, game, _ = bases
    with pytest.raises(pathgate.Error) as e:
        pathgate.Resolver(roots={"repo": repo}, read_only=["gmae"])
    assert e.value.kind == "invalid_config"
    assert str(repo) not in str(e.value)
    with pytest.raises(TypeError):
        pathgate.Resolver(roots={"repo": repo}, read_only="repo")  # a str is not a list of names
    with pytest.raises(TypeError):
        pathgate.Resolver(roots={"repo": repo}, read_only=[1])
    with pytest.raises(TypeError):
        pathgate.Resolver({"repo": repo}, None, 10, ["repo"])  # keyword-only
    assert pathgate.Resolver(roots={"repo": repo}, read_only=()).resolve("root:repo/f.txt").ok
