#!/usr/bin/env python3
"""gen_go_root_expect.py - expands Go's os.Root path cases into one row per
(operation, case): what Go's root_test.go expects, what pathgate does, how
to set the case up and what to check. Writes go_root_expect.tsv next to
this file (the C, Python and Lua conformance runners read that file and
go_root_cases.tsv; tests/python/test_go_root.py checks it is up to date),
and go_root_expect_windows.tsv, the rows whose answer differs on Windows
under wine (WINDOWS below; the C runner reads it in the Windows build).

    python3 tests/data/gen_go_root_expect.py [--check]

The rules below transcribe the test functions of Go's src/os/root_test.go
(Copyright 2024 The Go Authors, BSD-style licence: go_root_cases.LICENSE):
TestRootOpen_File, TestRootOpen_Directory, TestRootCreate, TestRootChmod,
TestRootChtimes, TestRootMkdir, TestRootOpenRoot, TestRootRemoveFile,
TestRootRemoveDirectory, TestRootRemoveAll, TestRootStat, TestRootLstat,
TestRootReadlink, TestRootRenameFrom, TestRootLinkFrom, TestRootRenameTo and
TestRootSymlink. (Go's TestRootMkdirAll calls Mkdir and its TestRootLinkTo
calls the rename test, so they add no rows.)

Row columns (tab-separated):
  op        the operation (see OPS in the runners)
  case      the case name of go_root_cases.tsv
  go        ok | error: what Go expects
  pathgate  ok | error: what pathgate does (differs from go only with why)
  prep      ';'-separated setup after the case's fs: 'file P C' (C '-' for
            empty), 'file000 P' (empty, mode 000), 'dir P'
  check     ';'-separated checks after success: 'result T' (the operation's
            answer), 'content P C', 'nolink P', 'mode P 666', 'mtime P S',
            'isdir P', 'gone P', 'exists P', 'link P T'
  failcheck checks after a failure (nothing changed): 'exists P', and
            'only-root' (nothing appeared beside ROOT)
  why       the deviation's key in docs/fs.md (empty when pathgate agrees)
Paths are relative to ROOT; $ABS stands for ROOT's absolute path.
"""
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
MTIME = 1234567890

# Where pathgate deliberately differs from Go: (op, case) -> why. The
# keys are explained in docs/fs.md ("Go's os.Root cases").
LEXICAL = "lexical-dotdot"      # `..` is resolved on the address, before any symlink
OUT_LINK = "outward-link"       # a last component leading out is an invalid address
NO_REPLACE = "move-no-replace"  # move never replaces an existing entry
DEVIATIONS = {}


def deviate(ops, cases, why):
    for op in ops:
        for case in cases:
            DEVIATIONS[(op, case)] = why


ALL_OPS = ["open_file", "open_dir", "create", "chmod", "chtimes", "mkdir", "openroot", "remove",
           "remove_dir", "remove_all", "stat", "lstat", "readlink", "rename_from", "link_from",
           "rename_to", "symlink"]

# `a/../target` with a => b/c: Go (on Linux) resolves `..` after the link,
# reaching b/target; an address is normalised first, so pathgate reaches
# target (as Go does on Windows). Its rows are Go's rules applied with that
# target.
LEXICAL_TARGET = {"dotdot after symlink": "target"}
# Operations that do not follow the last component (Lstat, Readlink, Remove,
# RemoveAll, Rename, Link) act on a symlink leading out in Go; pathgate
# refuses the address (resolve says "Invalid path / not found" for it).
deviate(["remove", "remove_dir", "remove_all", "lstat", "readlink", "rename_from", "link_from",
         "rename_to"],
        ["symlink dotdot slash", "symlink dotdot dotdot slash", "absolute symlink",
         "relative symlink", "symlink chain escapes"], OUT_LINK)
deviate(["remove_all"], ["slash after symlink to file", "slash after symlink to dir"], OUT_LINK)
# Rename over an existing name (the last symlink) replaces it in Go.
deviate(["rename_to"], ["symlink", "symlink chain", "symlink cycle"], NO_REPLACE)


# Windows, as the suites run it (under wine, scripts/windows.sh): the rows
# whose answer differs from pathgate's on Linux, (op, case) -> (answer,
# why), written to go_root_expect_windows.tsv. The answer is "error" (a
# refusal where Linux serves) or "skip" (wine cannot show what Windows
# does); never "ok" where Linux refuses: a refusal stays a refusal. The
# keys are explained in docs/windows.md ("Go's os.Root table").
WIN_NO_SYMLINK = "no-symlink-made"      # pathgate makes no links on Windows
WIN_LINK_UNREAD = "wine-link-unread"    # wine cannot read a link's target: taken to lead out
WIN_UNLISTED = "wine-link-unlisted"     # wine shows no dangling or looping link
WIN_FILE_LINK = "wine-file-link"        # wine shows a link to a file as that file
WINDOWS = {}


