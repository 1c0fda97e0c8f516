"""Protected names cannot be planted (issue 33, finding 4; docs/exec.md
"Planted links"): the links a command leaves at protected names are gone
when execute returns, listed in ``quarantined`` and audited, and the host
lists and restores them with ``pathgate quarantine``."""

from __future__ import annotations

import json
import os

import pytest

import pathgate
from pathgate import cli

pytestmark = pytest.mark.skipif(pathgate.landlock_abi() < 1, reason="needs Landlock")

PLANT = ("ln -s public.txt .env && ln notes.txt .env.local && ln -s run.sh .envrc && "
         "ln -s pub .vscode && cat .env")


@pytest.fixture
def world(tmp_path, monkeypatch):
    repo = tmp_path / "repo"
    repo.mkdir(mode=0o777)
    repo.chmod(0o777)
    (repo / "public.txt").write_text("public\n")
    (repo / "notes.txt").write_text("notes\n")
    (repo / "run.sh").write_text("echo hi\n")
    (repo / "pub").mkdir(mode=0o777)
    (repo / "pub").chmod(0o777)
    q = tmp_path / "state" / "quarantine"
    monkeypatch.setenv("PATHGATE_QUARANTINE_DIR", str(q))
    return {"repo": repo, "q": q}


def test_planted_links_are_quarantined_reported_and_audited(world):
    events: list[dict] = []
    r = pathgate.Resolver(roots={"repo": str(world["repo"])},
                          presets=["secrets", "agent-config"], audit=events.append)
    res = pathgate.execute(r, PLANT)
    assert res.exit_code == 0, res.output
    assert res.output == "public\n"
    assert sorted(res.quarantined) == ["root:repo/.env", "root:repo/.env.local",
                                       "root:repo/.envrc", "root:repo/.vscode"]
    for name in (".env", ".env.local", ".envrc", ".vscode"):
        assert not os.path.lexists(world["repo"] / name)
    assert (world["repo"] / "notes.txt").stat().st_nlink == 1
    assert (world["repo"] / "public.txt").read_text() == "public\n"
    got = {(e["address"], e["reason"]) for e in events if e["outcome"] == "quarantined"}
    assert got == {("root:repo/.env", "symlink"), ("root:repo/.env.local", "hard_link"),
                   ("root:repo/.envrc", "symlink"), ("root:repo/.vscode", "symlink")}
    # the quarantine's end comes before the command's end event
    outcomes = [e["outcome"] for e in events]
    assert outcomes[-1] == "exited" and outcomes.count("quarantined") == 4
    # nothing left to plant: the next call quarantines nothing
    assert pathgate.execute(r, "true").quarantined == ()


