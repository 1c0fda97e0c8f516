"""deepagents' own tools, driven as the agent loop calls them, over PathgateBackend.

Each FilesystemMiddleware tool's ``func`` (and ``coroutine``) is called
with the arguments a model would send, over the six spellings of a path an
agent may use: virtual, relative, canonical, legacy alias, file:// URI and
host path. Also the glob -> read -> edit round trip, large-result eviction,
CompositeBackend routing, SkillsMiddleware listing and execute. No answer
contains a host path the agent did not send itself.
"""

from __future__ import annotations

import ast
import asyncio
import os

import pytest

from _thirdparty import HAVE_THIRD_PARTY, SKIP_REASON

if not HAVE_THIRD_PARTY:
    pytest.skip(SKIP_REASON, allow_module_level=True)

from deepagents.backends.composite import CompositeBackend  # noqa: E402
from deepagents.backends.utils import validate_path  # noqa: E402
from deepagents.backends.protocol import (  # noqa: E402
    BackendProtocol,
    GlobResult,
    LsResult,
    ReadResult,
    SandboxBackendProtocol,
)
from deepagents.middleware.filesystem import FilesystemMiddleware, supports_execution  # noqa: E402
from deepagents.middleware.skills import SkillsMiddleware  # noqa: E402
from langchain.tools import ToolRuntime  # noqa: E402
from langchain_core.messages import ToolMessage  # noqa: E402

import pathgate  # noqa: E402
from pathgate.deepagents import PathgateBackend  # noqa: E402

SKILL = """---
name: web-research
description: Structured approach to conducting thorough web research
---

# Web Research
"""


@pytest.fixture
def tree(tmp_path):
    repo = tmp_path / "repo"
    docs = tmp_path / "docs"
    mod = tmp_path / "mods" / "My Mod"
    for d in (repo / "src", repo / ".github" / "workflows", repo / "skills" / "web-research",
              docs / "api", mod / "common"):
        d.mkdir(parents=True)
    (repo / "README.md").write_text("hello pathgate\nsecond line\n")
    (repo / "src" / "app.py").write_text("print('needle')\n")
    (repo / ".github" / "workflows" / "ci.yml").write_text("name: ci\n")
    (repo / "skills" / "web-research" / "SKILL.md").write_text(SKILL)
    (docs / "guide.md").write_text("guide needle\n")
    (docs / "api" / "ref.md").write_text("api reference\n")
    (mod / "common" / "t.txt").write_text("mod text\n")
    resolver = pathgate.Resolver(roots={"repo": repo, "docs": docs}, mods={"MyMod": mod})
    backend = PathgateBackend(pathgate.Session(resolver))
    return {"tmp": tmp_path, "repo": repo, "docs": docs, "mod": mod, "resolver": resolver,
            "backend": backend}


def runtime(call_id="call-1"):
    return ToolRuntime(state={"messages": [], "files": {}}, context=None, tool_call_id=call_id,
                       store=None, stream_writer=lambda _: None, config={})


def tools(backend, **kwargs):
    middleware = FilesystemMiddleware(backend=backend, **kwargs)
    return middleware, {t.name: t for t in middleware.tools}


def text_of(answer):
    assert isinstance(answer, ToolMessage), answer
    return answer.content if isinstance(answer.content, str) else str(answer.content)


def assert_no_host_path(tree, answer, sent=()):
    text = text_of(answer)
    for s in sent:  # what the agent sent itself may be echoed back (as validate_path made it)
        text = text.replace(s, "")
        try:
            text = text.replace(validate_path(s), "")
        except ValueError:
            pass
    assert str(tree["tmp"]) not in text, text


def spellings(tree, rel):
    """The six ways an agent names `rel` in the home root (repo)."""
    host = str(tree["repo"] / rel)
    return {
        "virtual": f"/{rel}",
        "relative": rel,
        "canonical": f"root:repo/{rel}",
        "legacy": f"ROOT_REPO:/{rel}",
        "file_uri": f"file://{host}",
        "host": host,
    }


SIX = ["virtual", "relative", "canonical", "legacy", "file_uri", "host"]


# --------------------------------------------------------------- protocol


