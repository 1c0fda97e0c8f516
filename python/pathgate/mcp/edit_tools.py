"""The edit tools models are trained on, as tools of ``pathgate mcp``:

* ``apply_patch`` takes Codex's patch text (``input``, as Codex's JSON
  ``apply_patch`` tool does) and answers Codex's summary, canonical
  addresses in it (docs/patch.md);
* ``str_replace_based_edit_tool`` (Anthropic's text editor, 2025-07-28:
  ``view`` with ``view_range`` and ``max_characters``, ``create``,
  ``str_replace``, ``insert``) and ``str_replace_editor`` (2025-01-24: the
  same and ``undo_edit``) answer as Anthropic's reference implementation,
  addresses in place of paths (docs/editor.md). The undo history belongs
  to the connection.

Each runs through the connection's :class:`~pathgate.Backend`, so paths are
what every tool takes (relative ones against the connection's directory),
and as every tool, inside the client's roots (checked with
:meth:`ConnectionTools.address`, which names the address in the call log:
for a patch, every path it names), reading no file over the read cap.
"""

from __future__ import annotations

from typing import Any

from .limits import Limits
from .tools import PATHS, ConnectionTools, Result, Tool, ToolError, _out, _schema, _text, _write

__all__ = ["build"]

_STR = {"type": "string"}

APPLY_PATCH_DESCRIPTION = (
    "Edit files with a patch in Codex's apply_patch format:\n"
    "*** Begin Patch\n"
    "*** Add File: <path>        (then every line of the new file, each prefixed with +)\n"
    "*** Delete File: <path>\n"
    "*** Update File: <path>     (optionally *** Move to: <new path>, then hunks)\n"
    "@@ [an optional line of context, such as a class or function]\n"
    " context line\n"
    "-removed line\n"
    "+added line\n"
    "*** End Patch\n"
    "Show 3 lines of context above and below each change. All or nothing: when a hunk does "
    "not apply, no file is changed (atomic: false applies file by file, as Codex)."
)

_EDITOR_COMMON = (
    "View, create and edit text files. `view` shows a file with line numbers (`cat -n`; "
    "`view_range` [start, end], end -1 for the rest) or lists a directory two levels deep; "
    "`create` writes a new file (`file_text`); `str_replace` replaces `old_str`, which must "
    "occur exactly once, with `new_str`; `insert` adds `new_str` after line `insert_line` "
    "(0: at the start)."
)


def _editor_schema(undo: bool) -> dict[str, Any]:
    props: dict[str, Any] = {
        "command": {"type": "string", "description": "view, create, str_replace, insert"
                    + (", undo_edit" if undo else "")},
        "path": {"type": "string", "description": "the file or directory" + PATHS},
        "file_text": {"type": "string", "description": "create: the content of the new file"},
        "old_str": {"type": "string", "description": "str_replace: the exact text to replace"},
        "new_str": {"type": "string", "description": "str_replace: the replacement; insert: the text"},
        "insert_line": {"type": "integer", "description": "insert: the line after which to insert"},
        "view_range": {"type": "array", "items": {"type": "integer"},
                       "description": "view: [start, end] lines, 1-based (end -1: to the end)"},
    }
    if not undo:
        props["max_characters"] = {"type": "integer", "minimum": 1,
                                   "description": "view: show at most this many characters"}
    return _schema(props, ("command", "path"))


# The markers of the lines that name a path, and what the core's parser
# trims (Rust's White_Space, core/src/edit/fs_patch_seek.c).
_PATH_MARKERS = ("*** Add File: ", "*** Delete File: ", "*** Update File: ", "*** Move to: ")
_RS_SPACE = "\t\n\x0b\x0c\r \x85\xa0\u1680" + "".join(map(chr, range(0x2000, 0x200B))) \
    + "\u2028\u2029\u202f\u205f\u3000"


def patch_paths(patch: str) -> list[str]:
    """Every path a patch may name: what follows a marker on a line (split
    at "\n" as the core splits it), the line trimmed as the core trims a
    hunk header, and untrimmed as it reads "Move to". A context line that
    looks like a header is taken too: more paths are checked, never fewer."""
    found: list[str] = []
    for line in patch.split("\n"):
        for text in (line.strip(_RS_SPACE), line.removesuffix("\r")):
            for marker in _PATH_MARKERS:
                if text.startswith(marker):
                    found.append(text[len(marker):])
    return list(dict.fromkeys(found))


def apply_patch(c: ConnectionTools, a: dict[str, Any]) -> Result:
    patch = a["input"]
    for path in patch_paths(patch):
        try:
            c.address(path)  # inside the client's roots; the first is logged
        except ToolError as e:
            # only the client's narrowing refuses here: a path that does
            # not resolve is the core's to answer (every path of the patch
            # is resolved before anything is written), and a line taken
            # for a header may be none
            if e.kind == "outside_client_roots":
                raise
    r = c.backend.apply_patch(patch, atomic=bool(a.get("atomic", True)),
                              max_file_size=c.limits.max_read)
    if r.error is not None:
        raise ToolError(r.error, r.kind)
    return _text(r.output, files=r.files)


def _editor(tool: str) -> Any:
    def run(c: ConnectionTools, a: dict[str, Any]) -> Result:
        address = c.address(a["path"])
        args = {k: v for k, v in a.items() if k not in ("command", "path")}
        r = c.backend.text_editor(a["command"], address, tool=tool, max_file_size=c.limits.max_read,
                                  **args)
        if r.error is not None:
            raise ToolError(r.error, r.kind)
        return _text(r.output or "")

    return run


def build(limits: Limits) -> list[Tool]:
    """The three tools, for build_tools' list."""
    cap = f" A file over {limits.max_read} bytes is refused as larger than the size cap."
    return [
        Tool("apply_patch", "Apply Patch", APPLY_PATCH_DESCRIPTION + cap + PATHS,
             _schema({"input": {"type": "string", "description": "The entire contents of the "
                                "apply_patch command"},
                      "atomic": {"type": "boolean", "default": True}}, ("input",)),
             _write(False, True), apply_patch, _out({"files": {"type": "array"}})),
        Tool("str_replace_based_edit_tool", "Text Editor", _EDITOR_COMMON + cap + PATHS,
             _editor_schema(undo=False), _write(False, True), _editor("str_replace_based_edit_tool")),
        Tool("str_replace_editor", "Text Editor (2025-01-24)",
             _EDITOR_COMMON + " `undo_edit` reverts the last edit of a file (this connection's)."
             + cap + PATHS, _editor_schema(undo=True), _write(False, True), _editor("str_replace_editor")),
    ]
