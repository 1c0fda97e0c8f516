"""Scale features through Python: PCRE2 regex grep checked against Python's
re on a generated corpus, case-insensitive search, the match limit, parallel
walks equal to the one-thread walk, streaming generators that stop early,
the skipped-names and not-text notices, and the size cap on an 8 GiB sparse
file with the resident memory of this process measured."""

import os
import random
import re
import resource

import pytest

import pathgate
from pathgate import _core
from pathgate.backend import Backend

WORDS = ["alpha", "Beta", "gamma", "delta", "foo", "bar", "foo_bar", "x1", "y22", "zz",
         "caf\u00e9", "\u00fcber", "needle", "NEEDLE", "a+b", "(paren)", "tab\there", "  "]

# Patterns on which PCRE2 and Python's re agree (no Unicode classes, no
# possessive or atomic syntax, no \Z differences).
PATTERNS = [
    r"foo", r"^alpha", r"gamma$", r"fo+_?bar", r"\bx\d\b", r"[A-Z][a-z]+", r"y2{2}",
    r"(foo|bar) (foo|bar)", r"needle|NEEDLE", r"a\+b", r"\(paren\)", r"^\s*$", r"\t",
    "caf\u00e9", r"[^a-z ]", r"(?i)beta", r"^(\w+) \1", r"d.l", r"z{2,}", r"^.{5}$",
    # a byte every match needs (the line prefilter), in several places
    r"o\w*r$", r"ar$", r"\d z", r"^.*foo_bar.*$", r"x1|y22", r"[xy]\d+ zz", r"(?i)GAMMA$",
]


@pytest.fixture
def corpus(tmp_path):
    rnd = random.Random(14)
    root = tmp_path / "corpus"
    lines_of = {}
    for i in range(60):
        d = root / f"d{i % 7}" / (".dot" if i % 11 == 0 else "sub")
        d.mkdir(parents=True, exist_ok=True)
        lines = [" ".join(rnd.choice(WORDS) for _ in range(rnd.randint(0, 5)))
                 for _ in range(rnd.randint(0, 30))]
        f = d / f"f{i:02d}.txt"
        text = "\n".join(lines) + ("\n" if i % 2 else "")
        f.write_text(text, encoding="utf-8")
        # the lines as grep sees them: "\n" ends a line, a last one may lack it
        lines_of[f] = text.split("\n")[:-1] if text.endswith("\n") else (
            text.split("\n") if text else [])
    (root / "out").symlink_to(tmp_path)  # an outward symlink: never followed
    resolver = pathgate.Resolver(roots={"c": str(root)})
    return resolver, root, lines_of


def expected(root, lines_of, pattern, flags=0):
    rx = re.compile(pattern, flags)
    out = []
    for f in sorted(lines_of, key=lambda p: _walk_key(p.relative_to(root))):
        for n, line in enumerate(lines_of[f], 1):
            if rx.search(line):
                out.append(("root:c/" + str(f.relative_to(root)), n, line))
    return out


def _walk_key(rel):
    # path order of the walk: a directory sorts as its name followed by '/'
    return [part + "/" for part in rel.parts[:-1]] + [rel.parts[-1]]


@pytest.mark.parametrize("pattern", PATTERNS)
def test_regex_agrees_with_python_re(corpus, pattern):
    resolver, root, lines_of = corpus
    matches, truncated = _core._fs_grep(resolver, pattern, None, None, None, regex=True)
    got = [(m["path"], m["line"], m["text"]) for m in matches]
    assert got == expected(root, lines_of, pattern)
    assert truncated is False


@pytest.mark.parametrize("pattern", ["needle", "CAF\u00c9", "foo_BAR"])
def test_ignore_case_literal_agrees_with_python(corpus, pattern):
    resolver, root, lines_of = corpus
    matches, _ = _core._fs_grep(resolver, pattern, None, None, None, ignore_case=True)
    got = [(m["path"], m["line"], m["text"]) for m in matches]
    assert got == expected(root, lines_of, re.escape(pattern), re.IGNORECASE)


def test_parallel_matches_single_thread(corpus):
    resolver, _, _ = corpus
    for cap in (None, 0, 1, 5, 40):
        one = _core._fs_grep(resolver, "o", None, None, cap, threads=1)
        for threads in (2, 4, 0):
            assert _core._fs_grep(resolver, "o", None, None, cap, threads=threads) == one
    one = _core._fs_glob(resolver, "**/*.txt", threads=1)
    assert _core._fs_glob(resolver, "**/*.txt", threads=3) == one
    assert all("out" not in e["path"] for e in one)


def test_regex_errors_are_clear(corpus, tmp_path):
    resolver, root, _ = corpus
    backend = Backend(resolver)
    res = backend.grep("a(b", regex=True)
    assert res.error == "invalid regular expression at offset 3: missing closing parenthesis"
    assert str(root) not in res.error
    (root / "redos.txt").write_text("a" * 5000 + "!\n")
    with pytest.raises(pathgate.Error) as exc:
        _core._fs_grep(resolver, "(a+)+$", "root:c/redos.txt", None, None, regex=True)
    assert exc.value.kind == "match_limit"
    assert "match limit exceeded on line 1 of 'root:c/redos.txt'" in str(exc.value)


