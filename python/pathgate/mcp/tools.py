"""The tools of ``pathgate mcp``: the reference filesystem server's tools
(same names and arguments) and pathgate's own, over one resolver per process
and one :class:`~pathgate.Session` per connection.

Every path argument takes whatever the resolver accepts (canonical
addresses, legacy aliases, ``file://`` URIs and host paths inside a root)
plus text relative to the connection's working directory; answers name
canonical addresses only. A failure the agent should see is a tool result
with ``isError: true`` whose text is pathgate's one agent-visible message;
misuse of the protocol (unknown tool, missing or mistyped argument) is a
JSON-RPC ``-32602`` error.
"""

from __future__ import annotations

import base64
import json
import collections.abc as _abc
import typing as _t
import dataclasses as _dc
from typing import Any

from .. import Backend, Error, Resolver, Session, _core
from .protocol import INVALID_PARAMS, Encoded, Request, RpcError, json_str, json_text
from .protocol import _str_ascii

__all__ = ["QUICK_TOOLS", "ConnectionTools", "Tool", "build_tools", "quick_predicate", "tool_handlers"]

PATHS = (
    " Paths: a canonical address (root:<key>/<path> or mod:<Name>/<path>), a file:// URI or "
    "host path inside a root, or text relative to the current directory (see cwd_push). "
    "Answers name canonical addresses."
)

_STR = {"type": "string"}
_TEXT_OUT = {"type": "object", "properties": {"content": _STR}, "required": ["content"]}


# What a tool answers: a result dict, or one already encoded.
Result = _t.Union[dict[str, Any], Encoded]


class ToolError(Exception):
    """A failure shown to the agent as an isError result."""


class _Result(_t.Protocol):
    error: str | None


_R = _t.TypeVar("_R", bound=_Result)


def _ok(result: _R) -> _R:
    """A Backend result, or its error as the tool's."""
    if result.error is not None:
        raise ToolError(result.error)
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


def _check(tool: Tool, args: dict[str, Any]) -> None:
    """The subset of JSON Schema the tools use: required, string, integer,
    number, boolean, enum, minimum, array of those or of objects."""
    _validator(tool.name, tool.input_schema)(args)


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
    """A function checking a tool's arguments against its input schema,
    built once per tool (RpcError -32602 naming what is wrong)."""
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


# ------------------------------------------------------------------ helpers


def _text(text: str, _json: str = "", **structured: Any) -> Encoded:
    """A text result: the text as content and as structuredContent.content
    (encoded once), with the other structured fields; `_json` adds fields
    already encoded ('"name":value,...')."""
    t = json_str(text)
    more = json_text(structured)[1:-1] if structured else ""
    if _json:
        more = _json + ("," + more if more else "")
    return Encoded('{"content":[{"type":"text","text":' + t + '}],"structuredContent":{"content":'
                   + t + ("," + more if more else "") + "}}")


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


def _int(v: Any) -> int:
    return int(v)


