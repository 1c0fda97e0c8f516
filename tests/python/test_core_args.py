"""The argument binder of pathgate._core's file operations (bindings/arg_spec.h,
bindings/python/args.c): every _fs_* function checks its arguments against the
one description the Lua binding reads too, raises on what it does not know,
and keeps the objects the core reads alive while the GIL is released."""

import gc
import threading

import pytest

from pathgate import Resolver, Session, _core


@pytest.fixture
def owner(tmp_path):
    (tmp_path / "repo").mkdir()
    (tmp_path / "repo" / "a.txt").write_text("alpha\nbeta\n")
    return Resolver({"repo": str(tmp_path / "repo")})


def test_unknown_keywords_extra_arguments_and_missing_ones_raise(owner):
    with pytest.raises(TypeError, match=r"_fs_grep\(\) got an unexpected keyword argument 'regexp'"):
        _core._fs_grep(owner, "x", regexp=True)
    with pytest.raises(TypeError, match=r"_fs_read\(\) takes at most 4 positional arguments"):
        _core._fs_read(owner, "root:repo/a.txt", 0, 10, 5)
    with pytest.raises(TypeError, match=r"missing required argument 'content'"):
        _core._fs_write(owner, "root:repo/b.txt")
    with pytest.raises(TypeError, match=r"multiple values for argument 'path'"):
        _core._fs_ls(owner, "root:repo", path="root:repo")
    with pytest.raises(TypeError, match="owner must be Resolver or Session"):
        _core._fs_ls("root:repo")
    # keyword-only options cannot be given by position
    with pytest.raises(TypeError, match="takes at most 3 positional"):
        _core._fs_glob(owner, "*", None, True)


def test_wrong_types_and_ranges_name_the_argument(owner):
    with pytest.raises(TypeError, match="path must be str, not int"):
        _core._fs_read(owner, 5)
    with pytest.raises(TypeError, match="glob must be str, not bytes"):
        _core._fs_grep(owner, "x", None, b"*.c")
    with pytest.raises(ValueError, match="max_count must be >= 0"):
        _core._fs_grep(owner, "x", max_count=-1)
    with pytest.raises(ValueError, match=r"threads must be between 0 \(every core\) and 1024"):
        _core._fs_glob(owner, "*", threads=5000)
    with pytest.raises(ValueError, match="max_file_size must be > 0"):
        _core._fs_read(owner, "root:repo/a.txt", max_file_size=0)
    with pytest.raises(ValueError, match="lines must be >= 0"):
        _core._fs_head(owner, "root:repo/a.txt", -1)
    with pytest.raises(TypeError, match="content must be str or bytes, not int"):
        _core._fs_write(owner, "root:repo/b.txt", 5)
    # a str is not a list of patterns (it would be one pattern per letter)
    with pytest.raises(TypeError, match="excludes must be a sequence"):
        _core._fs_tree(owner, "root:repo", "abc")
    with pytest.raises(TypeError, match="paths must be a sequence"):
        _core._fs_download(owner, "root:repo/a.txt")
    with pytest.raises(TypeError, match=r"each edit must be \(old, new\[, replace_all\]\)"):
        _core._fs_edits(owner, "root:repo/a.txt", ["ab"])
    with pytest.raises(TypeError, match=r"files must hold \(path, bytes\) pairs"):
        _core._fs_upload(owner, [("root:repo/b.txt", b"x", 1)])


def test_defaults_and_none(owner):
    assert _core._fs_read(owner, "root:repo/a.txt", None, None)["content"] == "alpha\nbeta"
    assert _core._fs_head(owner, "root:repo/a.txt", None) == b"alpha\nbeta\n"
    matches, truncated = _core._fs_grep(owner, "a", None, None, None)
    assert len(matches) == 2 and not truncated
    # mkdir creates missing parents unless told not to, as in Lua
    assert _core._fs_mkdir(owner, "root:repo/p/q") == "root:repo/p/q"
    with pytest.raises(_core.Error) as e:
        _core._fs_mkdir(owner, "root:repo/x/y", False)
    assert e.value.kind == "not_found"


def test_the_holder_keeps_what_the_core_reads(owner):
    """A list is snapshotted and its texts and buffers kept while the GIL is
    released: another thread emptying the list (and collecting what it held)
    during the call cannot free what the core reads (ASan would see it)."""
    s = Session(owner)
    assert _core._fs_upload(s, [(f"root:repo/up/{i}.bin", bytes([i]) * 4096) for i in range(100)]) == [None] * 100
    for _ in range(20):
        files = [(f"root:repo/up/{i}.bin", bytes([i]) * 4096) for i in range(100)]
        t = threading.Thread(target=lambda files=files: (files.clear(), gc.collect()))
        t.start()
        answers = _core._fs_upload(s, files)
        t.join()
        assert answers in ([], [None] * 100)
    got = _core._fs_download(s, [f"root:repo/up/{i}.bin" for i in range(100)])
    assert [content for content, _ in got] == [bytes([i]) * 4096 for i in range(100)]


def test_the_options_the_core_gained(owner, tmp_path):
    (tmp_path / "repo" / "crlf.txt").write_bytes(b"one\r\ntwo\r\n")
    (tmp_path / "repo" / "latin1.txt").write_bytes(b"caf\xe9\n")
    # read shows CRLF as LF unless asked to keep it; head keeps it
    assert _core._fs_read(owner, "root:repo/crlf.txt")["content"] == "one\ntwo"
    assert _core._fs_read(owner, "root:repo/crlf.txt", keep_crlf=True)["content"] == "one\r\ntwo"
    assert _core._fs_head(owner, "root:repo/crlf.txt") == b"one\r\ntwo\r\n"
    # the bytes of a file that is not UTF-8, without base64
    assert _core._fs_read(owner, "root:repo/latin1.txt")["encoding"] == "base64"
    assert _core._fs_read_bytes(owner, "root:repo/latin1.txt") == b"caf\xe9\n"
    with pytest.raises(_core.Error) as e:
        _core._fs_read_bytes(owner, "root:repo/latin1.txt", max_file_size=2)
    assert e.value.kind == "too_large"
    # upload takes str content as write does
    assert _core._fs_upload(owner, [("root:repo/s.txt", "text \u00e9")]) == [None]
    assert (tmp_path / "repo" / "s.txt").read_bytes() == "text \u00e9".encode()
    # a dry run counts and writes nothing
    assert _core._fs_edit(owner, "root:repo/a.txt", "a", "A", True, dry_run=True) == ("root:repo/a.txt", 3)
    assert (tmp_path / "repo" / "a.txt").read_text() == "alpha\nbeta\n"
    with pytest.raises(_core.Error) as e:
        _core._fs_edit(owner, "root:repo/a.txt", "a", "A")
    assert e.value.kind == "edit_ambiguous" and str(e.value) == "String 'a' appears 3 times in file."
