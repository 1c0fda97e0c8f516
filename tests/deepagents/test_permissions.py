"""deepagents' own rules in pathgate's policy layer (docs/policy.md
"deepagents"): ``PathgateBackend(session, permissions=[FilesystemPermission])``.

deepagents' FilesystemMiddleware checks a rule against the path string a
tool was given; here the rules are handed to the core, so that they hold
for every spelling of a path (virtual, relative, canonical, legacy alias,
file:// URI, host path, a symlink) and in every tool, with the
``execute`` tool still offered (the middleware refuses permissions next to
it). Also the translation itself (first match wins -> last rule wins,
allow -> exception) and the audit events of the refusals.
"""

from __future__ import annotations

import ast
import os
from types import SimpleNamespace

import pytest

from _thirdparty import HAVE_THIRD_PARTY, SKIP_REASON

if not HAVE_THIRD_PARTY:
    pytest.skip(SKIP_REASON, allow_module_level=True)

from deepagents.middleware.filesystem import (  # noqa: E402
    FilesystemMiddleware,
    FilesystemPermission,
)
from langchain.tools import ToolRuntime  # noqa: E402
from langchain_core.messages import ToolMessage  # noqa: E402

import pathgate  # noqa: E402
from pathgate.deepagents import PathgateBackend  # noqa: E402
from pathgate.permissions import policy_lists  # noqa: E402


@pytest.fixture
def tree(tmp_path):
    repo, docs = tmp_path / "repo", tmp_path / "docs"
    for rel, text in {
        "repo/.env": "SECRET=1\n",
        "repo/app/.env": "APP_SECRET=1\n",
        "repo/app/main.py": "print('needle')\n",
        "repo/secrets/key.txt": "KEY needle\n",
        "repo/secrets/public.txt": "public needle\n",
        "repo/.git/hooks/pre-commit": "#!/bin/sh\n",
        "repo/.git/index": "idx\n",
        "docs/guide.md": "guide needle\n",
        "docs/private/notes.md": "private needle\n",
    }.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    (repo / "innocent").symlink_to(".env")
    events = []
    resolver = pathgate.Resolver(roots={"repo": repo, "docs": docs}, audit=events.append)
    permissions = [
        FilesystemPermission(operations=["read"], paths=["/secrets/public.txt"], mode="allow"),
        FilesystemPermission(operations=["read", "write"], paths=["/secrets/**"], mode="deny"),
        FilesystemPermission(operations=["read"], paths=["/**/.env"], mode="deny"),
        FilesystemPermission(operations=["write"], paths=["/.git/hooks/**"], mode="deny"),
        FilesystemPermission(operations=["read"], paths=["/root:docs/private/**"], mode="deny"),
    ]
    backend = PathgateBackend(pathgate.Session(resolver), permissions=permissions)
    return {"tmp": tmp_path, "repo": repo, "docs": docs, "resolver": resolver,
            "backend": backend, "events": events}


def runtime():
    return ToolRuntime(state={"messages": [], "files": {}}, context=None, tool_call_id="c",
                       store=None, stream_writer=lambda _: None, config={})


def text_of(answer):
    assert isinstance(answer, ToolMessage), answer
    return answer.content if isinstance(answer.content, str) else str(answer.content)


