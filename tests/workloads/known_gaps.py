"""Workloads that fail inside today's view, and why: the view's worklist.

Each entry makes its workload a STRICT expected failure: the test passes
while the inside still differs from the outside (harness.ViewMismatch), and
FAILS as soon as the workload passes, so that whoever fixes the view
removes the entry (and updates the table in docs/exec.md, "Workloads").
Any other error (a tool missing, a step that fails outside) fails the test
whatever this list says.

Keys are workload names (workloads.py), or `name@root` / `name@nobody` for
a gap seen only by a root caller or only by an unprivileged one. A gap
holds for both front ends (Python and C), which share the view.
"""

_GITCONFIG = (
    "/etc/gitconfig is listed in the view but unreadable (the Landlock rule is on the host's "
    "inode; the view holds a copy): `warning: unable to access '/etc/gitconfig': Permission "
    "denied`, `fatal: unknown error occurred while reading the configuration files`, exit 128 "
    "at the first git command (with GIT_CONFIG_NOSYSTEM=1 on both sides the workload passes)")
_OPENSSL_CNF = (
    "node cannot start: /etc/ssl/openssl.cnf is unreadable in the view (copied file, Landlock "
    "rule on the host inode): `node: OpenSSL configuration error: ... BIO_new_file:Permission "
    "denied ... calling fopen(/etc/ssl/openssl.cnf, rb)`, exit 13")
_AF_UNIX = (
    "seccomp answers socket(AF_UNIX) with EACCES (no socket without allow_network), so the "
    "server process cannot listen on its Unix socket in TMPDIR: `PermissionError: [Errno 13] "
    "Permission denied` from socket.socket(AF_UNIX)")
_PASSWD = "/etc/passwd and /etc/group are unreadable in the view (copies, Landlock rule on the host inodes)"

KNOWN_VIEW_GAPS: dict[str, str] = {
    "git_basics": _GITCONFIG,
    "git_stash": _GITCONFIG,
    "git_worktree": _GITCONFIG,
    "git_submodule": _GITCONFIG,
    "python_venv_pytest": (
        "the root is mounted at /root:work and `:` cannot appear in PATH: `Error: Refusing to "
        "create a venv in /root:work/proj/.venv because it contains the PATH separator :.`, "
        "exit 1"),
    "python_venv_pip": (
        "the root is mounted at /root:work and `:` cannot appear in PATH: `Error: Refusing to "
        "create a venv in /root:work/proj/.venv because it contains the PATH separator :.`, "
        "exit 1"),
    "python_process_pool_forkserver": _AF_UNIX + " in forkserver.ensure_running, exit 1",
    "python_mp_manager": _AF_UNIX + " in the SyncManager's Listener, then EOFError in the "
                         "parent, exit 1",
    "node_script": _OPENSSL_CNF + "; with OPENSSL_CONF=/dev/null it then dies at "
                   "os.userInfo(): `uv_os_get_passwd returned EACCES` (" + _PASSWD + ")",
    "npm_test": _OPENSSL_CNF + " (with OPENSSL_CONF=/dev/null the workload passes)",
    "npm_ci_offline": _OPENSSL_CNF + " (with OPENSSL_CONF=/dev/null the workload passes)",
    "c_cmake": (
        "the build directory's path holds `:` (/root:work/proj/build); CMake's Makefiles name "
        "absolute paths in rules and make reads the `:` as a rule separator: configure passes, "
        "`cmake --build` stops with `CMakeFiles/wlgreet.dir/build.make:73: *** target pattern "
        "contains no '%'.  Stop.`, exit 2"),
    "shell_timeout": (
        "seccomp answers setpgid with EPERM, so `timeout` (without --foreground) stays in the "
        "shell's process group and, on expiry, its kill(0, SIGTERM) kills the shell too: the "
        "command ends with 143 (137 with -s KILL) and prints nothing after it; "
        "`timeout --foreground` works"),
    "identity_id": (
        _PASSWD + ": `id` prints `uid=0 gid=0 groups=0` (root caller; `uid=65534 gid=65534 "
        "groups=65534` for nobody) without names, `id -un` fails with `id: cannot find name for "
        "user ID 0` (65534), exit 1"),
    "identity_whoami": (
        _PASSWD + ": `whoami: cannot find name for user ID 0: Permission denied` (ID 65534 "
        "for nobody), exit 1; "
        "`getent passwd $(id -u)` and `getent hosts localhost` exit 2 (/etc/hosts unreadable "
        "too)"),
}
