"""The vcs preset as a model of what git follows (docs/policy.md "vcs"),
from the red team's findings: in each, the agent's plain file operations
(or a command) try to make the HOST's next `git status` or `git commit`
run a command of the agent's choosing. The host's git is run here by the
test, outside pathgate, with `core.fsmonitor` (or a hook) as a marker
command: the marker must not appear. Each attack is first shown to work
on a resolver without the preset (the control), so a test that cannot
fail cannot pass either."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

import pathgate

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

GIT_ID = ["-c", "user.name=t", "-c", "user.email=t@e"]


def host_git(repo: Path, *args: str, home: Path) -> subprocess.CompletedProcess[str]:
    """The host's git, as the user would run it next (no global config)."""
    env = {"PATH": os.environ["PATH"], "HOME": str(home), "GIT_CONFIG_NOSYSTEM": "1",
           "LC_ALL": "C"}
    return subprocess.run(["git", *GIT_ID, *args], cwd=repo, env=env, capture_output=True,
                          text=True, check=False, timeout=60)


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    (tmp_path / "home").mkdir()
    host_git(repo, "init", "-q", "-b", "main", ".", home=tmp_path / "home")
    (repo / "a.txt").write_text("a\n")
    host_git(repo, "add", "a.txt", home=tmp_path / "home")
    assert host_git(repo, "commit", "-qm", "one", home=tmp_path / "home").returncode == 0
    return repo


def backend(repo: Path, presets: list[str]) -> pathgate.Backend:
    r = pathgate.Resolver(roots={"repo": repo}, presets=presets)
    return pathgate.Backend(pathgate.Session(r))


def fsmonitor(marker: Path) -> str:
    return f'[core]\n\trepositoryformatversion = 0\n\tfsmonitor = "touch {marker}; false"\n'


def attack_commondir(b: pathgate.Backend, marker: Path) -> None:
    """Finding 1: .git/commondir leads to a shadow git directory."""
    b.write("root:repo/shadow/config", fsmonitor(marker))
    b.write("root:repo/shadow/HEAD", "ref: refs/heads/main\n")
    b.symlink("../.git/objects", "root:repo/shadow/objects")
    b.symlink("../.git/refs", "root:repo/shadow/refs")
    b.write("root:repo/.git/commondir", "../shadow\n")


def attack_root_gitdir(b: pathgate.Backend, marker: Path) -> None:
    """Finding 2: .git made invalid, the root made a git directory."""
    b.write("root:repo/.git/HEAD", "garbage\n")
    b.write("root:repo/HEAD", "ref: refs/heads/main\n")
    b.symlink(".git/objects", "root:repo/objects")
    b.symlink(".git/refs", "root:repo/refs")
    b.write("root:repo/config", fsmonitor(marker).replace("[core]\n", "[core]\n\tworktree = .\n"))


def attack_dotgit_file(b: pathgate.Backend, marker: Path) -> None:
    """The next variant of 1: a .git file below the root leads elsewhere."""
    b.write("root:repo/shadow/config", fsmonitor(marker))
    b.write("root:repo/shadow/HEAD", "ref: refs/heads/main\n")
    b.symlink("../.git/objects", "root:repo/shadow/objects")
    b.symlink("../.git/refs", "root:repo/shadow/refs")
    b.write("root:repo/sub/.git", "gitdir: ../shadow\n")


