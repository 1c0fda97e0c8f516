"""`pathgate mcp --http` before authentication (the red team's findings 7, 8
and 9), --allow-host behind a reverse proxy, the execute tool's description
under --allow-domain, and the logs of a normal start and stop. Raw sockets
and http.client: what an attacker or a plain client sends."""

import http.client
import json
import os
import re
import socket
import subprocess
import sys
import threading
import time

import pytest

TOKEN = "test-token-4f1c2a"
HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
INIT = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                   "params": {"protocolVersion": "2025-06-18", "capabilities": {}}})


class Srv:
    def __init__(self, tree, *extra, token=TOKEN):
        env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
        env.pop("PATHGATE_MCP_TOKEN", None)
        if token:
            env["PATHGATE_MCP_TOKEN"] = token
        self.p = subprocess.Popen([sys.executable, "-m", "pathgate", "--root", f"repo={tree['repo']}", "mcp",
                                   "--http", "127.0.0.1:0", *extra], stdin=subprocess.DEVNULL,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, cwd=tree["tmp"])
        self.err = []
        self.port = None
        ready = threading.Event()

        def drain():
            for line in self.p.stderr:
                text = line.decode("utf-8", "replace")
                self.err.append(text)
                m = re.search(r"listening on http://127\.0\.0\.1:(\d+)/mcp", text)
                if m:
                    self.port = int(m.group(1))
                    ready.set()
            ready.set()

        threading.Thread(target=drain, daemon=True).start()
        assert ready.wait(30) and self.port, "".join(self.err)

    @property
    def log(self):
        return "".join(self.err)

    def rss_kib(self):
        with open(f"/proc/{self.p.pid}/status") as f:
            return int(next(line for line in f if line.startswith("VmRSS:")).split()[1])

    def stop(self):
        self.p.terminate()
        code = self.p.wait(30)
        time.sleep(0.2)
        return code


@pytest.fixture
def srv(tree):
    servers = []

    def make(*extra, **kw):
        s = Srv(tree, *extra, **kw)
        servers.append(s)
        return s

    yield make
    for s in servers:
        if s.p.poll() is None:
            s.p.kill()
            s.p.wait()


def client(port, token=TOKEN, host=None):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    h = dict(HEADERS)
    if token:
        h["Authorization"] = f"Bearer {token}"
    if host:
        h["Host"] = host
    c.request("POST", "/mcp", INIT, h)
    r = c.getresponse()
    r.read()
    assert r.status == 200, r.status
    h["Mcp-Session-Id"] = r.getheader("Mcp-Session-Id")
    return c, h


def call(c, h, name, args):
    c.request("POST", "/mcp", json.dumps({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                                          "params": {"name": name, "arguments": args}}), h)
    r = c.getresponse()
    return r.status, json.loads(r.read() or b"null")


def raw_status(port, data, timeout=5.0):
    """Sends data on a new connection; the status of the answer (None when
    the server closed without one, or said nothing within the timeout)."""
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    try:
        s.sendall(data)
        got = b""
        while b"\r\n" not in got:
            chunk = s.recv(4096)
            if not chunk:
                break
            got += chunk
    except (socket.timeout, ConnectionResetError):
        return None
    finally:
        s.close()
    m = re.match(rb"HTTP/1\.1 (\d{3})", got)
    return int(m.group(1)) if m else None


# ------------------------------------------------------------ finding 7

