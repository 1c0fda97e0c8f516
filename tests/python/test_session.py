"""Session through the Python API (docs/spec.md section 6)."""

import os

import pytest

import pathgate
from pathgate import Session, SessionError, SessionState


def test_defaults_and_snapshot(resolver):
    s = Session(resolver)
    assert s.resolver is resolver
    assert s.pwd() == "root:repo"
    state = s.get()
    assert isinstance(state, SessionState)
    assert (state.home, state.cwd, state.depth) == ("root:repo", "root:repo", 0)
    assert repr(state) == "SessionState(home='root:repo', cwd='root:repo', depth=0)"
    assert state == s.get() and hash(state) == hash(s.get())
    assert Session(resolver, "game").get().home == "root:game"
    assert Session(resolver, home="root:game").pwd() == "root:game"


def test_cd(resolver):
    s = Session(resolver)
    s.push("common")
    assert s.cd("root:game") == "root:game"
    assert s.get() == Session(resolver, "game").get()  # stack cleared
    assert s.cd("repo") == "root:repo"
    for text, kind in (("root:repo/common", "subdirectory_home"), ("root:nope", "unknown_root"),
                       ("nope", "unknown_root")):
        with pytest.raises(SessionError) as info:
            s.cd(text)
        assert info.value.kind == kind
        assert isinstance(info.value, pathgate.Error)
    with pytest.raises(SessionError, match="^Subdirectory homing not allowed$"):
        s.cd("root:repo/common")
    assert s.pwd() == "root:repo"


def test_a_mod_can_be_the_home(resolver, tree):
    s = Session(resolver, home="mod:Some Mod")
    assert s.get().home == "mod:Some Mod"
    assert str(s.resolve("common", require_exists=True).ref) == "mod:Some Mod/common"
    s = Session(resolver)
    s.push("common")
    assert s.cd("mod:Some Mod") == "mod:Some Mod"
    assert (s.get().home, s.get().depth) == ("mod:Some Mod", 0)
    with pytest.raises(SessionError) as info:
        s.cd("mod:Some Mod/common")
    assert info.value.kind == "subdirectory_home"
    # mods only: the first mod is the default home
    only = Session(pathgate.Resolver(mods={"Some Mod": tree["mod"]}))
    assert only.pwd() == "mod:Some Mod"
    assert only.push("common") == "mod:Some Mod/common"


def test_push_pop(resolver, tree):
    s = Session(resolver)
    assert s.push("common") == "root:repo/common"
    assert s.push("traits") == "root:repo/common/traits"
    assert s.push("traits/..") == "already in root:repo/common/traits"
    assert s.get().depth == 2
    assert s.push("mod:Some Mod/common") == "mod:Some Mod/common"
    assert s.push(tree["game"] / "common") == "root:game/common"  # host path, PathLike
    assert s.get() == s.get() and s.get().depth == 4
    assert s.pop() == "mod:Some Mod/common"
    assert s.pop() == "root:repo/common/traits"
    assert s.pop() == "root:repo/common"
    assert s.pop() == "root:repo"
    assert s.pop() == "Stack is empty, already at initial directory: root:repo"
    assert s.get().depth == 0


def test_push_refusals_leave_the_stack_unchanged(resolver):
    s = Session(resolver)
    s.push("common")
    before = s.get()
    for text, kind in (("traits/00_traits.txt", "not_a_directory"), ("missing", "invalid_path"),
                       ("../../..", "invalid_path"), ("root:repo/escape", "invalid_path"),
                       ("a\0b", "invalid_path")):
        with pytest.raises(SessionError) as info:
            s.push(text)
        assert info.value.kind == kind
        assert s.get() == before
    with pytest.raises(SessionError, match="^Invalid path / not found$"):
        s.push("missing")


def test_overflow_at_100(resolver, tree):
    d = tree["repo"] / "deep"
    d.mkdir()
    s = Session(resolver)
    for i in range(pathgate.SESSION_MAX_DEPTH):
        (d / str(i)).mkdir()
        assert s.push(f"root:repo/deep/{i}") == f"root:repo/deep/{i}"
    (d / "x").mkdir()
    before = s.get()
    assert before.depth == 100
    with pytest.raises(SessionError, match=r"^directory stack overflow \(max 100\)$") as info:
        s.push("root:repo/deep/x")
    assert info.value.kind == "stack_overflow"
    assert s.get() == before
    assert s.pop() == "root:repo/deep/98"


def test_resolve_uses_the_cwd(resolver):
    s = Session(resolver)
    res = s.resolve("README.md")
    assert res.ok and str(res.ref) == "root:repo/README.md"
    s.push("root:game/common")
    assert str(s.resolve("x.txt").ref) == "root:game/common/x.txt"
    assert s.resolve("missing").ok is False
    res = s.resolve("missing", require_exists=False)
    assert res.ok and res.exists is False and str(res.ref) == "root:game/common/missing"
    assert s.resolve("../../x").error_message == "Invalid path / not found"
    assert s.resolve("root:repo/README.md").ok  # absolute forms ignore the cwd


def test_home_errors_and_wrong_types(resolver):
    with pytest.raises(SessionError) as info:
        Session(resolver, "nope")
    assert info.value.kind == "unknown_root"
    with pytest.raises(SessionError) as info:
        Session(resolver, "root:repo/common")
    assert info.value.kind == "subdirectory_home"
    s = Session(resolver)
    for call in (lambda: Session(), lambda: Session("repo"), lambda: Session(resolver, 1),
                 lambda: s.cd(None), lambda: s.cd(b"repo"), lambda: s.push(1), lambda: s.pop(1),
                 lambda: s.resolve(1), lambda: s.resolve("x", True), lambda: SessionState()):
        with pytest.raises(TypeError):
            call()
    with pytest.raises(pathgate.PathError) as info:
        s.cd("re\0po")
    assert info.value.kind == "nul_byte"
    with pytest.raises(AttributeError):
        s.resolver = None
    with pytest.raises(AttributeError):
        s.get().depth = 3


def test_session_keeps_its_resolver_alive(tree):
    r = pathgate.Resolver(roots={"repo": tree["repo"]})
    s = Session(r)
    del r
    assert s.resolve("README.md").ok
    assert s.push("docs") == "root:repo/docs"


def test_never_changes_the_process_cwd(resolver):
    before = os.getcwd()
    s = Session(resolver)
    s.push("common")
    s.cd("game")
    assert os.getcwd() == before


def test_messages_never_show_a_host_path(resolver, tree):
    host = str(tree["tmp"])
    s = Session(resolver)
    shown = [s.push(tree["repo"] / "common"), repr(s), repr(s.get()), s.pop()]
    for bad in (tree["outside"], tree["repo"] / "README.md", tree["repo"] / "escape",
                tree["repo"] / "missing", str(tree["outside"]) + "\0"):
        with pytest.raises(SessionError) as info:
            s.push(bad)
        shown += [str(info.value), repr(info.value)]
    assert all(host not in text for text in shown), shown
