#!/usr/bin/env python3
"""bench_mcp_redteam.py - the red team's reads against ``pathgate mcp``, each
in a fresh server, with the server's peak resident memory (VmHWM) measured
against the bound of issue 22: 64 MiB plus the configured read cap.

The files are sparse (NUL bytes: the worst case for a JSON answer, where
each byte becomes ``\\u0000``) or filled with bytes that are not UTF-8
(each becomes U+FFFD). Every answer is read to its end and its size
counted. Over stdio by default; TRANSPORTS=stdio,http adds Streamable HTTP.

    PYTHONPATH=build/python /usr/bin/python3 bench/bench_mcp_redteam.py

Prints a table; asserts nothing about time.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

MiB = 1 << 20
PYTHON = os.environ.get("PATHGATE_PYTHON", sys.executable)
TRANSPORTS = os.environ.get("TRANSPORTS", "stdio").split(",")


def status_kib(pid: int, key: str) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    return -1


def sparse(path: str, size: int) -> None:
    with open(path, "wb") as f:
        f.truncate(size)


def filled(path: str, size: int, byte: bytes) -> None:
    block = byte * MiB
    with open(path, "wb") as f:
        for _ in range(size // MiB):
            f.write(block)


class Stdio:
    def __init__(self, root: str, args: list[str]) -> None:
        self.p = subprocess.Popen([PYTHON, "-m", "pathgate", "--root", f"rt={root}", "mcp", *args],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, bufsize=0)
        self.pid = self.p.pid
        self.buf = b""
        self.call("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                 "clientInfo": {"name": "redteam", "version": "0"}})

    def call(self, method: str, params: dict) -> tuple[int, bytes]:
        """(answer bytes, its first 400 bytes)."""
        assert self.p.stdin and self.p.stdout
        self.p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).encode() + b"\n")
        size, head = 0, b""
        while True:
            data = self.p.stdout.read(1 << 20) if not self.buf else self.buf
            self.buf = b""
            if not data:
                raise RuntimeError("the server went away")
            nl = data.find(b"\n")
            part = data if nl < 0 else data[:nl]
            size += len(part)
            if len(head) < 400:
                head += part[:400 - len(head)]
            if nl >= 0:
                self.buf = data[nl + 1:]
                return size, head

    def close(self) -> None:
        assert self.p.stdin
        self.p.stdin.close()
        self.p.wait(60)


class Http:
    def __init__(self, root: str, args: list[str]) -> None:
        self.p = subprocess.Popen([PYTHON, "-m", "pathgate", "--root", f"rt={root}", "mcp", *args,
                                   "--http", "127.0.0.1:0"], stdin=subprocess.DEVNULL,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        self.pid = self.p.pid
        assert self.p.stderr
        line = self.p.stderr.readline().decode()
        m = re.search(r"http://127\.0\.0\.1:(\d+)/mcp", line)
        if not m:
            raise RuntimeError(line)
        self.conn = http.client.HTTPConnection("127.0.0.1", int(m.group(1)))
        self.sid: str | None = None
        self.call("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                 "clientInfo": {"name": "redteam", "version": "0"}})

    def call(self, method: str, params: dict) -> tuple[int, bytes]:
        headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
        if self.sid:
            headers["Mcp-Session-Id"] = self.sid
        self.conn.request("POST", "/mcp", json.dumps({"jsonrpc": "2.0", "id": 1, "method": method,
                                                      "params": params}), headers)
        r = self.conn.getresponse()
        self.sid = r.getheader("Mcp-Session-Id") or self.sid
        size, head = 0, b""
        while True:
            data = r.read(1 << 20)
            if not data:
                return size, head
            size += len(data)
            if len(head) < 400:
                head += data[:400 - len(head)]

    def close(self) -> None:
        self.p.terminate()
        self.p.wait(60)


def outcome(head: bytes) -> str:
    text = head.decode("utf-8", "replace")
    m = re.search(r'"isError":true', text)
    msg = re.search(r'"text":"((?:[^"\\]|\\.){0,90})', text)
    if m and msg:
        return "error: " + json.loads('"' + msg.group(1) + '"')
    if '"error"' in text[:60]:
        return "JSON-RPC error"
    if "truncated" in text:
        return "answered, with a notice"
    return "answered"


def main() -> int:
    top = tempfile.mkdtemp(prefix="pathgate-redteam-")
    root = os.path.join(top, "rt")
    os.makedirs(os.path.join(root, "parts"))
    try:
        sparse(os.path.join(root, "nul64.bin"), 64 * MiB)
        sparse(os.path.join(root, "nul256.bin"), 256 * MiB)
        sparse(os.path.join(root, "nul8.bin"), 8 * MiB)
        filled(os.path.join(root, "ff8.bin"), 8 * MiB, b"\xff")
        with open(os.path.join(root, "line8.txt"), "wb") as f:
            f.write(b"needle" + b"a" * (8 * MiB - 7) + b"\n")
        for i in range(40):
            sparse(os.path.join(root, "parts", f"p{i:02d}.bin"), MiB)
        many = os.path.join(root, "many")
        os.makedirs(many)
        for i in range(100_000):
            open(os.path.join(many, f"file-with-a-longish-name-{i:06d}.txt"), "wb").close()
        read = "read_text_file"
        cases = [
            # (what, server args, cap in bytes, tool, arguments)
            ("head=1, 64 MiB without a newline", [], 8 * MiB, read, {"path": "nul64.bin", "head": 1}),
            ("head=1, 256 MiB without a newline", [], 8 * MiB, read, {"path": "nul256.bin", "head": 1}),
            ("tail=1, 64 MiB without a newline", [], 8 * MiB, read, {"path": "nul64.bin", "tail": 1}),
            ("tail=1, 256 MiB without a newline", [], 8 * MiB, read, {"path": "nul256.bin", "tail": 1}),
            ("whole 256 MiB", [], 8 * MiB, read, {"path": "nul256.bin"}),
            ("read_media_file, 64 MiB", [], 8 * MiB, "read_media_file", {"path": "nul64.bin"}),
            ("read_media_file, 256 MiB", [], 8 * MiB, "read_media_file", {"path": "nul256.bin"}),
            ("8 MiB of NUL (each \\u0000, twice)", [], 8 * MiB, read, {"path": "nul8.bin"}),
            ("8 MiB not UTF-8 (each U+FFFD)", [], 8 * MiB, read, {"path": "ff8.bin"}),
            ("read_media_file, 8 MiB", [], 8 * MiB, "read_media_file", {"path": "nul8.bin"}),
            ("read_multiple_files, 40 x 1 MiB", [], 8 * MiB, "read_multiple_files",
             {"paths": [f"parts/p{i:02d}.bin" for i in range(40)]}),
            ("grep, one 8 MiB line", [], 8 * MiB, "grep", {"pattern": "needle", "path": "line8.txt"}),
            ("list_directory, 100,000 entries", [], 8 * MiB, "list_directory", {"path": "many"}),
            ("directory_tree, 100,000 entries", [], 8 * MiB, "directory_tree", {"path": "many"}),
            ("search_files, 100,000 matches", [], 8 * MiB, "search_files", {"path": "many", "pattern": "*.txt"}),
            ("cap 64M: head=1, 64 MiB without a newline", ["--max-read", "64M"], 64 * MiB, read,
             {"path": "nul64.bin", "head": 1}),
            ("cap 64M: tail=1, 256 MiB without a newline", ["--max-read", "64M"], 64 * MiB, read,
             {"path": "nul256.bin", "tail": 1}),
            ("cap 64M: read_media_file, 64 MiB", ["--max-read", "64M"], 64 * MiB, "read_media_file",
             {"path": "nul64.bin"}),
        ]
        print(f"pathgate mcp: the red team's reads, each in a fresh server; peak = the server's VmHWM; "
              f"bound = 64 MiB + the read cap; {os.cpu_count()} CPUs, load average "
              f"{' '.join(f'{x:.1f}' for x in os.getloadavg())}")
        print()
        print("| transport | read | cap (MiB) | outcome | answer (MiB) | time (s) | server RSS before (MiB) "
              "| peak (MiB) | bound (MiB) | within |")
        print("|---|---|---:|---|---:|---:|---:|---:|---:|---|")
        worst = True
        for transport in TRANSPORTS:
            for what, args, cap, tool, arguments in cases:
                server = (Http if transport == "http" else Stdio)(root, args)
                try:
                    server.call("tools/call", {"name": "read_text_file", "arguments": {"path": "parts/p00.bin",
                                                                                        "head": 1}})
                    before = status_kib(server.pid, "VmRSS")
                    t0 = time.monotonic()
                    size, head = server.call("tools/call", {"name": tool, "arguments": arguments})
                    took = time.monotonic() - t0
                    peak = status_kib(server.pid, "VmHWM")
                finally:
                    server.close()
                bound = 64 * 1024 + cap // 1024
                ok = peak < bound
                worst = worst and ok
                print(f"| {transport} | {tool} {what} | {cap // MiB} | {outcome(head)} | {size / MiB:.1f} | "
                      f"{took:.2f} | {before / 1024:.1f} | {peak / 1024:.1f} | {bound / 1024:.0f} | "
                      f"{'yes' if ok else 'NO'} |", flush=True)
        print()
        print("every read within the bound" if worst else "SOME READ EXCEEDED THE BOUND")
        return 0 if worst else 1
    finally:
        shutil.rmtree(top, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
