"""The JSON-RPC layer of `pathgate mcp` on its own (pathgate.mcp.protocol):
framing, the error codes the spec names, version negotiation,
notifications, cancellation, concurrency and internal errors; and the
command's stdout carrying protocol messages only."""

import io
import json
import os
import subprocess
import sys
import threading
import time

import pytest

from pathgate.mcp import make_connection
from pathgate.mcp.protocol import (
    INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST, LATEST_PROTOCOL_VERSION, METHOD_NOT_FOUND,
    PARSE_ERROR, Connection, RpcError,
)


def run(lines, handlers=None, **kw):
    """Serves the given lines to EOF; the answers, parsed, in order."""
    data = b"".join((l if isinstance(l, bytes) else json.dumps(l).encode()) + b"\n" for l in lines)
    out = io.BytesIO()
    conn = Connection(io.BytesIO(data), out, handlers or {}, server_info={"name": "t", "version": "0"},
                      capabilities={"tools": {}}, **kw)
    conn.serve()
    raw = out.getvalue()
    assert raw == b"" or raw.endswith(b"\n")
    return [json.loads(l) for l in raw.splitlines()]


def req(id, method, params=None):
    m = {"jsonrpc": "2.0", "id": id, "method": method}
    if params is not None:
        m["params"] = params
    return m


def by_id(answers):
    return {a["id"]: a for a in answers}


def test_initialize_negotiates_and_ping_answers_empty():
    a = run([req(1, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                   "clientInfo": {"name": "c", "version": "1"}}),
             {"jsonrpc": "2.0", "method": "notifications/initialized"},
             req(2, "ping"),
             req(3, "initialize", {"protocolVersion": "1999-01-01"})])
    assert sorted(x["id"] for x in a) == [1, 2, 3]
    a = by_id(a)
    assert a[1]["result"]["protocolVersion"] == "2025-06-18"
    assert a[1]["result"]["capabilities"] == {"tools": {}}
    assert a[1]["result"]["serverInfo"]["name"] == "t"
    assert a[2] == {"jsonrpc": "2.0", "id": 2, "result": {}}
    assert a[3]["result"]["protocolVersion"] == LATEST_PROTOCOL_VERSION


def test_errors_named_by_the_spec_and_the_server_keeps_serving():
    a = run([b"{not json", b"\xff\xfe", b"[1, 2]", {"id": 5, "method": "ping"},
             {"jsonrpc": "2.0", "id": True, "method": "ping"},
             {"jsonrpc": "2.0", "id": 6, "method": 7},
             req(7, "no/such/method"), req(8, "ping", [1, 2]),
             {"jsonrpc": "2.0", "id": 9},
             req(10, "initialize", {"protocolVersion": 3}),
             b"", b"   ", req("last", "ping")])
    codes = [(x["id"], x["error"]["code"]) if "error" in x else (x["id"], "ok") for x in a]
    # requests that reach a handler run on the pool: compare without order
    assert sorted(codes, key=repr) == sorted([
        (None, PARSE_ERROR), (None, PARSE_ERROR), (None, INVALID_REQUEST), (5, INVALID_REQUEST),
        (None, INVALID_REQUEST), (6, INVALID_REQUEST), (7, METHOD_NOT_FOUND),
        (8, INVALID_PARAMS), (9, INVALID_REQUEST), (10, INVALID_PARAMS), ("last", "ok"),
    ], key=repr)
    assert all(x["jsonrpc"] == "2.0" for x in a)


def test_an_overlong_line_is_skipped(monkeypatch):
    from pathgate.mcp import protocol

    monkeypatch.setattr(protocol, "MAX_LINE", 64)
    a = run([req(1, "ping"), b'{"jsonrpc":"2.0","id":2,"method":"ping","params":{"pad":"' + b"x" * 500 + b'"}}',
             req(3, "ping")])
    assert sorted(((repr(x["id"]), "error" in x) for x in a)) == [("1", False), ("3", False), ("None", True)]
    assert by_id(a)[None]["error"]["code"] == PARSE_ERROR


