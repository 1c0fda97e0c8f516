"""Issue 34 through the Python door: resolutions give their tokens back
when garbage-collected and host_path_of holds none (item 3); the Python API
of item 7 (configure_execute validates at once, policy_check takes relative
text, ExecuteResponse has kind and error)."""

from __future__ import annotations

import gc
import os
from pathlib import Path

import pytest

import pathgate

CAPACITY = "Visibility registry capacity exceeded \u2014 restart server"


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    (tmp_path / "common").mkdir()
    (tmp_path / "common" / "x.txt").write_text("x\n")
    (tmp_path / ".env").write_text("SECRET=1\n")
    return tmp_path


# ----------------------------------------------------------------- item 3

def test_30000_resolves_never_reach_capacity(repo: Path) -> None:
    r = pathgate.Resolver(roots={"repo": str(repo)})
    s = pathgate.Session(r)
    for i in range(30000):
        res = (r if i % 2 else s).resolve("root:repo/common/x.txt")
        assert res.ok, res.error_message
    del res
    assert len(r) == 0


def test_a_kept_ref_keeps_its_token_and_the_cycle_collector_releases(repo: Path) -> None:
    r = pathgate.Resolver(roots={"repo": str(repo)}, max_tokens=2)
    ref = r.resolve("root:repo/common").ref
    assert len(r) == 1 and r.host_path(ref) == repo / "common"
    # a resolution caught in a reference cycle goes with the cycle
    cycle: list[object] = [r.resolve("root:repo/common")]
    cycle.append(cycle)
    assert len(r) == 2
    full = r.resolve("root:repo/common")
    assert not full.ok and full.error_message == CAPACITY  # the seed's exact text
    del cycle
    gc.collect()
    assert len(r) == 1
    del ref
    assert len(r) == 0
    # a rebuilt ref owns no token: dropping it releases nothing
    res = r.resolve("root:repo/common")
    copy = pathgate.VisibilityRef(res.ref.token, res.ref.session_abs)
    del copy
    assert len(r) == 1 and r.host_path(res.ref) is not None


def test_a_ref_outlives_the_resolver_name(repo: Path) -> None:
    r = pathgate.Resolver(roots={"repo": str(repo)})
    ref = r.resolve("root:repo/common").ref
    del r
    gc.collect()
    assert str(ref) == "root:repo/common"


def test_host_path_of_is_one_call_and_holds_no_token(repo: Path) -> None:
    r = pathgate.Resolver(roots={"repo": str(repo)}, max_tokens=1)
    keep = r.resolve("root:repo/common")  # the registry is full now
    for _ in range(1000):
        assert r.host_path_of("root:repo/common/x.txt") == repo / "common" / "x.txt"
    assert r.host_path_of("x.txt", base="root:repo/common") == repo / "common" / "x.txt"
    assert r.host_path_of(repo / "common") == repo / "common"
    with pytest.raises(pathgate.PathError) as e:
        r.host_path_of("root:repo/../../etc/passwd")
    assert str(e.value) == "Invalid path / not found" and e.value.kind == "invalid_path"
    with pytest.raises(pathgate.PathError):
        r.host_path_of("root:repo/missing")
    assert r.host_path_of("root:repo/missing", require_exists=False) == repo / "missing"
    assert len(r) == 1 and keep.ok


# ----------------------------------------------------------------- item 7

def test_configure_execute_validates_allow_domains_at_once(repo: Path) -> None:
    b = pathgate.Backend(pathgate.Resolver(roots={"repo": str(repo)}))
    for bad in (["exa mple.com"], ["example.com:99999"], [""]):
        with pytest.raises(ValueError) as e:
            b.configure_execute(allow_domains=bad)
        assert isinstance(e.value, pathgate.Error) and e.value.kind == "invalid_argument"
    with pytest.raises(TypeError):
        b.configure_execute(allow_domains="example.com")
    b.configure_execute(allow_domains=["example.com", "*.pypi.org:443"])


def test_policy_check_takes_relative_text(repo: Path) -> None:
    r = pathgate.Resolver(roots={"repo": str(repo)}, deny_read=["**/.env"], presets=["vcs"])
    assert r.policy_check(".env") == r.policy_check("root:repo/.env")
    assert r.policy_check(".env")["denied"] == "read"
    assert r.policy_check(".git/hooks/pre-commit")["denied"] == "write"
    assert r.policy_check("common/x.txt")["denied"] is None
    with pytest.raises(pathgate.Error):
        r.policy_check("../outside")


def test_execute_response_has_kind_and_error(repo: Path) -> None:
    import dataclasses

    fields = [f.name for f in dataclasses.fields(pathgate.ExecuteResponse)]
    assert fields[:3] == ["output", "exit_code", "truncated"]  # deepagents' shape first
    assert "kind" in fields and "error" in fields
    b = pathgate.Backend(pathgate.Resolver(roots={"repo": str(repo)}))
    # a command that cannot be run: a home that is no directory
    b2 = pathgate.Backend(pathgate.Resolver(roots={"repo": str(repo)}))
    b2.configure_execute(home="root:repo/common/x.txt")
    refused = b2.execute("true")
    assert refused.exit_code is None and refused.kind in ("not_a_directory", "unsupported")
    assert refused.error
    assert refused.output.startswith("Error: ") and refused.error in refused.output
    ran = b.execute("exit 3")
    if ran.exit_code is None:  # no user namespaces / Landlock here
        assert ran.kind == "unsupported" and ran.error
        return
    assert (ran.exit_code, ran.kind, ran.error) == (3, None, None)
    slow = b.execute("sleep 5", timeout=1)
    assert slow.timed_out and slow.kind == "timeout" and "timeout" in slow.error