def test_a_body_without_the_token_is_refused_on_its_head(srv):
    # finding 7: a client without the token announces 64 MiB; the answer is
    # 401 without the body being read, and the server's memory stays flat
    s = srv()
    before = s.rss_kib()
    head = (b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            b"Accept: application/json\r\nContent-Length: 67108864\r\n\r\n")
    started = time.monotonic()
    socks = []
    for _ in range(20):
        c = socket.create_connection(("127.0.0.1", s.port), timeout=5)
        c.sendall(head + b"x" * 65536)  # a piece of the body, the rest never comes
        socks.append(c)
    for c in socks:
        got = c.recv(4096)
        assert got.startswith(b"HTTP/1.1 401 "), got[:80]
        c.close()
    assert time.monotonic() - started < 10
    # and one that keeps pushing its body gets its 401 and is cut off
    c = socket.create_connection(("127.0.0.1", s.port), timeout=5)
    c.sendall(head)
    pushed = 0
    try:
        while pushed < 64 << 20:
            c.sendall(b"x" * (1 << 20))
            pushed += 1 << 20
    except OSError:
        pass
    c.close()
    assert pushed < 32 << 20, "the server kept reading an unauthenticated body"
    assert s.rss_kib() - before < 16 << 10, (before, s.rss_kib())
    assert "Traceback" not in s.log


# ------------------------------------------------------------ finding 8

def test_silent_connections_do_not_lock_out_the_real_client(srv):
    # finding 8: 256 unauthenticated connections that say nothing (or stop
    # in a request's head) must not make the real client get 503
    s = srv()
    attack = []
    for i in range(256):
        a = socket.create_connection(("127.0.0.1", s.port), timeout=5)
        if i % 2:
            a.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Le")
        attack.append(a)
    time.sleep(0.5)
    c, h = client(s.port)  # a new connection, while the attack holds
    status, answer = call(c, h, "read_text_file", {"path": "README.md"})
    assert status == 200 and answer["result"]["content"][0]["text"] == "readme\n"
    # a second client on a new connection too
    c2, h2 = client(s.port)
    assert call(c2, h2, "list_allowed_directories", {})[0] == 200
    for a in attack:
        a.close()


def test_a_silent_connection_is_closed_at_the_header_deadline(srv, monkeypatch):
    from pathgate.mcp import http as transport

    s = srv()
    a = socket.create_connection(("127.0.0.1", s.port), timeout=transport.HEADER_TIMEOUT + 10)
    a.sendall(b"POST /mcp HTTP/1.1\r\n")
    started = time.monotonic()
    got = a.recv(4096)
    assert got.startswith(b"HTTP/1.1 408 ") or got == b""
    assert time.monotonic() - started < transport.HEADER_TIMEOUT + 5


# ------------------------------------------------------------ finding 9

@pytest.mark.parametrize("length", [b"\xb2", b"\xc2\xb2", b"1_0", b"+5", b" 5 5", b"0x10", b"-1"])
def test_malformed_framing_is_a_400_without_a_traceback(srv, length):
    # finding 9: `Content-Length: ²` passes str.isdigit(), then int() failed
    s = srv()
    status = raw_status(s.port, b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                                b"Content-Length: " + length + b"\r\n\r\n{}")
    assert status == 400
    # the server still serves
    c, h = client(s.port)
    assert call(c, h, "list_allowed_directories", {})[0] == 200
    assert s.stop() == 0
    assert "Traceback" not in s.log
    assert "malformed request refused (400)" in s.log