def test_quarantine_list_and_restore(world, capsys):
    r = pathgate.Resolver(roots={"repo": str(world["repo"])}, presets=["secrets"])
    assert len(pathgate.execute(r, "ln -s public.txt .env && ln notes.txt .env.local")
               .quarantined) == 2
    assert cli.main(["quarantine", "list", "--json"]) == 0
    listing = json.loads(capsys.readouterr().out)
    assert listing["ok"] is True
    entries = {e["address"]: e for e in listing["entries"]}
    assert set(entries) == {"root:repo/.env", "root:repo/.env.local"}
    assert entries["root:repo/.env"]["kind"] == "symlink"
    assert entries["root:repo/.env"]["target"] == "public.txt"
    assert entries["root:repo/.env.local"]["kind"] == "hard_link"
    qid = entries["root:repo/.env"]["id"]
    assert entries["root:repo/.env.local"]["id"] == qid
    # the plain listing: ID/N, address, kind
    assert cli.main(["quarantine", "list"]) == 0
    plain = capsys.readouterr().out.splitlines()
    assert sorted(line.split("\t")[1:] for line in plain) == [
        ["root:repo/.env", "symlink"], ["root:repo/.env.local", "hard_link"]]
    # something at the name again: not overwritten
    (world["repo"] / ".env").write_text("SECRET=1\n")
    assert cli.main(["quarantine", "restore", f"{qid}/{entries['root:repo/.env']['entry']}"]) == 1
    assert "exists again" in capsys.readouterr().err
    assert (world["repo"] / ".env").read_text() == "SECRET=1\n"
    (world["repo"] / ".env").unlink()
    # the whole call back, as it was (the hard link as a copy of its bytes)
    assert cli.main(["quarantine", "restore", qid]) == 0
    assert sorted(capsys.readouterr().out.splitlines()) == [
        "restored root:repo/.env", "restored root:repo/.env.local"]
    assert os.readlink(world["repo"] / ".env") == "public.txt"
    assert (world["repo"] / ".env.local").read_text() == "notes\n"
    assert not os.path.exists(world["q"] / qid)
    assert cli.main(["quarantine", "list", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["entries"] == []
    assert cli.main(["quarantine", "restore", qid]) == 1
    assert "no such quarantined entry" in capsys.readouterr().err


def test_restore_follows_no_symlink_on_the_way(world, tmp_path, capsys):
    r = pathgate.Resolver(roots={"repo": str(world["repo"])}, presets=["agent-config"])
    os.mkdir(world["repo"] / "sub", 0o777)
    os.chmod(world["repo"] / "sub", 0o777)
    assert pathgate.execute(r, "ln -s ../run.sh sub/.envrc").quarantined == ("root:repo/sub/.envrc",)
    # the directory on the way is now a symlink to somewhere else
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    os.rmdir(world["repo"] / "sub")
    os.symlink(elsewhere, world["repo"] / "sub")
    assert cli.main(["quarantine", "list", "--json"]) == 0
    qid = json.loads(capsys.readouterr().out)["entries"][0]["id"]
    assert cli.main(["quarantine", "restore", qid]) == 1
    assert "cannot be restored" in capsys.readouterr().err
    assert os.listdir(elsewhere) == []


def test_cli_execute_json_names_what_was_quarantined(world, capsys):
    code = cli.main(["--root", f"repo={world['repo']}", "--preset", "secrets", "execute", "--json",
                     "ln -s public.txt .env && echo done"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["ok"] is True and out["output"] == "done\n"
    assert out["quarantined"] == ["root:repo/.env"]
    assert not os.path.lexists(world["repo"] / ".env")
    # without --json: the output, and a notice per entry on stderr
    code = cli.main(["--root", f"repo={world['repo']}", "--preset", "secrets", "execute",
                     "ln -s public.txt .env && echo done"])
    got = capsys.readouterr()
    assert code == 0 and got.out == "done\n"
    assert "quarantined a link the command planted: root:repo/.env" in got.err
    assert str(world["repo"]) not in got.err
    # nothing planted: an empty list
    assert cli.main(["--root", f"repo={world['repo']}", "--preset", "secrets", "execute", "--json", "true"]) == 0
    assert json.loads(capsys.readouterr().out)["quarantined"] == []


def test_mcp_execute_names_what_was_quarantined(world):
    from pathgate.mcp.service import Server

    server = Server(pathgate.Resolver(roots={"repo": str(world["repo"])}, presets=["secrets"]),
                    allow_execute=True)
    peer, _ = server.open("t")
    answers: list[dict] = []

    def call(msg):
        peer.handle_line(json.dumps(msg).encode(), lambda chunks: answers.append(json.loads(b"".join(chunks))))
        return answers[-1]

    call({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18",
                                                                          "capabilities": {}}})
    r = call({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
              "params": {"name": "execute", "arguments": {"command": "ln -s public.txt .env && echo done"}}})
    result = r["result"]
    assert not result.get("isError"), result
    assert result["structuredContent"]["quarantined"] == ["root:repo/.env"]
    assert "[quarantined (planted links at protected names): root:repo/.env]" in result["content"][0]["text"]
    assert not os.path.lexists(world["repo"] / ".env")
    r = call({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
              "params": {"name": "execute", "arguments": {"command": "true"}}})
    assert r["result"]["structuredContent"]["quarantined"] == []
    assert "quarantined" not in r["result"]["content"][0]["text"]
