"""The tools of ``pathgate mcp``: the reference filesystem server's tools
(same names and arguments) and pathgate's own, over one resolver per process
and one :class:`~pathgate.Session` per connection, every file operation
through :class:`~pathgate.Backend`.

Every path argument takes whatever the resolver accepts (canonical
addresses, legacy aliases, ``file://`` URIs and host paths inside a root)
plus text relative to the connection's working directory; a tool resolves
it once with :meth:`ConnectionTools.address` (which applies the client's
roots, see :mod:`.roots`, and names the address in the call log) and works
on the canonical address. Answers name canonical addresses only. Every tool
is bounded by the :class:`~.limits.Limits` (bytes read, bytes answered,
items listed), and says so when it cut an answer short. A failure the agent
should see is a tool result with ``isError: true`` whose text is pathgate's
one agent-visible message; misuse of the protocol (unknown tool, missing or
mistyped argument) is a JSON-RPC ``-32602`` error.

The table is :func:`build_tools`: a tool is a :class:`Tool` whose ``run``
takes the connection's :class:`ConnectionTools` and the checked arguments,
and answers a result (see :func:`text_result`) or raises :class:`ToolError`.
"""

from __future__ import annotations

import os
import threading
import time
import collections.abc as _abc
import typing as _t
import dataclasses as _dc
from typing import Any

from .. import Backend, Error, Resolver, Session
from . import calllog
from .limits import Limits
from .protocol import INVALID_PARAMS, Base64, Encoded, Peer, Request, RpcError, Text, json_str, json_text
from .roots import Scope

__all__ = ["QUICK_TOOLS", "ConnectionTools", "Tool", "ToolError", "build_tools", "quick_predicate",
           "text_result", "tool_handlers"]

PATHS = (
    " Paths: a canonical address (root:<key>/<path> or mod:<Name>/<path>), a file:// URI or "
    "host path inside a root, or text relative to the current directory (see cwd_push). "
    "Answers name canonical addresses."
)
INVALID = "Invalid path / not found"

_STR = {"type": "string"}
_BOOL = {"type": "boolean"}
# Every structured answer may say that it was cut short.
_CUT = {"truncated": _BOOL, "notice": _STR}
_TEXT_OUT = {"type": "object", "properties": {"content": _STR, **_CUT}, "required": ["content"]}


# What a tool answers: a result dict, or one already encoded.
Result = _t.Union[dict[str, Any], Encoded]


class ToolError(Exception):
    """A failure shown to the agent as an isError result; kind (the core's
    error name, when there is one) goes to the call log."""

    def __init__(self, message: str, kind: str | None = None) -> None:
        super().__init__(message)
        self.kind = kind


class _Result(_t.Protocol):
    @property
    def error(self) -> str | None: ...
    @property
    def kind(self) -> str | None: ...


_R = _t.TypeVar("_R", bound=_Result)


def _ok(result: _R) -> _R:
    """A Backend result, or its error (and kind) as the tool's."""
    if result.error is not None:
        raise ToolError(result.error, result.kind)
    return result


@_dc.dataclass(frozen=True)
class Tool:
    name: str
    title: str
    description: str
    input_schema: dict[str, Any]
    annotations: dict[str, Any]
    run: _abc.Callable[[ConnectionTools, dict[str, Any]], Result]
    output_schema: dict[str, Any] | None = _dc.field(default_factory=lambda: _TEXT_OUT)

    def listing(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "name": self.name,
            "title": self.title,
            "description": self.description,
            "inputSchema": self.input_schema,
            "annotations": {"title": self.title, **self.annotations},
        }
        if self.output_schema is not None:
            d["outputSchema"] = self.output_schema
        return d


def _schema(props: dict[str, Any], required: tuple[str, ...] = ()) -> dict[str, Any]:
    s: dict[str, Any] = {"type": "object", "properties": props}
    if required:
        s["required"] = list(required)
    return s


READ = {"readOnlyHint": True, "openWorldHint": False}


def _write(idempotent: bool, destructive: bool) -> dict[str, Any]:
    return {"readOnlyHint": False, "idempotentHint": idempotent,
            "destructiveHint": destructive, "openWorldHint": False}


# --------------------------------------------------------- argument checks


_TYPES: dict[str, _abc.Callable[[Any], bool]] = {
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool)
    or isinstance(v, float) and v.is_integer(),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "array": lambda v: isinstance(v, list),
    "object": lambda v: isinstance(v, dict),
}


def _validator(tool: str, schema: dict[str, Any]) -> _abc.Callable[[dict[str, Any]], None]:
    """A function checking a tool's arguments against its input schema
    (the subset of JSON Schema the tools use: required, string, integer,
    number, boolean, enum, minimum, maximum, arrays of those or of
    objects), built once per tool (RpcError -32602 naming what is wrong)."""
    required = tuple(schema.get("required", ()))
    props = [(name, _value_check(tool, name, sub)) for name, sub in schema.get("properties", {}).items()]

    def check(args: dict[str, Any]) -> None:
        for name in required:
            if name not in args:
                raise RpcError(INVALID_PARAMS, f"Invalid arguments for tool {tool}: missing '{name}'")
        for name, check_value in props:
            if name in args:
                check_value(args[name], name)

    return check