def test_hostile_json_does_not_stop_the_server():
    deep = b"[" * 100000 + b"]" * 100000
    nested = b'{"jsonrpc":"2.0","id":1,"method":"x","params":' + b'{"a":' * 50000 + b"1" + b"}" * 50000 + b"}"
    a = run([deep, nested, b'"just a string"', b"1e999999", req(2, "ping")], workers=2)
    codes = sorted(repr((x["id"], x.get("error", {}).get("code"))) for x in a)
    assert codes == sorted(repr(c) for c in [
        (None, PARSE_ERROR), (None, PARSE_ERROR), (None, INVALID_REQUEST), (None, INVALID_REQUEST),
        (2, None)])


def test_crlf_framing_notifications_and_responses_get_no_answer():
    a = run([json.dumps(req(1, "ping")).encode() + b"\r",
             {"jsonrpc": "2.0", "method": "notifications/whatever", "params": {}},
             {"jsonrpc": "2.0", "id": 99, "result": {}},
             {"jsonrpc": "2.0", "id": 98, "error": {"code": 1, "message": "x"}},
             req(2, "ping")])
    assert sorted(x["id"] for x in a) == [1, 2]


def test_handler_errors_and_internal_errors_hide_their_text():
    def bad(params, r):
        raise RuntimeError("/secret/host/path")

    def refuse(params, r):
        raise RpcError(INVALID_PARAMS, "no", {"why": 1})

    def unserialisable(params, r):
        return {"x": object()}

    a = by_id(run([req(1, "bad"), req(2, "refuse"), req(3, "unserialisable"), req(4, "ping")],
                  {"bad": bad, "refuse": refuse, "unserialisable": unserialisable}, workers=1))
    assert a[1]["error"] == {"code": INTERNAL_ERROR, "message": "Internal error"}
    assert a[3]["error"] == {"code": INTERNAL_ERROR, "message": "Internal error"}
    assert a[4]["result"] == {}
    assert a[2]["error"] == {"code": INVALID_PARAMS, "message": "no", "data": {"why": 1}}


class Pipe:
    """A Connection served on a thread, fed line by line through a pipe."""

    def __init__(self, handlers):
        r, w = os.pipe()
        self.w = os.fdopen(w, "wb", buffering=0)
        self.out = []
        self.cond = threading.Condition()
        pipe = self

        class Out(io.RawIOBase):
            def writable(self):
                return True

            def write(self, b):
                with pipe.cond:
                    pipe.out.extend(json.loads(l) for l in bytes(b).splitlines())
                    pipe.cond.notify_all()
                return len(b)

        self.conn = Connection(os.fdopen(r, "rb"), Out(), handlers, server_info={},
                               capabilities={}, workers=16)
        self.t = threading.Thread(target=self.conn.serve)
        self.t.start()

    def send(self, msg):
        self.w.write(json.dumps(msg).encode() + b"\n")

    def wait_for(self, pred, timeout=10):
        with self.cond:
            assert self.cond.wait_for(lambda: pred(self.out), timeout), self.out

    def close(self):
        self.w.close()
        self.t.join(10)
        assert not self.t.is_alive()


def test_cancelled_request_is_not_answered():
    release = threading.Event()
    started = threading.Event()

    def slow(params, r):
        started.set()
        release.wait(10)
        return {"done": True}

    p = Pipe({"slow": slow})
    p.send(req(7, "slow"))
    assert started.wait(10)
    p.send({"jsonrpc": "2.0", "method": "notifications/cancelled",
            "params": {"requestId": 7, "reason": "user"}})
    p.send(req(8, "ping"))
    p.wait_for(lambda out: any(x.get("id") == 8 for x in out))
    release.set()
    p.close()
    assert [x["id"] for x in p.out] == [8]