def test_generators_stream_and_stop_early(corpus):
    resolver, root, lines_of = corpus
    backend = Backend(resolver)
    want = expected(root, lines_of, "o")
    got = [(m["path"], m["line"], m["text"]) for m in backend.grep_iter("o")]
    assert got == want
    # stopping early: the generator closes the walk
    gen = backend.grep_iter("o")
    first = next(gen)
    assert (first["path"], first["line"], first["text"]) == want[0]
    gen.close()
    it = _core._fs_grep_iter(resolver, "o")
    assert next(it)["path"] == want[0][0]
    it.close()
    assert list(it) == []
    assert it.summary() is None or it.summary()["truncated"] is False
    files = [e["path"] for e in backend.glob_iter("**/*.txt")]
    assert files == [e["path"] for e in backend.glob("**/*.txt").matches]
    with pytest.raises(pathgate.Error):
        list(backend.grep_iter("(", regex=True))
    # exhausted: the summary is there
    it = _core._fs_grep_iter(resolver, "o", None, None, 3)
    assert len(list(it)) == 3
    assert it.summary()["truncated"] is True


def test_skipped_names_and_not_text_are_said(tmp_path):
    root = tmp_path / "r"
    root.mkdir()
    (root / "ok.txt").write_text("needle\n")
    with open(os.path.join(os.fsencode(root), b"caf\xe9.txt"), "w") as f:
        f.write("needle\n")
    (root / "back\\slash.txt").write_text("needle\n")
    (root / "latin1.txt").write_bytes(b"one\ncaf\xe9\nthree\n")
    backend = Backend(pathgate.Resolver(roots={"r": str(root)}))
    for res in (backend.ls("root:r"), backend.glob("*.txt"), backend.grep("needle")):
        assert res.incomplete is True
        assert res.notice.startswith("2 entries whose names are not UTF-8")
    assert [m["path"] for m in backend.grep("needle").matches] == ["root:r/ok.txt"]
    read = backend.read("root:r/latin1.txt", 1, 1)
    assert read.file_data["encoding"] == "base64"
    assert "not valid UTF-8" in read.notice and "offset/limit were not applied" in read.notice
    assert backend.read("root:r/ok.txt").notice is None


def test_space_edged_names_are_skipped_and_said(tmp_path):
    # resolve strips whitespace around its input, so `x ` would be shown as
    # an address naming `x`: the walks skip such names and say so
    root = tmp_path / "r"
    root.mkdir()
    (root / "x").write_text("needle plain\n")
    (root / "x ").write_text("needle trailing\n")
    (root / " y.txt").write_text("needle leading\n")
    (root / "d ").mkdir()
    (root / "d " / "z.txt").write_text("needle below\n")
    resolver = pathgate.Resolver(roots={"r": str(root)})
    backend = Backend(resolver)
    ls, glob, grep = backend.ls("root:r"), backend.glob("**"), backend.grep("needle")
    assert [e["path"] for e in ls.entries] == ["root:r/x"]
    assert [e["path"] for e in glob.matches] == ["root:r/x"]
    assert [m["path"] for m in grep.matches] == ["root:r/x"]
    for res in (ls, glob, grep):
        assert res.incomplete is True
        # `x `, ` y.txt` and `d ` (not entered: z.txt is not counted)
        assert res.notice.startswith("3 entries whose names are not UTF-8")
        assert "begin or end with whitespace" in res.notice
    assert _core._fs_grep(resolver, "needle", None, None, None, info=True)[-1]["skipped_names"] == 3
    # every address shown reads back as the same file
    assert backend.read("root:r/x").file_data["content"] == "needle plain"


def _rss_kib(key):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    raise AssertionError(key)


def test_sparse_8g_file_bounded(tmp_path):
    root = tmp_path / "r"
    root.mkdir()
    with open(root / "huge.txt", "wb") as f:
        f.write(b"first\nsecond\n")
        f.truncate(8 << 30)
    backend = Backend(pathgate.Resolver(roots={"r": str(root)}))
    before = _rss_kib("VmRSS")
    read = backend.read("root:r/huge.txt", 0, 2)
    assert read.file_data["content"] == "first\nsecond"
    assert read.notice.startswith("The file is larger than the size cap")
    assert read.next_offset == 2
    whole = backend.read("root:r/huge.txt", 0, 100)
    assert whole.error == "File 'root:r/huge.txt' is larger than the 67108864-byte size cap"
    [dl] = backend.download_files(["root:r/huge.txt"])
    assert dl.content is None and dl.error is not None
    res = backend.grep("first")
    assert res.matches == [] and res.incomplete
    assert "1 files over the size cap were not searched" in res.notice
    # the stated bound: 48 MiB over the resident set before (no 8 GiB load)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    if os.environ.get("PATHGATE_SANITIZED"):
        return  # the sanitizer's shadow memory makes the numbers meaningless
    assert peak - before < 48 * 1024, (before, peak)


def test_cli_streams_and_stops_when_the_reader_goes(tmp_path):
    import subprocess
    import sys

    root = tmp_path / "r"
    root.mkdir()
    for i in range(200):
        (root / f"f{i:03d}.txt").write_text("hit\n" * 50)
    env = dict(os.environ)
    cmd = [sys.executable, "-m", "pathgate", "--root", f"repo={root}", "grep", "hit"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    first = proc.stdout.readline()
    proc.stdout.close()  # like `| head -1`
    err = proc.stderr.read()
    assert proc.wait(timeout=60) == 0
    assert first == b"root:repo/f000.txt:1:hit\n"
    assert b"Traceback" not in err and b"\r" not in err  # no progress off a terminal
    out = subprocess.run(cmd[:-2] + ["grep", "-i", "-e", "^H.T$", "--max-count", "3"],
                         capture_output=True, env=env, timeout=60)
    assert out.returncode == 0
    assert out.stdout.decode().splitlines() == [f"root:repo/f000.txt:{n}:hit" for n in (1, 2, 3)]
    assert "truncated" in out.stderr.decode()