def _value_check(tool: str, where: str, s: dict[str, Any]) -> _abc.Callable[[Any, str], None]:
    """A checker of one value against schema s; its second argument names
    the value in the message ('edits[2].oldText')."""
    t = s.get("type")
    ok = _TYPES.get(t if isinstance(t, str) else "", lambda v: True)
    enum = s.get("enum")
    minimum = s.get("minimum")
    maximum = s.get("maximum")
    items = _value_check(tool, where, s.get("items", {})) if t == "array" else None
    min_items = s.get("minItems", 0)
    required = tuple(s.get("required", ())) if t == "object" else ()
    props = [(name, _value_check(tool, name, sub)) for name, sub in s.get("properties", {}).items()] \
        if t == "object" else []

    def check(v: Any, where: str) -> None:
        if not ok(v):
            raise RpcError(INVALID_PARAMS, f"Invalid arguments for tool {tool}: '{where}' must be {t}")
        if enum is not None and v not in enum:
            raise RpcError(INVALID_PARAMS, f"Invalid arguments for tool {tool}: '{where}' must be one of {enum}")
        if minimum is not None and v < minimum:
            raise RpcError(INVALID_PARAMS, f"Invalid arguments for tool {tool}: '{where}' must be >= {minimum}")
        if maximum is not None and v > maximum:
            raise RpcError(INVALID_PARAMS, f"Invalid arguments for tool {tool}: '{where}' must be <= {maximum}")
        if items is not None:
            if len(v) < min_items:
                raise RpcError(INVALID_PARAMS, f"Invalid arguments for tool {tool}: '{where}' must not be empty")
            for i, item in enumerate(v):
                items(item, f"{where}[{i}]")
        if props or required:
            for name in required:
                if name not in v:
                    raise RpcError(INVALID_PARAMS, f"Invalid arguments for tool {tool}: '{where}.{name}' is missing")
            for name, sub in props:
                if name in v:
                    sub(v[name], f"{where}.{name}")

    return check


# ------------------------------------------------------------------ answers


def text_result(text: str, _json: str = "", *, notice: str | None = None, **structured: Any) -> Encoded:
    """A text result: the text as content and as structuredContent.content
    (encoded once), with the other structured fields; `_json` adds fields
    already encoded ('"name":value,...'). A notice (the answer was cut
    short) ends the text and sets truncated and notice."""
    if notice:
        text = f"{text}\n{notice}" if text else notice
        structured["truncated"] = True
        structured["notice"] = notice
    t = json_str(text)
    more = json_text(structured)[1:-1] if structured else ""
    if _json:
        more = _json + ("," + more if more else "")
    return Encoded('{"content":[{"type":"text","text":' + t + '}],"structuredContent":{"content":'
                   + t + ("," + more if more else "") + "}}")


_text = text_result


def _file_text(data: bytes) -> Encoded:
    """A file's bytes as a text result (content and structuredContent),
    written from the bytes a piece at a time when long."""
    if len(data) <= 1 << 16:
        return text_result(data.decode("utf-8", "replace"))
    t = Text(data)
    return Encoded('{"content":[{"type":"text","text":', t, '}],"structuredContent":{"content":', t, "}}")


def _tree_json(nodes: list[dict[str, Any]], depth: int = 0) -> str:
    """json.dumps(nodes, indent=2, ensure_ascii=False) of a directory tree
    ({name, type[, children]}), written directly (the encoder is the pure
    Python one whenever it indents)."""
    if not nodes:
        return "[]"
    pad, inner = "  " * (depth + 1), "  " * (depth + 2)
    items = []
    for n in nodes:
        item = pad + "{\n" + inner + '"name": ' + json_str(n["name"]) + ",\n" + inner + '"type": "' + n["type"] + '"'
        if "children" in n:
            item += ",\n" + inner + '"children": ' + _tree_json(n["children"], depth + 2)
        items.append(item + "\n" + pad + "}")
    return "[\n" + ",\n".join(items) + "\n" + "  " * depth + "]"


def _name(address: str) -> str:
    return address.rstrip("/").rsplit("/", 1)[-1]


def _size(n: int) -> str:
    """The reference server's formatSize."""
    units = ["B", "KB", "MB", "GB", "TB"]
    if n <= 0:
        return "0 B"
    i = 0
    while i < len(units) - 1 and n >= 1024 ** (i + 1):
        i += 1
    return f"{n} B" if i == 0 else f"{n / 1024 ** i:.2f} {units[i]}"


_MIME = {
    ".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif",
    ".webp": "image/webp", ".bmp": "image/bmp", ".svg": "image/svg+xml", ".mp3": "audio/mpeg",
    ".wav": "audio/wav", ".ogg": "audio/ogg", ".flac": "audio/flac",
}


def _fail(exc: Error) -> ToolError:
    return ToolError(str(exc), getattr(exc, "kind", None))


class _Budget:
    """Items and bytes an answer may still take (Limits.max_items,
    max_answer): take() is False once either would be exceeded."""

    __slots__ = ("items", "bytes", "cut_by_bytes")

    def __init__(self, limits: Limits) -> None:
        self.items = limits.max_items
        self.bytes = limits.max_answer
        self.cut_by_bytes = False

    def take(self, size: int) -> bool:
        if self.items <= 0:
            return False
        if size > self.bytes:
            self.cut_by_bytes = True
            return False
        self.items -= 1
        self.bytes -= size
        return True

    def notice(self, limits: Limits, shown: int, what: str) -> str:
        return limits.answer_notice(shown, what) if self.cut_by_bytes else limits.items_notice(shown, what)