class ConnectionTools:
    """The per-connection state: a Session (home root, cwd stack) and the
    Backend over it."""

    def __init__(self, resolver: Resolver, *, allow_execute: bool) -> None:
        self.resolver = resolver
        self.session = Session(resolver)
        self.backend = Backend(self.session)
        self.allow_execute = allow_execute
        self._allowed = tuple([f"root:{k}" for k in resolver.roots] + [f"mod:{m}" for m in resolver.mods])

    def _fail(self, exc: Error) -> ToolError:
        return ToolError(str(exc))

    # -------------------------------------------------------- reading

    def read_text_file(self, a: dict[str, Any]) -> Result:
        head, tail = a.get("head"), a.get("tail")
        if head is not None and tail is not None:
            raise ToolError("Cannot specify both head and tail parameters simultaneously")
        try:
            if tail is not None:
                data = _core._fs_tail(self.session, a["path"], _int(tail))
            else:
                data = _core._fs_head(self.session, a["path"], None if head is None else _int(head))
        except Error as e:
            raise self._fail(e) from None
        return _text(data.decode("utf-8", "replace"))

    def read_media_file(self, a: dict[str, Any]) -> Result:
        address = _ok(self.backend.stat(a["path"])).path or ""
        try:
            data: bytes = _core._fs_head(self.session, address, None)
        except Error as e:
            raise self._fail(e) from None
        dot = _name(address).rfind(".")
        mime = _MIME.get(_name(address)[dot:].lower() if dot > 0 else "", "application/octet-stream")
        b64 = base64.b64encode(data).decode("ascii")
        if mime.startswith(("image/", "audio/")):
            item: dict[str, Any] = {"type": mime.split("/")[0], "data": b64, "mimeType": mime}
        else:
            item = {"type": "resource", "resource": {"uri": address, "mimeType": mime, "blob": b64}}
        return {"content": [item], "structuredContent": {"content": [item]}}

    def read_multiple_files(self, a: dict[str, Any]) -> Result:
        parts: list[str] = []
        files: list[dict[str, Any]] = []
        for i, p in enumerate(a["paths"]):
            try:
                address = _ok(self.backend.stat(p)).path or ""
                text = _ok(self.backend.head(address, None)).content
                parts.append(f"{address}:\n{text}\n")
                files.append({"path": address, "content": text})
            except ToolError as e:
                parts.append(f"paths[{i}]: Error - {e}")
                files.append({"index": i, "error": str(e)})
        return _text("\n---\n".join(parts), files=files)

    # -------------------------------------------------------- writing

    def write_file(self, a: dict[str, Any]) -> Result:
        r = self.backend.write(a["path"], a["content"])
        if r.error:
            raise ToolError(r.error)
        return _text(f"Successfully wrote to {r.path}", path=r.path)

    def edit_file(self, a: dict[str, Any]) -> Result:
        edits = [(e["oldText"], e["newText"]) for e in a["edits"]]
        # matched as the reference server matches (PATHGATE_FS_EDIT_LENIENT)
        r = _ok(self.backend.multi_edit(a["path"], edits, dry_run=bool(a.get("dryRun", False)),
                                        lenient=True))
        address, diff = r.path, r.diff or ""
        ticks = 3
        while "`" * ticks in diff:
            ticks += 1
        fence = "`" * ticks
        return _text(f"{fence}diff\n{diff}{fence}\n\n", path=address, diff=diff)

    def create_directory(self, a: dict[str, Any]) -> Result:
        address = _ok(self.backend.mkdir(a["path"], parents=True)).path
        return _text(f"Successfully created directory {address}", path=address)

    def move_file(self, a: dict[str, Any]) -> Result:
        source = _ok(self.backend.stat(a["source"])).path or ""
        dest = _ok(self.backend.move(source, a["destination"])).path
        return _text(f"Successfully moved {source} to {dest}", source=source, destination=dest)

    # -------------------------------------------------------- listing

    def _ls(self, path: str) -> list[dict[str, Any]]:
        return _t.cast("list[dict[str, Any]]", _ok(self.backend.ls(path)).entries or [])

    def list_directory(self, a: dict[str, Any]) -> Result:
        try:  # names and kinds only: no stat per entry
            listing = _core._fs_ls(self.session, a["path"], metadata=False)
        except Error as e:
            raise self._fail(e) from None
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
        for item in listing:
            path = item["path"]
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
        return _text("\n".join(lines), '"entries":[' + ",".join(entries) + "]")

    def list_directory_with_sizes(self, a: dict[str, Any]) -> Result:
        entries = self._ls(a["path"])
        if a.get("sortBy", "name") == "size":
            entries = sorted(entries, key=lambda e: -(0 if e["is_dir"] else e.get("size", 0)))
        lines = [
            f"{'[DIR]' if e['is_dir'] else '[FILE]'} {_name(e['path']).ljust(30)} "
            f"{'' if e['is_dir'] else _size(e.get('size', 0)).rjust(10)}"
            for e in entries
        ]
        files = [e for e in entries if not e["is_dir"]]
        total = sum(e.get("size", 0) for e in files)
        lines += ["", f"Total: {len(files)} files, {len(entries) - len(files)} directories",
                  f"Combined size: {_size(total)}"]
        return _text("\n".join(lines), entries=[
            {"name": _name(e["path"]), "path": e["path"],
             "type": "directory" if e["is_dir"] else "file",
             "size": 0 if e["is_dir"] else e.get("size", 0)} for e in entries])

    def directory_tree(self, a: dict[str, Any]) -> Result:
        address = _ok(self.backend.stat(a["path"])).path or ""
        entries = _ok(self.backend.tree(address, a.get("excludePatterns") or ())).entries or []
        root: list[dict[str, Any]] = []
        dirs: dict[str, list[dict[str, Any]]] = {address.rstrip("/") + "/": root}
        for entry in entries:
            path = entry["path"]
            parent = path.rstrip("/").rsplit("/", 1)[0] + "/"
            node: dict[str, Any] = {"name": _name(path), "type": "directory" if entry["is_dir"] else "file"}
            if entry["is_dir"]:
                node["children"] = dirs[path] = []
            dirs.get(parent, root).append(node)
        return _text(json.dumps(root, indent=2, ensure_ascii=False))

    def search_files(self, a: dict[str, Any]) -> Result:
        try:
            matches = [m["path"] for m in _core._fs_glob(self.session, a["pattern"], a["path"])]
        except Error as e:
            raise self._fail(e) from None
        excludes = a.get("excludePatterns") or []
        if excludes and matches:
            address = _ok(self.backend.stat(a["path"])).path or ""
            kept = _ok(self.backend.tree(address, excludes)).entries or []
            allowed = {e["path"] for e in kept}
            matches = [m for m in matches if m in allowed]
        return _text("\n".join(matches) if matches else "No matches found", matches=matches)

    def get_file_info(self, a: dict[str, Any]) -> Result:
        try:
            st = _core._fs_stat(self.session, a["path"])
        except Error as e:
            raise self._fail(e) from None
        # the text and the structured fields written here: one stat, no
        # intermediate dicts
        size, created, mode = st["size"], st.get("created_at") or "", st["mode"]
        modified, accessed = st["modified_at"], st["accessed_at"]
        is_dir = "true" if st["type"] == "directory" else "false"
        is_file = "true" if st["type"] == "file" else "false"
        permissions = format(mode & 0o777, "03o")
        text = (f"size: {size}\ncreated: {created}\nmodified: {modified}\naccessed: {accessed}\n"
                f"isDirectory: {is_dir}\nisFile: {is_file}\npermissions: {permissions}")
        return _text(text, f'"path":{json_str(st["path"])},"size":{size},"created":"{created}",'
                           f'"modified":"{modified}","accessed":"{accessed}","isDirectory":{is_dir},'
                           f'"isFile":{is_file},"permissions":"{permissions}"')

    def list_allowed_directories(self, a: dict[str, Any]) -> Result:
        dirs = self._allowed  # a resolver's roots and mods never change
        return _text("Allowed directories:\n" + "\n".join(dirs), directories=list(dirs))

    # ------------------------------------------------------ pathgate's own

    def resolve(self, a: dict[str, Any]) -> Result:
        res = self.session.resolve(a["path"], require_exists=bool(a.get("require_exists", True)))
        if not res.ok or res.ref is None:
            raise ToolError(res.error_message or "Invalid path / not found")
        address = str(res.ref)
        return _text(address, address=address, exists=bool(res.exists), token=res.ref.token)

    def grep(self, a: dict[str, Any]) -> Result:
        mc = a.get("max_count")
        r = self.backend.grep(a["pattern"], a.get("path"), a.get("glob"),
                              max_count=None if mc is None else _int(mc))
        if r.error:
            raise ToolError(r.error)
        matches = r.matches or []
        lines = [f"{m['path']}:{m['line']}: {m['text']}" for m in matches]
        if not lines:
            lines = ["No matches found"]
        if r.truncated:
            lines.append(f"(stopped after {len(matches)} matches)")
        return _text("\n".join(lines), matches=[dict(m) for m in matches], truncated=r.truncated)

    def cwd_get(self, a: dict[str, Any]) -> Result:
        s = self.session.get()
        return _text(f"cwd: {s.cwd}\nhome: {s.home}\ndepth: {s.depth}",
                     cwd=s.cwd, home=s.home, depth=s.depth)

    def cwd_push(self, a: dict[str, Any]) -> Result:
        try:
            msg = self.session.push(a["path"])
        except Error as e:
            raise self._fail(e) from None
        s = self.session.get()
        return _text(msg, cwd=s.cwd, depth=s.depth)

    def cwd_pop(self, a: dict[str, Any]) -> Result:
        try:
            msg = self.session.pop()
        except Error as e:
            raise self._fail(e) from None
        s = self.session.get()
        return _text(msg, cwd=s.cwd, depth=s.depth)

    def execute(self, a: dict[str, Any]) -> Result:
        t = a.get("timeout")
        r = self.backend.execute(a["command"], timeout=None if t is None else _int(t))
        if r.exit_code is None:
            raise ToolError(r.output)
        text = r.output + ("" if r.output.endswith("\n") or not r.output else "\n")
        text += f"[exit code {r.exit_code}]" + (" [output truncated]" if r.truncated else "")
        return _text(text, output=r.output, exit_code=r.exit_code, truncated=bool(r.truncated))