@pytest.mark.parametrize("attack", [attack_commondir, attack_root_gitdir, attack_dotgit_file])
def test_file_operations_cannot_make_host_git_run_a_command(repo: Path, tmp_path: Path,
                                                            attack) -> None:  # noqa: ANN001
    home = tmp_path / "home"
    where = repo / "sub" if attack is attack_dotgit_file else repo
    # the control: without the preset the attack works on this machine's git
    control = tmp_path / "control"
    shutil.copytree(repo, control, symlinks=True)
    marker = tmp_path / "control-ran"
    attack(pathgate.Backend(pathgate.Session(pathgate.Resolver(roots={"repo": control}))), marker)
    host_git(control / where.relative_to(repo), "status", home=home)
    assert marker.exists(), "the control attack did not work: the test proves nothing"
    # under vcs: refused, and the host's git runs nothing
    marker = tmp_path / "ran"
    attack(backend(repo, ["vcs"]), marker)
    where.mkdir(exist_ok=True)
    st = host_git(where, "status", "--short", home=home)
    assert not marker.exists()
    assert st.returncode == 0, st.stderr
    assert (repo / ".git/HEAD").read_text() == "ref: refs/heads/main\n"
    assert not (repo / ".git/commondir").exists() and not (repo / "HEAD").exists()


def test_refusals_name_the_preset(repo: Path) -> None:
    b = backend(repo, ["vcs"])
    for path in (".git/commondir", ".git/HEAD", "HEAD", "sub/.git", ".git/worktrees/w/gitdir",
                 ".git/worktrees/w/config", ".git/info/attributes", ".git/objects/info/alternates"):
        w = b.write(f"root:repo/{path}", "x")
        assert w.kind == "policy_denied", path
    assert b.policy_check("root:repo/.git/commondir") if hasattr(b, "policy_check") else True
    r = b.resolver
    assert r.policy_check("root:repo/.git/HEAD") == {"denied": "write", "rule": "HEAD",
                                                     "source": "preset:vcs"}
    # what is not a pointer or configuration stays writable
    assert b.write("root:repo/config/database.yml", "x").error is None  # Rails' config/
    assert b.write("root:repo/.git/index.bak", "x").error is None
    assert b.write("root:repo/.git/refs/heads/topic", "0" * 40 + "\n").error is None


COMMAND_ATTACKS = {
    "commondir": "mkdir -p shadow && printf '%s' > shadow/config && ln -s ../.git/objects "
                 "shadow/objects && ln -s ../.git/refs shadow/refs && "
                 "printf 'ref: refs/heads/main\\n' > shadow/HEAD && "
                 "printf '../shadow\\n' > .git/commondir",
    "root_gitdir": "printf garbage > .git/HEAD && printf 'ref: refs/heads/main\\n' > HEAD && "
                   "ln -s .git/objects objects && ln -s .git/refs refs && "
                   "printf '%s' > config",
    "dotgit_file": "mkdir -p shadow sub && printf '%s' > shadow/config && ln -s ../.git/objects "
                   "shadow/objects && ln -s ../.git/refs shadow/refs && "
                   "printf 'ref: refs/heads/main\\n' > shadow/HEAD && "
                   "printf 'gitdir: ../shadow\\n' > sub/.git",
}


@pytest.mark.parametrize("name", sorted(COMMAND_ATTACKS))
def test_a_command_cannot_leave_a_pointer_behind(repo: Path, tmp_path: Path, name: str) -> None:
    marker = tmp_path / "ran"
    cfg = fsmonitor(marker)
    if name == "root_gitdir":
        cfg = cfg.replace("[core]\n", "[core]\n\tworktree = .\n")
    cmd = COMMAND_ATTACKS[name] % cfg.replace("\n", "\\n").replace("\t", "\\t")
    events: list[dict] = []
    r = pathgate.Resolver(roots={"repo": repo}, presets=["vcs"], audit=events.append)
    res = pathgate.Backend(pathgate.Session(r)).execute(cmd)
    assert res.exit_code == 0, res.output
    assert "by the preset 'vcs'" in res.output
    fixed = [e for e in events if e["outcome"] in ("restored", "removed")]
    assert fixed and all(e["reason"] == "invalid_pointer" and e["source"] == "preset:vcs"
                         for e in fixed)
    assert str(repo) not in res.output
    where = repo / "sub" if name == "dotgit_file" else repo
    st = host_git(where, "status", "--short", home=tmp_path / "home")
    assert not marker.exists()
    assert st.returncode == 0, st.stderr
    assert (repo / ".git/HEAD").read_text() == "ref: refs/heads/main\n"