def test_is_deepagents_sandbox_backend(tree):
    b = tree["backend"]
    assert isinstance(b, SandboxBackendProtocol) and isinstance(b, BackendProtocol)
    assert supports_execution(b)
    _, t = tools(b)
    assert {"ls", "read_file", "write_file", "edit_file", "glob", "grep", "execute"} <= set(t)
    assert isinstance(b.ls("/"), LsResult) and isinstance(b.read("/README.md"), ReadResult)
    assert isinstance(b.glob("*.md", "/"), GlobResult)


# --------------------------------------------------- six spellings, each tool


@pytest.mark.parametrize("spelling", SIX)
def test_read_file_every_spelling(tree, spelling):
    _, t = tools(tree["backend"])
    path = spellings(tree, "README.md")[spelling]
    answer = t["read_file"].func(file_path=path, runtime=runtime())
    assert answer.status != "error", text_of(answer)
    assert "hello pathgate" in text_of(answer) and "second line" in text_of(answer)
    assert_no_host_path(tree, answer, [path])


@pytest.mark.parametrize("spelling", SIX)
def test_ls_every_spelling(tree, spelling):
    _, t = tools(tree["backend"])
    path = spellings(tree, "src")[spelling]
    answer = t["ls"].func(runtime=runtime(), path=path)
    assert answer.status != "error", text_of(answer)
    assert ast.literal_eval(text_of(answer)) == ["/src/app.py"]
    assert_no_host_path(tree, answer, [path])


@pytest.mark.parametrize("spelling", SIX)
def test_write_then_edit_every_spelling(tree, spelling):
    _, t = tools(tree["backend"])
    path = spellings(tree, f"out/{spelling}.txt")[spelling]
    w = t["write_file"].func(file_path=path, content="one\ntwo\n", runtime=runtime())
    assert w.status != "error", text_of(w)
    e = t["edit_file"].func(file_path=path, old_string="two", new_string="deux", runtime=runtime())
    assert e.status != "error", text_of(e)
    assert (tree["repo"] / "out" / f"{spelling}.txt").read_text() == "one\ndeux\n"
    for answer in (w, e):
        assert_no_host_path(tree, answer, [path])


@pytest.mark.parametrize("spelling", SIX)
def test_glob_and_grep_every_spelling(tree, spelling):
    _, t = tools(tree["backend"])
    path = spellings(tree, "src")[spelling]
    g = t["glob"].func(pattern="*.py", runtime=runtime(), path=path)
    assert ast.literal_eval(text_of(g)) == ["/src/app.py"]
    r = t["grep"].func(pattern="needle", runtime=runtime(), path=path, output_mode="content")
    assert "/src/app.py" in text_of(r) and "print('needle')" in text_of(r)
    for answer in (g, r):
        assert_no_host_path(tree, answer, [path])


def test_other_bases_in_their_spellings(tree):
    _, t = tools(tree["backend"])
    for path in ("root:docs/guide.md", "/root:docs/guide.md", "ROOT_DOCS:/guide.md",
                 "mod:MyMod/common/t.txt", "/mod:MyMod/common/t.txt", str(tree["docs"] / "guide.md")):
        answer = t["read_file"].func(file_path=path, runtime=runtime())
        assert answer.status != "error", (path, text_of(answer))
        assert_no_host_path(tree, answer, [path])
    ls = t["ls"].func(runtime=runtime(), path="ROOT_DOCS:/")
    assert ast.literal_eval(text_of(ls)) == ["/root:docs/api/", "/root:docs/guide.md"]


def test_refusals_are_errors_without_host_paths(tree):
    _, t = tools(tree["backend"])
    outside = tree["tmp"] / "outside.txt"
    outside.write_text("secret")
    for path in ("/nope.txt", "root:nope/x", "root:docs/../repo/README.md", str(outside),
                 f"file://{outside}", "/etc/passwd"):
        answer = t["read_file"].func(file_path=path, runtime=runtime())
        assert "secret" not in text_of(answer)
        assert "hello pathgate" not in text_of(answer) or path.startswith("root:docs/..")
        assert_no_host_path(tree, answer, [path])
    w = t["write_file"].func(file_path=str(outside), content="x", runtime=runtime())
    assert outside.read_text() == "secret"
    assert_no_host_path(tree, w, [str(outside)])