# ------------------------------------------------------------------ the table

_PATH = {"path": {"type": "string", "description": "file or directory" + PATHS}}


def _out(props: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "properties": {"content": _STR, **props}, "required": ["content"]}


_ENTRY = {"type": "object", "properties": {"name": _STR, "path": _STR, "type": _STR}}


def build_tools(*, allow_execute: bool) -> list[Tool]:
    read_text = _schema({
        **_PATH,
        "head": {"type": "integer", "minimum": 0, "description": "only the first N lines"},
        "tail": {"type": "integer", "minimum": 0, "description": "only the last N lines"},
    }, ("path",))
    C = ConnectionTools
    tools = [
        Tool("read_text_file", "Read Text File",
             "Read a file as text (bytes that are not UTF-8 shown as U+FFFD). 'head' reads only "
             "the first N lines, 'tail' only the last N." + PATHS,
             read_text, READ, C.read_text_file),
        Tool("read_file", "Read File (Deprecated)",
             "Read the complete contents of a file as text. DEPRECATED: use read_text_file." + PATHS,
             read_text, READ, C.read_text_file),
        Tool("read_media_file", "Read Media File",
             "Read a file as base64 with its MIME type: image/audio content, or an embedded "
             "resource (its uri the canonical address) for any other type." + PATHS,
             _schema(_PATH, ("path",)), READ, C.read_media_file,
             {"type": "object", "properties": {"content": {"type": "array"}}, "required": ["content"]}),
        Tool("read_multiple_files", "Read Multiple Files",
             "Read several files; each is answered under its canonical address, and a failed one "
             "(named by its index) does not fail the others." + PATHS,
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
             "The entries of a directory as '[DIR] name' and '[FILE] name' lines." + PATHS,
             _schema(_PATH, ("path",)), READ, C.list_directory,
             _out({"entries": {"type": "array", "items": _ENTRY}})),
        Tool("list_directory_with_sizes", "List Directory with Sizes",
             "The entries of a directory with sizes and a total; sortBy 'name' or 'size'." + PATHS,
             _schema({**_PATH, "sortBy": {"type": "string", "enum": ["name", "size"], "default": "name"}},
                     ("path",)), READ, C.list_directory_with_sizes,
             _out({"entries": {"type": "array", "items": _ENTRY}})),
        Tool("directory_tree", "Directory Tree",
             "A recursive JSON tree of {name, type, children}; excludePatterns are globs matched "
             "against paths relative to 'path' (a pattern without '/' matches a name at any "
             "depth). Symlinked directories are listed, not entered." + PATHS,
             _schema({**_PATH, "excludePatterns": {"type": "array", "items": _STR}}, ("path",)),
             READ, C.directory_tree),
        Tool("move_file", "Move File",
             "Move or rename a file or directory, within a root or across roots; never replaces "
             "an existing destination." + PATHS,
             _schema({"source": _PATH["path"], "destination": _PATH["path"]}, ("source", "destination")),
             _write(False, True), C.move_file, _out({"source": _STR, "destination": _STR})),
        Tool("search_files", "Search Files",
             "Files below 'path' whose path relative to it matches the glob 'pattern' ('*.ext' "
             "matches at any depth; '**' spans directories), minus excludePatterns." + PATHS,
             _schema({**_PATH, "pattern": _STR, "excludePatterns": {"type": "array", "items": _STR}},
                     ("path", "pattern")), READ, C.search_files,
             _out({"matches": {"type": "array", "items": _STR}})),
        Tool("get_file_info", "Get File Info",
             "Size, times, type and permissions of a file or directory." + PATHS,
             _schema(_PATH, ("path",)), READ, C.get_file_info, _out({"path": _STR})),
        Tool("list_allowed_directories", "List Allowed Directories",
             "The canonical addresses of the roots and mods this server serves (root:<key>, "
             "mod:<Name>); everything below them is reachable, nothing else.",
             _schema({}), READ, C.list_allowed_directories,
             _out({"directories": {"type": "array", "items": _STR}})),
        Tool("resolve", "Resolve",
             "The canonical address of a path; require_exists (default true) fails on a missing "
             "target." + PATHS,
             _schema({**_PATH, "require_exists": {"type": "boolean", "default": True}}, ("path",)),
             READ, C.resolve, _out({"address": _STR, "exists": {"type": "boolean"}, "token": _STR})),
        Tool("grep", "Grep",
             "Literal, case-sensitive search of the files below 'path' (default: the current "
             "directory): 'address:line: text' lines. 'glob' filters files, max_count caps the "
             "matches." + PATHS,
             _schema({"pattern": _STR, "path": _PATH["path"], "glob": _STR,
                      "max_count": {"type": "integer", "minimum": 0}}, ("pattern",)),
             READ, C.grep, _out({"matches": {"type": "array"}, "truncated": {"type": "boolean"}})),
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
            "Run a shell command in the current directory, contained (Landlock: writes only "
            "below writable roots, no network); answers its output and exit code.",
            _schema({"command": _STR, "timeout": {"type": "integer", "minimum": 1}}, ("command",)),
            {"readOnlyHint": False, "destructiveHint": True, "openWorldHint": False},
            C.execute, _out({"output": _STR, "exit_code": {"type": "integer"},
                             "truncated": {"type": "boolean"}})))
    from .edit_tools import build as edit_tools  # apply_patch and the text editor tools

    tools.extend(edit_tools())
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