def test_hook_managers_files_are_protected(repo: Path, tmp_path: Path) -> None:
    """Finding 3: with core.hooksPath in the work tree (husky's .husky/_,
    .githooks/), the hooks are ordinary files; the host's next commit runs
    what the agent wrote there."""
    home = tmp_path / "home"
    for hooks in (".husky/_", ".githooks"):
        (repo / hooks).mkdir(parents=True, exist_ok=True)
        hook = repo / hooks / "pre-commit"
        hook.write_text("#!/bin/sh\nexit 0\n")
        hook.chmod(0o755)
        host_git(repo, "config", "core.hooksPath", hooks, home=home)
        marker = tmp_path / "hook-ran"
        b = backend(repo, ["vcs"])
        assert b.write(f"root:repo/{hooks}/pre-commit",
                       f"#!/bin/sh\ntouch {marker}\n").kind == "policy_denied"
        assert b.edit(f"root:repo/{hooks}/pre-commit", "exit 0",
                      f"touch {marker}").kind == "policy_denied"
        res = b.execute(f"printf '#!/bin/sh\\ntouch {marker}\\n' > {hooks}/pre-commit; echo rc=$?")
        assert "rc=1" in res.output or "rc=2" in res.output, res.output
        (repo / "b.txt").write_text(hooks)
        host_git(repo, "add", "b.txt", home=home)
        c = host_git(repo, "commit", "-qm", hooks, home=home)
        assert c.returncode == 0, c.stderr
        assert not marker.exists()
    b = backend(repo, ["vcs"])
    for name in (".pre-commit-config.yaml", "lefthook.yml", ".lefthook.yml",
                 ".simple-git-hooks.json", ".husky/pre-push"):
        assert b.write(f"root:repo/{name}", "x").kind == "policy_denied", name


@pytest.mark.parametrize("name", [".devcontainer/devcontainer.json", ".devcontainer.json",
                                  ".zed/tasks.json", ".gemini/settings.json",
                                  ".windsurf/rules.md", ".continue/config.yaml",
                                  ".aider.conf.yml"])
def test_agent_config_covers_editors_and_agents(repo: Path, name: str) -> None:
    b = backend(repo, ["agent-config"])
    assert b.write(f"root:repo/{name}", "{}").kind == "policy_denied"


def test_everyday_git_inside_execute(repo: Path) -> None:
    b = backend(repo, ["vcs", "secrets", "agent-config"])
    g = "git -c user.name=t -c user.email=t@e"
    res = b.execute(
        f"set -e; {g} branch topic; {g} checkout -q topic; echo b > b.txt; {g} add b.txt; "
        f"{g} commit -qm two; echo c >> a.txt; {g} stash -q; {g} stash pop -q; "
        f"{g} commit -qam three; {g} checkout -q main; {g} rebase -q topic; "
        f"{g} worktree add -q ../wt 2>/dev/null || {g} worktree add -q wt; {g} gc -q 2>/dev/null; "
        f"{g} log --oneline | wc -l; echo ALL-OK")
    assert "ALL-OK" in res.output and res.exit_code == 0, res.output
    assert "by the preset" not in res.output  # git's own pointers are valid
    assert (repo / "wt" / "b.txt").exists()
    assert (repo / ".git/HEAD").read_text() == "ref: refs/heads/main\n"


def test_git_config_refusal_names_the_preset_and_the_file(repo: Path) -> None:
    """Issue 34 item 6: .git/config stays read-only; git config says why."""
    res = backend(repo, ["vcs"]).execute("git config user.name someone")
    assert res.exit_code != 0
    assert "'.git/config' is read-only in commands under the preset 'vcs'" in res.output, res.output


