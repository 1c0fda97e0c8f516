"""bench/bench_mcp_http.py - the HTTP transport of `pathgate mcp` against
stdio, and under attack, with plain clients (no SDK):

1. per call: `read_text_file` of a 20-line file (and `ping`), over stdio
   (raw JSON-RPC lines) and over HTTP (Python's http.client, one kept-alive
   connection), in rotating rounds; medians, and HTTP / stdio;
2. throughput: calls/s through 1, 16 and 64 concurrent sessions (a client
   process each, one connection and one MCP session per process);
3. attack: 256 unauthenticated connections held open (half silent, half
   stopped in the middle of a request's head), the server's resident memory
   before and with them, and the real (token-holding) client's answer
   during the attack; then 16 clients without the token each sending
   `Content-Length: 64 MiB` bodies, the server's peak memory.

Run: PYTHONPATH=build/python /usr/bin/python3 bench/bench_mcp_http.py
Environment: ROUNDS (5), CALLS (1000 per round), SECONDS (3 per throughput
point), SESSIONS ("1,16,64"), PARTS ("per_call,throughput,attack"). Prints Markdown tables (docs/mcp.md).
"""

from __future__ import annotations

import http.client
import json
import multiprocessing
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import time

PY = sys.executable
ROUNDS = int(os.environ.get("ROUNDS", "5"))
CALLS = int(os.environ.get("CALLS", "1000"))
SECONDS = float(os.environ.get("SECONDS", "3"))
SESSIONS = [int(x) for x in os.environ.get("SESSIONS", "1,16,64").split(",")]
PARTS = os.environ.get("PARTS", "per_call,throughput,attack").split(",")
TOKEN = "bench-token-0123456789"

INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}}}
READ = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "read_text_file", "arguments": {"path": "f20.txt"}}}
PING = {"jsonrpc": "2.0", "id": 3, "method": "ping"}


def rss_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def cpu_us(pid: int) -> float:
    """User plus system CPU time of a process (all its threads), in us."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1e6 / os.sysconf("SC_CLK_TCK")


def hwm_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return 0


def start_http(root: str, *extra: str) -> tuple[subprocess.Popen[bytes], int]:
    """The HTTP server, its log in a file (as stdio's goes nowhere: a log
    drained through a pipe would wake a thread of this client per call)."""
    env = dict(os.environ, PATHGATE_MCP_TOKEN=TOKEN)
    log = tempfile.TemporaryFile()
    p = subprocess.Popen([PY, "-m", "pathgate", "--root", f"repo={root}", "mcp", "--http", "127.0.0.1:0", *extra],
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=log, env=env)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        log.seek(0)
        m = re.search(rb"listening on http://127\.0\.0\.1:(\d+)/mcp", log.read())
        if m:
            return p, int(m.group(1))
        if p.poll() is not None:
            break
        time.sleep(0.05)
    raise RuntimeError("server did not start")


class HttpClient:
    def __init__(self, port: int) -> None:
        self.c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        self.h = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
                  "Authorization": f"Bearer {TOKEN}"}
        status, _, headers = self.post(json.dumps(INIT).encode())
        assert status == 200, status
        self.h["Mcp-Session-Id"] = headers["mcp-session-id"]

    def post(self, body: bytes) -> tuple[int, bytes, dict[str, str]]:
        self.c.request("POST", "/mcp", body, self.h)
        r = self.c.getresponse()
        data = r.read()
        return r.status, data, {k.lower(): v for k, v in r.getheaders()}


class RawClient:
    """A plain keep-alive HTTP/1.1 client on a socket: the request in one
    write, the answer's head read to its blank line and its body by
    Content-Length. It does what http.client does for these requests,
    without its per-request parsing of the answer's head by the email
    package, so it measures the server's cost rather than the client's."""

    def __init__(self, port: int, headers: dict[str, str]) -> None:
        self.s = socket.create_connection(("127.0.0.1", port))
        self.s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.head = ("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n" % port
                     + "".join(f"{k}: {v}\r\n" for k, v in headers.items())).encode()
        self.buf = b""

    def post(self, body: bytes) -> bytes:
        self.s.sendall(self.head + b"Content-Length: %d\r\n\r\n" % len(body) + body)
        while (end := self.buf.find(b"\r\n\r\n")) < 0:
            self.buf += self._recv()
        head = self.buf[:end].lower()
        i = head.find(b"\r\ncontent-length:")
        assert i >= 0, "an answer without Content-Length"
        n = int(head[i + 17:].split(b"\r\n", 1)[0])
        while len(self.buf) < end + 4 + n:
            self.buf += self._recv()
        body, self.buf = self.buf[end + 4:end + 4 + n], self.buf[end + 4 + n:]
        return body

    def _recv(self) -> bytes:
        data = self.s.recv(65536)
        if not data:
            raise ConnectionError("closed")
        return data


class StdioClient:
    def __init__(self, root: str) -> None:
        self.p = subprocess.Popen([PY, "-m", "pathgate", "--root", f"repo={root}", "mcp"], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.post((json.dumps(INIT) + "\n").encode())

    def post(self, line: bytes) -> bytes:
        assert self.p.stdin and self.p.stdout
        self.p.stdin.write(line)
        self.p.stdin.flush()
        return self.p.stdout.readline()

    def close(self) -> None:
        assert self.p.stdin
        self.p.stdin.close()
        self.p.wait()


# The floor of a call over HTTP with this client: a server (threads and
# blocking sockets, as the transport) that answers each request at once
# with a fixed JSON body of the same size as read_text_file's answer.
FLOOR_SERVER = r"""
import socket, sys, threading
body = sys.stdin.buffer.read()
answer = b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: %d\r\n\r\n" % len(body) + body
def serve(s):
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    buf = b""
    while True:
        data = s.recv(65536)
        if not data:
            return
        buf += data
        while True:
            end = buf.find(b"\r\n\r\n")
            if end < 0:
                break
            head = buf[:end].lower()
            i = head.find(b"content-length:")
            n = int(head[i + 15:].split(b"\r\n", 1)[0]) if i >= 0 else 0
            if len(buf) < end + 4 + n:
                break
            buf = buf[end + 4 + n:]
            s.sendall(answer)