def quick_predicate(tools: list[Tool]) -> _abc.Callable[[str, dict[str, Any]], bool]:
    """The Connection's `quick` predicate: ping, initialize, tools/list and
    calls of the QUICK_TOOLS among `tools`."""
    quick_tools = QUICK_TOOLS & {t.name for t in tools}
    protocol = frozenset(("ping", "initialize", "tools/list"))

    def quick(method: str, params: dict[str, Any]) -> bool:
        if method == "tools/call":
            name = params.get("name")
            return isinstance(name, str) and name in quick_tools
        return method in protocol

    return quick


def tool_handlers(tools: list[Tool], state: ConnectionTools) -> dict[str, Any]:
    """The tools/list and tools/call handlers of one connection."""
    by_name = {t.name: (t.run, _validator(t.name, t.input_schema)) for t in tools}
    listing = {"tools": [t.listing() for t in tools]}

    def tools_list(params: dict[str, Any], req: Request) -> dict[str, Any]:
        return listing

    def tools_call(params: dict[str, Any], req: Request) -> Result:
        name = params.get("name")
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
        try:
            return run(state, args)
        except ToolError as e:
            return {"content": [{"type": "text", "text": str(e)}], "isError": True}
        except (Error, ValueError) as e:  # a core refusal not caught above: its message
            return {"content": [{"type": "text", "text": str(e)}], "isError": True}

    return {"tools/list": tools_list, "tools/call": tools_call}
