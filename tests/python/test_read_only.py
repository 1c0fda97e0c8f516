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


def test_nested_read_only_base_is_read_only_by_every_address(tmp_path: Path) -> None:
    """Issue 16, finding 5: mods={"Game": repo/vendor/game}, read_only=["Game"]
    refused mod:Game/... but wrote through root:repo/vendor/game/...."""
    repo = tmp_path / "repo"
    game = repo / "vendor" / "game"
    (game / "sub").mkdir(parents=True)
    (game / "g.txt").write_text("vanilla\n")
    (game / "sub" / "s.txt").write_text("deep\n")
    (repo / "to-game").symlink_to("vendor/game")
    r = pathgate.Resolver(roots={"repo": repo}, mods={"Game": game}, read_only=["mod:Game"])
    b = pathgate.Backend(r)
    for address in ("mod:Game/g.txt", "root:repo/vendor/game/g.txt", "root:repo/to-game/g.txt",
                    "root:repo/vendor/game/sub/s.txt"):
        assert b.read(address).error is None
        assert "Permission denied" in (b.write(address, "pwned").error or "")
        assert b.edit(address, "e", "E", replace_all=True).error
        assert b.delete(address).error
        [up] = b.upload_files([(address, b"pwned")])
        assert up.error == "permission_denied"
    for address in ("root:repo/vendor/game/new/deep.txt", "root:repo/to-game/new.txt"):
        assert b.write(address, "x").error
    for address in ("root:repo/vendor", "root:repo/vendor/game", "root:repo/vendor/game/sub"):
        assert b.delete(address).error
    assert (game / "g.txt").read_text() == "vanilla\n"
    assert (game / "sub" / "s.txt").read_text() == "deep\n"
    assert sorted(p.name for p in game.iterdir()) == ["g.txt", "sub"]
    # the rest of the root is writable; the symlink itself may go
    assert b.write("root:repo/vendor/other.txt", "ok").error is None
    assert b.delete("root:repo/to-game").error is None


def test_a_base_inside_a_read_only_base_is_read_only(tmp_path: Path) -> None:
    game = tmp_path / "game"
    (game / "mods" / "inner").mkdir(parents=True)
    r = pathgate.Resolver(roots={"game": game}, mods={"Inner": game / "mods" / "inner"}, read_only=["game"])
    assert pathgate.Backend(r).write("mod:Inner/x.txt", "x").error
    assert not (game / "mods" / "inner" / "x.txt").exists()


def test_write_and_edit_never_carry_setuid_bits(tmp_path: Path) -> None:
    tool = tmp_path / "tool"
    tool.write_text("#!/bin/sh\necho old\n")
    tool.chmod(0o6755)
    if tool.stat().st_mode & 0o6000 != 0o6000:
        pytest.skip("the filesystem does not keep setuid bits")
    b = pathgate.Backend(pathgate.Resolver(roots={"repo": tmp_path}))
    assert b.write("root:repo/tool", "#!/bin/sh\necho new\n").error is None
    assert tool.stat().st_mode & 0o7777 == 0o755
    tool.chmod(0o6755)
    assert b.edit("root:repo/tool", "new", "newer").error is None
    assert tool.stat().st_mode & 0o7777 == 0o755