# ----------------------------------------------------------------- item 8

def test_grep_all_bases_searches_game_and_mods_together(tmp_path: Path) -> None:
    import subprocess
    import sys

    game, mod = tmp_path / "game", tmp_path / "mod"
    (game / "localization").mkdir(parents=True)
    (mod / "localization").mkdir(parents=True)
    (game / "localization" / "a_l_english.yml").write_bytes(b"\xef\xbb\xbfl_english:\n a:0 \"x\"\n")
    (mod / "localization" / "b_l_english.yml").write_bytes(b"\xef\xbb\xbfl_english:\n")
    r = pathgate.Resolver(roots={"game": str(game)}, mods={"My Mod": str(mod)}, read_only=["game"])
    b = pathgate.Backend(r)
    hits = b.grep("^l_english:", regex=True, all_bases=True)
    assert [(m["path"], m["line"], m["text"]) for m in hits.matches] == [
        ("root:game/localization/a_l_english.yml", 1, "l_english:"),
        ("mod:My Mod/localization/b_l_english.yml", 1, "l_english:")]
    # the default stays the cwd (the first base), as deepagents' path=None
    assert [m["path"] for m in b.grep("l_english").matches] == [
        "root:game/localization/a_l_english.yml"]
    assert [m["path"] for m in b.grep_iter("l_english", all_bases=True)] == [
        "root:game/localization/a_l_english.yml", "mod:My Mod/localization/b_l_english.yml"]
    bad = b.grep("x", "root:game", all_bases=True)
    assert bad.kind == "invalid_argument"
    env = {k: v for k, v in os.environ.items() if k != "XDG_CONFIG_HOME"}
    env.update(PYTHONPATH=str(Path(pathgate.__file__).resolve().parents[1]), HOME=str(tmp_path))
    proc = subprocess.run([sys.executable, "-m", "pathgate", "--root", f"game={game}", "--mod",
                           f"My Mod={mod}", "grep", "--regex", "--all-bases", "^l_english:"],
                          capture_output=True, text=True, env=env, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == [
        "root:game/localization/a_l_english.yml:1:l_english:",
        "mod:My Mod/localization/b_l_english.yml:1:l_english:"]


MOD_DIR = "C:/Users/me/Documents/Paradox Interactive/Crusader Kings III/mod"


def test_address_of_maps_native_paths(tmp_path: Path) -> None:
    user = tmp_path / "user"
    (user / "x").mkdir(parents=True)
    r = pathgate.Resolver(roots={"user": str(user)}, native_prefixes={MOD_DIR: "root:user"})
    # a .mod descriptor's path="..." in either separator and any case
    assert r.address_of(MOD_DIR + "/x") == "root:user/x"
    assert r.address_of(MOD_DIR.replace("/", "\\").upper() + "\\x\\y.txt") == "root:user/x/y.txt"
    # a host path under a base, as str, bytes or PathLike; and a file: URI
    assert r.address_of(user / "x") == "root:user/x"
    assert r.address_of(os.fsencode(user / "new.txt")) == "root:user/new.txt"
    assert r.address_of((user / "x").as_uri()) == "root:user/x"
    for outside in ("/etc/passwd", MOD_DIR + "/../../secret", "D:/mod/x", "relative"):
        with pytest.raises(pathgate.PathError) as e:
            r.address_of(outside)
        assert str(e.value) == "Invalid path / not found"
    assert len(r) == 0
    with pytest.raises(pathgate.Error) as bad:
        pathgate.Resolver(roots={"user": str(user)}, native_prefixes={MOD_DIR: "root:nope"})
    assert bad.value.kind == "invalid_config"
    with pytest.raises(TypeError):
        pathgate.Resolver(roots={"user": str(user)}, native_prefixes=["C:/x"])


def test_cli_address_of_with_flag_and_config(tmp_path: Path) -> None:
    import json
    import subprocess
    import sys

    user = tmp_path / "user"
    user.mkdir()
    cfg = tmp_path / "pathgate.toml"
    cfg.write_text(f'[roots]\nuser = "user"\n[native_prefixes]\n"{MOD_DIR}" = "root:user"\n')
    env = {k: v for k, v in os.environ.items() if k != "XDG_CONFIG_HOME"}
    env.update(PYTHONPATH=str(Path(pathgate.__file__).resolve().parents[1]), HOME=str(tmp_path))

    def run(*argv: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "pathgate", *argv], capture_output=True,
                              text=True, env=env, timeout=60, cwd=tmp_path)

    proc = run("--config", str(cfg), "address-of", MOD_DIR + "/Some Mod", str(user / "a"))
    assert (proc.returncode, proc.stdout) == (0, "root:user/Some Mod\nroot:user/a\n"), proc.stderr
    proc = run("--root", f"user={user}", "--native-prefix", f"{MOD_DIR}=root:user", "--json",
               "address-of", MOD_DIR + "/m", "/etc/passwd")
    data = json.loads(proc.stdout)
    assert proc.returncode == 1 and data["ok"] is False
    assert [x["address"] for x in data["results"]] == ["root:user/m", None]
    assert "/etc" not in data["results"][1]["error"]
    proc = run("--root", f"user={user}", "--native-prefix", "C:/x", "address-of", "C:/x/y")
    assert proc.returncode == 2 and "PREFIX=ADDRESS" in proc.stderr
