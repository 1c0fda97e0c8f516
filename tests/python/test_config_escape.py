"""Issue 16, finding 0: a configuration must never be writable through the
sandbox it defines. Reproduced from the command line exactly as reported:
with no configuration, `pathgate write root:repo/pathgate.toml` declaring a
root at `/`, then the next invocation must not read outside."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import pathgate as pathgate_pkg

EVIL = '[roots]\nevil = "/"\nrepo = "."\n'


@pytest.fixture()
def world(tmp_path: Path) -> dict[str, Path]:
    home = tmp_path / "home"
    work = tmp_path / "work"
    home.mkdir()
    work.mkdir()
    secret = tmp_path / "secret.txt"
    secret.write_text("the secret\n")
    (work / "readme.txt").write_text("hello\n")
    return {"home": home, "work": work, "secret": secret, "tmp": tmp_path}


def pathgate(world: dict[str, Path], *argv: str, cwd: Path | None = None,
             stdin: str = "", env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if k != "XDG_CONFIG_HOME"}
    environ["HOME"] = str(world["home"])
    environ["PYTHONPATH"] = str(Path(pathgate_pkg.__file__).resolve().parents[1])
    environ.update(env or {})
    return subprocess.run([sys.executable, "-m", "pathgate", *argv], cwd=cwd or world["work"],
                          input=stdin, capture_output=True, text=True, env=environ, timeout=60)


def test_planted_pathgate_toml_in_the_default_root_is_never_loaded(world: dict[str, Path]) -> None:
    # Step 1, as reported: no configuration, the current directory is root:repo.
    planted = pathgate(world, "write", "root:repo/pathgate.toml", stdin=EVIL)
    assert planted.returncode == 0, planted.stderr
    assert (world["work"] / "pathgate.toml").read_text() == EVIL
    # Step 2: the next invocation must not see a root at `/`.
    secret = str(world["secret"])
    for argv in (["read", f"root:evil{secret}"], ["--root", f"repo={world['work']}", "read", f"root:evil{secret}"],
                 ["read", secret], ["resolve", f"root:evil{secret}"]):
        proc = pathgate(world, *argv)
        assert proc.returncode != 0, argv
        assert "the secret" not in proc.stdout
    # The current directory is still just root:repo; the operator is told why.
    proc = pathgate(world, "read", "root:repo/readme.txt")
    assert (proc.returncode, proc.stdout) == (0, "hello\n")
    assert "./pathgate.toml is not read implicitly" in proc.stderr


def test_user_config_location_is_not_writable_from_the_default_root(world: dict[str, Path]) -> None:
    # Run from $HOME: a home directory is never the implicit root (issue 34),
    # so that run is refused before doing anything, and the advice names a
    # directory to serve, never a read-only mark that keeps serving $HOME.
    proc = pathgate(world, "write", "root:repo/.config/pathgate/config.toml", cwd=world["home"], stdin=EVIL)
    assert proc.returncode == 2
    assert not (world["home"] / ".config").exists()
    assert "a home directory" in proc.stderr and "--root KEY=DIR" in proc.stderr
    assert "--read-only" not in proc.stderr
    # From ~/.config (below the home, so served implicitly) the location is
    # inside the default root: refused, advising a directory, not read-only.
    (world["home"] / ".config").mkdir()
    proc = pathgate(world, "write", "root:repo/pathgate/config.toml", cwd=world["home"] / ".config",
                    stdin=EVIL)
    location = str(world["home"] / ".config" / "pathgate" / "config.toml")
    assert proc.returncode == 2 and location in proc.stderr and "root 'repo'" in proc.stderr
    assert "--root KEY=DIR" in proc.stderr and "--read-only" not in proc.stderr
    assert not (world["home"] / ".config" / "pathgate").exists()
    (world["home"] / ".config").rmdir()
    # ... and from a writable --root holding it, by any spelling.
    proc = pathgate(world, "--root", f"home={world['home']}", "write",
                    "root:home/.config/pathgate/config.toml", stdin=EVIL)
    assert proc.returncode == 2 and location in proc.stderr
    assert not (world["home"] / ".config").exists()
    link = world["tmp"] / "link-to-home"
    link.symlink_to(world["home"])
    proc = pathgate(world, "--root", f"home={link}", "ls", stdin=EVIL)
    assert proc.returncode == 2 and location in proc.stderr
    # Read-only, the base may hold it.
    proc = pathgate(world, "--root", f"home={world['home']}", "--read-only", "home", "ls")
    assert proc.returncode == 0, proc.stderr


def test_user_config_is_loaded_but_refused_when_it_defines_a_writable_base_around_itself(
        world: dict[str, Path]) -> None:
    config = world["home"] / ".config" / "pathgate" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text(f'[roots]\nwork = "{world["work"]}"\n')
    proc = pathgate(world, "ls")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("root:work/readme.txt")
    # explicit flags: the implicit file is not merged in
    proc = pathgate(world, "--root", f"other={world['work']}", "resolve", "root:work")
    assert proc.returncode == 1
    proc = pathgate(world, "--root", f"other={world['work']}", "resolve", "root:other")
    assert proc.returncode == 0
    # a user config that makes its own directory writable is refused, by name
    config.write_text(f'[roots]\nhome = "{world["home"]}"\n')
    proc = pathgate(world, "ls")
    assert proc.returncode == 2
    assert f"config {config}" in proc.stderr and "root 'home'" in proc.stderr
    config.write_text(f'read_only = ["home"]\n[roots]\nhome = "{world["home"]}"\n')
    assert pathgate(world, "ls").returncode == 0


def test_explicit_config_inside_a_writable_base_is_refused(world: dict[str, Path]) -> None:
    config = world["work"] / "pathgate.toml"
    config.write_text('[roots]\nrepo = "."\n')
    proc = pathgate(world, "--config", str(config), "ls")
    assert proc.returncode == 2
    assert f"config {config}" in proc.stderr and "root 'repo'" in proc.stderr
    # the same file is fine when its base is read-only
    config.write_text('read_only = ["repo"]\n[roots]\nrepo = "."\n')
    proc = pathgate(world, "--config", str(config), "ls")
    assert proc.returncode == 0, proc.stderr
    proc = pathgate(world, "--config", str(config), "write", "root:repo/pathgate.toml", stdin=EVIL)
    assert proc.returncode == 1
    assert config.read_text() == 'read_only = ["repo"]\n[roots]\nrepo = "."\n'
    # a config kept outside, with a hard link inside a base, is refused
    outside = world["tmp"] / "outside.toml"
    outside.write_text(f'[roots]\nrepo = "{world["work"]}"\n')
    os.link(outside, world["work"] / "linked.toml")
    proc = pathgate(world, "--config", str(outside), "ls")
    assert proc.returncode == 2 and "hard links" in proc.stderr and str(outside) in proc.stderr
    # a config reached through a symlink that lives in a writable base
    (world["work"] / "linked.toml").unlink()
    (world["work"] / "cfg-link.toml").symlink_to(outside)
    proc = pathgate(world, "--config", str(world["work"] / "cfg-link.toml"), "ls")
    assert proc.returncode == 2 and "root 'repo'" in proc.stderr
    proc = pathgate(world, "--config", str(outside), "ls")
    assert proc.returncode == 0, proc.stderr


def test_only_mods_make_no_root(world: dict[str, Path]) -> None:
    mod = world["tmp"] / "mod"
    mod.mkdir()
    (mod / "m.txt").write_text("mod file\n")
    proc = pathgate(world, "--mod", f"M={mod}", "resolve", "root:repo")
    assert proc.returncode == 1  # no root:repo was invented
    proc = pathgate(world, "--mod", f"M={mod}", "read", "m.txt")  # relative to the home: the mod
    assert (proc.returncode, proc.stdout) == (0, "mod file\n")
    proc = pathgate(world, "--mod", f"M={mod}", "write", "root:repo/x.txt", stdin="x")
    assert proc.returncode == 1
    assert not (world["work"] / "x.txt").exists()