def test_tools_cannot_reach_denied_paths_by_any_spelling(tree):
    middleware = FilesystemMiddleware(backend=tree["backend"])  # no permissions of its own
    t = {x.name: x for x in middleware.tools}
    assert "execute" in t  # the agent keeps its commands
    repo = tree["repo"]
    for path in ("/.env", ".env", "root:repo/.env", "ROOT_REPO:/.env", f"file://{repo}/.env",
                 str(repo / ".env"), "/app/.ENV", "/innocent", "/secrets/key.txt",
                 "/root:docs/private/notes.md", str(tree["docs"] / "private" / "notes.md")):
        answer = t["read_file"].func(file_path=path, runtime=runtime())
        assert "SECRET" not in text_of(answer) and "private needle" not in text_of(answer), path
        assert "KEY" not in text_of(answer), path
    ok = t["read_file"].func(file_path="/secrets/public.txt", runtime=runtime())
    assert "public needle" in text_of(ok)  # the allow rule, first in deepagents' order
    listing = ast.literal_eval(text_of(t["ls"].func(runtime=runtime(), path="/")))
    assert "/.env" not in listing and "/innocent" not in listing and "/secrets/" not in listing
    assert "/app/" in listing
    g = text_of(t["glob"].func(pattern="**/*", runtime=runtime(), path="/"))
    assert ".env" not in g and "key.txt" not in g and "/app/main.py" in g
    r = text_of(t["grep"].func(pattern="needle", runtime=runtime(), path="/", output_mode="content"))
    assert "/app/main.py" in r and "KEY" not in r and "private needle" not in r
    r = text_of(t["grep"].func(pattern="SECRET", runtime=runtime(), path="/",
                               output_mode="files_with_matches"))
    assert ".env" not in r
    # writes: the hook, the hidden file, what is moved away
    for path in ("/.git/hooks/pre-commit", "root:repo/.git/hooks/pre-push", "/.env",
                 "/secrets/new.txt", "/app/.env"):
        w = t["write_file"].func(file_path=path, content="evil", runtime=runtime())
        assert w.status == "error" or "Error" in text_of(w), (path, text_of(w))
    e = t["edit_file"].func(file_path="/.git/hooks/pre-commit", old_string="#!", new_string="x",
                            runtime=runtime())
    assert "Protected by policy" in text_of(e) or e.status == "error"
    assert (repo / ".git" / "hooks" / "pre-commit").read_text() == "#!/bin/sh\n"
    assert (repo / ".env").read_text() == "SECRET=1\n"
    assert not (repo / ".git" / "hooks" / "pre-push").exists()
    # what is not denied still writes
    w = t["write_file"].func(file_path="/.git/index2", content="ok", runtime=runtime())
    assert "Error" not in text_of(w), text_of(w)
    moved = tree["backend"].backend.move("root:repo/app", "root:repo/app2")  # holds app/.env
    assert moved.kind == "policy_denied" and not (repo / "app2").exists()
    # every refusal is an audit event, labelled with deepagents' rules
    denied = [ev for ev in tree["events"] if ev["outcome"] == "denied"]
    assert {ev["source"] for ev in denied} == {"deepagents"}
    addresses = {ev["address"] for ev in denied}
    for a in ("root:repo/.env", "root:repo/.git/hooks/pre-commit", "root:repo/secrets/key.txt",
              "root:docs/private/notes.md", "root:repo/innocent"):
        assert a in addresses, a
    for answer_text in (g, r):
        assert str(tree["tmp"]) not in answer_text


def test_the_translation():
    rules = [
        SimpleNamespace(operations=["read"], paths=["/public/**"], mode="allow"),
        SimpleNamespace(operations=["read", "write"], paths=["/**"], mode="deny"),
        SimpleNamespace(operations=["write"], paths=["/root:docs/x.md", "/*/cfg"], mode="interrupt"),
        SimpleNamespace(operations=["read"], paths=["/srv/docs/y"], mode="deny"),
    ]
    bases = [("/srv/docs", "root:docs"), ("/srv/repo", "root:repo")]
    read, write, interrupting = policy_lists(rules, home="root:repo", bases=bases)
    # first match wins -> listed last; allow -> exception
    assert read == ["root:docs/y", "**", "!root:repo/public/**"]
    assert write == ["root:docs/x.md", "root:repo/*/cfg", "root:docs/cfg", "**"]
    assert interrupting == ["/root:docs/x.md", "/*/cfg"]
    d, _, _ = policy_lists([SimpleNamespace(operations=["read"], paths=["/d/**"], mode="deny")],
                           home="root:repo", bases=bases)
    assert d == ["root:repo/d/"]  # the directory itself too
    with pytest.raises(ValueError):
        policy_lists([SimpleNamespace(operations=["read"], paths=["x"], mode="deny")],
                     home="root:repo", bases=bases)
    with pytest.raises(ValueError):
        policy_lists([SimpleNamespace(operations=["read"], paths=["/x"], mode="maybe")],
                     home="root:repo", bases=bases)