def test_other_malformed_requests(srv):
    s = srv()
    assert raw_status(s.port, b"GARBAGE\r\n\r\n") == 400
    assert raw_status(s.port, b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nBad Header\r\n\r\n") == 400
    assert raw_status(s.port, b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX: " + b"a" * 70000 + b"\r\n\r\n") in (400, 431)
    assert s.stop() == 0
    assert "Traceback" not in s.log


# --------------------------------------------------- --allow-host (34.2)

def test_allow_host_behind_a_reverse_proxy(srv):
    s = srv("--allow-host", "mcp.example.com", "--allow-host", "proxy.example.org:8443")
    c, h = client(s.port, host="mcp.example.com")
    assert call(c, h, "list_allowed_directories", {})[0] == 200
    client(s.port, host="mcp.example.com:443")
    client(s.port, host="proxy.example.org:8443")
    client(s.port, host="127.0.0.1")  # loopback names still, on a loopback listener

    def status(host, origin=None, token=TOKEN):
        h = dict(HEADERS, Host=host, Authorization=f"Bearer {token}")
        if origin:
            h["Origin"] = origin
        c = http.client.HTTPConnection("127.0.0.1", s.port, timeout=10)
        c.request("POST", "/mcp", INIT, h)
        return c.getresponse().status

    # DNS rebinding: another name is refused, as is another port of an allowed one
    assert status("evil.example.net") == 403
    assert status("proxy.example.org:9999") == 403
    assert status("proxy.example.org") == 403
    # an Origin: only the allowed hosts' own (or --allow-origin's)
    assert status("mcp.example.com", "https://mcp.example.com") == 200
    assert status("proxy.example.org:8443", "https://proxy.example.org:8443") == 200
    assert status("mcp.example.com", "https://evil.example.net") == 403
    assert status("mcp.example.com", "https://mcp.example.com.evil.net") == 403
    assert status("proxy.example.org:8443", "https://proxy.example.org") == 403
    # the token still counts
    assert status("mcp.example.com", token="wrong") == 401


def test_without_allow_host_a_proxied_host_is_refused(srv):
    s = srv()
    with pytest.raises(AssertionError):
        client(s.port, host="mcp.example.com")


@pytest.mark.parametrize("bad", ["", "a b", "host:port", "host:0", "[::1", "user@host", "h/x"])
def test_allow_host_is_checked(tree, bad):
    p = subprocess.run([sys.executable, "-m", "pathgate", "--root", f"repo={tree['repo']}", "mcp", "--http",
                        "127.0.0.1:0", "--allow-host", bad], capture_output=True, text=True, timeout=60,
                       stdin=subprocess.DEVNULL)
    assert p.returncode == 2 and "--allow-host" in p.stderr, p.stderr


# -------------------------------------------- the execute tool (34.5)

def _tools(tree, *extra):
    p = subprocess.run([sys.executable, "-m", "pathgate", "--root", f"repo={tree['repo']}", "mcp", "--allow-execute",
                        *extra], input=(INIT + "\n" + json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
                                        + "\n").encode(), capture_output=True, timeout=60)
    answers = [json.loads(line) for line in p.stdout.splitlines()]
    return {t["name"]: t for t in answers[1]["result"]["tools"]}


def test_execute_description_says_what_the_network_policy_allows(tree):
    d = _tools(tree, "--allow-domain", "pypi.org", "--allow-domain", "files.pythonhosted.org")["execute"]["description"]
    assert "network: only pypi.org, files.pythonhosted.org" in d
    assert "no network" not in d and "network: off" not in d
    assert "/pathgate/root/<key>" in d
    d = _tools(tree)["execute"]["description"]
    assert "network: off" in d and "/pathgate/root/<key>" in d


# ---------------------------------------------- logs of start and stop (34.9)

def test_normal_start_and_stop_are_info_and_nothing_is_killed(srv):
    s = srv()
    c, h = client(s.port)
    assert call(c, h, "list_allowed_directories", {})[0] == 200
    assert s.stop() == 0
    log = s.log
    assert re.search(r"INFO listening on http://127\.0\.0\.1:\d+/mcp", log), log
    assert re.search(r"INFO stopped \(SIGTERM\)", log), log
    assert "0 command(s) killed" in log
    assert "WARNING" not in log


def test_stdio_stop_counts_no_command_when_none_runs(tree):
    # a command that ran and ended before the stop is not "killed" (the
    # summary said "1 command(s) killed": a child kept for reuse counted)
    p = subprocess.Popen([sys.executable, "-m", "pathgate", "--root", f"repo={tree['repo']}", "mcp",
                          "--allow-execute"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    p.stdin.write((INIT + "\n").encode())
    p.stdin.write((json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                               "params": {"name": "execute", "arguments": {"command": "echo hi"}}}) + "\n").encode())
    p.stdin.flush()
    answers = [json.loads(p.stdout.readline()) for _ in range(2)]
    assert answers[1]["result"]["content"][0]["text"] == "hi\n[exit code 0]", answers[1]
    p.stdin.close()
    assert p.wait(60) == 0
    err = p.stderr.read().decode()
    assert "INFO stopped (end of input)" in err, err
    assert "0 command(s) killed" in err
    assert "WARNING" not in err


# ------------------------------------------ the ASGI application on its own

def test_the_asgi_application_admits_on_the_head(tree):
    # any ASGI server can host McpApp: it decides Origin, Host and the token
    # before it asks for the body
    import asyncio

    from pathgate import Resolver
    from pathgate.mcp.http import McpApp
    from pathgate.mcp.service import Server

    app = McpApp(Server(Resolver(roots={"repo": tree["repo"]})), token=TOKEN)

    def run(headers, body=INIT.encode()):
        sent, asked = [], []

        async def receive():
            asked.append(True)
            return {"type": "http.request", "body": body, "more_body": False}

        async def send(msg):
            sent.append(msg)

        scope = {"type": "http", "method": "POST", "path": "/mcp", "server": ("127.0.0.1", 8808),
                 "headers": [(k.lower().encode(), v.encode()) for k, v in headers.items()]}
        asyncio.run(app(scope, receive, send))
        return sent[0]["status"], dict(sent[0]["headers"]), b"".join(m.get("body", b"") for m in sent[1:]), asked

    good = dict(HEADERS, Host="127.0.0.1:8808", Authorization=f"Bearer {TOKEN}")
    status, headers, body, asked = run(good)
    assert status == 200 and b'"serverInfo"' in body and b"mcp-session-id" in headers
    for bad, code in ((dict(good, Authorization="Bearer nope"), 401), (dict(good, Host="evil.example"), 403),
                      (dict(good, Origin="https://evil.example"), 403)):
        status, headers, body, asked = run(bad)
        assert status == code and not asked, (bad, status)
        assert headers[b"connection"] == b"close"
    app.close()


def test_execute_description_names_the_toolchains(tree):
    """--toolchain DIR: the model is told where the toolchain is in the view
    (never its host path unless the operator showed it there)."""
    tool = tree["outside"] / "venv"
    (tool / "bin").mkdir(parents=True)
    d = _tools(tree, "--toolchain", str(tool))["execute"]["description"]
    assert "Toolchains of the host, read-only, their bin first in PATH: /pathgate/tool/venv." in d
    assert str(tool) not in d


# ------------------------------------------- the request head's parser

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from pathgate.mcp.httphead import MAX_HEAD, HeadError, parse_head  # noqa: E402

_TCHARS = "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
_token = st.text(_TCHARS, min_size=1, max_size=12)
_value = st.text(st.characters(min_codepoint=0x20, max_codepoint=0xFF, blacklist_characters="\x7f"),
                 max_size=40).map(lambda v: v.strip(" \t"))
_names = _token.filter(lambda n: n.lower() not in ("content-length", "transfer-encoding", "host", "expect",
                                                     "connection"))


@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=600))
def test_parse_head_takes_any_bytes(data):
    # fuzz: any bytes are a Head or a HeadError with a 4xx, nothing else
    try:
        head = parse_head(data)
    except HeadError as e:
        assert 400 <= e.status < 500 and e.message
        return
    assert head.method and head.target.startswith("/") and head.length >= 0


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_token, st.text("/abcxyz09-._~%?=&", max_size=20).map(lambda t: "/" + t),
       st.lists(st.tuples(_names, _value), max_size=8), st.integers(0, 10 ** 12))
