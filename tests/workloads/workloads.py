"""The workloads: the everyday work of a coding agent (issue 21).

Each workload is a tree (its ``setup``, run on the host before the tree is
copied) and shell steps run one per contained command, in the order an
agent would run them; state carries from one step to the next through the
tree only. Steps print only what is the same on every run (fixed commit
dates, sorted listings); what cannot be (timings) is marked ``volatile``.
Python is called as ``/usr/bin/python3`` (Debian's, which has pytest).
"""

from __future__ import annotations

import base64
import hashlib
import json
import subprocess
from collections.abc import Mapping
from pathlib import Path

from harness import Step, Workload


def _host_names_localhost() -> bool:
    try:
        lines = Path("/etc/hosts").read_text(errors="replace").splitlines()
    except OSError:
        return False
    return any("localhost" in line.split("#", 1)[0].split()[1:] for line in lines)


def _write(root: Path, files: Mapping[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


# ------------------------------------------------------------------- git

# The author and committer come from the command's environment (no
# user.name anywhere), with fixed dates so that commit ids are the same on
# both sides.
GIT_ENV = {
    "GIT_AUTHOR_NAME": "Ada Agent",
    "GIT_AUTHOR_EMAIL": "ada@agents.example",
    "GIT_AUTHOR_DATE": "2024-01-02T03:04:05+00:00",
    "GIT_COMMITTER_NAME": "Cy Committer",
    "GIT_COMMITTER_EMAIL": "cy@agents.example",
    "GIT_COMMITTER_DATE": "2024-01-02T03:04:05+00:00",
}
GIT_NEW_REPO = ("git init -q -b main && git add -A && git commit -q -m 'first commit' "
                "&& git log --oneline")


def _git_project(root: Path, _env: Mapping[str, str]) -> None:
    _write(root, {
        "proj/README.md": "# proj\n\nA project.\n",
        "proj/src/main.c": "int main(void) { return 0; }\n",
        "proj/.gitignore": "*.o\n",
    })


GIT = [
    Workload(
        "git_basics", "git", "init, status, add, commit (author from the environment), log, "
        "diff, branch, rev-parse", tools=("git",), env=GIT_ENV, setup=_git_project, c_api=True,
        steps=(
            Step("cd proj && git init -q -b main && git status"),
            Step("cd proj && git add -A && git status --short && git commit -q -m 'first commit'"
                 " && git log --format='%H %an <%ae> %aI | %cn <%ce> %s'"),
            Step("cd proj && printf 'More text.\\n' >> README.md && echo 'x.o' > x.o"
                 " && git status --short && git diff && git diff --stat"),
            Step("cd proj && git commit -q -am 'second commit' && git branch feature"
                 " && git branch -v && git switch -q feature && git branch --show-current"
                 " && git log --oneline --graph"),
            Step("cd proj/src && git rev-parse --show-toplevel --git-dir --show-prefix"
                 " && git ls-files --full-name"),
            Step("cd proj && git show --stat HEAD~1 && git cat-file -p HEAD"),
            Step("cd proj && git checkout nosuchbranch", expect=1),
        )),
    Workload(
        "git_stash", "git", "stash, stash list, stash pop", tools=("git",), env=GIT_ENV,
        setup=_git_project,
        steps=(
            Step(f"cd proj && {GIT_NEW_REPO}"),
            Step("cd proj && echo 'work in progress' >> README.md && git stash"
                 " && git status --short && git stash list && cat README.md"),
            Step("cd proj && git stash pop && git status --short && git diff"),
        )),
    Workload(
        "git_worktree", "git", "`git worktree add` inside the root, commit there, list, remove",
        tools=("git",), env=GIT_ENV, setup=_git_project,
        steps=(
            Step(f"cd proj && {GIT_NEW_REPO}"),
            Step("cd proj && git worktree add ../wt -b feature && git worktree list"),
            Step("cd wt && git status && cat .git && echo feature > feature.txt"
                 " && git add feature.txt && git commit -q -m 'on the worktree'"
                 " && git log --oneline --all"),
            Step("cd proj && git branch -v && git worktree remove ../wt && git worktree list"
                 " && test ! -e ../wt && echo removed"),
        )),
    Workload(
        "git_everyday", "git", "branch, checkout, stash, rebase, worktree add, gc: what agents "
        "run every day (also under the vcs, secrets and agent-config presets)",
        tools=("git",), env=GIT_ENV, setup=_git_project,
        steps=(
            Step(f"cd proj && {GIT_NEW_REPO}"),
            Step("cd proj && git branch topic && git checkout -q topic && echo t > t.txt"
                 " && git add t.txt && git commit -q -m 'on topic' && git checkout -q main"
                 " && echo m >> README.md && git commit -q -am 'on main' && git branch -v"),
            Step("cd proj && echo wip >> README.md && git stash -q && git stash list"
                 " && git status --short && git stash pop -q && git checkout -q -- README.md"),
            Step("cd proj && git checkout -q topic && git rebase -q main && git log --format=%s"
                 " && git checkout -q main"),
            Step("cd proj && git worktree add -q ../wt2 topic && cd ../wt2 && git status --short"
                 " && git log -1 --format=%s && cd ../proj && git worktree list | wc -l"),
            Step("cd proj && git gc -q && git count-objects -v | grep -c in-pack"
                 " && git fsck --no-progress && cat .git/HEAD"),
        )),
    Workload(
        "git_submodule", "git", "a submodule inside the root (path URL, protocol.file.allow), "
        "clone --recurse-submodules", tools=("git",), env=GIT_ENV, setup=_git_project,
        steps=(
            Step("mkdir libsrc && cd libsrc && echo 'lib v1' > lib.txt && git init -q -b main"
                 " && git add lib.txt && git commit -q -m 'lib v1' && git log --oneline"),
            Step(f"cd proj && {GIT_NEW_REPO}"),
            Step("cd proj && git -c protocol.file.allow=always submodule add ../libsrc lib"
                 " && git status --short && cat .gitmodules && git commit -q -m 'add lib'"
                 " && git submodule status"),
            Step("git -c protocol.file.allow=always clone -q --recurse-submodules proj proj2"
                 " && cd proj2 && git submodule status && cat lib/lib.txt"
                 " && git -C lib log --oneline"),
        )),
]


# ---------------------------------------------------------------- python

PYTEST_TIME = r"in \d+(\.\d+)?s"


def _python_project(root: Path, _env: Mapping[str, str]) -> None:
    _write(root, {
        "proj/calc/__init__.py": "def add(a, b):\n    return a + b\n\n\n"
                                 "def mean(xs):\n    return sum(xs) / len(xs)\n",
        "proj/tests/test_calc.py": "import calc\n\n\ndef test_add():\n    assert calc.add(2, 3)"
                                   " == 5\n\n\ndef test_mean():\n    assert calc.mean([1, 2, 3])"
                                   " == 2\n\n\ndef test_tmp(tmp_path):\n    (tmp_path / 'x')"
                                   ".write_text('x')\n    assert (tmp_path / 'x').read_text()"
                                   " == 'x'\n",
        "proj/failing/test_bad.py": "def test_bad():\n    assert 1 + 1 == 3, 'on purpose'\n",
    })


def _python_package(root: Path, env: Mapping[str, str]) -> None:
    _python_project(root, env)
    _write(root, {
        "proj/pyproject.toml": "[build-system]\nrequires = [\"setuptools\"]\n"
                               "build-backend = \"setuptools.build_meta\"\n\n[project]\n"
                               "name = \"calc\"\nversion = \"0.1\"\n\n[project.scripts]\n"
                               "calc-add = \"calc.cli:main\"\n\n[tool.setuptools]\n"
                               "packages = [\"calc\"]\n",
        "proj/calc/cli.py": "import sys\n\nfrom calc import add\n\n\ndef main():\n"
                            "    print(add(*map(int, sys.argv[1:3])))\n",
    })


def _python_scripts(root: Path, _env: Mapping[str, str]) -> None:
    _write(root, {
        "pool.py": """\
import concurrent.futures as cf
import multiprocessing as mp
import sys


def square(x):
    return x * x


if __name__ == "__main__":
    methods = sys.argv[1:] or ["fork", "spawn"]
    for method in methods:
        ctx = mp.get_context(method)
        with cf.ProcessPoolExecutor(max_workers=3, mp_context=ctx) as ex:
            print(method, sum(ex.map(square, range(1000))), sorted(set(ex.map(abs, [-1, 1]))))
    with cf.ProcessPoolExecutor(max_workers=2) as ex:
        futures = [ex.submit(square, n) for n in range(20)]
        print("default", sum(f.result() for f in cf.as_completed(futures)))
""",
        "manager.py": """\
import multiprocessing as mp


def put(d, key):
    d[key] = key * 2


if __name__ == "__main__":
    with mp.Manager() as manager:
        shared = manager.dict()
        procs = [mp.Process(target=put, args=(shared, i)) for i in range(3)]
        for p in procs:
            p.start()
        for p in procs:
            p.join()
        print("manager", sorted(shared.items()))
""",
        "locks.py": """\
import multiprocessing as mp
import os


def bump(lock, counter, n):
    for _ in range(n):
        with lock:
            counter.value += 1


def sem_worker(sem, queue, i):
    with sem:
        queue.put(i)


if __name__ == "__main__":
    for method in ("fork", "spawn"):
        ctx = mp.get_context(method)
        lock = ctx.Lock()
        counter = ctx.Value("i", 0, lock=False)
        procs = [ctx.Process(target=bump, args=(lock, counter, 300)) for _ in range(4)]
        for p in procs:
            p.start()
        for p in procs:
            p.join()
        print(method, "lock", counter.value, [p.exitcode for p in procs])
        sem, queue = ctx.Semaphore(2), ctx.Queue()
        procs = [ctx.Process(target=sem_worker, args=(sem, queue, i)) for i in range(5)]
        for p in procs:
            p.start()
        got = sorted(queue.get(timeout=60) for _ in procs)
        for p in procs:
            p.join()
        print(method, "semaphore", got)
    rlock, event, cond, barrier = mp.RLock(), mp.Event(), mp.Condition(), mp.Barrier(1)
    with rlock, rlock:
        event.set()
    print("event", event.is_set(), "barrier", barrier.wait() == 0, "cond", cond is not None)
    with mp.Pool(2) as pool:
        print("pool", pool.map(abs, [-3, -2, -1]))
    print("dev/shm writable", os.access("/dev/shm", os.W_OK))
""",
    })


PYTHON = [
    Workload(
        "python_venv_pytest", "python", "a venv inside the root, activated, `python -m pytest` "
        "on a small project (one suite passes, one fails)", tools=("python3",),
        setup=_python_project,
        steps=(
            Step("cd proj && /usr/bin/python3 -m venv --system-site-packages --without-pip .venv"
                 " && .venv/bin/python -c 'import sys; print(sys.prefix); print(sys.executable)'"),
            Step("cd proj && . .venv/bin/activate && command -v python && echo \"$VIRTUAL_ENV\""
                 " && python -m pytest -q -p no:cacheprovider tests", volatile=(PYTEST_TIME,)),
            Step("cd proj && .venv/bin/python -m pytest -q -p no:cacheprovider failing",
                 expect=1, volatile=(PYTEST_TIME,)),
        )),
    Workload(
        "python_venv_pip", "python", "a venv with pip inside the root, `pip install -e .` "
        "(offline, no build isolation), its console script on the activated PATH, pytest",
        tools=("python3",), setup=_python_package,
        steps=(
            Step("cd proj && /usr/bin/python3 -m venv --system-site-packages .venv"
                 " && .venv/bin/python -m pip --version"),
            Step("cd proj && .venv/bin/python -m pip install -q --disable-pip-version-check"
                 " --no-index --no-build-isolation -e . && .venv/bin/python -m pip show calc"
                 " --disable-pip-version-check"),
            Step("cd proj && . .venv/bin/activate && calc-add 40 2 && command -v calc-add"
                 " && head -n 1 .venv/bin/calc-add && cd / && python -c 'import calc; "
                 "print(calc.__file__)' && cd - >/dev/null && python -m pytest -q"
                 " -p no:cacheprovider tests", volatile=(PYTEST_TIME,)),
        )),
    Workload(
        "python_process_pool", "python", "concurrent.futures.ProcessPoolExecutor (fork and "
        "spawn contexts, and the default)", tools=("python3",), setup=_python_scripts,
        steps=(Step("/usr/bin/python3 pool.py fork spawn"),)),
    Workload(
        "python_process_pool_forkserver", "python", "ProcessPoolExecutor with the forkserver "
        "context (the default from Python 3.14; it listens on a Unix socket)",
        tools=("python3",), setup=_python_scripts,
        steps=(Step("/usr/bin/python3 pool.py forkserver"),)),
    Workload(
        "python_mp_locks", "python", "multiprocessing Lock, Semaphore, Queue, RLock, Event, "
        "Barrier, Pool (POSIX semaphores in /dev/shm), fork and spawn", tools=("python3",),
        setup=_python_scripts,
        steps=(Step("/usr/bin/python3 locks.py"),)),
    Workload(
        "python_mp_manager", "python", "a multiprocessing.Manager shared dict (its server "
        "listens on a Unix socket in TMPDIR)", tools=("python3",), setup=_python_scripts,
        steps=(Step("/usr/bin/python3 manager.py"),)),
]


# ------------------------------------------------------------------ node

NPM_ENV = {"npm_config_update_notifier": "false", "npm_config_fund": "false",
           "npm_config_audit": "false"}
NPM_TIME = r"in \d+(\.\d+)?m?s"
NPM_LOG = r"_logs/\S+-debug-\d+\.log"

NODE_SCRIPT = """\
const fs = require('fs');
const os = require('os');
const path = require('path');
const crypto = require('crypto');
const url = require('url');
const { execFileSync } = require('child_process');
const { Worker } = require('worker_threads');

const text = fs.readFileSync(path.join(__dirname, 'data.json'), 'utf8');
const data = JSON.parse(text);
console.log('sum', data.items.reduce((a, b) => a + b, 0));
console.log('sha256', crypto.createHash('sha256').update(text).digest('hex'));
console.log('cwd', process.cwd());
console.log('file', url.pathToFileURL(__filename).href);
console.log('tmpdir', os.tmpdir(), 'home', os.homedir());
fs.mkdirSync('out', { recursive: true });
fs.writeFileSync('out/result.txt', 'written by node\\n');
console.log(fs.readFileSync('out/result.txt', 'utf8').trim());
console.log('child', execFileSync('sh', ['-c', 'echo from a child'], { encoding: 'utf8' }).trim());
console.log('user', os.userInfo().username);
const worker = new Worker(
  "require('worker_threads').parentPort.postMessage(6 * 7)", { eval: true });
worker.on('message', (m) => console.log('worker', m));
"""


def _node_script(root: Path, _env: Mapping[str, str]) -> None:
    _write(root, {"app/script.js": NODE_SCRIPT,
                  "app/data.json": json.dumps({"items": [1, 2, 3, 4]}) + "\n"})


def _npm_package(root: Path, _env: Mapping[str, str]) -> None:
    _write(root, {
        "pkg/package.json": json.dumps({
            "name": "wl-pkg", "version": "1.0.0", "private": True,
            "scripts": {"pretest": "node -e \"console.log('pretest ran')\"",
                        "test": "node test.js", "fail": "exit 3"}}, indent=2) + "\n",
        "pkg/index.js": "exports.slug = (s) => s.toLowerCase().replace(/[^a-z0-9]+/g, '-');\n",
        "pkg/test.js": "const assert = require('assert');\nconst { slug } = require('.');\n"
                       "assert.strictEqual(slug('Hello World'), 'hello-world');\n"
                       "assert.strictEqual(slug('A--B'), 'a-b');\n"
                       "console.log('2 assertions passed');\n",
    })


DEP_NAME = "pathgate-wl-dep"


def _npm_offline_cache(root: Path, env: Mapping[str, str]) -> None:
    """A tiny dependency packed to a tarball outside the root, added to an
    npm cache INSIDE the root, and a lock file naming it by registry URL
    and integrity: `npm ci --offline` installs it from the cache alone."""
    dep = root.parent.parent / "dep-src"
    _write(dep, {"package.json": json.dumps({"name": DEP_NAME, "version": "1.0.0",
                                             "main": "index.js"}) + "\n",
                 "index.js": "module.exports = (a, b) => a + b;\n"})
    run = {"env": dict(env), "check": True, "stdout": subprocess.DEVNULL}
    subprocess.run(["npm", "pack", "--silent", "--pack-destination", str(dep.parent)],
                   cwd=dep, **run)
    tarball = dep.parent / f"{DEP_NAME}-1.0.0.tgz"
    integrity = "sha512-" + base64.b64encode(hashlib.sha512(tarball.read_bytes()).digest()).decode()
    app = root / "app"
    app.mkdir()
    subprocess.run(["npm", "cache", "add", str(tarball), "--cache", str(app / ".npm-cache")],
                   cwd=app, **run)
    manifest = {"name": "wl-app", "version": "1.0.0", "private": True,
                "dependencies": {DEP_NAME: "1.0.0"}, "scripts": {"test": "node test.js"}}
    lock = {"name": "wl-app", "version": "1.0.0", "lockfileVersion": 3, "requires": True,
            "packages": {"": {"name": "wl-app", "version": "1.0.0",
                              "dependencies": {DEP_NAME: "1.0.0"}},
                         f"node_modules/{DEP_NAME}": {
                             "version": "1.0.0",
                             "resolved": f"https://registry.npmjs.org/{DEP_NAME}/-/"
                                         f"{DEP_NAME}-1.0.0.tgz",
                             "integrity": integrity}}}
    _write(app, {"package.json": json.dumps(manifest, indent=2) + "\n",
                 "package-lock.json": json.dumps(lock, indent=2) + "\n",
                 "test.js": f"const add = require('{DEP_NAME}');\n"
                            "require('assert').strictEqual(add(2, 3), 5);\n"
                            "console.log('dependency works');\n"})


NODE = [
    Workload(
        "node_script", "node", "a Node script: fs, crypto, child_process, worker_threads, "
        "os.userInfo", tools=("node",), setup=_node_script,
        steps=(Step("cd app && node script.js && cat out/result.txt"),
               Step("node -e 'process.exit(7)'", expect=7))),
    Workload(
        "npm_test", "node", "`npm test` (with a pretest script) of a dependency-free package, "
        "and a failing script", tools=("node", "npm"), env=NPM_ENV, setup=_npm_package,
        steps=(Step("cd pkg && npm test"),
               Step("cd pkg && npm run fail", expect=3, volatile=(NPM_LOG,)))),
    Workload(
        "npm_ci_offline", "node", "`npm ci --offline` from an npm cache kept inside the root "
        "(a local tarball dependency, no network)", tools=("node", "npm"), env=NPM_ENV,
        setup=_npm_offline_cache,
        steps=(Step("cd app && npm ci --offline --cache ./.npm-cache", volatile=(NPM_TIME,)),
               Step("cd app && npm ls && npm test"),
               Step("cd app && node -e \"console.log(require('" + DEP_NAME + "')(40, 2))\""))),
]


# --------------------------------------------------------------------- C

def _c_make(root: Path, _env: Mapping[str, str]) -> None:
    _write(root, {
        "proj/greet.h": "const char *greeting(void);\n",
        "proj/greet.c": "#include \"greet.h\"\nconst char *greeting(void) { return \"hello\"; }\n",
        "proj/main.c": "#include <stdio.h>\n#include \"greet.h\"\n"
                       "int main(int argc, char **argv) {\n"
                       "    printf(\"%s, %s (%d args)\\n\", greeting(), argc > 1 ? argv[1] : "
                       "\"nobody\", argc - 1);\n    return argc > 2 ? 3 : 0;\n}\n",
        "proj/Makefile": "CC = gcc\nCFLAGS = -O2 -Wall -Wextra\n\n"
                         "hello: main.o greet.o\n\t$(CC) $(CFLAGS) -o $@ main.o greet.o\n\n"
                         "%.o: %.c greet.h\n\t$(CC) $(CFLAGS) -c $<\n\n"
                         "check: hello\n\t./hello world | grep -q 'hello, world' && echo check ok\n\n"
                         "clean:\n\trm -f hello *.o\n\n.PHONY: check clean\n",
        "proj/bad.c": "int broken(\n",
    })


def _c_cmake(root: Path, _env: Mapping[str, str]) -> None:
    _write(root, {
        "proj/CMakeLists.txt": "cmake_minimum_required(VERSION 3.13)\nproject(wlhello C)\n"
                               "add_library(wlgreet STATIC greet.c)\n"
                               "add_executable(wlhello main.c)\n"
                               "target_link_libraries(wlhello PRIVATE wlgreet)\n"
                               "enable_testing()\nadd_test(NAME runs COMMAND wlhello ctest)\n",
        "proj/greet.c": "const char *greeting(void) { return \"hello\"; }\n",
        "proj/main.c": "#include <stdio.h>\nconst char *greeting(void);\n"
                       "int main(int argc, char **argv) {\n"
                       "    printf(\"%s from cmake, %s\\n\", greeting(), argc > 1 ? argv[1] : "
                       "\"?\");\n    return 0;\n}\n",
    })


CTEST_TIME = r"\s*\d+\.\d+ sec"
CMAKE_TIME = r" \(\d+\.\d+s\)"

C = [
    Workload(
        "c_make", "c", "`make` with gcc (two objects, a header dependency), run the program, "
        "a compile error, `make -C`, clean", tools=("make", "gcc"), setup=_c_make, c_api=True,
        steps=(
            Step("cd proj && make && ./hello agent"),
            Step("cd proj && ./hello a b", expect=3),
            Step("cd proj && touch greet.h && make && make check"),
            Step("make -C proj"),
            Step("cd proj && gcc -c bad.c", expect=1),
            Step("cd proj && make clean && ls"),
        )),
    Workload(
        "c_cmake", "c", "`cmake` configure and build (a static library and a program), run it, "
        "ctest", tools=("cmake", "make", "gcc", "ctest"), setup=_c_cmake,
        steps=(
            Step("cd proj && cmake -S . -B build -DCMAKE_BUILD_TYPE=Release",
                 volatile=(CMAKE_TIME,)),
            Step("cd proj && cmake --build build && ./build/wlhello agent"),
            Step("cd proj && ctest --test-dir build", volatile=(CTEST_TIME,)),
        )),
]


# --------------------------------------------------------- shell toolbox

def _corpus(root: Path, _env: Mapping[str, str]) -> None:
    _write(root, {
        "corpus/src/alpha.txt": "needle one\nhay\nneedle two\n",
        "corpus/src/beta.py": "def needle():\n    return 42\n",
        "corpus/src/sub/gamma.txt": "no match here\nNEEDLE upper\n",
        "corpus/docs/readme.md": "# Docs\nA needle in the docs.\n",
        "corpus/data.csv": "name,score\nada,90\nbob,72\ncyd,85\nada,10\n",
        "corpus/words.txt": "pear\nApple\nbanana\napple\nÉclair\nzebra\npear\n",
        "corpus/.ignore": "ignored/\n",
        "corpus/ignored/needle.txt": "needle, ignored by rg\n",
        "corpus/empty.log": "",
    })


SHELL = [
    Workload(
        "shell_rg", "shell", "ripgrep: search, counts, file list, .ignore, no match",
        tools=("rg",), setup=_corpus, c_api=True,
        steps=(
            Step("cd corpus && rg -n --sort path needle"),
            Step("cd corpus && rg -c -i --sort path needle && rg --files --sort path"),
            Step("cd corpus && rg -n -uu --sort path 'ne+dle \\w+'"),
            Step("cd corpus && rg -q nosuchword", expect=1),
        )),
    Workload(
        "shell_grep", "shell", "grep -r, -c, -o, -E, no match, a missing directory",
        tools=("grep", "sort"), setup=_corpus,
        steps=(
            Step("cd corpus && grep -rn needle . | sort && grep -c needle src/alpha.txt"),
            Step("cd corpus && grep -rli needle --include='*.txt' . | sort"
                 " && grep -Eo 'ne+dle (one|two)' src/alpha.txt"),
            Step("cd corpus && grep -q absent src/alpha.txt", expect=1),
            Step("cd corpus && grep -rn needle nosuchdir", expect=2),
        )),
    Workload(
        "shell_find", "shell", "find: types, names, -empty, -exec, -print0",
        tools=("find", "sort"), setup=_corpus,
        steps=(
            Step("cd corpus && find . -type f | sort && find . -type d | sort"),
            Step("cd corpus && find . -name '*.txt' -not -path './ignored/*' | sort"
                 " && find . -type f -empty && find . -name '*.py' -exec cat {} +"),
            Step("cd corpus && find . -maxdepth 1 -type f -print0 | sort -z | tr '\\0' '\\n'"),
        )),
    Workload(
        "shell_sed_inplace", "shell", "sed -i (with and without a backup suffix), sed -n, "
        "a missing file", tools=("sed",), setup=_corpus,
        steps=(
            Step("cd corpus && sed -i 's/needle/pin/g' src/alpha.txt && cat src/alpha.txt"),
            Step("cd corpus && sed -i.orig -e '1d' data.csv && cat data.csv data.csv.orig"
                 " && ls | sort && sed -n '2p' src/alpha.txt"),
            Step("cd corpus && sed -i 's/x/y/' missing.txt", expect=2),
        )),
    Workload(
        "shell_awk_sort", "shell", "awk sums, sort (numeric, reverse, unique, locale), uniq, cut",
        tools=("awk", "sort", "uniq", "cut"), setup=_corpus,
        steps=(
            Step("cd corpus && awk -F, 'NR > 1 { s[$1] += $2 } END { for (k in s) print k, s[k] }'"
                 " data.csv | sort && sort -t, -k2,2n data.csv"),
            Step("cd corpus && tail -n +2 data.csv | cut -d, -f1 | sort | uniq -c"
                 " && sort words.txt && LC_ALL=C sort words.txt && sort -ru words.txt"),
            Step("printf 'b\\na\\n' | sort -c", expect=1),
        )),
    Workload(
        "shell_tar_gzip", "shell", "tar czf/tzf/xzf, a tar pipe, gzip -k/-t/-dc, gunzip",
        tools=("tar", "gzip", "gunzip", "cmp", "diff"), setup=_corpus,
        steps=(
            Step("mkdir archives && tar -czf archives/corpus.tgz -C corpus src docs"
                 " && tar -tzf archives/corpus.tgz | sort"),
            Step("mkdir unpacked && tar -xzf archives/corpus.tgz -C unpacked"
                 " && diff -r corpus/src unpacked/src && diff -r corpus/docs unpacked/docs"
                 " && echo identical && tar -cf - -C corpus src | tar -tf - | sort"),
            Step("cd corpus && gzip -k docs/readme.md && gzip -t docs/readme.md.gz"
                 " && gzip -dc docs/readme.md.gz | cmp - docs/readme.md && rm docs/readme.md"
                 " && gunzip docs/readme.md.gz && cat docs/readme.md && ls docs"),
            Step("tar -xzf nosuch.tgz", expect=2),
        )),
    Workload(
        "shell_xargs", "shell", "xargs -0, -n, -P, -I, a failing command",
        tools=("xargs", "find", "sort"), setup=_corpus,
        steps=(
            Step("cd corpus && find . -name '*.txt' -print0 | sort -z | xargs -0 wc -l"),
            Step("printf '%s\\n' c a b | xargs -n1 -P2 echo item | sort"
                 " && seq 1 3 | xargs -I{} sh -c 'echo n={}'"
                 " && printf 'a b\\0c\\0' | xargs -0 -n1 printf '[%s]\\n'"),
            Step("echo x | xargs false", expect=123),
        )),
    Workload(
        "shell_sleep_wait", "shell", "background jobs: `sleep & wait`, wait for one pid, "
        "a background job's status", tools=("sleep",),
        steps=(
            Step("sleep 0.3 & a=$!; (sleep 0.1; echo child done) & b=$!; wait $b; echo \"b=$?\";"
                 " wait $a; echo \"a=$?\"; sleep 0.1 & sleep 0.2 & wait; echo all done"),
            Step("(exit 7) & wait $!; echo \"status=$?\"; sh -c 'exit 5' & wait $!", expect=5),
        )),
    Workload(
        "shell_timeout", "shell", "`timeout`: TERM and KILL on expiry, a quick command, "
        "--foreground, a child that traps TERM", tools=("timeout", "sleep"),
        steps=(
            Step("timeout 0.5 sleep 10; echo \"status=$?\"; timeout -s KILL 0.5 sleep 10;"
                 " echo \"status=$?\"; timeout 10 echo quick; echo \"status=$?\""),
            Step("timeout --foreground 0.5 sleep 10; echo \"status=$?\""),
            Step("timeout 0.5 sh -c 'trap \"echo got TERM; exit 5\" TERM; sleep 10 & wait';"
                 " echo \"status=$?\""),
        )),
    Workload(
        "shell_output_cap", "shell", "output beyond the cap (100,000 bytes) on stdout and "
        "stderr: the kept prefix, the `truncated` flag and the exit status",
        tools=("seq", "head", "tr", "yes"), c_api=True,
        steps=(
            Step("seq 1 200000"),
            Step("seq 1 200000 >&2; exit 3", expect=3),
            Step("head -c 99999 /dev/zero | tr '\\0' a; echo"),
            Step("head -c 100000 /dev/zero | tr '\\0' b; echo"),
            Step("yes 'é' | head -c 300000"),
            Step("seq 1 300000; sleep 0.2; echo after the flood"),
            Step("yes | head -n 1000000 | wc -l"),
        )),
    Workload(
        "shell_utf8_names", "shell", "UTF-8 file and directory names: create, list, find, "
        "grep, rename", tools=("find", "grep", "sort"),
        steps=(
            Step("mkdir -p 'données/日本語' && printf 'é\\n' > 'données/日本語/ファイル.txt'"
                 " && touch 'émoji-🙂.md' 'Ωmega' && find . | LC_ALL=C sort && ls"),
            Step("ls 'données/日本語' && cat 'données/日本語/ファイル.txt' && grep -rl é . | sort"
                 " && mv 'Ωmega' 'ωmega' && printf '%s\\n' * && stat -c '%n %s' 'émoji-🙂.md'"),
        )),
]


# ------------------------------------------------- identity, environment

IDENTITY = [
    Workload(
        "identity_id", "identity", "`id` (names of the command's uid, gid and groups)",
        tools=("id",), c_api=True,
        steps=(Step("id && id -u && id -g && id -un && id -gn && id -Gn"),)),
    Workload(
        "identity_whoami", "identity", "`whoami`, getent passwd/group of the command's own "
        "uid/gid, getent hosts", tools=("whoami", "getent"),
        steps=(Step("whoami"),
               Step("getent passwd \"$(id -u)\" | cut -d: -f1,3,4"
                    " && getent group \"$(id -g)\" | cut -d: -f1,3"),
               # the view's /etc/hosts names localhost; compared only where
               # the host's does too (a bare new root file system has none)
               *((Step("getent hosts localhost"),) if _host_names_localhost() else ()))),
    Workload(
        "identity_locale", "identity", "`locale`, `locale -a`, a multibyte character count",
        tools=("locale",),
        steps=(Step("locale && locale -a && printf 'é\\n' | wc -m"),)),
    Workload(
        "identity_date_tz", "identity", "`date` in the host's zone (/etc/localtime) and with TZ",
        tools=("date",),
        steps=(Step("date -d @1700000000 && TZ=Asia/Tokyo date -d @1700000000"
                    " && TZ=America/New_York date -d @1700000000 '+%F %T %Z %z'"
                    " && TZ=UTC0 date -d @0 && date -d @1700000000 +%Z"),)),
    Workload(
        "identity_home", "identity", "$HOME exists, is the home of `cd`, and is writable "
        "(files, a cache directory); TMPDIR works with mktemp", tools=("mktemp",),
        steps=(Step("test -d \"$HOME\" && test -w \"$HOME\" && echo \"home $HOME\" && cd"
                    " && pwd -P && echo probe > \"$HOME/.wl_probe\" && cat \"$HOME/.wl_probe\""
                    " && mkdir -p \"$HOME/.cache/wl\" && echo cached > \"$HOME/.cache/wl/x\""
                    " && cat ~/.cache/wl/x"),
               Step("f=$(mktemp) && echo temp > \"$f\" && cat \"$f\" && rm \"$f\""
                    " && echo \"tmpdir ${TMPDIR:-unset}\""))),
]


# ------------------------------------------ the view as on the host (issue 34)


def _git_history(root: Path, env: Mapping[str, str]) -> None:
    """A repository with two commits, made on the host (the read-only
    root's files are then another user's to a root caller's command)."""
    _git_project(root, env)
    git_env = {**env, **GIT_ENV}
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "first"]):
        subprocess.run(["git", *args], cwd=root / "proj", env=git_env, check=True)
    (root / "proj" / "README.md").write_text("# proj\n\nA project, changed.\n")
    subprocess.run(["git", "commit", "-q", "-am", "second"], cwd=root / "proj", env=git_env,
                   check=True)