def test_interrupt_rules_fail_closed_and_say_so(tmp_path, caplog):
    (tmp_path / "r").mkdir()
    (tmp_path / "r" / "a.txt").write_text("a\n")
    resolver = pathgate.Resolver(roots={"r": tmp_path / "r"})
    b = PathgateBackend(resolver, permissions=[
        FilesystemPermission(operations=["write"], paths=["/a.txt"], mode="interrupt")])
    assert "cannot pause" in caplog.text
    assert b.write("/a.txt", "x").error
    assert b.read("/a.txt").error is None
    assert resolver.policy_check("root:r/a.txt")["denied"] == "write"


def test_permissions_hold_in_apply_patch_and_the_toolkit(tree):
    b, repo = tree["backend"], tree["repo"]
    hook = ("*** Begin Patch\n*** Add File: /new.txt\n+new\n*** Update File: /.git/hooks/pre-commit\n"
            "@@\n-#!/bin/sh\n+evil\n*** End Patch\n")
    res = b.apply_patch(hook)
    assert res.kind == "policy_denied" and "Protected by policy" in res.error
    secret = "*** Begin Patch\n*** Delete File: /secrets/key.txt\n*** End Patch\n"
    res = b.apply_patch(secret)
    assert res.kind == "invalid_path" and res.error == "Invalid path / not found"
    assert not (repo / "new.txt").exists() and (repo / "secrets" / "key.txt").exists()
    tk = b.backend  # the pathgate.Backend under it: the toolkit
    assert tk.copy("root:repo/.env", "root:repo/leak.txt").kind == "invalid_path"
    assert tk.symlink("secrets/key.txt", "root:repo/leak").kind == "invalid_path"
    assert tk.chmod("root:repo/.git/hooks/pre-commit", 0o777).kind == "policy_denied"
    assert tk.text_editor("str_replace", "root:repo/.git/hooks/pre-commit", old_str="#!/bin/sh",
                          new_str="evil").kind == "policy_denied"
    assert (repo / ".git" / "hooks" / "pre-commit").read_text() == "#!/bin/sh\n"
    assert not (repo / "leak.txt").exists() and not (repo / "leak").exists()
    denied = {(ev["operation"], ev["source"]) for ev in tree["events"] if ev["outcome"] == "denied"}
    for op in ("apply_patch", "copy", "symlink", "chmod", "editor_str_replace"):
        assert (op, "deepagents") in denied, op


@pytest.mark.skipif(os.environ.get("PATHGATE_OS_BACKEND", "linux") == "posix",
                    reason="needs commands, which this build (PATHGATE_OS=posix) has none of")
def test_the_rules_hold_inside_execute(tree):
    """deepagents' rules, given to the backend, hold inside the agent's
    commands too (docs/exec.md "Policy in commands"): the agent keeps both."""
    middleware = FilesystemMiddleware(backend=tree["backend"])
    t = {x.name: x for x in middleware.tools}
    repo = tree["repo"]
    out = text_of(t["execute"].func(
        command="cat .env app/.env innocent secrets/key.txt; grep -r -e SECRET -e KEY . ; "
                "echo evil > .git/hooks/pre-commit; cat app/main.py", runtime=runtime()))
    assert "SECRET=1" not in out and "APP_SECRET" not in out and "KEY needle" not in out, out
    assert "print('needle')" in out  # what is allowed is still there
    assert (repo / ".git" / "hooks" / "pre-commit").read_text() == "#!/bin/sh\n"
    starts = [ev for ev in tree["events"]
              if ev["operation"] == "execute" and ev["outcome"] == "allowed"]
    assert starts and starts[0]["count"] >= 4