def test_parse_head_reads_back_what_a_client_writes(method, target, fields, length):
    lines = [f"{method} {target} HTTP/1.1", "Host: h", *(f"{n}:  {v}\t" for n, v in fields),
             f"Content-Length: {length}"]
    head = parse_head("\r\n".join(lines).encode("latin-1"))
    assert (head.method, head.target, head.length, head.keep_alive) == (method, target, length, True)
    expected: dict[str, str] = {}
    for n, v in fields:
        key = n.lower()
        expected[key] = f"{expected[key]}, {v}" if key in expected else v
    assert {k: v for k, v in head.headers.items() if k not in ("host", "content-length")} == expected


@settings(max_examples=500, deadline=None)
@given(st.lists(st.tuples(_names, _value), min_size=1, max_size=6), st.data())
def test_parse_head_refuses_a_control_character_or_a_bare_line_end(fields, data):
    lines = ["POST /mcp HTTP/1.1", "Host: h", *(f"{n}: {v}" for n, v in fields)]
    text = "\r\n".join(lines)
    bad = data.draw(st.sampled_from(["\x00", "\x01", "\x0b", "\x1f", "\x7f", "\n", "\r"]))
    at = data.draw(st.integers(len(lines[0]) + 2, len(text)))
    with pytest.raises(HeadError) as e:
        parse_head((text[:at] + bad + text[at:]).encode("latin-1"))
    assert e.value.status == 400


