#!/usr/bin/env python3
"""Writes tests/data/editor: the text editor cases, each expectation taken
from Anthropic's reference implementation (anthropic-quickstarts,
computer-use-demo/computer_use_demo/tools/edit.py) run against a temporary
directory, with that directory's path written as the address root:t.

    /usr/bin/python3 tests/tools/gen_editor_cases.py \\
        --reference <checkout>/computer-use-demo/computer_use_demo/tools \\
        --out tests/data/editor

The reference's code is loaded from the checkout given, never copied here
(its only import outside the standard library, anthropic.types.beta, is
stubbed). Where pathgate deliberately differs (docs/editor.md), the case
says so in case.txt and its expected/ tree (or output) is pathgate's; every
other expectation is the reference's own answer.

Case directory: input/ (the tree of root t; root ro is read-only and holds
ro.txt), expected/ (the tree after the steps; absent = unchanged), and per
step N: N.cmd ("key: value" lines: command, path, tool, insert_line,
view_range, max_characters, kind), N.old_str / N.new_str / N.file_text (the
text arguments, exact bytes, when given), N.output or N.error (the answer).
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import os
import shutil
import sys
import tempfile
import types
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


def load_reference(tools: Path) -> types.ModuleType:
    beta = types.ModuleType("anthropic.types.beta")
    beta.BetaToolUnionParam = dict  # type: ignore[attr-defined]
    for name in ("anthropic", "anthropic.types"):
        sys.modules.setdefault(name, types.ModuleType(name))
    sys.modules["anthropic.types.beta"] = beta
    pkg = types.ModuleType("refedit")
    pkg.__path__ = [str(tools)]  # type: ignore[attr-defined]
    sys.modules["refedit"] = pkg
    for mod in ("base", "run", "edit"):
        spec = importlib.util.spec_from_file_location(f"refedit.{mod}", tools / f"{mod}.py")
        assert spec and spec.loader
        m = importlib.util.module_from_spec(spec)
        sys.modules[f"refedit.{mod}"] = m
        spec.loader.exec_module(m)
    return sys.modules["refedit.edit"]


@dataclass
class Step:
    command: str
    path: str  # relative to root t ("" is the root itself), or an address
    tool: str = "str_replace_based_edit_tool"
    args: dict[str, Any] = field(default_factory=dict)
    kind: str | None = None  # pathgate's kind when the answer is an error
    max_characters: int | None = None
    # pathgate's own answer where it deliberately differs (None: the reference's)
    output: str | None = None
    error: str | None = None


@dataclass
class Case:
    name: str
    files: dict[str, bytes | str]
    steps: list[Step]
    note: str = ""
    difference: str = ""  # a deliberate difference (docs/editor.md)
    expected: dict[str, bytes | str] | None = None  # pathgate's tree, when it differs
    reference: bool = True  # False: pathgate-only (no reference answer)


TWENTY = "".join(f"line {i}\n" for i in range(1, 21))
TABBED = "def f():\n\tif x:\n\t\treturn 1\n\treturn 2\n"
BIG = "".join(f"{i:05d} " + "x" * 60 + "\n" for i in range(400))

CASES: list[Case] = [
    # ------------------------------------------------------------ view
    Case("view_file", {"a.txt": "alpha\nbeta\ngamma\n"}, [Step("view", "a.txt")]),
    Case("view_file_no_final_newline", {"a.txt": "alpha\nbeta"}, [Step("view", "a.txt")]),
    Case("view_tabs_expanded", {"t.py": TABBED}, [Step("view", "t.py")]),
    Case("view_range_middle", {"n.txt": TWENTY}, [Step("view", "n.txt", args={"view_range": [2, 4]})]),
    Case("view_range_to_end", {"n.txt": TWENTY}, [Step("view", "n.txt", args={"view_range": [18, -1]})]),
    Case("view_range_last_empty_line", {"n.txt": TWENTY}, [Step("view", "n.txt", args={"view_range": [21, 21]})]),
    Case("view_range_first_too_small", {"n.txt": TWENTY},
         [Step("view", "n.txt", args={"view_range": [0, 5]}, kind="out_of_range")]),
    Case("view_range_first_too_large", {"n.txt": TWENTY},
         [Step("view", "n.txt", args={"view_range": [22, 25]}, kind="out_of_range")]),
    Case("view_range_second_too_large", {"n.txt": TWENTY},
         [Step("view", "n.txt", args={"view_range": [2, 30]}, kind="out_of_range")]),
    Case("view_range_second_before_first", {"n.txt": TWENTY},
         [Step("view", "n.txt", args={"view_range": [5, 3]}, kind="out_of_range")]),
    Case("view_range_three_numbers", {"n.txt": TWENTY},
         [Step("view", "n.txt", args={"view_range": [1, 2, 3]}, kind="invalid_argument")]),
    Case("view_range_not_integers", {"n.txt": TWENTY},
         [Step("view", "n.txt", args={"view_range": ["1", "2"]}, kind="invalid_argument")]),
    Case("view_directory_two_levels", {"a.txt": "a\n", "sub/b.txt": "b\n", "sub/deeper/c.txt": "c\n",
                                       "sub/deeper/deepest/d.txt": "d\n", ".hidden/x.txt": "x\n",
                                       "sub/.env": "secret\n", "z/y.txt": "y\n"},
         [Step("view", "")], note="find's order is the directory's; pathgate sorts by name (the generator "
                                 "reorders the reference's lines the same way)"),
    Case("view_subdirectory", {"sub/b.txt": "b\n", "sub/deeper/c.txt": "c\n"}, [Step("view", "sub")]),
    Case("view_directory_with_range", {"sub/b.txt": "b\n"},
         [Step("view", "sub", args={"view_range": [1, 2]}, kind="invalid_argument")]),
    Case("view_missing", {}, [Step("view", "nope.txt", kind="not_found")]),
    Case("view_large_file_truncated", {"big.txt": BIG}, [Step("view", "big.txt")]),
    Case("view_max_characters", {"n.txt": TWENTY}, [Step("view", "n.txt", max_characters=30)],
         note="max_characters (text_editor_20250728) cuts as maybe_truncate(content, max_characters)"),
    Case("view_crlf_file", {"w.txt": b"one\r\ntwo\r\nthree\r\n"}, [Step("view", "w.txt")]),
    Case("view_empty_file", {"e.txt": ""}, [Step("view", "e.txt")]),
    Case("view_invalid_utf8", {"l.txt": b"caf\xe9\n"}, [Step("view", "l.txt", kind="invalid_utf8")]),
    Case("view_truncated_utf8", {"l.txt": b"ok\n\xe2\x82"}, [Step("view", "l.txt", kind="invalid_utf8")]),
    Case("view_unicode", {"u.txt": "na\u00efve\tcaf\u00e9\n\u2603\tx\n"}, [Step("view", "u.txt")]),
    # ---------------------------------------------------------- create
    Case("create_file", {}, [Step("create", "new.txt", args={"file_text": "hello\nworld\n"}),
                             Step("view", "new.txt")]),
    Case("create_existing", {"a.txt": "a\n"},
         [Step("create", "a.txt", args={"file_text": "x"}, kind="already_exists")]),
    Case("create_over_directory", {"sub/b.txt": "b\n"},
         [Step("create", "sub", args={"file_text": "x"}, kind="already_exists")]),
    Case("create_without_text", {}, [Step("create", "new.txt", kind="invalid_argument")]),
    Case("create_missing_parent", {}, [Step("create", "sub/new.txt", args={"file_text": "x\n"},
                                            output="File created successfully at: root:t/sub/new.txt")],
         difference="pathgate creates missing parent directories (as its write does); the reference "
                    "fails with Python's FileNotFoundError, which names the host path",
         expected={"sub/new.txt": "x\n"}),
    # ----------------------------------------------------- str_replace
    Case("str_replace_middle", {"n.txt": TWENTY},
         [Step("str_replace", "n.txt", args={"old_str": "line 10\n", "new_str": "LINE TEN\n"})]),
    Case("str_replace_first_line", {"n.txt": TWENTY},
         [Step("str_replace", "n.txt", args={"old_str": "line 1\n", "new_str": "first\n"})]),
    Case("str_replace_last_line", {"n.txt": TWENTY},
         [Step("str_replace", "n.txt", args={"old_str": "line 20", "new_str": "last"})]),
    Case("str_replace_multiline_new", {"n.txt": TWENTY},
         [Step("str_replace", "n.txt", args={"old_str": "line 7", "new_str": "seven\nsieben\nsept"})]),
    Case("str_replace_delete_when_new_omitted", {"n.txt": TWENTY},
         [Step("str_replace", "n.txt", args={"old_str": "line 3\n"})]),
    Case("str_replace_not_found", {"n.txt": TWENTY},
         [Step("str_replace", "n.txt", args={"old_str": "line 99", "new_str": "x"}, kind="edit_failed")]),
    Case("str_replace_multiple", {"n.txt": TWENTY},
         [Step("str_replace", "n.txt", args={"old_str": "line 1", "new_str": "x"}, kind="edit_ambiguous")]),
    Case("str_replace_multiple_multiline", {"r.txt": "a\nb\na\nb\n"},
         [Step("str_replace", "r.txt", args={"old_str": "a\nb", "new_str": "x"}, kind="edit_ambiguous")]),
    Case("str_replace_without_old", {"n.txt": TWENTY},
         [Step("str_replace", "n.txt", args={"new_str": "x"}, kind="invalid_argument")]),
    Case("str_replace_on_directory", {"sub/b.txt": "b\n"},
         [Step("str_replace", "sub", args={"old_str": "b", "new_str": "c"}, kind="is_directory")]),
    Case("str_replace_missing_file", {},
         [Step("str_replace", "nope.txt", args={"old_str": "b", "new_str": "c"}, kind="not_found")]),
    Case("str_replace_empty_old_str", {"s.txt": "one\ntwo\n"},
         [Step("str_replace", "s.txt", args={"old_str": "", "new_str": "x"}, kind="edit_ambiguous")]),
    Case("str_replace_tabs_kept", {"t.py": TABBED},
         [Step("str_replace", "t.py", args={"old_str": "        return 1", "new_str": "        return 11"})],
         difference="the reference writes the whole file with its tabs expanded; pathgate replaces the "
                    "matched text only, so the file keeps its other tabs",
         expected={"t.py": "def f():\n\tif x:\n\t        return 11\n\treturn 2\n"}),
    Case("str_replace_crlf_kept", {"w.txt": b"one\r\ntwo\r\nthree\r\n"},
         [Step("str_replace", "w.txt", args={"old_str": "two\nthree", "new_str": "2\n3"})],
         difference="the reference reads with universal newlines and writes LF; pathgate writes the "
                    "file's own line ending (CRLF here)",
         expected={"w.txt": b"one\r\n2\r\n3\r\n"}),
    Case("str_replace_unicode", {"u.txt": "na\u00efve caf\u00e9\nx\n"},
         [Step("str_replace", "u.txt", args={"old_str": "caf\u00e9", "new_str": "\u2615"})]),
    # ---------------------------------------------------------- insert
    Case("insert_at_start", {"n.txt": TWENTY}, [Step("insert", "n.txt", args={"insert_line": 0, "new_str": "zero"})]),
    Case("insert_in_middle", {"n.txt": TWENTY}, [Step("insert", "n.txt", args={"insert_line": 10, "new_str": "ten and a half"})]),
    Case("insert_multiline", {"n.txt": TWENTY}, [Step("insert", "n.txt", args={"insert_line": 2, "new_str": "a\nb\nc"})]),
    Case("insert_at_end", {"n.txt": TWENTY}, [Step("insert", "n.txt", args={"insert_line": 21, "new_str": "after"})]),
    Case("insert_after_last_line", {"s.txt": "one\ntwo"}, [Step("insert", "s.txt", args={"insert_line": 2, "new_str": "three"})]),
    Case("insert_negative", {"n.txt": TWENTY},
         [Step("insert", "n.txt", args={"insert_line": -1, "new_str": "x"}, kind="out_of_range")]),
    Case("insert_past_end", {"n.txt": TWENTY},
         [Step("insert", "n.txt", args={"insert_line": 22, "new_str": "x"}, kind="out_of_range")]),
    Case("insert_without_line", {"n.txt": TWENTY},
         [Step("insert", "n.txt", args={"new_str": "x"}, kind="invalid_argument")]),
    Case("insert_without_text", {"n.txt": TWENTY},
         [Step("insert", "n.txt", args={"insert_line": 1}, kind="invalid_argument")]),
    Case("insert_into_tabbed", {"t.py": TABBED},
         [Step("insert", "t.py", args={"insert_line": 1, "new_str": "\t# comment"})],
         difference="the reference expands every tab of the file (and of new_str) when it writes; "
                    "pathgate keeps them",
         expected={"t.py": "def f():\n\t# comment\n\tif x:\n\t\treturn 1\n\treturn 2\n"}),
    # -------------------------------------------------------- undo_edit
    Case("undo_after_str_replace", {"n.txt": TWENTY},
         [Step("str_replace", "n.txt", tool="str_replace_editor", args={"old_str": "line 5\n", "new_str": "five\n"}),
          Step("undo_edit", "n.txt", tool="str_replace_editor")]),
    Case("undo_twice", {"n.txt": TWENTY},
         [Step("str_replace", "n.txt", tool="str_replace_editor", args={"old_str": "line 5\n", "new_str": "five\n"}),
          Step("insert", "n.txt", tool="str_replace_editor", args={"insert_line": 1, "new_str": "one.5"}),
          Step("undo_edit", "n.txt", tool="str_replace_editor"),
          Step("undo_edit", "n.txt", tool="str_replace_editor"),
          Step("undo_edit", "n.txt", tool="str_replace_editor", kind="edit_failed")]),
    Case("undo_without_history", {"n.txt": TWENTY},
         [Step("undo_edit", "n.txt", tool="str_replace_editor", kind="edit_failed")]),
    Case("undo_after_create", {},
         [Step("create", "c.txt", tool="str_replace_editor", args={"file_text": "made\n"}),
          Step("undo_edit", "c.txt", tool="str_replace_editor")]),
    Case("undo_not_in_new_tool", {"n.txt": TWENTY}, [Step("undo_edit", "n.txt", kind="invalid_argument")]),
    Case("unknown_command_old_tool", {"n.txt": TWENTY},
         [Step("delete", "n.txt", tool="str_replace_editor", kind="invalid_argument")]),
    Case("unknown_command_on_missing", {}, [Step("delete", "nope.txt", kind="not_found")]),
    # ------------------------------------------------- pathgate's own
    Case("escape_refused", {"a.txt": "a\n"},
         [Step("view", "../outside/secret.txt", kind="invalid_path", error="Invalid path / not found"),
          Step("create", "../outside/new.txt", args={"file_text": "x"}, kind="invalid_path",
               error="Invalid path / not found")],
         reference=False, note="a path outside the roots reads as any unresolvable path"),
    Case("read_only_root", {},
         [Step("str_replace", "root:ro/ro.txt", args={"old_str": "read", "new_str": "write"}, kind="permission_denied",
               error="Ran into Permission denied: 'root:ro/ro.txt' while trying to write to root:ro/ro.txt"),
          Step("view", "root:ro/ro.txt",
               output="Here's the result of running `cat -n` on root:ro/ro.txt:\n     1\tread only\n     2\t\n")],
         reference=False, note="a read-only base refuses the write; viewing it is fine"),
]


def run_reference(edit: types.ModuleType, case: Case, root: Path) -> list[tuple[str, str]]:
    """(kind, text) per step: ("output", ...) or ("error", ...)."""
    tools = {"str_replace_editor": edit.EditTool20250124(), "str_replace_based_edit_tool": edit.EditTool20250429()}
    answers = []
    run_mod = sys.modules["refedit.run"]
    for step in case.steps:
        tool = tools[step.tool]
        path = str(root / step.path) if step.path else str(root)
        original = edit.maybe_truncate
        if step.max_characters is not None:
            edit.maybe_truncate = lambda c, truncate_after=step.max_characters: run_mod.maybe_truncate(c, truncate_after)
        try:
            res = asyncio.run(tool(command=step.command, path=path, **step.args))
            if res.error:
                answers.append(("error", res.error))
            else:
                answers.append(("output", res.output))
        except edit.ToolError as e:
            answers.append(("error", e.message))
        finally:
            edit.maybe_truncate = original
    return answers


def sort_listing(text: str, root: str) -> str:
    """find's lines in pathgate's order: depth first, siblings by name."""
    head, sep, rest = text.partition("\n")
    if not sep or not head.startswith("Here's the files"):
        return text
    lines = [line for line in rest.split("\n") if line]
    def key(line: str) -> list[bytes]:
        return [part.encode() for part in line.split("/")]
    return head + "\n" + "".join(line + "\n" for line in sorted(lines, key=key)) + "\n"


def tree(root: Path) -> dict[str, bytes]:
    out = {}
    for p in sorted(root.rglob("*")):
        if p.is_file():
            out[str(p.relative_to(root))] = p.read_bytes()
    return out


def put(root: Path, files: dict[str, bytes | str]) -> None:
    for rel, data in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data if isinstance(data, bytes) else data.encode())


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reference", type=Path, required=True)
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    edit = load_reference(args.reference)
    if args.out.exists():
        shutil.rmtree(args.out)
    for n, case in enumerate(CASES, 1):
        d = args.out / f"{n:02d}_{case.name}"
        d.mkdir(parents=True)
        put(d / "input", case.files)
        answers: list[tuple[str, str]] = []
        ref_tree: dict[str, bytes] = {}
        with tempfile.TemporaryDirectory(prefix="pgref") as tmp:
            root = Path(tmp) / "t"
            root.mkdir()
            put(root, case.files)
            if case.reference:
                answers = run_reference(edit, case, root)
                ref_tree = tree(root)
            rootname = str(root)
        for i, step in enumerate(case.steps, 1):
            cmd = [f"command: {step.command}", f"path: {step.path if ':' in step.path else ('root:t/' + step.path if step.path else 'root:t')}"]
            if step.tool != "str_replace_based_edit_tool":
                cmd.append(f"tool: {step.tool}")
            a = step.args
            if "insert_line" in a:
                cmd.append(f"insert_line: {a['insert_line']}")
            if "view_range" in a:
                vr = a["view_range"]
                cmd.append("view_range: " + (" ".join(str(v) for v in vr) if all(isinstance(v, int) for v in vr) else "invalid"))
            if step.max_characters is not None:
                cmd.append(f"max_characters: {step.max_characters}")
            for key in ("old_str", "new_str", "file_text"):
                if key in a:
                    (d / f"{i}.{key}").write_bytes(a[key].encode())
            if step.output is not None or step.error is not None:
                kind, text = ("output", step.output) if step.output is not None else ("error", step.error)
            else:
                kind, text = answers[i - 1]
                text = text.replace(rootname, "root:t")
                text = sort_listing(text, "root:t")
            if kind == "error":
                cmd.append(f"kind: {step.kind}")
            elif step.kind:
                raise SystemExit(f"{case.name} step {i}: expected an error, the reference answered")
            (d / f"{i}.cmd").write_text("\n".join(cmd) + "\n")
            (d / f"{i}.{kind}").write_bytes(text.encode())
        want = {k: (v if isinstance(v, bytes) else v.encode()) for k, v in (case.expected or {}).items()}
        final = want if case.expected is not None else ref_tree if case.reference else None
        start = {k: (v if isinstance(v, bytes) else v.encode()) for k, v in case.files.items()}
        if final is not None and final != start:
            put(d / "expected", final)
        notes = []
        if case.note:
            notes.append(f"# {case.note}")
        if case.difference:
            notes.append(f"difference: {case.difference}")
            if case.reference and ref_tree != final:
                notes.append("# the reference left: " + repr({k: v for k, v in ref_tree.items() if final.get(k) != v}))
        if not case.reference:
            notes.append("# pathgate's own case: no reference answer")
        if notes:
            (d / "case.txt").write_text("\n".join(notes) + "\n")
    print(f"{len(CASES)} cases written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
