"""Resolver, VisibilityResolution and VisibilityRef through the Python API
(docs/spec.md sections 4-5) on a real temporary tree (conftest.tree)."""

import os
import pathlib
import pickle
import re
import uuid

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pathgate
from pathgate import Resolver, VisibilityRef, VisibilityResolution

INVALID = "Invalid path / not found"
CAPACITY = "Visibility registry capacity exceeded \u2014 restart server"
UUID4 = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")


def ok(res, address, *, root=None, rel=None, exists=True):
    assert isinstance(res, VisibilityResolution)
    assert res.ok is True, res
    assert isinstance(res.ref, VisibilityRef)
    assert str(res.ref) == res.ref.session_abs == address
    assert repr(res.ref) == f"VisibilityRef({address})"
    assert UUID4.match(res.ref.token)
    assert res.root_category == root
    # a mod: address names its mod, as root_category names a root
    assert res.mod_name == (address[4:].split("/")[0] if address.startswith("mod:") else None)
    if rel is not None:
        assert res.relative_path == rel
    assert res.exists is exists
    assert res.error_message is None
    assert res.reason == "ok"


def invalid(res, reason=None):
    assert res.ok is False, res
    assert res.ref is None and res.root_category is None and res.relative_path is None
    assert res.mod_name is None
    assert res.exists is None
    assert res.error_message == INVALID
    if reason is not None:
        assert res.reason == reason


# ---------------------------------------------------------------- inputs


def test_canonical_addresses(resolver):
    ok(resolver.resolve("root:repo/common/traits/00_traits.txt"),
       "root:repo/common/traits/00_traits.txt", root="repo", rel="common/traits/00_traits.txt")
    ok(resolver.resolve("root:repo"), "root:repo", root="repo", rel="")
    ok(resolver.resolve("root:game/common/x.txt"), "root:game/common/x.txt", root="game")
    ok(resolver.resolve("mod:Some Mod/common/m.txt"), "mod:Some Mod/common/m.txt", rel="common/m.txt")
    ok(resolver.resolve("mod:Some Mod"), "mod:Some Mod", rel="")


def test_input_normalisation(resolver):
    ok(resolver.resolve("  root:repo/common//traits/./00_traits.txt \n"),
       "root:repo/common/traits/00_traits.txt", root="repo")
    ok(resolver.resolve("root:repo/common\\traits\\00_traits.txt"),
       "root:repo/common/traits/00_traits.txt", root="repo")
    ok(resolver.resolve("root:repo/docs/../README.md"), "root:repo/README.md", root="repo")


def test_legacy_aliases_are_accepted_never_emitted(resolver):
    ok(resolver.resolve("mod:Some Mod:/common/m.txt"), "mod:Some Mod/common/m.txt")
    ok(resolver.resolve("ROOT_REPO:/common/traits/00_traits.txt"),
       "root:repo/common/traits/00_traits.txt", root="repo")


def test_host_paths_and_uris_map_back(resolver, tree):
    target = tree["repo"] / "common" / "traits" / "00_traits.txt"
    for given_ in (str(target), target, target.as_uri()):
        ok(resolver.resolve(given_), "root:repo/common/traits/00_traits.txt", root="repo")
    ok(resolver.resolve(tree["mod"] / "common" / "m.txt"), "mod:Some Mod/common/m.txt")
    invalid(resolver.resolve(tree["outside"] / "secret.txt"), "outside_bases")
    invalid(resolver.resolve(tree["outside"].as_uri()), "outside_bases")


def test_longest_base_wins_and_root_before_mod(tmp_path):
    (tmp_path / "r" / "mods" / "M" / "x").mkdir(parents=True)
    r = Resolver(roots={"repo": tmp_path / "r"}, mods={"M": tmp_path / "r" / "mods" / "M",
                                                       "Same": tmp_path / "r"})
    ok(r.resolve(tmp_path / "r" / "mods" / "M" / "x"), "mod:M/x")
    ok(r.resolve(tmp_path / "r" / "mods"), "root:repo/mods", root="repo")


def test_relative_text_needs_a_base(resolver):
    invalid(resolver.resolve("common/x.txt"), "relative_without_base")
    ok(resolver.resolve("x.txt", base="root:game/common"), "root:game/common/x.txt", root="game")
    base = resolver.resolve("root:game/common").ref
    ok(resolver.resolve("../common/x.txt", base=base), "root:game/common/x.txt", root="game")
    invalid(resolver.resolve("../../x", base="root:game/common"), "escapes_root")
    invalid(resolver.resolve("x", base="root:nope"))


def test_escapes_are_invalid(resolver, tree):
    invalid(resolver.resolve("root:repo/.."), "escapes_root")
    invalid(resolver.resolve("root:repo/docs/../../outside"), "escapes_root")
    invalid(resolver.resolve("root:repo/escape/secret.txt"), "escapes_root")
    invalid(resolver.resolve("root:repo/escape/secret.txt", require_exists=False), "escapes_root")
    (tree["repo"] / "dangling").symlink_to(tree["outside"] / "nothing")
    invalid(resolver.resolve("root:repo/dangling", require_exists=False), "escapes_root")
    invalid(resolver.resolve("root:nope/x"), "unknown_root")
    invalid(resolver.resolve("mod:Nope/x"), "unknown_mod")
    invalid(resolver.resolve("nonsense:x"))