class Running:
    """How many commands (execute calls) run at the moment, across the
    sessions of a server: what its shutdown reports as killed."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.count = 0

    def __enter__(self) -> None:
        with self._lock:
            self.count += 1

    def __exit__(self, *exc: object) -> None:
        with self._lock:
            self.count -= 1


class ConnectionTools:
    """The per-connection state: a Session (home root, cwd stack), the
    Backend over it, the client's roots (Scope) and the caps."""

    def __init__(self, resolver: Resolver, *, allow_execute: bool, limits: Limits | None = None,
                 label: str = "stdio", execute_options: dict[str, Any] | None = None,
                 running: Running | None = None) -> None:
        self.running = running or Running()
        self.resolver = resolver
        self.session = Session(resolver)
        self.backend = Backend(self.session)
        if execute_options:
            self.backend.configure_execute(**execute_options)
        self.allow_execute = allow_execute
        self.limits = limits or Limits()
        self.label = label
        self.scope = Scope(resolver, self.session, label)
        self._allowed = tuple([f"root:{k}" for k in resolver.roots] + [f"mod:{m}" for m in resolver.mods])

    # ---------------------------------------------------------- paths

    def address(self, text: str | None) -> str:
        """The canonical address of a path argument (None: the current
        directory), inside the client's roots when it narrowed them; noted
        for the call log. The resolution's token is released at once."""
        session = self.session
        if text is None:
            text = session.pwd()
        res = session.resolve(text, require_exists=False)
        if not res.ok or res.ref is None:
            raise ToolError(res.error_message or INVALID, res.reason)
        try:
            address = str(res.ref)
            if self.scope.allowed is not None and not self.scope.contains(res.ref):
                raise ToolError(INVALID, "outside_client_roots")
        finally:
            self.resolver.release(res.ref)
        calllog.note(address)
        return address

    # -------------------------------------------------------- reading

    def read_text_file(self, a: dict[str, Any]) -> Result:
        head, tail = a.get("head"), a.get("tail")
        if head is not None and tail is not None:
            raise ToolError("Cannot specify both head and tail parameters simultaneously")
        address = self.address(a["path"])
        cap = self.limits.max_read
        if tail is not None:
            r = self.backend.tail(address, int(tail), max_file_size=cap, binary=True)
        else:
            r = self.backend.head(address, None if head is None else int(head),
                                  max_file_size=cap, binary=True)
        return _file_text(_ok(r).data or b"")

    def read_media_file(self, a: dict[str, Any]) -> Result:
        address = self.address(a["path"])
        data = _ok(self.backend.head(address, None, max_file_size=self.limits.max_read,
                                     binary=True)).data or b""
        name = _name(address)
        dot = name.rfind(".")
        mime = _MIME.get(name[dot:].lower() if dot > 0 else "", "application/octet-stream")
        b64 = Base64(data)
        if mime.startswith(("image/", "audio/")):
            head = '{"type":"' + mime.split("/")[0] + '","data":'
            tail = ',"mimeType":"' + mime + '"}'
        else:
            head = '{"type":"resource","resource":{"uri":' + json_str(address) + ',"mimeType":"' + mime \
                + '","blob":'
            tail = "}}"
        return Encoded('{"content":[' + head, b64, tail + '],"structuredContent":{"content":[' + head,
                       b64, tail + "]}}")

    def read_multiple_files(self, a: dict[str, Any]) -> Result:
        limits = self.limits
        paths = a["paths"]
        left = limits.max_read
        # the text: "<address>:\n<text>\n" per file, joined by "\n---\n";
        # structured: files[] with each text again
        text: list[str | bytes] = []
        files: list[str | Text] = []
        skipped = 0
        for i, p in enumerate(paths):
            if i >= limits.max_items:
                skipped = len(paths) - i
                break
            if i:
                text.append("\n---\n")
                files.append(",")
            message = None
            data = b""
            try:
                address = self.address(p)
                if left <= 0:
                    message = f"File '{address}' was not read: the files before it reached the " \
                              f"{limits.max_read}-byte cap of one call"
                else:
                    r = self.backend.head(address, None, max_file_size=min(left, limits.max_read),
                                          binary=True)
                    if r.error is not None:
                        message = r.error
                        if r.kind == "too_large" and left < limits.max_read:
                            message = self._over_budget(address, limits)
                    else:
                        data = r.data or b""
            except ToolError as e:
                message = str(e)
            if message is not None:
                text.append(f"paths[{i}]: Error - {message}")
                files.append('{"index":' + str(i) + ',"error":' + json_str(message) + "}")
                continue
            left -= len(data)
            text += [address + ":\n", data, "\n"]
            files += ['{"path":' + json_str(address) + ',"content":', Text(data), "}"]
        notice = None
        if skipped:
            notice = limits.items_notice(limits.max_items, "files")
            text += ["\n", notice]
        whole = Text(*text)
        structured_more = ',"truncated":true,"notice":' + json_str(notice) if notice else ""
        return Encoded('{"content":[{"type":"text","text":', whole,
                       '}],"structuredContent":{"content":', whole, ',"files":[', *files,
                       "]" + structured_more + "}}")

    def _over_budget(self, address: str, limits: Limits) -> str:
        """Why a file larger than what is left of a call's read cap was not
        read: too large for any call, or only for what was left."""
        st = self.backend.stat(address)
        if st.error is not None:
            return st.error
        if st.size is not None and st.size > limits.max_read:
            # refused from its size, with the size cap's message
            r = self.backend.head(address, None, max_file_size=limits.max_read, binary=True)
            if r.error is not None:
                return r.error
        return (f"File '{address}' was not read: the files before it reached the "
                f"{limits.max_read}-byte cap of one call")

    # -------------------------------------------------------- writing

    def write_file(self, a: dict[str, Any]) -> Result:
        address = self.address(a["path"])
        r = self.backend.write(address, a["content"])
        if r.error:
            raise ToolError(r.error, r.kind)
        return _text(f"Successfully wrote to {r.path}", path=r.path)

    def edit_file(self, a: dict[str, Any]) -> Result:
        address = self.address(a["path"])
        edits = [(e["oldText"], e["newText"]) for e in a["edits"]]
        # matched as the reference server matches (PATHGATE_FS_EDIT_LENIENT)
        r = _ok(self.backend.multi_edit(address, edits, dry_run=bool(a.get("dryRun", False)),
                                        lenient=True, max_file_size=self.limits.max_read))
        address, diff = r.path or address, r.diff or ""
        ticks = 3
        while "`" * ticks in diff:
            ticks += 1
        fence = "`" * ticks
        return _text(f"{fence}diff\n{diff}{fence}\n\n", path=address, diff=diff)

    def create_directory(self, a: dict[str, Any]) -> Result:
        address = _ok(self.backend.mkdir(self.address(a["path"]), parents=True)).path
        return _text(f"Successfully created directory {address}", path=address)

    def move_file(self, a: dict[str, Any]) -> Result:
        source = self.address(a["source"])
        destination = self.address(a["destination"])
        source = _ok(self.backend.stat(source)).path or source
        dest = _ok(self.backend.move(source, destination)).path
        return _text(f"Successfully moved {source} to {dest}", source=source, destination=dest)

    # -------------------------------------------------------- listing

    def list_directory(self, a: dict[str, Any]) -> Result:
        # names and kinds only: no stat per entry
        listing = _ok(self.backend.ls(self.address(a["path"]), metadata=False,
                                      limit=self.limits.max_items + 1)).entries or []
        # entries [{name, path, type}] written as JSON here: the encoder
        # takes longer over many small dicts than over the listing. Every
        # entry is <directory address>/<name>[/]; names never hold '\\' or
        # control characters (the core skips those), so a listing without
        # '"' needs no escaping at all.
        if not listing:
            return _text("", '"entries":[]')
        first = listing[0]["path"]
        start = first.rindex("/", 0, len(first) - 1) + 1
        prefix_json = json_str(first[:start])[1:-1]
        entries, lines = [], []
        limits = self.limits
        items, room = limits.max_items, limits.max_answer  # (the budget, inline: per entry)
        for item in listing:
            path = item["path"]
            room -= len(path) + 8
            if room < 0 or not items:
                break
            items -= 1
            if item["is_dir"]:
                name = path[start:-1]
                lines.append("[DIR] " + name)
                tail = '/","type":"directory"}'
            else:
                name = path[start:]
                lines.append("[FILE] " + name)
                tail = '","type":"file"}'
            if '"' in name:
                name = json_str(name)[1:-1]
            entries.append('{"name":"' + name + '","path":"' + prefix_json + name + tail)
        notice = None
        if len(lines) < len(listing):
            notice = (limits.answer_notice if room < 0 else limits.items_notice)(len(lines), "entries")
        return _text("\n".join(lines), '"entries":[' + ",".join(entries) + "]", notice=notice)

    def list_directory_with_sizes(self, a: dict[str, Any]) -> Result:
        entries: list[Any] = _ok(self.backend.ls(self.address(a["path"]),
                                                 limit=self.limits.max_items + 1)).entries or []
        # (cut short, the answer sorts and counts the entries it lists)
        if a.get("sortBy", "name") == "size":
            entries = sorted(entries, key=lambda e: -(0 if e["is_dir"] else int(e.get("size", 0))))
        budget = _Budget(self.limits)
        lines: list[str] = []
        shown = []
        for e in entries:
            line = (f"{'[DIR]' if e['is_dir'] else '[FILE]'} {_name(e['path']).ljust(30)} "
                    f"{'' if e['is_dir'] else _size(e.get('size', 0)).rjust(10)}")
            if not budget.take(len(line) + len(e["path"]) + 40):
                break
            lines.append(line)
            shown.append(e)
        notice = budget.notice(self.limits, len(shown), "entries") if len(shown) < len(entries) else None
        files = [e for e in shown if not e["is_dir"]]
        total = sum(e.get("size", 0) for e in files)
        lines += ["", f"Total: {len(files)} files, {len(shown) - len(files)} directories",
                  f"Combined size: {_size(total)}"]
        return _text("\n".join(lines), notice=notice, entries=[
            {"name": _name(e["path"]), "path": e["path"],
             "type": "directory" if e["is_dir"] else "file",
             "size": 0 if e["is_dir"] else e.get("size", 0)} for e in shown])

    def directory_tree(self, a: dict[str, Any]) -> Result:
        top = self.address(a["path"])
        entries = _ok(self.backend.tree(top, a.get("excludePatterns") or (),
                                        limit=self.limits.max_items + 1)).entries or []
        limits = self.limits
        keep = len(entries)
        budget = _Budget(limits)
        for i, entry in enumerate(entries):
            # a node costs its name and the JSON around it at its depth
            depth = entry["path"].count("/")
            if not budget.take(len(_name(entry["path"])) + 40 + 4 * depth):
                keep = i
                break
        root: list[dict[str, Any]] = []
        dirs: dict[str, list[dict[str, Any]]] = {top.rstrip("/") + "/": root}
        for entry in entries[:keep]:
            path = entry["path"]
            parent = path.rstrip("/").rsplit("/", 1)[0] + "/"
            node: dict[str, Any] = {"name": _name(path), "type": "directory" if entry["is_dir"] else "file"}
            if entry["is_dir"]:
                node["children"] = dirs[path] = []
            dirs.get(parent, root).append(node)
        notice = budget.notice(limits, keep, "entries") if keep < len(entries) else None
        return _text(_tree_json(root), notice=notice)

    def search_files(self, a: dict[str, Any]) -> Result:
        top = self.address(a["path"])
        limits = self.limits
        excludes = a.get("excludePatterns") or []
        allowed: set[str] | None = None
        if excludes:
            kept = _ok(self.backend.tree(top, excludes)).entries or []
            allowed = {e["path"] for e in kept}
        matches: list[str] = []
        budget = _Budget(limits)
        cut = False
        walk = self.backend.glob_iter(a["pattern"], top)
        try:
            for m in walk:
                path = m["path"]
                if allowed is not None and path not in allowed:
                    continue
                if not budget.take(len(path) + 1):
                    cut = True
                    break
                matches.append(path)
        except Error as e:
            raise _fail(e) from None
        finally:
            walk.close()
        notice = budget.notice(limits, len(matches), "matches") if cut else None
        return _text("\n".join(matches) if matches else "No matches found", notice=notice,
                     matches=matches)

    def get_file_info(self, a: dict[str, Any]) -> Result:
        st = _ok(self.backend.stat(self.address(a["path"])))
        # the text and the structured fields written here: one stat, no
        # intermediate dicts
        size, created, mode = st.size or 0, st.created_at or "", st.mode or 0
        modified, accessed = st.modified_at or "", st.accessed_at or ""
        is_dir = "true" if st.type == "directory" else "false"
        is_file = "true" if st.type == "file" else "false"
        permissions = format(mode & 0o777, "03o")
        text = (f"size: {size}\ncreated: {created}\nmodified: {modified}\naccessed: {accessed}\n"
                f"isDirectory: {is_dir}\nisFile: {is_file}\npermissions: {permissions}")
        return _text(text, f'"path":{json_str(st.path or "")},"size":{size},"created":"{created}",'
                           f'"modified":"{modified}","accessed":"{accessed}","isDirectory":{is_dir},'
                           f'"isFile":{is_file},"permissions":"{permissions}"')

    def list_allowed_directories(self, a: dict[str, Any]) -> Result:
        narrowed = self.scope.addresses
        dirs = narrowed if narrowed is not None else self._allowed
        return _text("Allowed directories:\n" + "\n".join(dirs), directories=list(dirs))

    # ------------------------------------------------------ pathgate's own

    def resolve(self, a: dict[str, Any]) -> Result:
        # The answer carries the address only: no token outlives the call.
        with self.backend.resolved(a["path"], require_exists=bool(a.get("require_exists", True))) as res:
            if not res.ok or res.ref is None:
                raise ToolError(res.error_message or INVALID, res.reason)
            if self.scope.allowed is not None and not self.scope.contains(res.ref):
                raise ToolError(INVALID, "outside_client_roots")
            address = str(res.ref)
            exists = bool(res.exists)
        calllog.note(address)
        return _text(address, address=address, exists=exists)

    def grep(self, a: dict[str, Any]) -> Result:
        limits = self.limits
        mc = a.get("max_count")
        all_bases = bool(a.get("all_bases", False))
        if all_bases and (a.get("path") is not None or self.scope.allowed is not None):
            # every base is more than a path, or than the client's roots
            raise ToolError("all_bases searches every root and mod: give no path (and it is not "
                            "available when the client narrowed its roots)", "invalid_argument")
        path = None if all_bases else self.address(a.get("path"))
        walk = self.backend.grep_iter(a["pattern"], path, a.get("glob"),
                                      max_count=None if mc is None else int(mc),
                                      regex=bool(a.get("regex", False)),
                                      ignore_case=bool(a.get("ignore_case", False)),
                                      max_file_size=limits.max_read, all_bases=all_bases)
        matches: list[Any] = []
        lines: list[str] = []
        budget = _Budget(limits)
        summary: dict[str, Any] | None = None
        cut = False
        try:
            for m in walk:
                # as the command line prints them: address:line:text
                line = f"{m['path']}:{m['line']}:{m['text']}"
                if not budget.take(len(line) + len(m["path"]) + 32):
                    cut = True
                    break
                lines.append(line)
                matches.append(m)
            else:
                summary = walk.summary()  # the walk's flags and counts, once it ended
        except Error as e:
            raise _fail(e) from None
        finally:
            walk.close()
        truncated = bool(summary and summary.get("truncated"))
        if not lines:
            lines = ["No matches found"]
        if truncated:
            lines.append(f"(stopped after {len(matches)} matches)")
        notices = []
        if cut:
            notices.append(budget.notice(limits, len(matches), "matches"))
        if summary and summary.get("skipped_large"):
            notices.append(f"[{summary['skipped_large']} file(s) larger than the {limits.max_read}-byte "
                           "read cap were not searched]")
        structured: dict[str, Any] = {"matches": matches}
        if not notices:
            structured["truncated"] = truncated
        return _text("\n".join(lines), notice="\n".join(notices) or None, **structured)

    def cwd_get(self, a: dict[str, Any]) -> Result:
        s = self.session.get()
        return _text(f"cwd: {s.cwd}\nhome: {s.home}\ndepth: {s.depth}",
                     cwd=s.cwd, home=s.home, depth=s.depth)

    def cwd_push(self, a: dict[str, Any]) -> Result:
        try:
            msg = self.session.push(self.address(a["path"]))
        except Error as e:
            raise _fail(e) from None
        s = self.session.get()
        return _text(msg, cwd=s.cwd, depth=s.depth)

    def cwd_pop(self, a: dict[str, Any]) -> Result:
        try:
            msg = self.session.pop()
        except Error as e:
            raise _fail(e) from None
        s = self.session.get()
        calllog.note(s.cwd)
        return _text(msg, cwd=s.cwd, depth=s.depth)

    def execute(self, a: dict[str, Any]) -> Result:
        self.address(None)  # the directory it runs in: inside the client's roots
        t = a.get("timeout")
        timeout = min(120, self.limits.max_timeout) if t is None else int(t)
        with self.running:
            r = self.backend.execute(a["command"], timeout=timeout)
        if r.exit_code is None:
            raise ToolError(r.output, "not_run")
        text = r.output + ("" if r.output.endswith("\n") or not r.output else "\n")
        text += f"[exit code {r.exit_code}]" + (" [output truncated]" if r.truncated else "")
        quarantined = list(r.quarantined)
        if quarantined:
            # links planted at protected names, moved out when the command
            # ended (docs/exec.md "Planted links")
            text += f"\n[quarantined (planted links at protected names): {', '.join(quarantined)}]"
        return _text(text, output=r.output, exit_code=r.exit_code, truncated=bool(r.truncated),
                     quarantined=quarantined)


