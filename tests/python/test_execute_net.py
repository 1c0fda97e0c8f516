"""allow_domains from Python (docs/exec.md "Network"): pathgate.execute and
Backend.configure_execute, as root and as uid 65534 (setpriv).

A listed name is reached from inside the command (curl and Python's urllib,
through the proxy variables pathgate sets); another name, an unlisted IP
and an unlisted host loopback service are refused; a direct connection has
no route; every decision is an event of the resolver's audit callable.
Servers listen on 127.0.0.1 only, and the name is `localhost` (the host's
/etc/hosts): this machine has no DNS.
"""

from __future__ import annotations

import http.server
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import pytest

import pathgate
from pathgate import Backend
from conftest import mcp_stdio

pytestmark = pytest.mark.skipif(
    pathgate.landlock_abi() < 1 or shutil.which("curl") is None,
    reason="needs Landlock and curl")

NOBODY = 65534


class _Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):  # noqa: N802 (http.server's name)
        body = f"served {self.path}\n".encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        self.server.hits += 1  # type: ignore[attr-defined]

    def log_message(self, *args):
        pass


def _server():
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    srv.hits = 0  # type: ignore[attr-defined]
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv


@pytest.fixture
def world():
    top = Path(tempfile.mkdtemp(prefix="pathgate-net-py-", dir="/tmp"))
    os.chmod(top, 0o755)
    repo = top / "repo"
    repo.mkdir()
    os.chmod(repo, 0o777)
    listed, other = _server(), _server()
    yield {"repo": repo, "listed": listed, "other": other}
    listed.shutdown()
    other.shutdown()
    shutil.rmtree(top)


def _command(listed: int, other: int) -> str:
    # --noproxy '': NO_PROXY keeps localhost for the command's own services;
    # these are the host's, through the proxy.
    return (
        f"curl -sS --noproxy '' http://localhost:{listed}/curl; "
        "python3 -c 'import urllib.request as u, os; "
        "os.environ[\"no_proxy\"] = os.environ[\"NO_PROXY\"] = \"\"; "
        f"print(u.urlopen(\"http://localhost:{listed}/urllib\").read().decode(), end=\"\")'; "
        f"for u in http://other.example/ http://10.1.2.3/ http://localhost:{other}/; do "
        "curl -s --noproxy '' -o /dev/null -w '%{http_code} ' \"$u\"; done; echo; "
        f"curl -s --noproxy '*' --connect-timeout 5 http://127.0.0.1:{listed}/; echo direct=$?"
    )


_CHILD = r"""
import json, sys
import pathgate
a = json.loads(sys.argv[1])
events = []
r = pathgate.Resolver(roots={"repo": a["repo"]}, audit=events.append)
res = pathgate.execute(r, a["cmd"], timeout=60, allow_domains=a["allow"])
print(json.dumps({"output": res.output, "exit_code": res.exit_code,
                  "protections": sorted(res.protections), "events": events}))
"""


def _run(world, cmd: str, allow: list[str], unprivileged: bool) -> dict:
    if not unprivileged:
        events: list[dict] = []
        r = pathgate.Resolver(roots={"repo": world["repo"]}, audit=events.append)
        res = pathgate.execute(r, cmd, timeout=60, allow_domains=allow)
        return {"output": res.output, "exit_code": res.exit_code,
                "protections": sorted(res.protections), "events": events}
    env = dict(os.environ, PYTHONPATH=str(Path(pathgate.__file__).resolve().parent.parent))
    arg = json.dumps({"repo": str(world["repo"]), "cmd": cmd, "allow": allow})
    out = subprocess.run(
        ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups",
         sys.executable, "-c", _CHILD, arg],
        capture_output=True, text=True, env=env, cwd="/", timeout=120, check=True)
    return json.loads(out.stdout)