def _tar_archive(root: Path, _env: Mapping[str, str]) -> None:
    """An archive whose members belong to uid/gid 1000 (as one made by a
    user), with fixed mtimes and an executable script."""
    import io
    import tarfile

    with tarfile.open(root / "a.tar", "w") as tar:
        for name, data, mode in (("a/run.sh", b"#!/bin/sh\necho run\n", 0o755),
                                 ("a/data.txt", b"data\n", 0o640)):
            info = tarfile.TarInfo(name)
            info.size, info.mode, info.mtime = len(data), mode, 1000000000
            info.uid = info.gid = 1000
            info.uname = info.gname = "user"
            tar.addfile(info, io.BytesIO(data))


TAR_EXTRACT = ("/usr/bin/python3 -c 'import tarfile, os, stat\n"
               "with tarfile.open(\"a.tar\") as t: t.extractall(\"x\")\n"
               "for n in sorted(os.listdir(\"x/a\")):\n"
               "    st = os.stat(\"x/a/\" + n); print(n, int(st.st_mtime), oct(stat.S_IMODE(st.st_mode)))'"
               " && ./x/a/run.sh")

# chown to another id and Popen(user=): as root on the host both work; as
# an unprivileged user both fail with EPERM (issue 34 item 10)
IDS_SCRIPT = ("/usr/bin/python3 -c 'import os, subprocess\n"
              "open(\"f\", \"w\").close()\n"
              "try:\n"
              "    os.chown(\"f\", 1000, 1000); print(\"chown\", os.stat(\"f\").st_uid)\n"
              "except OSError as e: print(\"chown errno\", e.errno)\n"
              "try:\n"
              "    r = subprocess.run([\"id\", \"-u\"], user=1000, group=1000, extra_groups=[],"
              " capture_output=True, text=True); print(\"popen\", r.stdout.strip())\n"
              "except OSError as e: print(\"popen errno\", e.errno)'")