def test_inner_symlink_keeps_the_callers_name(resolver):
    ok(resolver.resolve("root:repo/inner"), "root:repo/inner", root="repo", rel="inner")


def test_require_exists(resolver):
    invalid(resolver.resolve("root:repo/missing/file.txt"), "not_found")
    ok(resolver.resolve("root:repo/missing/file.txt", require_exists=False),
       "root:repo/missing/file.txt", root="repo", exists=False)
    ok(resolver.resolve("root:repo/README.md", require_exists=False), "root:repo/README.md",
       root="repo", exists=True)


def test_bad_text_is_a_result_not_an_exception(resolver):
    for text, reason in (("root:repo/a\0b", "encoding"), ("root:repo/\udcff", "encoding"),
                         ("root:repo/" + "a" * 5000, "too_long"), ("", None)):
        invalid(resolver.resolve(text), reason)


# ---------------------------------------------------------------- tokens


def test_every_resolve_mints_a_new_token_failures_mint_nothing(resolver):
    assert len(resolver) == 0
    a = resolver.resolve("root:repo/README.md").ref
    b = resolver.resolve("root:repo/README.md").ref
    assert a.session_abs == b.session_abs and a.token != b.token and a != b
    assert len(resolver) == 2
    for _ in range(5):
        resolver.resolve("root:repo/missing")
        resolver.resolve("root:nope")
    assert len(resolver) == 2


def test_host_path_only_for_minted_refs(resolver, tree):
    res = resolver.resolve("root:repo/common/traits/00_traits.txt")
    p = resolver.host_path(res.ref)
    assert isinstance(p, pathlib.Path)
    assert p.samefile(tree["repo"] / "common" / "traits" / "00_traits.txt")
    same = VisibilityRef(res.ref.token, res.ref.session_abs)
    assert same == res.ref and hash(same) == hash(res.ref)
    assert resolver.host_path(same) == p
    # forged: unknown token, or a minted token with another address
    assert resolver.host_path(VisibilityRef(str(uuid.uuid4()), res.ref.session_abs)) is None
    assert resolver.host_path(VisibilityRef(res.ref.token, "root:repo/README.md")) is None
    # another resolver's ref
    other = Resolver(roots={"repo": tree["repo"]})
    assert other.host_path(res.ref) is None
    # released
    assert resolver.release(res.ref) is True
    assert resolver.release(res.ref) is False
    assert resolver.host_path(res.ref) is None
    assert len(resolver) == 0


def test_missing_target_host_path(resolver, tree):
    res = resolver.resolve("mod:Some Mod/new/file.txt", require_exists=False)
    assert resolver.host_path(res.ref) == tree["mod"].resolve() / "new" / "file.txt"


def test_capacity_is_exact_and_mints_nothing(tree):
    r = Resolver(roots={"repo": tree["repo"]}, max_tokens=3)
    refs = [r.resolve("root:repo/README.md").ref for _ in range(3)]
    full = r.resolve("root:repo/README.md")
    assert full.ok is False and full.ref is None
    assert full.error_message == CAPACITY == pathgate.CAPACITY_MESSAGE
    assert "\u2014" in full.error_message
    assert full.reason == "capacity"
    assert len(r) == 3
    assert r.release(refs[0])
    again = r.resolve("root:repo/README.md")
    ok(again, "root:repo/README.md", root="repo")
    assert len(r) == 3
    # a dropped resolution gives its token back (issue 34)
    del again, refs
    assert len(r) == 0


def test_refs_outlive_their_resolver(tree):
    r = Resolver(roots={"repo": tree["repo"]})
    ref = r.resolve("root:repo/README.md").ref
    del r
    assert str(ref) == "root:repo/README.md"
    assert pickle.loads(pickle.dumps(ref)) == ref


# ------------------------------------------------------ construction, types


def test_configuration_errors(tree):
    for roots, mods, kind in (
        ({}, None, "invalid_config"),
        ({"Repo": tree["repo"]}, None, "invalid_config"),
        ({"repo": tree["repo"]}, {"a/b": tree["mod"]}, "invalid_config"),
        ({"repo": tree["repo"]}, {"": tree["mod"]}, "invalid_config"),
        ({"repo": tree["tmp"] / "does-not-exist"}, None, "io_error"),
        ({"repo": tree["repo"] / "README.md"}, None, "io_error"),
    ):
        with pytest.raises(pathgate.Error) as info:
            Resolver(roots=roots, mods=mods)
        assert info.value.kind == kind
        assert str(tree["tmp"]) not in str(info.value)
    with pytest.raises(pathgate.Error) as info:
        Resolver(roots={"repo": tree["repo"]}, max_tokens=0)
    assert info.value.kind == "invalid_config"