@pytest.mark.parametrize("unprivileged", [False, True])
def test_allowed_reached_others_refused_and_audited(world, unprivileged):
    if unprivileged and (os.geteuid() != 0 or shutil.which("setpriv") is None):
        pytest.skip("needs root and setpriv")
    listed, other = world["listed"].server_port, world["other"].server_port
    allow = [f"localhost:{listed}", f"127.0.0.1:{listed}", "localhost"]
    res = _run(world, _command(listed, other), allow, unprivileged)
    out = res["output"]
    assert res["exit_code"] == 0, out
    assert "served /curl\n" in out
    assert "served /urllib" in out
    # another name, an unlisted IP, the host's loopback service on another port
    assert "403 403 403 \n" in out
    assert "direct=7\n" in out  # no route around the proxy
    assert world["listed"].hits == 2
    assert world["other"].hits == 0
    assert {"network_allowlist", "network_namespace"} <= set(res["protections"])
    by_address = {e["address"]: e for e in res["events"]}
    ok = by_address[f"localhost:{listed}"]
    assert (ok["outcome"], ok["operation"], ok["rule"], ok["ip"]) == (
        "allowed", "http", f"localhost:{listed}", "127.0.0.1")
    assert ok["door"] == "python"
    assert by_address["other.example:80"]["reason"] == "not_listed"
    assert by_address["10.1.2.3:80"]["reason"] == "not_listed"
    host = by_address[f"localhost:{other}"]
    assert (host["outcome"], host["reason"], host["ip"]) == (
        "denied", "private_address", "127.0.0.1")
    # five network decisions, between the command's own start and end: the
    # second request to the listed name repeats the first, so it is counted
    # in the one "suppressed" event instead (docs/policy.md, network "Audit")
    assert len([e for e in res["events"] if e["operation"] != "execute"]) == 5
    assert [(e["outcome"], e["count"]) for e in res["events"]
            if e["operation"] == "network"] == [("suppressed", 1)]
    assert res["events"][-2]["outcome"] == "suppressed"
    assert [(e["operation"], e["outcome"]) for e in (res["events"][0], res["events"][-1])] == [
        ("execute", "allowed"), ("execute", "exited")]


def test_backend_configure_execute_allow_domains(world):
    listed = world["listed"].server_port
    r = pathgate.Resolver(roots={"repo": world["repo"]})
    backend = Backend(r)
    backend.configure_execute(allow_domains=[f"localhost:{listed}", f"127.0.0.1:{listed}"])
    res = backend.execute(f"curl -sS --noproxy '' http://localhost:{listed}/backend; "
                          "echo \"$ALL_PROXY\"")
    assert res.exit_code == 0, res.output
    assert res.output == "served /backend\nsocks5h://127.0.0.1:3128\n"
    assert "network_allowlist" in res.protections
    backend.configure_execute()
    res = backend.execute("echo \"[$HTTP_PROXY]\"")
    assert res.output == "[]\n"
    assert "network_allowlist" not in res.protections


def test_bad_allow_domains(world):
    r = pathgate.Resolver(roots={"repo": world["repo"]})
    with pytest.raises(TypeError):
        pathgate.execute(r, "true", allow_domains="example.com")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        pathgate.execute(r, "true", allow_domains=[b"example.com"])  # type: ignore[list-item]
    with pytest.raises(ValueError):
        pathgate.execute(r, "true", allow_domains=["a\0b"])
    with pytest.raises(pathgate.Error) as e:
        pathgate.execute(r, "true", allow_domains=["*"])
    assert e.value.kind == "invalid_argument"
    assert '"*"' in str(e.value)
    with pytest.raises(pathgate.Error) as e:
        pathgate.execute(r, "true", allow_domains=["example.com"], allow_network=True)
    assert e.value.kind == "invalid_argument"
    # Backend refuses a malformed list when it is configured (issue 34), not
    # at every later command
    backend = Backend(r)
    with pytest.raises(pathgate.Error) as e:
        backend.configure_execute(allow_domains=["*"])
    assert e.value.kind == "invalid_argument" and "allow_domains" in str(e.value)


# ------------------------------------------------- the CLI and pathgate mcp