# multiprocessing with each start method (CPython's forkserver tests were
# seen to hang on a child that died on /proc/self/fd): a pool's map, a
# child listing its descriptors; bounded waits, so a failure never hangs
MP_SOURCE = """import multiprocessing as mp, os


def sq(x):
    return x * x


def fds(q):
    q.put(len(os.listdir("/proc/self/fd")) > 2)


if __name__ == "__main__":
    for m in ("fork", "spawn", "forkserver"):
        c = mp.get_context(m)
        with c.Pool(2) as p:
            print(m, p.map_async(sq, range(5)).get(timeout=60))
        q = c.Queue()
        pr = c.Process(target=fds, args=(q,))
        pr.start()
        print(m, "fds listed", q.get(timeout=60))
        pr.join(60)
        print(m, "exit", pr.exitcode)
"""


def _mp_script(root: Path, _env: Mapping[str, str]) -> None:
    _write(root, {"mp.py": MP_SOURCE})

PTY_SCRIPT = ("/usr/bin/python3 -c 'import os, pty\n"
              "m, s = os.openpty(); print(\"isatty\", os.isatty(s))\n"
              "os.write(m, b\"ping\\n\"); print(os.read(s, 5))\n"
              "pid, fd = pty.fork()\n"
              "if pid == 0: os.execvp(\"sh\", [\"sh\", \"-c\", \"test -t 0 && echo child-tty\"])\n"
              "out = b\"\"\n"
              "while True:\n"
              "    try: b = os.read(fd, 100)\n"
              "    except OSError: break\n"
              "    if not b: break\n"
              "    out += b\n"
              "print(out.strip()); os.waitpid(pid, 0)'")