# ------------------------------------------------------------------ the table

_PATH = {"path": {"type": "string", "description": "file or directory" + PATHS}}


def _out(props: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "properties": {"content": _STR, **_CUT, **props}, "required": ["content"]}


_ENTRY = {"type": "object", "properties": {"name": _STR, "path": _STR, "type": _STR}}


def execute_description(limits: Limits, allow_domains: _abc.Sequence[str] | None = None,
                        toolchains: _abc.Sequence[str] | None = None,
                        toolchains_at_host_path: bool = False) -> str:
    """What the execute tool tells the model: the containment, the network
    as the policy really has it, the view's paths (the toolchains' by their
    view paths) and the timeout."""
    tools = ""
    if toolchains:
        places = [t if toolchains_at_host_path else
                  "/pathgate/tool/" + os.path.basename(os.path.normpath(t)) for t in toolchains]
        tools = (" Toolchains of the host, read-only, their bin first in PATH: "
                 + ", ".join(places) + ".")
    if allow_domains:
        network = ("network: only " + ", ".join(allow_domains) + " (HTTP and HTTPS through "
                   "pathgate's proxy; every other host is refused)")
    else:
        network = "network: off (no host can be reached)"
    return ("Run a shell command in the current directory, contained (Landlock: writes only "
            f"below writable roots; {network}); answers its output and exit code. In the "
            "command's view each root is at /pathgate/root/<key> and each mod at "
            "/pathgate/mod/<Name> (root:<key>/x is /pathgate/root/<key>/x)." + tools +
            f" 'timeout' in seconds, at most {limits.max_timeout} (default "
            f"{min(120, limits.max_timeout)}).")