def test_history_preset_hides_objects(repo: Path, tmp_path: Path) -> None:
    """Finding 5: a .env hidden by `secrets` but committed once is in the
    history; vcs-history hides the objects too."""
    home = tmp_path / "home"
    (repo / ".env").write_text("SECRET=42\n")
    host_git(repo, "add", ".env", home=home)
    host_git(repo, "commit", "-qm", "oops", home=home)
    res = backend(repo, ["secrets"]).execute("git show HEAD:.env")
    assert "SECRET=42" in res.output  # the documented limit of `secrets` alone
    b = backend(repo, ["secrets", "vcs-history"])
    res = b.execute("git show HEAD:.env; cat .git/objects/*/* | wc -c")
    assert "SECRET=42" not in res.output
    assert b.read("root:repo/.git/objects/info").kind == "invalid_path"


def test_tracked_hidden_file_refusal_names_the_preset(repo: Path, tmp_path: Path) -> None:
    """Issue 34 item 6: a tracked .env under `secrets` shows modified in
    commands and `git commit -a` cannot read it: the result says why."""
    home = tmp_path / "home"
    (repo / ".env").write_text("SECRET=42\n")
    host_git(repo, "add", ".env", home=home)
    host_git(repo, "commit", "-qm", "env", home=home)
    g = "git -c user.name=t -c user.email=t@e"
    b = backend(repo, ["vcs", "secrets"])
    res = b.execute(f"echo x >> a.txt; {g} commit -qam edit")
    assert res.exit_code != 0
    assert "'.env' is hidden in commands by the preset 'secrets' (rule '.env')" in res.output, \
        res.output
    # the flow that works: name what to commit
    res = b.execute(f"{g} commit -qm edit a.txt && echo committed")
    assert "committed" in res.output, res.output
    assert (repo / ".env").read_text() == "SECRET=42\n"


@pytest.mark.parametrize("version", ["2", "3", "4"])
def test_secrets_says_when_git_tracks_a_hidden_path(repo: Path, tmp_path: Path,
                                                    version: str) -> None:
    """Finding 5: `secrets` detects a hidden path that git tracks (the index,
    versions 2 to 4, read by the core) and says so: a warning when the
    resolver is made, an audit event, and Resolver.policy_tracked()."""
    home = tmp_path / "home"
    for rel in ("app/.env", "app/config/.env.local", "app/main.py", "deploy/key.pem", "z.txt"):
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(rel)
    host_git(repo, "add", "-A", home=home)
    host_git(repo, "commit", "-qm", "tracked", home=home)
    host_git(repo, "update-index", "--index-version", version, home=home)
    if version == "3":  # an extended flag makes git write version 3 entries
        host_git(repo, "update-index", "--skip-worktree", "z.txt", home=home)
    events: list[dict] = []
    with pytest.warns(UserWarning, match=r"git tracks 3 path\(s\) the policy hides"):
        r = pathgate.Resolver(roots={"repo": repo}, presets=["secrets"], audit=events.append)
    found = sorted(r.policy_tracked())
    assert found == ["root:repo/app/.env", "root:repo/app/config/.env.local",
                     "root:repo/deploy/key.pem"]
    tracked = [e for e in events if e["operation"] == "git_index"]
    assert {e["address"] for e in tracked} >= set(found)
    assert all(e["outcome"] == "tracked" and e["source"] == "preset:secrets" for e in tracked)
    # nothing to say without a hidden tracked path, or without a repository
    assert pathgate.Resolver(roots={"repo": repo}, presets=["vcs"]).policy_tracked() == []
    (tmp_path / "plain").mkdir()
    assert pathgate.Resolver(roots={"p": tmp_path / "plain"},
                             presets=["secrets"]).policy_tracked() == []