listener = socket.create_server(("127.0.0.1", 0))
print(listener.getsockname()[1], flush=True)
while True:
    threading.Thread(target=serve, args=(listener.accept()[0],), daemon=True).start()
"""


def per_call(root: str) -> list[tuple[str, float, float, float, float, float, float, float]]:
    srv, port = start_http(root)
    floor_srv = None
    try:
        h = HttpClient(port)
        s = StdioClient(root)
        answers = {name: s.post((json.dumps(msg) + "\n").encode()).strip()
                   for name, msg in (("read_text_file", READ), ("ping", PING))}
        floor_srv = subprocess.Popen([PY, "-c", FLOOR_SERVER], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        floor_srv.stdin.write(answers["read_text_file"])  # type: ignore[union-attr]
        floor_srv.stdin.close()  # type: ignore[union-attr]
        floor_port = int(floor_srv.stdout.readline())  # type: ignore[union-attr]
        floor = http.client.HTTPConnection("127.0.0.1", floor_port, timeout=30)
        raw = RawClient(port, h.h)
        raw_floor = RawClient(floor_port, h.h)

        def floor_post(b: bytes) -> bytes:
            floor.request("POST", "/mcp", b, h.h)
            return floor.getresponse().read()

        times: dict[tuple[str, str], list[float]] = {}
        cpu: dict[tuple[str, str], float] = {}
        for _ in range(ROUNDS):
            for name, msg in (("read_text_file", READ), ("ping", PING)):
                for transport in ("stdio", "http", "floor", "raw", "raw floor"):
                    if "floor" in transport and name != "read_text_file":
                        continue
                    body = json.dumps(msg).encode()
                    if transport == "stdio":
                        line, fn = body + b"\n", s.post
                        arg = line
                    elif transport == "http":
                        fn, arg = (lambda b: h.post(b)[1]), body
                    elif transport == "raw":
                        fn, arg = raw.post, body
                    elif transport == "raw floor":
                        fn, arg = raw_floor.post, body
                    else:
                        fn, arg = floor_post, body
                    assert b'"result"' in fn(arg)
                    samples = times.setdefault((name, transport), [])
                    pid = {"stdio": s.p.pid, "http": srv.pid, "floor": floor_srv.pid, "raw": srv.pid,
                           "raw floor": floor_srv.pid}[transport]
                    c0 = cpu_us(pid)
                    for _ in range(CALLS):
                        t = time.perf_counter_ns()
                        json.loads(fn(arg))  # the same client work on both
                        samples.append((time.perf_counter_ns() - t) / 1000)
                    cpu[(name, transport)] = cpu.get((name, transport), 0.0) + cpu_us(pid) - c0
        s.close()
        n = ROUNDS * CALLS
        def med(name: str, transport: str) -> float:
            return statistics.median(times[(name, transport)]) if (name, transport) in times else 0.0

        return [(name, med(name, "stdio"), med(name, "http"), cpu[(name, "stdio")] / n, cpu[(name, "http")] / n,
                 med(name, "floor"), med(name, "raw"), med(name, "raw floor"))
                for name in ("read_text_file", "ping")]
    finally:
        srv.terminate()
        srv.wait()
        if floor_srv is not None:
            floor_srv.kill()
            floor_srv.wait()


def _worker(port: int, seconds: float, q: multiprocessing.Queue[int], go: multiprocessing.Event) -> None:  # type: ignore[type-arg]
    c = HttpClient(port)
    body = json.dumps(READ).encode()
    go.wait()
    n = 0
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        status, data, _ = c.post(body)
        if status != 200 or b'"isError":true' in data:
            q.put(-1)
            return
        n += 1
    q.put(n)


def throughput(root: str) -> list[tuple[int, float, int]]:
    rows = []
    for sessions in SESSIONS:
        srv, port = start_http(root, "--max-sessions", str(max(64, sessions)))
        try:
            ctx = multiprocessing.get_context("fork")
            q = ctx.Queue()
            go = ctx.Event()
            procs = [ctx.Process(target=_worker, args=(port, SECONDS, q, go)) for _ in range(sessions)]
            for p in procs:
                p.start()
            time.sleep(1.0 + sessions * 0.02)
            go.set()
            counts = [q.get(timeout=60 + SECONDS) for _ in procs]
            for p in procs:
                p.join()
            failed = sum(1 for c in counts if c < 0)
            rows.append((sessions, sum(c for c in counts if c > 0) / SECONDS, failed))
        finally:
            srv.terminate()
            srv.wait()
    return rows


def attack(root: str) -> dict[str, str]:
    srv, port = start_http(root)
    out: dict[str, str] = {}
    try:
        real = HttpClient(port)
        body = json.dumps(READ).encode()
        for _ in range(200):
            real.post(body)
        time.sleep(0.5)
        before = rss_kib(srv.pid)
        socks = []
        for i in range(256):
            s = socket.create_connection(("127.0.0.1", port))
            if i % 2:
                s.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: appl")
            socks.append(s)
        time.sleep(1.0)
        held = rss_kib(srv.pid)
        # the real client: its kept-alive connection, then a new one
        t = time.perf_counter()
        status, data, _ = real.post(body)
        kept = (time.perf_counter() - t) * 1e6
        t = time.perf_counter()
        fresh = HttpClient(port)
        status2, data2, _ = fresh.post(body)
        new = (time.perf_counter() - t) * 1e6
        open_after = 0
        for s in socks:
            s.setblocking(False)
            try:
                s.recv(1024)  # b"" or an answer: closed by the server
            except BlockingIOError:
                open_after += 1
            except OSError:
                pass
        out["memory"] = f"{(held - before) / 1024:.1f} MiB (RSS {before / 1024:.1f} -> {held / 1024:.1f} MiB)"
        out["kept"] = f"{status}, {'answered' if b'line 1' in data else 'no answer'}, {kept:.0f} us"
        out["fresh"] = f"{status2}, {'answered' if b'line 1' in data2 else 'no answer'}, {new:.0f} us (connect, initialize, call)"
        out["open"] = f"{open_after} of 256 attack connections still open after the real client's calls"
        for s in socks:
            s.close()
        # bodies without the token
        hwm0 = hwm_kib(srv.pid)
        answers = []
        t = time.perf_counter()
        for i in range(16):
            s = socket.create_connection(("127.0.0.1", port))
            s.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                      b"Content-Length: 67108864\r\n\r\n")
            sent = 0
            chunk = b"x" * (1 << 16)
            s.settimeout(5)
            try:
                while sent < 64 << 20:
                    s.sendall(chunk)
                    sent += len(chunk)
            except OSError:
                pass
            try:
                answers.append(s.recv(64).split(b"\r\n", 1)[0].decode())
            except OSError as e:
                answers.append(f"({e.__class__.__name__})")
            s.close()
        took = time.perf_counter() - t
        # 256 at once, each announcing 64 MiB and pushing, while the real
        # client calls
        hwm1 = hwm_kib(srv.pid)
        rss1 = rss_kib(srv.pid)
        socks = []
        for i in range(256):
            s = socket.create_connection(("127.0.0.1", port))
            s.setblocking(False)
            try:
                s.send(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                       b"Content-Length: 67108864\r\n\r\n" + b"x" * (1 << 16))
            except OSError:
                pass
            socks.append(s)
        pushed = 0
        for _ in range(16):  # keep pushing while the server lets them
            for s in socks:
                try:
                    pushed += s.send(b"x" * (1 << 16))
                except OSError:
                    pass
        held256 = rss_kib(srv.pid)
        t = time.perf_counter()
        status3, data3, _ = real.post(body)
        during = (time.perf_counter() - t) * 1e6
        refused = 0
        for s in socks:
            s.setblocking(True)
            s.settimeout(5)
            try:
                if s.recv(64).startswith(b"HTTP/1.1 401 "):
                    refused += 1
            except OSError:
                pass
            s.close()
        out["bodies256"] = (f"{(held256 - rss1) / 1024:.1f} MiB (RSS {rss1 / 1024:.1f} -> {held256 / 1024:.1f} MiB, "
                            f"peak {hwm1 / 1024:.1f} -> {hwm_kib(srv.pid) / 1024:.1f} MiB); {refused} of 256 answered "
                            f"401 on their head; {pushed >> 20} MiB of body pushed after the heads, not read")
        out["during256"] = f"{status3}, {'answered' if b'line 1' in data3 else 'no answer'}, {during:.0f} us"
        out["bodies"] = (f"16 x Content-Length 64 MiB without the token: {sorted(set(answers))}, "
                         f"{took:.2f} s in all; peak RSS {hwm0 / 1024:.1f} -> {hwm_kib(srv.pid) / 1024:.1f} MiB")
    finally:
        srv.terminate()
        srv.wait()
    return out


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = os.path.join(tmp, "repo")
        os.mkdir(root)
        with open(os.path.join(root, "f20.txt"), "w") as f:
            f.writelines(f"line {i} of a twenty-line file\n" for i in range(1, 21))
        print(f"load average at start: {os.getloadavg()[0]:.1f}")
        rows = per_call(root) if "per_call" in PARTS else []
        print("\n| call | client | stdio (us) | HTTP (us) | HTTP / stdio | HTTP floor (us) | floor / stdio | "
              "server CPU per call, stdio (us) | HTTP (us) |\n|---|---|---:|---:|---:|---:|---:|---:|---:|")
        for name, s, h, cs, ch, fl, r, rfl in rows:
            for client, hh, ff in (("http.client", h, fl), ("raw socket", r, rfl)):
                if not hh:
                    continue
                fcells = f"{ff:.0f} | {ff / s:.2f}x" if ff else "- | -"
                print(f"| {name} | {client} | {s:.0f} | {hh:.0f} | {hh / s:.2f}x | {fcells} | {cs:.0f} | {ch:.0f} |")
        print("\n| concurrent sessions | calls/s | failed sessions |\n|---:|---:|---:|")
        for n, rate, failed in (throughput(root) if "throughput" in PARTS else []):
            print(f"| {n} | {rate:.0f} | {failed} |")
        if "attack" not in PARTS:
            return
        a = attack(root)
        print("\n| under attack | |\n|---|---|")
        print(f"| server memory held by 256 unauthenticated connections | {a['memory']} |")
        print(f"| the real client during the attack, kept-alive connection | {a['kept']} |")
        print(f"| the real client during the attack, new connection | {a['fresh']} |")
        print(f"| attack connections | {a['open']} |")
        print(f"| bodies before authentication | {a['bodies']} |")
        print(f"| server memory with 256 unauthenticated connections at once, each announcing Content-Length 64 MiB | {a['bodies256']} |")
        print(f"| the real client during that attack, kept-alive connection | {a['during256']} |")
        print(f"load average at end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