def windows(answer, ops, cases, why):
    for op in ops:
        for case in cases:
            WINDOWS[(op, case)] = (answer, why)


windows("error", ["symlink"], ["plain path", "path in directory", "path with dot", "path with dotdot",
                               "dotdot no symlink", "dotdot after symlink"], WIN_NO_SYMLINK)
# every path through a link to a directory inside ROOT: followed on Windows,
# taken to lead out under wine (its target is unread: -EXDEV)
windows("error", ALL_OPS, ["symlink ending in slash", "dotdot before symlink", "symlink ends in dot"],
        WIN_LINK_UNREAD)
windows("error", ["open_dir", "openroot"], ["symlink", "symlink chain"], WIN_LINK_UNREAD)
# the link is dangling (or loops): no name to act on, nothing created through it
windows("error", ["create", "lstat", "readlink", "remove", "remove_dir"],
        ["symlink", "symlink chain"], WIN_UNLISTED)
windows("error", ["lstat", "readlink", "remove", "remove_dir", "rename_from", "link_from"],
        ["symlink cycle"], WIN_UNLISTED)
# remove_all finds nothing there (success) and the link stays
windows("skip", ["remove_all"], ["symlink", "symlink chain", "symlink cycle"], WIN_UNLISTED)
# a name that is not there to wine is replaced by a move that Linux refuses
windows("skip", ["rename_to"], ["symlink", "symlink chain", "symlink cycle"], WIN_UNLISTED)
# the link to a file is acted on as a plain file
windows("skip", ["rename_from", "link_from"], ["symlink", "symlink chain"], WIN_FILE_LINK)
windows("skip", ["open_file", "chmod", "chtimes", "stat", "lstat", "remove", "remove_all",
                 "rename_from", "link_from", "rename_to"], ["slash after symlink to file"],
        WIN_FILE_LINK)
windows("skip", ["open_file", "chmod", "chtimes", "stat", "remove_all", "rename_from", "link_from",
                 "rename_to"], ["absolute symlink", "relative symlink", "symlink chain escapes"],
        WIN_FILE_LINK)


def read_cases():
    rows = []
    for line in (HERE / "go_root_cases.tsv").read_text().splitlines():
        if line.startswith("#") or line.startswith("name\t"):
            continue
        name, fs, open_, target, ltarget, want, always = line.split("\t")
        entries = [e for e in fs.split(";") if e]
        rows.append(dict(name=name, fs=entries, open=open_, target=target, ltarget=ltarget,
                         want=want == "1"))
    return rows


def link_text(case, name):
    for e in case["fs"]:
        if " => " in e:
            a, b = e.split(" => ", 1)
            if a == name:
                return b
    return None