# ------------------------------------------------------------- round trips


def test_glob_read_edit_round_trip(tree):
    """Paths from glob and grep go straight back into read_file and edit_file."""
    _, t = tools(tree["backend"])
    found = ast.literal_eval(text_of(t["glob"].func(pattern="**/*.md", runtime=runtime(), path="root:docs")))
    assert found == ["/root:docs/api/ref.md", "/root:docs/guide.md"]
    home = ast.literal_eval(text_of(t["glob"].func(pattern="*.yml", runtime=runtime(), path="/")))
    assert home == ["/.github/workflows/ci.yml"]  # a bare pattern reaches dot-directories
    grep_hits = text_of(t["grep"].func(pattern="needle", runtime=runtime(), path="/root:docs"))
    assert grep_hits.strip() == "/root:docs/guide.md"
    for path in [*found, *home, grep_hits.strip()]:
        r = t["read_file"].func(file_path=path, runtime=runtime())
        assert r.status != "error", (path, text_of(r))
    e = t["edit_file"].func(file_path=found[1], old_string="guide", new_string="GUIDE", runtime=runtime())
    assert e.status != "error", text_of(e)
    assert (tree["docs"] / "guide.md").read_text() == "GUIDE needle\n"
    e2 = t["edit_file"].func(file_path=home[0], old_string="ci", new_string="build", runtime=runtime())
    assert e2.status != "error"
    assert (tree["repo"] / ".github" / "workflows" / "ci.yml").read_text() == "name: build\n"


def test_large_result_eviction_round_trip(tree):
    middleware, t = tools(tree["backend"], tool_token_limit_before_evict=1000)
    big = "f" * 5000
    out = middleware._intercept_large_tool_result(ToolMessage(content=big, tool_call_id="big_1"))
    assert "/large_tool_results/big_1" in text_of(out)
    assert (tree["repo"] / "large_tool_results" / "big_1").read_text() == big
    back = t["read_file"].func(file_path="/large_tool_results/big_1", runtime=runtime())
    assert back.status != "error" and "fffff" in text_of(back)
    assert_no_host_path(tree, out)


def test_composite_backend_routes_to_pathgate(tree):
    docs = PathgateBackend(pathgate.Session(tree["resolver"], "root:docs"))
    composite = CompositeBackend(default=docs, routes={"/repo/": tree["backend"]})
    _, t = tools(composite)
    ls = ast.literal_eval(text_of(t["ls"].func(runtime=runtime(), path="/repo/")))
    assert "/repo/README.md" in ls and "/repo/src/" in ls
    r = t["read_file"].func(file_path="/repo/README.md", runtime=runtime())
    assert "hello pathgate" in text_of(r)
    g = ast.literal_eval(text_of(t["glob"].func(pattern="**/*.py", runtime=runtime(), path="/repo/")))
    assert g == ["/repo/src/app.py"]
    everywhere = text_of(t["grep"].func(pattern="needle", runtime=runtime(), path="/"))
    assert "/repo/src/app.py" in everywhere and "/guide.md" in everywhere
    w = t["write_file"].func(file_path="/repo/new.txt", content="routed\n", runtime=runtime())
    assert w.status != "error", text_of(w)
    assert (tree["repo"] / "new.txt").read_text() == "routed\n"
    e = t["edit_file"].func(file_path="/repo/new.txt", old_string="routed", new_string="edited",
                            runtime=runtime())
    assert e.status != "error" and (tree["repo"] / "new.txt").read_text() == "edited\n"
    for answer in (r, w, e):
        assert_no_host_path(tree, answer)