def test_roots_and_mods_accept_pathlike_and_bytes(tree):
    r = Resolver({"repo": os.fsencode(tree["repo"]), "game": tree["game"]},
                 {"Some Mod": str(tree["mod"])}, 5)
    assert r.roots == ("repo", "game") and r.mods == ("Some Mod",)
    assert "live_tokens=0" in repr(r) and str(tree["tmp"]) not in repr(r)


def test_wrong_types(resolver, tree):
    ref = resolver.resolve("root:repo").ref
    with pytest.raises(pathgate.Error, match="^no root or mod configured$") as info:
        Resolver()
    assert info.value.kind == "invalid_config"
    for call in (
        lambda: Resolver(roots=[("repo", tree["repo"])]),
        lambda: Resolver(roots="repo"),
        lambda: Resolver(roots={1: tree["repo"]}),
        lambda: Resolver(roots={"repo": 1}),
        lambda: Resolver(roots={"repo": tree["repo"]}, max_tokens="10"),
        lambda: Resolver(roots={"repo": tree["repo"]}, mods=[1]),
        lambda: resolver.resolve(1),
        lambda: resolver.resolve(),
        lambda: resolver.resolve("x", base=1),
        lambda: resolver.resolve("x", True),
        lambda: resolver.resolve("x", bogus=1),
        lambda: resolver.host_path("root:repo"),
        lambda: resolver.host_path(None),
        lambda: resolver.release(str(ref)),
        lambda: VisibilityRef(1, "root:repo"),
        lambda: VisibilityRef(ref.token),
        lambda: VisibilityResolution(),
    ):
        with pytest.raises(TypeError):
            call()


def test_forged_ref_construction():
    with pytest.raises(pathgate.Error) as info:
        VisibilityRef("not-a-uuid", "root:repo")
    assert info.value.kind == "invalid_argument"
    with pytest.raises(pathgate.PathError) as info:
        VisibilityRef(str(uuid.uuid4()), "root:repo/\0")
    assert info.value.kind == "nul_byte"


def test_values_are_immutable(resolver):
    res = resolver.resolve("root:repo/README.md")
    for obj, attr in ((res, "ok"), (res, "ref"), (res.ref, "token"), (res.ref, "session_abs"),
                      (res, "new"), (resolver, "roots")):
        with pytest.raises(AttributeError):
            setattr(obj, attr, None)
    with pytest.raises(TypeError):
        VisibilityRef.token = None
    again = VisibilityResolution.__eq__(res, res)
    assert again is True and hash(res) == hash(res)
    assert res != resolver.resolve("root:repo/README.md")  # a new token


# -------------------------------------------------------------- properties

_names = st.sampled_from(["common", "traits", "00_traits.txt", "docs", "README.md", "x.txt",
                          "m.txt", "inner", "escape", "secret.txt", "new", "..", ".", "",
                          " sp ace", "é"])
_rel = st.lists(_names, max_size=5).map("/".join)
_prefix = st.sampled_from(["root:repo/", "root:game/", "mod:Some Mod/", "mod:Some Mod:/",
                           "ROOT_REPO:/", "root:nope/", "", "/", "file:///"])


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(_prefix, _rel, st.booleans(), st.sampled_from([None, "root:repo/common", "mod:Some Mod"]))
def test_canonical_address_re_resolves_and_never_leaks(resolver, tree, prefix, rel, req, base):
    host = str(tree["tmp"])
    texts = [prefix + rel]
    if prefix in ("/", "file:///"):  # host forms inside the tree
        texts = [str(tree["repo"] / rel), (tree["repo"] / rel).as_uri() if rel else tree["repo"].as_uri()]
    for text in texts:
        res = resolver.resolve(text, require_exists=req, base=base)
        for shown in (repr(res), str(res.ref), repr(res.ref), res.error_message or ""):
            assert host not in shown
        if not res.ok:
            assert res.error_message == INVALID
            continue
        again = resolver.resolve(str(res.ref), require_exists=False)
        assert again.ok
        assert again.relative_path == res.relative_path
        assert again.root_category == res.root_category
        assert str(again.ref) == str(res.ref)
        assert resolver.release(again.ref) and resolver.release(res.ref)


def test_any_mapping_configures(tree):
    import collections.abc

    class Roots(collections.abc.Mapping):
        def __getitem__(self, key):
            return {"repo": tree["repo"]}[key]

        def __iter__(self):
            return iter(["repo"])

        def __len__(self):
            return 1

    r = Resolver(Roots())
    ok(r.resolve("root:repo/README.md"), "root:repo/README.md", root="repo")

    class Odd:
        def keys(self):
            return ["repo"]

        def items(self):
            return [["repo", tree["repo"]]]

        def __getitem__(self, key):
            return tree["repo"]

    with pytest.raises(TypeError):
        Resolver(Odd())