def build_tools(*, allow_execute: bool, limits: Limits | None = None,
                allow_domains: _abc.Sequence[str] | None = None,
                toolchains: _abc.Sequence[str] | None = None,
                toolchains_at_host_path: bool = False) -> list[Tool]:
    limits = limits or Limits()
    read_text = _schema({
        **_PATH,
        "head": {"type": "integer", "minimum": 0, "description": "only the first N lines"},
        "tail": {"type": "integer", "minimum": 0, "description": "only the last N lines"},
    }, ("path",))
    cap = (f" Reads at most {limits.max_read} bytes: a larger file (or head/tail window) answers "
           "that it is larger than the size cap.")
    listed = (f" Lists at most {limits.max_items} items and {limits.max_answer} bytes, saying so "
              "when it leaves some out.")
    C = ConnectionTools
    tools = [
        Tool("read_text_file", "Read Text File",
             "Read a file as text (bytes that are not UTF-8 shown as U+FFFD). 'head' reads only "
             "the first N lines, 'tail' only the last N." + cap + PATHS,
             read_text, READ, C.read_text_file),
        Tool("read_file", "Read File (Deprecated)",
             "Read the complete contents of a file as text. DEPRECATED: use read_text_file." + cap + PATHS,
             read_text, READ, C.read_text_file),
        Tool("read_media_file", "Read Media File",
             "Read a file as base64 with its MIME type: image/audio content, or an embedded "
             "resource (its uri the canonical address) for any other type." + cap + PATHS,
             _schema(_PATH, ("path",)), READ, C.read_media_file,
             {"type": "object", "properties": {"content": {"type": "array"}}, "required": ["content"]}),
        Tool("read_multiple_files", "Read Multiple Files",
             "Read several files; each is answered under its canonical address, and a failed one "
             "(named by its index) does not fail the others. Reads at most "
             f"{limits.max_read} bytes and {limits.max_items} files in all." + PATHS,
             _schema({"paths": {"type": "array", "items": _STR, "minItems": 1}}, ("paths",)),
             READ, C.read_multiple_files, _out({"files": {"type": "array"}})),
        Tool("write_file", "Write File",
             "Create a file or replace it completely (atomically; missing parent directories are "
             "created)." + PATHS,
             _schema({**_PATH, "content": _STR}, ("path", "content")), _write(True, True),
             C.write_file, _out({"path": _STR})),
        Tool("edit_file", "Edit File",
             "Replace text in a file: edits apply in order, each to the text the edits before "
             "left, all or nothing. An oldText matches its first exact occurrence, else the first "
             "lines equal to its lines ignoring whitespace at both ends (newText then takes the "
             "file's indentation). Answers a unified diff; dryRun changes nothing." + PATHS,
             _schema({**_PATH, "edits": {"type": "array", "items": {
                 "type": "object", "properties": {"oldText": _STR, "newText": _STR},
                 "required": ["oldText", "newText"]}},
                 "dryRun": {"type": "boolean", "default": False}}, ("path", "edits")),
             _write(False, True), C.edit_file, _out({"path": _STR, "diff": _STR})),
        Tool("create_directory", "Create Directory",
             "Create a directory and any missing parents; an existing directory is success." + PATHS,
             _schema(_PATH, ("path",)), _write(True, False), C.create_directory, _out({"path": _STR})),
        Tool("list_directory", "List Directory",
             "The entries of a directory as '[DIR] name' and '[FILE] name' lines." + listed + PATHS,
             _schema(_PATH, ("path",)), READ, C.list_directory,
             _out({"entries": {"type": "array", "items": _ENTRY}})),
        Tool("list_directory_with_sizes", "List Directory with Sizes",
             "The entries of a directory with sizes and a total; sortBy 'name' or 'size'." + listed + PATHS,
             _schema({**_PATH, "sortBy": {"type": "string", "enum": ["name", "size"], "default": "name"}},
                     ("path",)), READ, C.list_directory_with_sizes,
             _out({"entries": {"type": "array", "items": _ENTRY}})),
        Tool("directory_tree", "Directory Tree",
             "A recursive JSON tree of {name, type, children}; excludePatterns are globs matched "
             "against paths relative to 'path' (a pattern without '/' matches a name at any "
             "depth). Symlinked directories are listed, not entered." + listed + PATHS,
             _schema({**_PATH, "excludePatterns": {"type": "array", "items": _STR}}, ("path",)),
             READ, C.directory_tree),
        Tool("move_file", "Move File",
             "Move or rename a file or directory, within a root or across roots; never replaces "
             "an existing destination." + PATHS,
             _schema({"source": _PATH["path"], "destination": _PATH["path"]}, ("source", "destination")),
             _write(False, True), C.move_file, _out({"source": _STR, "destination": _STR})),
        Tool("search_files", "Search Files",
             "Files below 'path' whose path relative to it matches the glob 'pattern' ('*.ext' "
             "matches at any depth; '**' spans directories), minus excludePatterns." + listed + PATHS,
             _schema({**_PATH, "pattern": _STR, "excludePatterns": {"type": "array", "items": _STR}},
                     ("path", "pattern")), READ, C.search_files,
             _out({"matches": {"type": "array", "items": _STR}})),
        Tool("get_file_info", "Get File Info",
             "Size, times, type and permissions of a file or directory." + PATHS,
             _schema(_PATH, ("path",)), READ, C.get_file_info, _out({"path": _STR})),
        Tool("list_allowed_directories", "List Allowed Directories",
             "The canonical addresses of the roots and mods this server serves (root:<key>, "
             "mod:<Name>), or of the client's roots inside them; everything below them is "
             "reachable, nothing else.",
             _schema({}), READ, C.list_allowed_directories,
             _out({"directories": {"type": "array", "items": _STR}})),
        Tool("resolve", "Resolve",
             "The canonical address of a path; require_exists (default true) fails on a missing "
             "target." + PATHS,
             _schema({**_PATH, "require_exists": {"type": "boolean", "default": True}}, ("path",)),
             READ, C.resolve, _out({"address": _STR, "exists": _BOOL})),
        Tool("grep", "Grep",
             "Search the files below 'path' (default: the current directory) for 'pattern': "
             "literal text, or a PCRE2 regular expression with regex; ignore_case matches "
             "case-insensitively; all_bases (without 'path') searches every root and mod, "
             "e.g. a game and its mods together. Answers 'address:line:text' lines. 'glob' "
             "filters files, "
             f"max_count caps the matches; files over {limits.max_read} bytes are not searched."
             + listed + PATHS,
             _schema({"pattern": _STR, "path": _PATH["path"], "glob": _STR,
                      "max_count": {"type": "integer", "minimum": 0},
                      "regex": {"type": "boolean", "default": False},
                      "ignore_case": {"type": "boolean", "default": False},
                      "all_bases": {"type": "boolean", "default": False}}, ("pattern",)),
             READ, C.grep, _out({"matches": {"type": "array"}})),
        Tool("cwd_get", "Current Directory",
             "The current directory, the home root and the depth of the directory stack (this "
             "connection's own).",
             _schema({}), READ, C.cwd_get,
             _out({"cwd": _STR, "home": _STR, "depth": {"type": "integer"}})),
        Tool("cwd_push", "Push Directory",
             "Enter a directory, saving the current one on the stack (at most 100 deep); relative "
             "paths of later calls resolve against it. Pushing the current directory answers "
             "'already in <address>' and saves nothing." + PATHS,
             _schema(_PATH, ("path",)), {"readOnlyHint": True, "openWorldHint": False}, C.cwd_push,
             _out({"cwd": _STR, "depth": {"type": "integer"}})),
        Tool("cwd_pop", "Pop Directory",
             "Return to the directory saved by the last cwd_push; on an empty stack a message, "
             "not an error.",
             _schema({}), {"readOnlyHint": True, "openWorldHint": False}, C.cwd_pop,
             _out({"cwd": _STR, "depth": {"type": "integer"}})),
    ]
    if allow_execute:
        tools.append(Tool(
            "execute", "Execute",
            execute_description(limits, allow_domains, toolchains, toolchains_at_host_path),
            _schema({"command": _STR, "timeout": {"type": "integer", "minimum": 1,
                                                  "maximum": limits.max_timeout}}, ("command",)),
            {"readOnlyHint": False, "destructiveHint": True, "openWorldHint": False},
            C.execute, _out({"output": _STR, "exit_code": {"type": "integer"},
                             "quarantined": {"type": "array", "items": _STR}})))
    from .edit_tools import build as edit_tools  # apply_patch and the text editor tools

    tools.extend(edit_tools(limits))
    return tools