@pytest.mark.parametrize("head,status", [
    (b"POST /mcp HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked", 411),
    (b"POST /mcp HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\nTransfer-Encoding: identity", 411),
    (b"POST /mcp HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\nContent-Length: 6", 400),
    (b"POST /mcp HTTP/1.1\r\nHost: h\r\nContent-Length: 5, 6", 400),
    (b"POST /mcp HTTP/1.1\r\nHost: h\r\nContent-Length: 1234567890123456789", 400),
    (b"POST /mcp HTTP/1.1\r\nContent-Length: 5", 400),
    (b"POST /mcp HTTP/1.1\r\nHost: h\r\nHost: i", 400),
    (b"POST /mcp HTTP/1.1\r\nHost: h\r\n folded", 400),
    (b"POST /mcp HTTP/1.1\r\nHost : h", 400),
    (b"POST http://h/mcp HTTP/1.1\r\nHost: h", 400),
    (b"POST /mcp HTTP/2.0\r\nHost: h", 400),
    (b"POST /mcp HTTP/1.1\r\nHost: h\r\nExpect: 200-ok", 417),
    (b"POST /mcp HTTP/1.1\r\nHost: h\r\nX: " + b"a" * MAX_HEAD, 431),
])
def test_parse_head_refusals(head, status):
    with pytest.raises(HeadError) as e:
        parse_head(head)
    assert e.value.status == status


def test_parse_head_accepts_what_clients_send():
    h = parse_head(b"\r\nPOST /mcp?x=1 HTTP/1.1\r\nHost: h\r\nContent-Length: 5, 5\r\nConnection: close\r\n"
                   b"Expect: 100-continue\r\nX-Obs: caf\xe9")
    assert (h.path, h.length, h.keep_alive, h.expect_continue, h.headers["x-obs"]) == ("/mcp", 5, False, True, "café")
    h = parse_head(b"POST /mcp HTTP/1.0\r\nContent-Length: 0")
    assert h.version == 0 and not h.keep_alive


# ------------------------------------------------- framing on the wire

def _head(port, body, extra=b""):
    return (b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Type: application/json\r\n"
            b"Accept: application/json\r\nAuthorization: Bearer " % port + TOKEN.encode() + b"\r\n" + extra +
            b"Content-Length: %d\r\n\r\n" % len(body) + body)


def _read_answers(sock, count):
    """count answers (status, headers, body) read off sock (Content-Length framed)."""
    got, out = b"", []
    while len(out) < count:
        while b"\r\n\r\n" not in got:
            chunk = sock.recv(65536)
            assert chunk, (got, out)
            got += chunk
        head, _, got = got.partition(b"\r\n\r\n")
        lines = head.split(b"\r\n")
        headers = {k.lower(): v for k, v in (line.split(b": ", 1) for line in lines[1:])}
        n = int(headers[b"content-length"])
        while len(got) < n:
            got += sock.recv(65536)
        out.append((int(lines[0].split()[1]), headers, got[:n]))
        got = got[n:]
    return out