def test_a_broken_index_says_nothing_and_breaks_nothing(repo: Path) -> None:
    idx = repo / ".git/index"
    data = idx.read_bytes()
    for bad in (b"", b"DIRC", data[:40], b"DIRC\x00\x00\x00\x09" + data[8:],
                data[:12] + b"\xff" * 200):
        idx.write_bytes(bad)
        r = pathgate.Resolver(roots={"repo": repo}, presets=["secrets"])
        assert r.policy_tracked() == []


def test_cli_and_mcp_say_it_at_start(repo: Path, tmp_path: Path,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    from pathgate import cli
    home = tmp_path / "home"
    (repo / ".env").write_text("SECRET=42\n")
    host_git(repo, "add", ".env", home=home)
    host_git(repo, "commit", "-qm", "env", home=home)
    assert cli.main(["--root", f"repo={repo}", "--preset", "secrets", "ls", "root:repo"]) == 0
    err = capsys.readouterr().err
    assert "pathgate: warning: git tracks 1 path(s) the policy hides (first: root:repo/.env)" \
        in err
    assert str(repo) not in err
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        p for p in (os.environ.get("PYTHONPATH"), str(Path(pathgate.__file__).parent.parent)) if p))
    mcp = subprocess.run([os.environ.get("PATHGATE_PYTHON", "/usr/bin/python3"), "-m", "pathgate",
                          "--root", f"repo={repo}", "--preset", "secrets", "mcp"],
                         input="", capture_output=True, text=True, env=env, timeout=60,
                         check=False)
    assert "git tracks 1 path(s) the policy hides (first: root:repo/.env)" in mcp.stderr


def test_the_hooks_directory_core_hookspath_names(repo: Path, tmp_path: Path) -> None:
    """Finding 3's next variant: core.hooksPath naming any directory of the
    work tree (here through an include of the repository's configuration)
    is protected, read when the resolver is made and again at each
    command's scan."""
    home = tmp_path / "home"
    (repo / "scripts/hooks").mkdir(parents=True)
    hook = repo / "scripts/hooks/pre-commit"
    hook.write_text("#!/bin/sh\nexit 0\n")
    hook.chmod(0o755)
    (repo / "shared.gitconfig").write_text("[core]\n\thooksPath = scripts/hooks\n")
    host_git(repo, "config", "include.path", "../shared.gitconfig", home=home)
    marker = tmp_path / "hook-ran"
    b = backend(repo, ["vcs"])
    assert b.write("root:repo/scripts/hooks/pre-commit",
                   f"#!/bin/sh\ntouch {marker}\n").kind == "policy_denied"
    assert b.write("root:repo/scripts/hooks/post-commit", "x").kind == "policy_denied"
    # the included file is configuration: protected too
    assert b.write("root:repo/shared.gitconfig", "[core]\n\tfsmonitor = x\n").kind == \
        "policy_denied"
    assert b.resolver.policy_check("root:repo/scripts/hooks/x")["source"] == "preset:vcs"
    res = b.execute(f"printf '#!/bin/sh\\ntouch {marker}\\n' > scripts/hooks/pre-commit; "
                    "echo rc=$?")
    assert "rc=0" not in res.output, res.output
    (repo / "b.txt").write_text("b")
    host_git(repo, "add", "b.txt", home=home)
    assert host_git(repo, "commit", "-qm", "b", home=home).returncode == 0
    assert not marker.exists()
    # the host moves the hooks: the next command's scan protects the new place
    (repo / "tools/githooks").mkdir(parents=True)
    (repo / "tools/githooks/pre-commit").write_text("#!/bin/sh\nexit 0\n")
    (repo / "shared.gitconfig").write_text("[core]\n\thooksPath = tools/githooks\n")
    res = b.execute("echo evil > tools/githooks/pre-commit; echo rc=$?")
    assert "rc=0" not in res.output, res.output
    assert b.write("root:repo/tools/githooks/pre-commit", "evil").kind == "policy_denied"
    # a project's other folders stay writable
    assert b.write("root:repo/scripts/build.sh", "x").error is None