def test_requests_run_concurrently():
    barrier = threading.Barrier(8, timeout=10)

    def meet(params, r):
        barrier.wait()  # breaks (and fails) unless 8 run at once
        return {"n": params["n"]}

    p = Pipe({"meet": meet})
    for i in range(64):
        p.send(req(i, "meet", {"n": i}))
    p.wait_for(lambda out: len(out) == 64)
    p.close()
    assert sorted(x["id"] for x in p.out) == list(range(64))
    assert all(x["result"] == {"n": x["id"]} for x in p.out)


def test_each_request_is_handled_by_the_thread_that_read_it():
    names = []

    def who(params, r):
        names.append(threading.current_thread().name)
        return {}

    run([req(1, "who")], {"who": who}, workers=1)
    assert names == [threading.current_thread().name]  # one worker: the serving thread


# ------------------------------------------------------------ tools layer


def tool_call(id, name, args=None):
    p = {"name": name}
    if args is not None:
        p["arguments"] = args
    return req(id, "tools/call", p)


def test_tools_misuse_and_failures(resolver, tree):
    out = io.BytesIO()
    lines = [tool_call(1, "nope"), tool_call(2, "read_text_file"),
             tool_call(3, "read_text_file", {"path": 5}),
             tool_call(4, "edit_file", {"path": "x", "edits": [{"oldText": "a"}]}),
             tool_call(5, "read_text_file", {"path": str(tree["outside"] / "secret.txt")}),
             tool_call(6, "read_text_file", {"path": "README.md", "head": 1, "tail": 1}),
             tool_call(7, "read_text_file", {"path": "README.md"}),
             req(8, "tools/list"), tool_call(9, "execute", {"command": "true"}),
             req(10, "tools/call", {"name": "cwd_pop", "arguments": [1]})]
    data = b"".join(json.dumps(l).encode() + b"\n" for l in lines)
    conn = make_connection(resolver, io.BytesIO(data), out)
    conn.serve()
    a = by_id([json.loads(l) for l in out.getvalue().splitlines()])
    for i in (1, 2, 3, 4, 9, 10):
        assert a[i]["error"]["code"] == INVALID_PARAMS, a[i]
    assert a[5]["result"] == {"content": [{"type": "text", "text": "Invalid path / not found"}], "isError": True}
    assert "isError" in a[6]["result"]
    assert a[7]["result"]["structuredContent"] == {"content": "readme\n"}
    names = [t["name"] for t in a[8]["result"]["tools"]]
    assert "execute" not in names and "read_text_file" in names and "cwd_push" in names
    assert str(tree["tmp"]) not in out.getvalue().decode()


def test_execute_listed_only_when_allowed(resolver):
    out = io.BytesIO()
    conn = make_connection(resolver, io.BytesIO(json.dumps(req(1, "tools/list")).encode() + b"\n"),
                           out, allow_execute=True)
    conn.serve()
    tools = json.loads(out.getvalue())["result"]["tools"]
    ex = [t for t in tools if t["name"] == "execute"]
    assert ex and ex[0]["annotations"]["destructiveHint"] is True


def test_command_stdout_is_protocol_only(tree):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    lines = [req(1, "initialize", {"protocolVersion": "2025-11-25"}), b"oops",
             tool_call(2, "list_directory", {"path": "root:repo"}),
             tool_call(3, "read_text_file", {"path": "file://" + str(tree["outside"] / "secret.txt")})]
    data = b"".join((l if isinstance(l, bytes) else json.dumps(l).encode()) + b"\n" for l in lines)
    p = subprocess.run([sys.executable, "-m", "pathgate", "--root", f"repo={tree['repo']}", "mcp"],
                       input=data, capture_output=True, env=env, timeout=60, check=True)
    answers = [json.loads(l) for l in p.stdout.splitlines()]
    assert sorted(repr(x["id"]) for x in answers) == ["1", "2", "3", "None"]
    a = by_id(answers)
    assert a[None]["error"]["code"] == PARSE_ERROR
    assert "[DIR] common" in a[2]["result"]["content"][0]["text"]
    assert a[3]["result"]["isError"] is True
    assert str(tree["tmp"]).encode() not in p.stdout


