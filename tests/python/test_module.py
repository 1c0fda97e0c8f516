"""The extension module itself: stable-ABI build, multi-phase init
(re-import, subinterpreters), heap types, signatures and docstrings,
reference leaks, and the stubs checked against the module (stubtest)."""

import ctypes
import gc
import importlib
import inspect
import os
import pathlib
import pickle
import re
import subprocess
import sys
import textwrap
import tracemalloc

import pytest

import pathgate
from pathgate import _core

SANITIZED = bool(os.environ.get("PATHGATE_SANITIZED"))


def _child_env():
    """The environment for a child interpreter: the same pathgate first."""
    env = os.environ.copy()
    here = str(pathlib.Path(pathgate.__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join([here, *filter(None, [env.get("PYTHONPATH")])])
    return env


def test_stable_abi_build():
    assert _core.__file__.endswith("_core.abi3.so")
    # The version's one spelling is common.h; the module reports exactly it.
    source = pathlib.Path(os.environ.get("PATHGATE_SOURCE_DIR", pathlib.Path(__file__).parents[2]))
    header = (source / "core" / "include" / "pathgate" / "common.h").read_text()
    parts = [re.search(rf"^#define PATHGATE_VERSION_{p} (\d+)$", header, re.M) for p in ("MAJOR", "MINOR", "PATCH")]
    assert all(parts)
    assert pathgate.__version__ == ".".join(m.group(1) for m in parts if m)


def test_exception_hierarchy():
    assert issubclass(pathgate.Error, ValueError)
    assert issubclass(pathgate.PathError, pathgate.Error)
    assert issubclass(pathgate.SessionError, pathgate.Error)
    with pytest.raises(pathgate.PathError) as info:
        pathgate.PathUri.parse("http://x")
    e = info.value
    assert (e.kind, e.code) == ("unsupported_scheme", -7)
    again = pickle.loads(pickle.dumps(e))
    assert type(again) is pathgate.PathError and again.kind == e.kind and str(again) == str(e)
    assert pathgate.Error("mine").kind is None  # raisable by users too


def test_constants():
    assert pathgate.INVALID_PATH_MESSAGE == "Invalid path / not found"
    assert pathgate.CAPACITY_MESSAGE == "Visibility registry capacity exceeded \u2014 restart server"
    assert pathgate.MAX_TOKENS_DEFAULT == 10_000
    assert pathgate.SESSION_MAX_DEPTH == 100


PUBLIC_TYPES = [pathgate.PathUri, pathgate.LegacyAppPathString, pathgate.VisibilityRef,
                pathgate.VisibilityResolution, pathgate.Resolver, pathgate.Session,
                pathgate.SessionState]


@pytest.mark.parametrize("cls", PUBLIC_TYPES, ids=lambda c: c.__name__)
def test_types_are_final_immutable_heap_types(cls):
    assert cls.__module__ == "pathgate"
    assert cls.__doc__
    assert not cls.__flags__ & (1 << 10)  # Py_TPFLAGS_BASETYPE: final
    assert cls.__flags__ & (1 << 8)  # Py_TPFLAGS_IMMUTABLETYPE
    assert cls.__flags__ & (1 << 9)  # Py_TPFLAGS_HEAPTYPE
    with pytest.raises(TypeError):
        cls.extra = 1
    with pytest.raises(TypeError):
        type("Sub", (cls,), {})


@pytest.mark.parametrize(
    "obj,expected",
    [
        (pathgate.PathUri.parse, "(text, /)"),
        (pathgate.PathUri.from_native, "(text, /, convention=None)"),
        (pathgate.PathUri.to_native, "(self, /, convention=None)"),
        (pathgate.PathUri.join, "(self, text, /)"),
        (pathgate.PathUri.starts_with, "(self, base, /)"),
        (pathgate.LegacyAppPathString, "(text)"),
        (pathgate.LegacyAppPathString.from_uri, "(uri, convention=None)"),
        (pathgate.LegacyAppPathString.resolve_against, "(self, /, cwd, home=None)"),
        (pathgate.VisibilityRef, "(token, session_abs)"),
        (pathgate.Resolver, "(roots, mods=None, max_tokens=10000, *, read_only=None, "
                            "deny_read=None, deny_write=None, presets=None, audit=None, "
                            "audit_door='python')"),
        (pathgate.Resolver.restrict, "(self, /, *, deny_read=None, deny_write=None, presets=None, "
                                     "source=None)"),
        (pathgate.Resolver.policy_check, "(self, text, /)"),
        (pathgate.Resolver.resolve, "(self, text, /, *, require_exists=True, base=None)"),
        (pathgate.Resolver.host_path, "(self, ref, /)"),
        (pathgate.Session, "(resolver, home=None)"),
        (pathgate.Session.resolve, "(self, text, /, *, require_exists=True)"),
        (pathgate.Session.pop, "(self, /)"),
    ],
)
def test_signatures(obj, expected):
    assert str(inspect.signature(obj)) == expected
    assert obj.__doc__ and not obj.__doc__.startswith(obj.__name__ + "(")


def test_help_renders():
    import pydoc

    text = pydoc.render_doc(pathgate.Resolver, renderer=pydoc.plaintext)
    assert "resolve(self, text, /, *, require_exists=True, base=None)" in text


def test_reimport_in_a_fresh_interpreter():
    code = textwrap.dedent("""
        import pathgate, sys
        u = pathgate.PathUri.from_native('C:\\\\x')
        assert str(u) == 'file:///C:/x', u
        print('ok', pathgate._core.__file__)
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=_child_env(), timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("ok ") and out.stdout.strip().endswith(".abi3.so")


def test_reimport_after_removal_builds_fresh_state(tree):
    old_core, old_uri = _core, pathgate.PathUri.parse("file:///x")
    saved = {k: sys.modules.pop(k) for k in list(sys.modules) if k.split(".")[0] == "pathgate"}
    try:
        new = importlib.import_module("pathgate._core")
        assert new is not old_core
        assert new.PathUri is not old_core.PathUri  # per-module heap types
        assert new.Error is not old_core.Error
        u = new.PathUri.parse("file:///x")
        assert str(u) == str(old_uri)
        assert u != old_uri  # different types: not comparable
        with pytest.raises(TypeError):
            u.starts_with(old_uri)
        r = new.Resolver(roots={"repo": tree["repo"]})
        assert r.resolve("root:repo/README.md").ok
        with pytest.raises(TypeError):  # the old module's refs are another type
            r.host_path(old_core.VisibilityRef(r.resolve("root:repo").ref.token, "root:repo"))
        assert str(old_core.PathUri.parse("file:///y")) == "file:///y"  # old still works
    finally:
        for k in [k for k in sys.modules if k.split(".")[0] == "pathgate"]:
            del sys.modules[k]
        sys.modules.update(saved)


SUBINTERP_CODE = """
import pathgate, os, tempfile
u = pathgate.PathUri.from_native('/a b')
assert str(u) == 'file:///a%20b'
assert str(u.to_host_path()) == '/a b'
d = tempfile.mkdtemp()
open(os.path.join(d, 'f'), 'w').close()
r = pathgate.Resolver(roots={'repo': d})
res = r.resolve('root:repo/f')
assert res.ok and str(res.ref) == 'root:repo/f'
try:
    pathgate.PathUri.parse('http://x')
except pathgate.PathError as e:
    assert e.kind == 'unsupported_scheme'
s = pathgate.Session(r)
assert s.pwd() == 'root:repo'
"""


def test_subinterpreters():
    try:
        import _xxsubinterpreters as interpreters
    except ImportError:
        interpreters = None
    if interpreters is not None:
        for _ in range(2):  # import, tear down, import again
            interp = interpreters.create()
            try:
                interpreters.run_string(interp, SUBINTERP_CODE)
                interpreters.run_string(interp, "import pathgate; assert pathgate.PathUri")
            finally:
                interpreters.destroy(interp)
        return
    try:
        import _testcapi
    except ImportError:
        pytest.skip("neither _xxsubinterpreters nor _testcapi.run_in_subinterp is available")
    assert _testcapi.run_in_subinterp(SUBINTERP_CODE) == 0


# ------------------------------------------------------------- leaks

_libc = ctypes.CDLL(None)


class _Mallinfo2(ctypes.Structure):
    _fields_ = [(n, ctypes.c_size_t) for n in ("arena", "ordblks", "smblks", "hblks", "hblkhd",
                                               "usmblks", "fsmblks", "uordblks", "fordblks",
                                               "keepcost")]


def _c_heap_in_use():
    """Bytes malloc'ed through libc (the core allocates there), or None."""
    if SANITIZED or not hasattr(_libc, "mallinfo2"):
        return None
    _libc.mallinfo2.restype = _Mallinfo2
    return _libc.mallinfo2().uordblks


def _grown(fn, rounds, measure):
    gc.collect()
    before = measure()
    for _ in range(rounds):
        fn()
    gc.collect()
    return measure() - before


def _leak_check(fn, rounds=2000):
    """A leak of one object (or one core allocation) per call grows a heap
    by at least 32 bytes a round; CPython's own caches add a few kilobytes
    at most (pickle does, even for a pure-Python class). The least growth of
    three attempts must stay under 8 bytes a round: a real leak repeats, a
    cache filling up does not."""
    for _ in range(200):  # warm caches (interned strings, pathlib import, ...)
        fn()
    if _c_heap_in_use() is not None:  # measured without tracemalloc's own tables
        grown_c = min(_grown(fn, rounds, _c_heap_in_use) for _ in range(3))
        assert grown_c < rounds * 8, f"C heap grew by {grown_c} bytes"
    tracemalloc.start()
    try:
        grown_py = min(_grown(fn, rounds, lambda: tracemalloc.get_traced_memory()[0])
                       for _ in range(3))
    finally:
        tracemalloc.stop()
    assert grown_py < rounds * 8, f"Python heap grew by {grown_py} bytes"


def _swallow(fn, exc=Exception):
    def call():
        try:
            fn()
        except exc:
            pass

    return call


def test_no_leaks_in_uri_and_legacy_calls():
    P, L = pathgate.PathUri, pathgate.LegacyAppPathString
    base = P.parse("file:///C:/Users/me")
    text = "C:\\Users\\me\\docs\\a b.txt"

    def uri_calls():
        u = P.from_native(text)
        str(u), repr(u), hash(u), u == base
        u.parent, u.basename, u.convention, u.is_opaque
        u.starts_with(base), u.relative_to(base), u.display(), u.to_native()
        base.join("x\\..\\y"), base.join_descendant("z")
        P.parse("file:///tmp/x").to_host_path()
        P.from_native("/a\0b")
        L(text).to_uri(), L("~/x").resolve_against(base, base), L("\x00\udcff").render_for_ui()
        L.from_uri(base, "windows"), L("/x").infer_convention()

    _leak_check(uri_calls)
    _leak_check(_swallow(lambda: P.parse("http://x")))
    _leak_check(_swallow(lambda: base.join_descendant("..")))
    _leak_check(_swallow(lambda: P.parse("file:///\udcff")))
    _leak_check(_swallow(lambda: P.parse(1), TypeError))
    _leak_check(_swallow(lambda: L("x").to_uri()))


def test_no_leaks_in_resolver_and_session_calls(tree):
    r = pathgate.Resolver(roots={"repo": tree["repo"]}, mods={"Some Mod": tree["mod"]})
    s = pathgate.Session(r)

    def calls():
        res = r.resolve("root:repo/common/traits/00_traits.txt")
        repr(res), hash(res), res == res, res.reason, res.exists
        r.host_path(res.ref), len(r)
        minted = [res.ref,
                  r.resolve("x", base="root:repo", require_exists=False).ref,
                  r.resolve(tree["mod"] / "common").ref,
                  s.resolve("common/traits").ref]
        r.resolve("root:repo/missing")
        bad = r.resolve("root:repo/../x")
        bad.error_message
        s.push("common"), s.get(), s.pwd(), s.pop(), s.pop()
        ref = pathgate.VisibilityRef(res.ref.token, res.ref.session_abs)
        r.host_path(ref), str(ref), repr(ref), hash(ref), ref.token, ref.session_abs
        for f in (lambda: s.push("missing"), lambda: s.cd("root:repo/common"),
                  lambda: pathgate.VisibilityRef("bad", "root:repo")):
            try:
                f()
            except pathgate.Error:
                pass
        for m in minted:  # tokens live until released: release them all
            assert r.release(m)

    _leak_check(calls, rounds=1000)
    assert len(r) == 0
    _leak_check(lambda: pathgate.Session(r, "repo"), rounds=500)
    d = tree["repo"]
    _leak_check(lambda: pathgate.Resolver({"repo": d}, {"M": d}), rounds=300)
    _leak_check(_swallow(lambda: pathgate.Resolver({"Bad": d})), rounds=300)


def test_arguments_keep_their_reference_counts(resolver):
    text = "root:repo/" + "README.md"  # a fresh, non-interned str
    before = sys.getrefcount(text)
    for _ in range(100):
        resolver.release(resolver.resolve(text).ref)
        pathgate.LegacyAppPathString(text)
    assert sys.getrefcount(text) == before


# ------------------------------------------------------------- stubs


def _mypy_config():
    """The project's mypy configuration (pyproject.toml: strict)."""
    source = os.environ.get("PATHGATE_SOURCE_DIR") or pathlib.Path(__file__).resolve().parents[2]
    return pathlib.Path(source) / "pyproject.toml"


def test_stubs_match_the_module(tmp_path):
    """_core.pyi, the one stub (the pure-Python modules are typed inline),
    against the built extension."""
    pytest.importorskip("mypy")
    pkg = pathlib.Path(pathgate.__file__).parent
    assert (pkg / "py.typed").exists()
    assert sorted(p.name for p in pkg.glob("*.pyi")) == ["_core.pyi"]
    out = subprocess.run(
        [sys.executable, "-m", "mypy.stubtest", "pathgate._core", "--concise",
         "--mypy-config-file", str(_mypy_config())],
        capture_output=True, text=True, cwd=tmp_path, env=_child_env(), timeout=600)
    assert out.returncode == 0, out.stdout + out.stderr


def test_the_package_is_mypy_strict_clean(tmp_path):
    """mypy --strict (pyproject.toml) over every module of the package,
    pathgate.deepagents included (deepagents itself is not needed)."""
    pytest.importorskip("mypy")
    pkg = pathlib.Path(pathgate.__file__).parent
    env = _child_env()
    env["MYPYPATH"] = str(pkg.parent)
    out = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(_mypy_config()), "--cache-dir",
         str(tmp_path / "cache"), "-p", "pathgate"],
        capture_output=True, text=True, cwd=tmp_path, env=env, timeout=900)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "Success: no issues found" in out.stdout