def test_chunked_bodies_are_refused_with_411(srv):
    s = srv()
    sock = socket.create_connection(("127.0.0.1", s.port), timeout=10)
    sock.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + TOKEN.encode() +
                 b"\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n")
    (status, headers, body), = _read_answers(sock, 1)
    assert status == 411 and headers[b"connection"] == b"close" and b"Content-Length" in body
    assert sock.recv(100) == b""  # and the connection ends
    assert s.stop() == 0
    assert "Traceback" not in s.log


def test_pipelined_requests_are_answered_in_order(srv):
    s = srv()
    sock = socket.create_connection(("127.0.0.1", s.port), timeout=10)
    sock.sendall(_head(s.port, INIT.encode()))
    (status, headers, _), = _read_answers(sock, 1)
    sid = headers[b"mcp-session-id"]
    calls = [json.dumps({"jsonrpc": "2.0", "id": i, "method": "tools/call",
                         "params": {"name": "read_text_file", "arguments": {"path": "README.md"}}}).encode()
             for i in range(1, 6)]
    sock.sendall(b"".join(_head(s.port, c, b"Mcp-Session-Id: " + sid + b"\r\n") for c in calls))
    answers = _read_answers(sock, 5)
    assert [json.loads(b)["id"] for _, _, b in answers] == [1, 2, 3, 4, 5], answers
    assert all(st == 200 and json.loads(b)["result"]["content"][0]["text"] == "readme\n" for st, _, b in answers)


def test_expect_100_continue_is_honoured(srv):
    s = srv()
    sock = socket.create_connection(("127.0.0.1", s.port), timeout=10)
    full = _head(s.port, INIT.encode(), b"Expect: 100-continue\r\n")
    head, _, body = full.partition(b"\r\n\r\n")
    sock.sendall(head + b"\r\n\r\n")
    assert sock.recv(100) == b"HTTP/1.1 100 Continue\r\n\r\n"
    sock.sendall(body)
    (status, headers, answer), = _read_answers(sock, 1)
    assert status == 200 and b'"serverInfo"' in answer


def test_the_asgi_front_serves_a_session_like_the_server(tree):
    # McpApp and `pathgate mcp --http` share the Endpoint: a session opened
    # and called through ASGI
    import asyncio

    from pathgate import Resolver
    from pathgate.mcp.http import McpApp
    from pathgate.mcp.service import Server

    app = McpApp(Server(Resolver(roots={"repo": tree["repo"]})), token=TOKEN)

    async def post(headers, body):
        sent = []

        async def receive():
            return {"type": "http.request", "body": body, "more_body": False}

        async def send(msg):
            sent.append(msg)

        scope = {"type": "http", "method": "POST", "path": "/mcp", "server": ("127.0.0.1", 8808),
                 "headers": [(k.lower().encode(), v.encode()) for k, v in headers.items()]}
        await app(scope, receive, send)
        return sent[0]["status"], dict(sent[0]["headers"]), b"".join(m.get("body", b"") for m in sent[1:])

    async def main():
        h = dict(HEADERS, Host="127.0.0.1:8808", Authorization=f"Bearer {TOKEN}")
        status, headers, _ = await post(h, INIT.encode())
        assert status == 200
        h["Mcp-Session-Id"] = headers[b"mcp-session-id"].decode()
        call = json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                           "params": {"name": "read_text_file", "arguments": {"path": "README.md"}}}).encode()
        status, _, body = await post(h, call)
        assert status == 200 and json.loads(body)["result"]["content"][0]["text"] == "readme\n"
        status, _, _ = await post(dict(h, **{"Mcp-Session-Id": "nope"}), call)
        assert status == 404

    asyncio.run(main())
    app.close()