def test_answers_hold_no_tokens_and_the_capacity_message_stays(tree):
    import pathgate

    r = pathgate.Resolver(roots={"repo": tree["repo"]}, max_tokens=2)
    # far more resolutions and directory changes than the registry holds:
    # every answer names an address and keeps no token
    lines = []
    for i in range(0, 600, 6):
        lines += [tool_call(i, "resolve", {"path": "README.md"}),
                  tool_call(i + 1, "resolve", {"path": "missing.txt", "require_exists": False}),
                  tool_call(i + 2, "cwd_push", {"path": "docs"}),
                  tool_call(i + 3, "read_text_file", {"path": "../README.md"}),
                  tool_call(i + 4, "cwd_pop"),
                  tool_call(i + 5, "grep", {"pattern": "readme", "path": "README.md"})]
    data = b"".join(json.dumps(l).encode() + b"\n" for l in lines)
    out = io.BytesIO()
    make_connection(r, io.BytesIO(data), out, workers=1).serve()  # in order: push, read, pop
    a = by_id([json.loads(l) for l in out.getvalue().splitlines()])
    assert len(a) == 600
    assert all("isError" not in x["result"] for x in a.values()), [x for x in a.values() if "isError" in x["result"]][:2]
    assert a[0]["result"]["structuredContent"] == {
        "content": "root:repo/README.md", "address": "root:repo/README.md", "exists": True}
    assert a[599]["result"]["content"][0]["text"] == "root:repo/README.md:1:readme"
    assert len(r) == 0
    # whoever really holds refs still meets the seed's cap and its message
    held = [r.resolve("root:repo/README.md").ref for _ in range(2)]
    assert len(r) == 2
    lines = [tool_call(1, "resolve", {"path": "README.md"}),
             tool_call(2, "read_text_file", {"path": "root:repo/README.md"}),
             tool_call(3, "cwd_push", {"path": "docs"})]
    out = io.BytesIO()
    make_connection(r, io.BytesIO(b"".join(json.dumps(l).encode() + b"\n" for l in lines)), out,
                    workers=1).serve()
    a = by_id([json.loads(l) for l in out.getvalue().splitlines()])
    assert a[1]["result"] == {"content": [{"type": "text", "text": pathgate.CAPACITY_MESSAGE}], "isError": True}
    assert pathgate.CAPACITY_MESSAGE == "Visibility registry capacity exceeded \u2014 restart server"
    assert a[2]["result"]["content"][0]["text"] == pathgate.CAPACITY_MESSAGE
    assert a[3]["result"]["content"][0]["text"] == pathgate.CAPACITY_MESSAGE
    for ref in held:
        r.release(ref)
    assert len(r) == 0


# ------------------------------------------------- the quick path and framing


class QuickPipe(Pipe):
    """A Pipe whose Connection answers `quick` methods on the reading thread."""

    def __init__(self, handlers, quick, workers=4):
        r, w = os.pipe()
        self.w = os.fdopen(w, "wb", buffering=0)
        self.out = []
        self.cond = threading.Condition()
        pipe = self

        class Out(io.RawIOBase):
            def writable(self):
                return True

            def write(self, b):
                with pipe.cond:
                    pipe.out.extend(json.loads(l) for l in bytes(b).splitlines())
                    pipe.cond.notify_all()
                return len(b)

        self.conn = Connection(os.fdopen(r, "rb"), Out(), handlers, server_info={},
                               capabilities={}, workers=workers, quick=quick)
        self.t = threading.Thread(target=self.conn.serve)
        self.t.start()

    def call(self, msg):
        self.send(msg)
        self.wait_for(lambda out: any(x.get("id") == msg["id"] for x in out))