def test_cli_allow_domain_flags_config_key_and_audit_log(world, tmp_path, capsys, monkeypatch):
    from pathgate import cli

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    listed, other = world["listed"].server_port, world["other"].server_port
    log = tmp_path / "audit.jsonl"
    cmd = (f"curl -sS --noproxy '' http://localhost:{listed}/cli; "
           f"curl -s --noproxy '' -o /dev/null -w '%{{http_code}}\\n' http://localhost:{other}/")
    code = cli.main(["--root", f"repo={world['repo']}", "--allow-domain", f"localhost:{listed}",
                     "--allow-domain", f"127.0.0.1:{listed}", "--audit-log", str(log),
                     "execute", cmd])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert out == ("served /cli\n403\npathgate: the network allowlist refused: "
                   f"localhost:{other} (not_listed); only the hosts of allow_domains are "
                   "reachable\n")
    events = [json.loads(x) for x in log.read_text().splitlines()]
    net = [e for e in events if e.get("operation") == "http"]
    assert [(e["address"], e["outcome"], e.get("reason")) for e in net] == [
        (f"localhost:{listed}", "allowed", None),
        (f"localhost:{other}", "denied", "not_listed")]
    assert all(e["door"] == "cli" for e in net)

    # the configuration file's key (a refusal there is a command not run)
    conf = tmp_path / "pathgate.toml"
    conf.write_text(f'allow_domains = ["localhost:{listed}", "127.0.0.1:{listed}"]\n'
                    f'[roots]\nrepo = "{world["repo"]}"\n')
    code = cli.main(["--config", str(conf), "execute",
                     f"curl -sS --noproxy '' http://localhost:{listed}/toml"])
    out, err = capsys.readouterr()
    assert (code, out) == (0, "served /toml\n"), err
    conf.write_text(f'allow_domains = "localhost"\n[roots]\nrepo = "{world["repo"]}"\n')
    assert cli.main(["--config", str(conf), "execute", "true"]) == 2
    assert "allow_domains must be a list" in capsys.readouterr().err
    # a malformed entry is a configuration error before anything runs
    code = cli.main(["--root", f"repo={world['repo']}", "--allow-domain", "*", "execute", "true"])
    assert code == 2
    assert '"*"' in capsys.readouterr().err
    conf.write_text(f'allow_domains = ["ok.example", "a b"]\n[roots]\nrepo = "{world["repo"]}"\n')
    assert cli.main(["--config", str(conf), "mcp"]) == 2
    err = capsys.readouterr().err
    assert f"config {conf}" in err and '"a b"' in err
    # without the flag: no proxy, no way out
    code = cli.main(["--root", f"repo={world['repo']}", "execute",
                     f"curl -s --noproxy '' http://localhost:{listed}/none; echo $?"])
    assert capsys.readouterr().out == "7\n"
    assert world["listed"].hits == 2


def test_mcp_execute_takes_the_servers_allowlist(world, tmp_path):
    listed = world["listed"].server_port

    def call(i, name, args):
        return {"jsonrpc": "2.0", "id": i, "method": "tools/call",
                "params": {"name": name, "arguments": args}}

    lines = [
        {"jsonrpc": "2.0", "id": 0, "method": "initialize",
         "params": {"protocolVersion": "2025-11-25"}},
        call(1, "execute", {"command": f"curl -sS --noproxy '' http://localhost:{listed}/mcp"}),
        call(2, "execute", {"command": "curl -s --noproxy '' -o /dev/null -w '%{http_code}' "
                                       "http://other.example/"}),
    ]
    log = tmp_path / "mcp-audit.jsonl"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p),
               XDG_CONFIG_HOME=str(tmp_path / "xdg"))
    a = mcp_stdio(["--root", f"repo={world['repo']}", "--allow-domain", f"localhost:{listed}",
                   "--allow-domain", f"127.0.0.1:{listed}", "--audit-log", str(log), "mcp",
                   "--allow-execute"], lines, env=env)
    assert a[1]["result"]["content"][0]["text"].startswith("served /mcp\n"), a[1]
    assert a[2]["result"]["content"][0]["text"].startswith("403"), a[2]
    events = [json.loads(x) for x in log.read_text().splitlines()]
    net = {e["address"]: e for e in events if e.get("operation") == "http"}
    assert net[f"localhost:{listed}"]["outcome"] == "allowed"
    assert net["other.example:80"]["reason"] == "not_listed"
    assert all(e["door"] == "mcp" for e in net.values())
