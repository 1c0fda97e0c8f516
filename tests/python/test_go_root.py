"""Go's os.Root path cases (tests/data/go_root_cases.tsv, expanded per
operation in go_root_expect.tsv) run against the Python Backend: every row
agrees with Go, or differs exactly as its `why` says (docs/fs.md). Names
are given as Go gives them, relative to a Session whose cwd is ROOT."""

import os
import pathlib
import stat
import subprocess
import sys

import pytest

import pathgate

DATA = pathlib.Path(__file__).resolve().parents[1] / "data"
MTIME = 1234567890


def read_tsv(name):
    rows = []
    header = None
    for line in (DATA / name).read_text().splitlines():
        if line.startswith("#"):
            continue
        fields = line.split("\t")
        if header is None:
            header = fields
            continue
        rows.append(dict(zip(header, fields)))
    return rows


CASES = {c["name"]: c for c in read_tsv("go_root_cases.tsv")}
ROWS = read_tsv("go_root_expect.tsv")


def test_the_expectations_are_generated_from_the_cases():
    out = subprocess.run([sys.executable, str(DATA / "gen_go_root_expect.py"), "--check"],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr
    assert len(CASES) == 25 and len(ROWS) == 25 * 17


def makefs(root, entries):
    root.mkdir()
    for e in filter(None, entries.split(";")):
        if " => " in e:
            name, target = e.split(" => ", 1)
            p = root / name
            p.parent.mkdir(parents=True, exist_ok=True)
            os.symlink(target.replace("$ABS", str(root)), p)
        elif e.endswith("/"):
            (root / e).mkdir(parents=True, exist_ok=True)
        else:
            (root / e).parent.mkdir(parents=True, exist_ok=True)
            (root / e).write_text(e)


def prep(root, actions):
    for a in filter(None, actions.split(";")):
        w = a.split(" ")
        p = root / w[1]
        p.parent.mkdir(parents=True, exist_ok=True)
        if w[0] == "file":
            p.write_text("" if w[2] == "-" else w[2])
        elif w[0] == "file000":
            p.write_text("")
            p.chmod(0)
        elif w[0] == "dir":
            p.mkdir(parents=True, exist_ok=True)
        else:
            raise AssertionError(f"unknown prep {a}")


def check(root, checks, result):
    for c in filter(None, checks.split(";")):
        if c == "only-root":
            assert sorted(os.listdir(root.parent)) == ["ROOT"], c
            continue
        word, _, rest = c.partition(" ")
        if word == "result":
            assert result == rest.replace("$ABS", str(root)), (c, result)
            continue
        name, _, arg = rest.partition(" ")
        p = root / name
        if word == "content":
            assert p.read_text() == ("" if arg == "-" else arg), c
        elif word == "nolink":
            assert not p.is_symlink(), c
        elif word == "mode":
            assert stat.S_IMODE(p.stat().st_mode) == int(arg, 8), c
        elif word == "mtime":
            assert int(p.stat().st_mtime) == int(arg), c
        elif word == "isdir":
            assert p.is_dir() and not p.is_symlink(), c
        elif word == "gone":
            assert not os.path.lexists(p), c
        elif word == "exists":
            assert os.path.lexists(p), c
        elif word == "link":
            assert os.readlink(p) == arg, c
        else:
            raise AssertionError(f"unknown check {c}")


def call(fn):
    """(ok, value) of a Backend call in either error style."""
    try:
        r = fn()
    except (pathgate.Error, OSError):
        return False, None
    if getattr(r, "error", None):
        return False, None
    return True, r


def stat_text(st):
    """The Go table's stat result text of a StatResult."""
    if st.type == "symlink":
        return "symlink"
    return f"{st.type} {st.size}"


def run_op(b, op, name):
    if op == "open_file":
        return call(lambda: b.open(name, "rb").read().decode())
    if op == "open_dir":
        return call(lambda: ",".join(e.name for e in b.scandir(name)))
    if op == "create":
        def create():
            with b.open(name, "w") as f:
                f.write("target")
        return call(create)
    if op == "chmod":
        return call(lambda: b.chmod(name, 0o666))
    if op == "chtimes":
        return call(lambda: b.utime(name, (MTIME, MTIME)))
    if op == "mkdir":
        return call(lambda: b.mkdir(name, parents=False))
    if op == "openroot":
        def openroot():
            sub = b.subroot(name, key="sub")
            with sub.open("root:sub/f") as f:
                return f.read()
        return call(openroot)
    if op in ("remove", "remove_dir"):
        return call(lambda: b.delete(name))
    if op == "remove_all":
        return call(lambda: b.remove_tree(name))
    if op == "stat":
        ok, r = call(lambda: b.stat(name))
        return ok, stat_text(r) if ok else None
    if op == "lstat":
        ok, r = call(lambda: b.lstat(name))
        return ok, stat_text(r) if ok else None
    if op == "readlink":
        ok, r = call(lambda: b.readlink(name))
        return ok, r.target if ok else None
    if op == "rename_from":
        return call(lambda: b.move(name, "destination"))
    if op == "link_from":
        return call(lambda: b.link(name, "destination"))
    if op == "rename_to":
        return call(lambda: b.move("source", name))
    if op == "symlink":
        return call(lambda: b.symlink("linktarget", name))
    raise AssertionError(f"unknown op {op}")


@pytest.mark.parametrize("row", ROWS, ids=[f"{r['op']}/{r['case']}" for r in ROWS])
def test_go_root_case(tmp_path, row):
    case = CASES[row["case"]]
    root = tmp_path / "t" / "ROOT"
    root.parent.mkdir()
    makefs(root, case["fs"])
    prep(root, row["prep"])
    resolver = pathgate.Resolver(roots={"t": root})
    b = pathgate.Backend(pathgate.Session(resolver, "t"))
    ok, result = run_op(b, row["op"], case["open"])
    if (not ok and row["pathgate"] == "ok" and row["op"] in ("chmod", "chtimes")
            and os.environ.get("PATHGATE_OS_BACKEND") == "posix" and os.geteuid() != 0):
        pytest.skip("POSIX backend: a mode-000 file cannot be held without a path-only handle")
    assert ok == (row["pathgate"] == "ok"), (row["op"], row["case"], row["why"])
    if ok:
        check(root, row["check"], result if isinstance(result, str) else None)
    else:
        check(root, row["failcheck"], None)