def test_sequential_quick_requests_stay_on_the_reading_thread():
    """What leader/followers guarantees: quick requests one after another
    are answered by the thread that reads them, with no hand-over; a request
    that is not quick is run by the thread that read it, which hands the
    reading on first, so another thread answers what comes meanwhile. (Which
    thread reads once a hand-over is over is the scheduler's choice.)"""
    names = []
    started, release = threading.Event(), threading.Event()

    def who(params, r):
        names.append(threading.current_thread().name)
        return {}

    def block(params, r):
        names.append(threading.current_thread().name)
        started.set()
        release.wait(10)
        return {}

    p = QuickPipe({"who": who, "block": block}, lambda m, params: m == "who")
    for i in range(20):
        p.call(req(i, "who"))
    assert len(names) == 20 and len(set(names)) == 1  # no hand-over between them
    p.send(req(20, "block"))  # not quick: handed on
    assert started.wait(10)
    for i in range(21, 26):  # read and answered while it runs, again without hand-overs
        p.call(req(i, "who"))
    release.set()
    p.wait_for(lambda out: any(x.get("id") == 20 for x in out))
    p.close()
    assert names[20] == names[0]  # run by the thread that read it
    assert len(set(names[21:])) == 1 and names[21] != names[20]


def test_a_quick_request_with_input_waiting_is_handed_on():
    """A quick request is answered inline only when nothing else is waiting:
    here the second message arrives in the same write, so the blocking
    "quick" handler must not hold up the ping behind it."""
    release = threading.Event()

    def block(params, r):
        release.wait(10)
        return {"released": True}

    p = QuickPipe({"block": block}, lambda m, params: True)
    p.w.write((json.dumps(req(1, "block")) + "\n" + json.dumps(req(2, "ping")) + "\n").encode())
    p.wait_for(lambda out: any(x.get("id") == 2 for x in out))
    assert not any(x.get("id") == 1 for x in p.out)
    release.set()
    p.wait_for(lambda out: any(x.get("id") == 1 for x in out))
    p.close()


def test_descriptor_framing_split_lines_overlong_and_no_final_newline(monkeypatch):
    from pathgate.mcp import protocol

    monkeypatch.setattr(protocol, "MAX_LINE", 200)
    p = QuickPipe({}, lambda m, params: True)
    line = json.dumps(req(1, "ping")).encode() + b"\n"
    p.w.write(line[:7])  # a message in pieces is answered once complete
    time.sleep(0.05)
    assert p.out == []
    p.w.write(line[7:] + b"\r\n")
    p.wait_for(lambda out: len(out) == 1)
    # an overlong line, across several reads, is skipped and answered -32700
    p.w.write(b'{"jsonrpc":"2.0","id":2,"method":"ping","params":{"pad":"' + b"x" * 300)
    time.sleep(0.05)
    p.w.write(b"x" * 300 + b'"}}\n' + json.dumps(req(3, "ping")).encode() + b"\n")
    p.wait_for(lambda out: len(out) == 3)
    p.w.write(json.dumps(req(4, "ping")).encode())  # the last line needs no newline
    p.close()
    assert [x.get("id") for x in p.out] == [1, None, 3, 4]
    assert p.out[1]["error"]["code"] == PARSE_ERROR


def test_encoded_results_and_lone_surrogates():
    from pathgate.mcp.protocol import Encoded, json_str

    assert json_str('a"b\\c\n\u00e9') == json.dumps('a"b\\c\n\u00e9', ensure_ascii=False)
    assert json_str("plain") == '"plain"'
    a = by_id(run([req(1, "enc"), req(2, "sur"), req(3, "enc_sur"), req("s", "enc")], {
        "enc": lambda params, r: Encoded('{"t":' + json_str("\u00e9\"") + "}"),
        "sur": lambda params, r: {"t": "\ud800"},
        "enc_sur": lambda params, r: Encoded('{"t":' + json_str("x\ud800") + "}"),
    }, workers=1))
    assert a[1]["result"] == {"t": "\u00e9\""} and a["s"]["result"] == {"t": "\u00e9\""}
    assert a[2]["result"] == {"t": "\ud800"}
    assert a[3]["result"] == {"t": "x\ud800"}