VIEW = [
    Workload(
        "view_tar_extract", "view", "Python's tarfile extracting members of uid 1000 (mtime "
        "and mode kept; as root it changes their owner first), the script still executable",
        tools=("python3",), setup=_tar_archive,
        steps=(Step(TAR_EXTRACT),)),
    Workload(
        "view_pty", "view", "a pty: os.openpty(), pty.fork() with a child on a terminal, "
        "`script`", tools=("python3", "script"),
        steps=(Step(PTY_SCRIPT),
               Step("script -qec 'test -t 1 && echo on-a-tty' /dev/null | tr -d '\\r'"))),
    Workload(
        "view_ls_root", "view", "`ls /` and os.listdir('/') list the root", tools=("python3",),
        steps=(Step("ls / | grep -qx usr && echo listed && /usr/bin/python3 -c 'import os; "
                    "print(\"tmp\" in os.listdir(\"/\"))'"),)),
    Workload(
        "view_git_read_only", "view", "git status, log, diff and clone of a repository in a "
        "read-only root whose files belong to another user", tools=("git",),
        env=GIT_ENV, setup=_git_history, read_only=True,
        steps=(Step("cd proj && git status --short && git log --format='%H %s'"
                    " && git diff HEAD~1 --stat"),
               Step("git clone -q proj \"$TMPDIR/clone\" && git -C \"$TMPDIR/clone\" log --oneline"
                    " && rm -rf \"$TMPDIR/clone\""))),
    Workload(
        "view_system_info", "view", "Node's os.cpus(), `free`, `uptime`, `nproc`",
        tools=("node", "free", "uptime", "nproc"),
        steps=(Step("node -e 'const os = require(\"os\"); console.log(os.cpus().length,"
                    " os.cpus().length === require(\"os\").availableParallelism(),"
                    " os.totalmem() > 0, os.uptime() > 0)' && free -b | head -n 1"
                    " && uptime > /dev/null && echo uptime-ok && nproc"),)),
    Workload(
        "view_ids", "view", "chown to another id and subprocess's Popen(user=) (as root they "
        "work, as another user both fail with EPERM)", tools=("python3", "id"),
        steps=(Step(IDS_SCRIPT),)),
    Workload(
        "view_multiprocessing", "view", "Python's multiprocessing with fork, spawn and "
        "forkserver: a pool's map, a child listing /proc/self/fd", tools=("python3",),
        setup=_mp_script, steps=(Step("/usr/bin/python3 mp.py"),)),
    Workload(
        "view_ps", "view", "`ps` lists the command's processes", tools=("ps",),
        steps=(Step("ps -o comm= -p $$"),)),
]

WORKLOADS: list[Workload] = GIT + PYTHON + NODE + C + SHELL + IDENTITY + VIEW
BY_NAME: dict[str, Workload] = {w.name: w for w in WORKLOADS}
assert len(BY_NAME) == len(WORKLOADS), "workload names must be unique"