def test_skills_middleware_lists_skills(tree):
    for backend in (tree["backend"],
                    CompositeBackend(default=tree["backend"], routes={"/repo/": tree["backend"]})):
        root = "/skills/" if backend is tree["backend"] else "/repo/skills/"
        mw = SkillsMiddleware(backend=backend, sources=[root])
        for update in (mw.before_agent({}, None, {}), asyncio.run(mw.abefore_agent({}, None, {}))):
            assert "skills_load_errors" not in update, update
            skills = update["skills_metadata"]
            assert [s["name"] for s in skills] == ["web-research"]
            assert skills[0]["path"] == root + "web-research/SKILL.md"
            assert str(tree["tmp"]) not in repr(update)
    missing = SkillsMiddleware(backend=tree["backend"], sources=["/nope/"]).before_agent({}, None, {})
    assert missing["skills_metadata"] == [] and str(tree["tmp"]) not in repr(missing)


# ------------------------------------------------------------------ execute

needs_landlock = pytest.mark.skipif(pathgate.landlock_abi() == 0, reason="the kernel has no Landlock")


@needs_landlock
def test_execute_tool_sync(tree):
    _, t = tools(tree["backend"])
    ok = t["execute"].func(command="cat README.md; pwd", runtime=runtime())
    assert "hello pathgate" in text_of(ok) and "exit code 0" in text_of(ok)
    assert ok.artifact == {"exit_code": 0}
    assert_no_host_path(tree, ok)  # the cwd is shown as the agent's "/"
    bad = t["execute"].func(command="echo out; exit 3", runtime=runtime())
    assert "out" in text_of(bad) and bad.artifact == {"exit_code": 3}
    escape = t["execute"].func(command=f"cat {tree['tmp']}/../etc/hostname >/dev/null; "
                                        f"echo x > {tree['tmp']}/escaped.txt", runtime=runtime())
    assert not (tree["tmp"] / "escaped.txt").exists()
    assert escape.artifact["exit_code"] != 0


@needs_landlock
def test_execute_tool_async_and_timeout(tree):
    _, t = tools(tree["backend"])
    ok = asyncio.run(t["execute"].coroutine(command="ls src", runtime=runtime()))
    assert "app.py" in text_of(ok) and ok.artifact == {"exit_code": 0}
    slow = asyncio.run(t["execute"].coroutine(command="echo started; sleep 10", runtime=runtime(), timeout=1))
    assert slow.artifact == {"exit_code": 124}
    assert "started" in text_of(slow) and "timed out after 1 seconds" in text_of(slow)


@needs_landlock
def test_execute_response_type(tree):
    from deepagents.backends.protocol import ExecuteResponse

    r = tree["backend"].execute("printf 'a%.0s' $(seq 1 10)")
    assert type(r) is ExecuteResponse and r.output == "a" * 10 and r.exit_code == 0 and not r.truncated
    tree["backend"].configure_execute(output_cap=4)
    r = tree["backend"].execute("printf 'abcdefgh'")
    assert r.truncated and r.output == "abcd"
    r = asyncio.run(tree["backend"].aexecute("exit 7"))
    assert r.exit_code == 7


def test_no_tool_answer_contains_a_host_path(tree):
    """Every tool, success or failure, over names that exist and do not."""
    _, t = tools(tree["backend"])
    rt = runtime()
    answers = [
        t["ls"].func(runtime=rt, path="/"),
        t["ls"].func(runtime=rt, path="/missing"),
        t["ls"].func(runtime=rt, path="/README.md"),
        t["read_file"].func(file_path="/missing.txt", runtime=rt),
        t["read_file"].func(file_path="/src", runtime=rt),
        t["edit_file"].func(file_path="/README.md", old_string="zzz", new_string="y", runtime=rt),
        t["edit_file"].func(file_path="/missing.txt", old_string="a", new_string="b", runtime=rt),
        t["glob"].func(pattern="**/*", runtime=rt, path="/"),
        t["grep"].func(pattern="e", runtime=rt, path="/", output_mode="content"),
        t["grep"].func(pattern="e", runtime=rt, path="/missing"),
        t["delete"].func(file_path="/missing.txt", runtime=rt),
    ]
    for answer in answers:
        assert_no_host_path(tree, answer)
    os.chmod(tree["repo"] / "README.md", 0o000)
    try:
        denied = t["read_file"].func(file_path="/README.md", runtime=rt)
        assert_no_host_path(tree, denied)
    finally:
        os.chmod(tree["repo"] / "README.md", 0o644)