# Tools whose work is one lookup, one file read or one directory listing,
# with nothing to wait for: the reading thread answers them itself when no
# other input is waiting (see protocol.Connection.serve). Writes (which may
# sync), moves (which may copy), walks, multi-file reads and execute are
# handed to a thread of their own.
QUICK_TOOLS = frozenset((
    "read_text_file", "read_file", "list_directory", "list_directory_with_sizes", "get_file_info",
    "list_allowed_directories", "resolve", "cwd_get", "cwd_push", "cwd_pop",
))


def quick_predicate(tools: list[Tool], state: ConnectionTools | None = None
                    ) -> _abc.Callable[[str, dict[str, Any]], bool]:
    """The Connection's `quick` predicate: ping, initialize, tools/list and
    calls of the QUICK_TOOLS among `tools` (none while the client's roots
    are to be asked: the call waits for the client's answer, which the
    reading thread must be free to read)."""
    quick_tools = QUICK_TOOLS & {t.name for t in tools}
    protocol = frozenset(("ping", "initialize", "tools/list"))
    scope = state.scope if state is not None else None

    def quick(method: str, params: dict[str, Any]) -> bool:
        if method == "tools/call":
            name = params.get("name")
            return isinstance(name, str) and name in quick_tools and not (scope and scope.stale)
        return method in protocol

    return quick