def expand(case):
    """(op, go_ok, prep, check, failcheck) per operation, as root_test.go."""
    t, lt, want, open_ = case["target"], case["ltarget"], case["want"], case["open"]
    out = []

    def add(op, err, prep=(), check=(), fail=()):
        out.append((op, not err, list(prep), list(check), list(fail) + ["only-root"]))

    add("open_file", want, [f"file {t} target"] if t else [], ["result target"])
    add("open_dir", want, [f"dir {t}", f"file {t}/found -"] if t else [], ["result found"])
    add("create", want, [], [f"content {t} target"])
    add("chmod", want, [f"file000 {t}"] if t else [], [f"mode {t} 666"])
    add("chtimes", want, [f"file {t} -"] if t else [], [f"mtime {t} {MTIME}"])
    add("mkdir", want or lt != "", [], [f"isdir {t}"])
    add("openroot", want, [f"dir {t}", f"file {t}/f f"] if t else [], ["result f"])
    for op, kind in (("remove", "file"), ("remove_dir", "dir")):
        if lt:
            add(op, False, [], [f"gone {lt}"], [f"exists {lt}"])
        else:
            prep = ([f"file {t} -"] if kind == "file" else [f"dir {t}"]) if t else []
            add(op, want, prep, [f"gone {t}"], [f"exists {t}"] if t else [])
    # RemoveAll: a trailing slash after a symlink removes the symlink; a
    # name that does not exist is success (Go's Lstat says ErrNotExist only
    # for "directory does not exist" among these cases)
    rlt = lt
    if open_.endswith("/") and link_text(case, open_.rstrip("/")) is not None:
        rlt = open_.rstrip("/")
    if rlt:
        add("remove_all", False, [], [f"gone {rlt}"], [f"exists {rlt}"])
    elif case["name"] == "directory does not exist":
        add("remove_all", False, [], [])
    else:
        add("remove_all", want, [f"dir {t}", f"file {t}/file -"] if t else [],
            [f"gone {t}"], [f"exists {t}"] if t else [])
    add("stat", want, [f"file {t} content"] if t else [], ["result file 7"])
    if lt:
        add("lstat", False, [], ["result symlink"])
    else:
        add("lstat", want, [f"file {t} content"] if t else [], ["result file 7"])
    add("readlink", lt == "", [], [f"result {link_text(case, lt)}"] if lt else [])
    for op, moved in (("rename_from", True), ("link_from", False)):
        prep = [f"file {t} target"] if t else []
        if lt:
            orig, err = lt, False
            dest = [f"link destination {link_text(case, lt)}"]
        else:
            orig, err = t, want
            dest = ["content destination target", "nolink destination"]
        check = ([f"gone {orig}"] if moved else [f"exists {orig}"]) + dest
        add(op, err, prep, check, [f"exists {orig}"] if orig and t else [])
    rt, err = (lt, False) if lt else (t, want)
    add("rename_to", err, ["file source target"], ["gone source", f"content {rt} target"],
        ["exists source"])
    add("symlink", want or lt != "", [], [f"link {t} linktarget"])
    return out


def generate():
    lines = ["# Generated by gen_go_root_expect.py from go_root_cases.tsv: do not edit.",
             "# Go's rules: src/os/root_test.go, Copyright 2024 The Go Authors (BSD-style "
             "licence, go_root_cases.LICENSE).",
             "op\tcase\tgo\tpathgate\tprep\tcheck\tfailcheck\twhy"]
    seen = set()
    pg_answers = {}
    for case in read_cases():
        pg_case = dict(case, target=LEXICAL_TARGET.get(case["name"], case["target"]))
        for (op, ok, _, _, _), (_, pg_ok, prep, check, fail) in zip(expand(case), expand(pg_case)):
            why = DEVIATIONS.get((op, case["name"]), "")
            seen.add((op, case["name"]))
            if not why and pg_case != case and (prep or check):
                why = LEXICAL
            go = "ok" if ok else "error"
            if why in (OUT_LINK, NO_REPLACE):
                pg_ok = not pg_ok
            pg = "ok" if pg_ok else "error"
            pg_answers[(op, case["name"])] = pg
            lines.append("\t".join([op, case["name"], go, pg, ";".join(prep), ";".join(check),
                                    ";".join(fail), why]))
    stale = set(DEVIATIONS) - seen
    if stale:
        raise SystemExit(f"deviations for no row: {sorted(stale)}")
    return "\n".join(lines) + "\n", pg_answers


def generate_windows(pg_answers):
    lines = ["# Generated by gen_go_root_expect.py: do not edit.",
             "# The rows of go_root_expect.tsv whose answer differs on Windows under wine",
             "# (docs/windows.md, \"Go's os.Root table\"): error (refused there) or skip (wine",
             "# cannot show it), with the why; every other row expects the pathgate column.",
             "op\tcase\twindows\twhy"]
    for (op, case), (answer, why) in WINDOWS.items():
        if (op, case) not in pg_answers:
            raise SystemExit(f"windows answer for no row: {op} / {case}")
        if answer not in ("error", "skip"):
            raise SystemExit(f"{op} / {case}: a Windows answer is error or skip, never {answer}")
        if answer == "error" and pg_answers[(op, case)] == "error":
            continue  # refused on both
        lines.append("\t".join([op, case, answer, why]))
    return "\n".join(lines) + "\n"


def main():
    text, pg_answers = generate()
    outputs = {"go_root_expect.tsv": text,
               "go_root_expect_windows.tsv": generate_windows(pg_answers)}
    if "--check" in sys.argv[1:]:
        for name, content in outputs.items():
            path = HERE / name
            if not path.exists() or path.read_text() != content:
                print(f"{name} is out of date: run tests/data/gen_go_root_expect.py")
                return 1
        return 0
    for name, content in outputs.items():
        (HERE / name).write_text(content)
    return 0


if __name__ == "__main__":
    sys.exit(main())