def test_compiled_argument_checks():
    from pathgate.mcp.tools import _validator

    check = _validator("t", {"type": "object", "required": ["path"], "properties": {
        "path": {"type": "string"}, "n": {"type": "integer", "minimum": 0},
        "mode": {"type": "string", "enum": ["a", "b"]},
        "edits": {"type": "array", "minItems": 1, "items": {
            "type": "object", "required": ["oldText"], "properties": {"oldText": {"type": "string"}}}}}})
    check({"path": "x", "n": 2.0, "mode": "a", "edits": [{"oldText": "o"}]})
    for args, msg in [({}, "missing 'path'"), ({"path": 1}, "'path' must be string"),
                      ({"path": "x", "n": True}, "'n' must be integer"),
                      ({"path": "x", "n": -1}, "'n' must be >= 0"),
                      ({"path": "x", "mode": "c"}, "'mode' must be one of"),
                      ({"path": "x", "edits": []}, "'edits' must not be empty"),
                      ({"path": "x", "edits": [{}]}, "'edits[0].oldText' is missing"),
                      ({"path": "x", "edits": [{"oldText": 3}]}, "'edits[0].oldText' must be string")]:
        with pytest.raises(RpcError) as e:
            check(args)
        assert e.value.code == INVALID_PARAMS and msg in e.value.message, (args, e.value.message)


def test_list_directory_and_file_info_answers(resolver, tree):
    d = tree["repo"] / "odd"
    (d / "a").mkdir(parents=True)
    for name in ("a.txt", "a-b", 'q"uote', "\u00fcn\u00ef.txt"):
        (d / name).write_text("12345")
    os.chmod(d / "a.txt", 0o640)
    lines = [tool_call(1, "list_directory", {"path": "root:repo/odd"}),
             tool_call(2, "get_file_info", {"path": "root:repo/odd/a.txt"}),
             tool_call(3, "get_file_info", {"path": "root:repo/odd/a"}),
             tool_call(4, "list_directory", {"path": "root:repo/odd/a"})]
    out = io.BytesIO()
    make_connection(resolver, io.BytesIO(b"".join(json.dumps(l).encode() + b"\n" for l in lines)),
                    out, workers=1).serve()
    a = by_id([json.loads(l) for l in out.getvalue().splitlines()])
    names = ["a-b", "a.txt", "a", 'q"uote', "\u00fcn\u00ef.txt"]  # by address: "a/" after "a.txt"
    kinds = ["file", "file", "directory", "file", "file"]
    s = a[1]["result"]["structuredContent"]
    assert s["entries"] == [{"name": n, "path": "root:repo/odd/" + n + ("/" if k == "directory" else ""),
                             "type": k} for n, k in zip(names, kinds)]
    assert s["content"] == a[1]["result"]["content"][0]["text"] == "\n".join(
        ("[DIR] " if k == "directory" else "[FILE] ") + n for n, k in zip(names, kinds))
    info = a[2]["result"]["structuredContent"]
    st = os.stat(d / "a.txt")
    assert info["path"] == "root:repo/odd/a.txt"
    assert (info["size"], info["isFile"], info["isDirectory"], info["permissions"]) == (5, True, False, "640")
    assert info["modified"].endswith("+00:00") and info["accessed"].endswith("+00:00")
    assert "\nisFile: true\npermissions: 640" in info["content"]
    assert info["content"].startswith("size: 5\ncreated: ")
    assert int(st.st_mtime) == int(__import__("datetime").datetime.fromisoformat(info["modified"]).timestamp())
    assert a[3]["result"]["structuredContent"]["isDirectory"] is True
    assert a[4]["result"]["structuredContent"] == {"content": "", "entries": []}


def test_tree_json_is_what_json_dumps_indents():
    from pathgate.mcp.tools import _tree_json

    tree = [{"name": "a", "type": "directory", "children": [
        {"name": "q\"uote \u00fc", "type": "file"},
        {"name": "empty", "type": "directory", "children": []},
        {"name": "deep", "type": "directory", "children": [{"name": "x", "type": "file"}]}]},
        {"name": "b.txt", "type": "file"}]
    assert _tree_json(tree) == json.dumps(tree, indent=2, ensure_ascii=False)
    assert _tree_json([]) == json.dumps([], indent=2)