def tool_handlers(tools: list[Tool], state: ConnectionTools, log: calllog.CallLog | None = None
                  ) -> dict[str, Any]:
    """The tools/list and tools/call handlers of one connection; each call
    is one line of the call log."""
    by_name = {t.name: (t.run, _validator(t.name, t.input_schema)) for t in tools}
    listing = {"tools": [t.listing() for t in tools]}
    calls = log or calllog.CallLog()

    def tools_list(params: dict[str, Any], req: Request) -> dict[str, Any]:
        return listing

    def tools_call(params: dict[str, Any], req: Request) -> Result:
        name = params.get("name")
        rec = calls.begin()
        started = time.perf_counter()
        outcome, kind = "invalid", None
        try:
            if not isinstance(name, str):
                raise RpcError(INVALID_PARAMS, "Invalid params: 'name' must be a string")
            found = by_name.get(name)
            if found is None:
                raise RpcError(INVALID_PARAMS, f"Unknown tool: {name}")
            run, check = found
            args = params.get("arguments")
            if args is None:
                args = {}
            if not isinstance(args, dict):
                raise RpcError(INVALID_PARAMS, "Invalid params: 'arguments' must be an object")
            check(args)
            outcome = "failed"
            if isinstance(req.peer, Peer) and req.out is not None:
                state.scope.refresh(req.peer, req.out)
            try:
                result = run(state, args)
                outcome = "ok"
                return result
            except ToolError as e:
                outcome, kind = "error", e.kind
                return {"content": [{"type": "text", "text": str(e)}], "isError": True}
            except (Error, ValueError) as e:  # a core refusal not caught above: its message
                outcome, kind = "error", getattr(e, "kind", None)
                return {"content": [{"type": "text", "text": str(e)}], "isError": True}
        finally:
            if req.cancelled:
                outcome = "cancelled"
            calls.end(rec, session=state.label, tool=name if isinstance(name, str) else "?",
                      outcome=outcome, kind=kind, started=started)

    return {"tools/list": tools_list, "tools/call": tools_call}
