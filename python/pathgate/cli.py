"""The ``pathgate`` command: resolve addresses, convert paths and URIs, and run
the agent file operations and contained commands against configured bases.

Where the bases come from (exactly one source, never a mix of implicit and
explicit):

1. ``--config FILE`` (plus any ``--root``/``--mod``/``--read-only`` flags,
   which add to it), else
2. ``--root KEY=DIR`` / ``--mod NAME=DIR`` flags alone, else
3. the user's configuration file, ``$XDG_CONFIG_HOME/pathgate/config.toml``
   (``~/.config/pathgate/config.toml`` when ``XDG_CONFIG_HOME`` is unset or
   not absolute), when it exists, else
4. nothing configured at all: ``root:repo`` is the current directory.

No file is ever read from the current directory implicitly. A configuration
must never be writable through the sandbox it defines: a configuration file,
or the user configuration location, that lies inside a writable base (a
root or mod not marked read-only) is refused with an error naming the file,
and so is a configuration file with more than one hard link.

The TOML file::

    max_tokens = 10000
    read_only = ["game"]  # root keys or mod names: read, never written
    allow_execute = true  # pathgate mcp: offer the contained execute tool
    deny_read = ["**/.env", "root:repo/private/"]  # hidden from every operation
    deny_write = ["dist/"]                        # read, never changed
    presets = ["vcs", "secrets"]                  # docs/policy.md
    audit_log = "/var/log/pathgate/audit.jsonl"    # one JSON line per decision
    allow_domains = ["pypi.org", "*.github.com:443"]  # execute: the network allowlist
    toolchains = ["/opt/venvs/tools"]  # execute: host directories shown read-only
    toolchains_at_host_path = false    # ... at /pathgate/tool/<name> (true: at their host paths)
    id_range = [3000000000, 65536]     # execute: host ids of inside 1.. ("none": only 0)
    [roots]
    repo = "."            # relative to the config file's directory
    game = "/opt/games/ck3/game"
    [mods]
    "Some Mod" = "../mods/some"

Relative input (``common/x.txt``) is relative to ``--cwd`` (default: the home
base, the first root, or the first mod when there is no root) in every
subcommand.

Exit status: 0 success, 1 a resolution or operation failed, 2 a usage or
configuration error; ``grep`` follows grep (0 matched, 1 no match, 2 error);
``execute`` exits with the command's status (125: it could not be run).
Messages go to stderr and never contain a host path unless asked for
(``resolve --host-path``), except configuration errors, which name the
operator's own file.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import re
import shutil
import sys
import tomllib
import warnings
import collections.abc as _abc
from pathlib import Path
from typing import Any, Literal, NoReturn, cast

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_NOT_RUN = 125

# A line count larger than any file: "to the end".
_ALL_LINES = 1 << 62


class UsageError(Exception):
    """A mistake in the command line or the configuration (exit status 2)."""

    kind = "usage"


class ConfigError(UsageError):
    """The operator's configuration is refused (exit status 2)."""

    kind = "config"


class Failed(Exception):
    """A resolution or file operation that failed (exit status 1)."""

    def __init__(self, message: str, kind: str | None = None) -> None:
        super().__init__(message)
        self.kind = kind


# ---------------------------------------------------------------- configuration


@dataclasses.dataclass
class Config:
    roots: dict[str, str]
    mods: dict[str, str]
    read_only: list[str]
    max_tokens: int | None
    allow_execute: bool
    source: str  # "config", "flags", "user", "default"
    file: Path | None
    # the policy (docs/policy.md): the file's lists, then the flags'
    deny_read: list[str] = dataclasses.field(default_factory=list)
    deny_write: list[str] = dataclasses.field(default_factory=list)
    presets: list[str] = dataclasses.field(default_factory=list)
    audit_log: str | None = None
    # execute's network allowlist (docs/exec.md "Network"): the file's
    # list, then the flags'; None = none
    allow_domains: list[str] | None = None
    # address-of: native prefix -> canonical address (docs/cli.md)
    native_prefixes: dict[str, str] = dataclasses.field(default_factory=dict)
    # execute's toolchains of the host (docs/exec.md "Toolchains of the
    # host"): the file's list, then the flags'
    toolchains: list[str] = dataclasses.field(default_factory=list)
    toolchains_at_host_path: bool = False
    # execute's id range (docs/exec.md "Ownership changes inside"): "none",
    # (first, count), or None = the default
    id_range: str | tuple[int, int] | None = None

    def execute_options(self) -> dict[str, Any]:
        """The keyword arguments of Backend.configure_execute this
        configuration asks for (empty: the defaults)."""
        opts: dict[str, Any] = {}
        if self.allow_domains is not None:
            opts["allow_domains"] = self.allow_domains
        if self.toolchains:
            opts["toolchains"] = self.toolchains
            opts["toolchains_at_host_path"] = self.toolchains_at_host_path
        if self.id_range is not None:
            opts["id_range"] = self.id_range
        return opts


def user_config_path() -> Path | None:
    """The one place an implicit configuration may come from."""
    xdg = os.environ.get("XDG_CONFIG_HOME", "")
    if xdg and os.path.isabs(xdg):
        return Path(xdg) / "pathgate" / "config.toml"
    home = os.environ.get("HOME") or ""
    if not home:
        try:
            import pwd

            home = pwd.getpwuid(os.getuid()).pw_dir
        except (KeyError, ImportError):
            return None
    if not os.path.isabs(home):
        return None
    return Path(home) / ".config" / "pathgate" / "config.toml"


def _user_config_locations() -> list[Path]:
    """Every place a later run could take an implicit configuration from,
    whatever this run's environment says: $XDG_CONFIG_HOME's (when set),
    and ~/.config's for $HOME and for the account's home directory (a run
    without XDG_CONFIG_HOME, or with another HOME, reads those)."""
    found: list[Path] = []
    current = user_config_path()
    if current is not None:
        found.append(current)
    homes = [os.environ.get("HOME") or ""]
    try:
        import pwd

        homes.append(pwd.getpwuid(os.getuid()).pw_dir)
    except (KeyError, ImportError):
        pass
    for home in homes:
        if home and os.path.isabs(home):
            path = Path(home) / ".config" / "pathgate" / "config.toml"
            if path not in found:
                found.append(path)
    return found


def _split_assignment(text: str, flag: str) -> tuple[str, str]:
    name, sep, value = text.partition("=")
    if not sep or not name or not value:
        raise UsageError(f"{flag} expects NAME=DIR")
    return name, value


def _read_config_file(path: Path, cfg: Config) -> None:
    where = f"config {path}"
    try:
        with path.open("rb") as f:
            data = tomllib.load(f)
    except FileNotFoundError:
        raise ConfigError(f"{where}: file not found") from None
    except IsADirectoryError:
        raise ConfigError(f"{where}: is a directory, not a file") from None
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{where}: not valid TOML ({e.args[0] if e.args else e})") from None
    except OSError as e:
        raise ConfigError(f"{where}: cannot be read ({e.strerror or e})") from None
    here = path.resolve().parent
    unknown = set(data) - {"roots", "mods", "max_tokens", "read_only", "allow_execute",
                           "allow_domains", "native_prefixes", "toolchains",
                           "toolchains_at_host_path", "id_range", *_POLICY_KEYS}
    if unknown:
        raise ConfigError(f"{where}: unknown key {sorted(unknown)[0]!r} "
                          "(known: roots, mods, read_only, max_tokens, allow_execute, "
                          "allow_domains, native_prefixes, toolchains, toolchains_at_host_path, "
                          "id_range, deny_read, deny_write, presets, audit_log)")
    prefixes = data.get("native_prefixes", {})
    if not isinstance(prefixes, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in prefixes.items()):
        raise ConfigError(f"{where}: [native_prefixes] must be a table of \"native prefix\" = "
                          "\"root:KEY/...\" or \"mod:NAME/...\"")
    cfg.native_prefixes.update(prefixes)
    _read_policy_keys(data, cfg, where, here)
    for table, target in (("roots", cfg.roots), ("mods", cfg.mods)):
        section = data.get(table, {})
        if not isinstance(section, dict):
            raise ConfigError(f"{where}: [{table}] must be a table")
        for name, value in section.items():
            if not isinstance(value, str) or not value:
                raise ConfigError(f"{where}: {table}.{name} must be a directory (a non-empty string)")
            target[name] = os.fspath(here / os.path.expanduser(value))
    if "max_tokens" in data:
        value = data["max_tokens"]
        if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
            raise ConfigError(f"{where}: max_tokens must be a positive integer")
        cfg.max_tokens = value
    if "read_only" in data:
        names = data["read_only"]
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            raise ConfigError(f"{where}: read_only must be a list of root keys or mod names")
        cfg.read_only.extend(names)
    if "allow_execute" in data:
        if not isinstance(data["allow_execute"], bool):
            raise ConfigError(f"{where}: allow_execute must be true or false")
        cfg.allow_execute = data["allow_execute"]
    if "allow_domains" in data:
        value = data["allow_domains"]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ConfigError(f"{where}: allow_domains must be a list of host names "
                              "(example.com, *.example.com, an IP address; optional :port)")
        cfg.allow_domains = list(value)
    if "toolchains" in data:
        value = data["toolchains"]
        if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
            raise ConfigError(f"{where}: toolchains must be a list of directories")
        cfg.toolchains.extend(os.fspath(here / os.path.expanduser(v)) for v in value)
    if "toolchains_at_host_path" in data:
        if not isinstance(data["toolchains_at_host_path"], bool):
            raise ConfigError(f"{where}: toolchains_at_host_path must be true or false")
        cfg.toolchains_at_host_path = data["toolchains_at_host_path"]
    if "id_range" in data:
        cfg.id_range = _id_range_value(data["id_range"], f"{where}: id_range")


_ID_RANGE_FORM = 'must be "none" or FIRST:COUNT ([first, count] in the file), COUNT >= 2'


def _id_range_value(value: Any, what: str) -> str | tuple[int, int]:
    """execute's id_range from the file ("none" or [first, count]) or the
    flag ("none" or FIRST:COUNT); ConfigError when malformed."""
    if isinstance(value, str) and value != "none":
        first, sep, count = value.partition(":")
        if sep and first.isdigit() and count.isdigit():
            value = [int(first), int(count)]
    if isinstance(value, list):
        value = tuple(value)
    try:
        from .sandbox import _id_range
        checked = _id_range(value)
    except ValueError:
        checked = None
    if checked is None:
        raise ConfigError(f"{what} {_ID_RANGE_FORM}")
    return checked


def load_config(args: argparse.Namespace) -> Config:
    """The bases of this run, from exactly one source (see the module doc)."""
    cfg = Config({}, {}, [], None, False, "default", None)
    explicit = bool(args.config or args.root or args.mod)
    if args.config:
        cfg.source = "config"
        cfg.file = Path(os.path.abspath(args.config))
        _read_config_file(cfg.file, cfg)
    elif not explicit:
        user = user_config_path()
        if user is not None and (user.exists() or user.is_symlink()):
            cfg.source = "user"
            cfg.file = user
            _read_config_file(user, cfg)
    if args.root or args.mod:
        if cfg.source == "default":
            cfg.source = "flags"
    for text in args.root or ():
        name, value = _split_assignment(text, "--root")
        cfg.roots[name] = os.path.abspath(value)
    for text in args.mod or ():
        name, value = _split_assignment(text, "--mod")
        cfg.mods[name] = os.path.abspath(value)
    cfg.read_only.extend(args.read_only or ())
    for text in getattr(args, "native_prefix", None) or ():
        match = re.match(r"^(.+)=((?:root|mod):.*)$", text)
        if not match:
            raise UsageError("--native-prefix expects PREFIX=ADDRESS (ADDRESS: root:KEY/... or "
                             "mod:NAME/...)")
        cfg.native_prefixes[match.group(1)] = match.group(2)
    cfg.deny_read.extend(getattr(args, "deny_read", None) or ())
    cfg.deny_write.extend(getattr(args, "deny_write", None) or ())
    cfg.presets.extend(getattr(args, "preset", None) or ())
    if getattr(args, "audit_log", None):
        cfg.audit_log = os.path.abspath(args.audit_log)
    if getattr(args, "allow_domain", None):
        cfg.allow_domains = (cfg.allow_domains or []) + list(args.allow_domain)
    cfg.toolchains.extend(os.path.abspath(d) for d in getattr(args, "toolchain", None) or ())
    if getattr(args, "toolchains_at_host_path", False):
        cfg.toolchains_at_host_path = True
    if getattr(args, "id_range", None) is not None:
        cfg.id_range = _id_range_value(args.id_range, "--id-range")
    if args.max_tokens is not None:
        if args.max_tokens <= 0:
            raise UsageError("--max-tokens must be a positive integer")
        cfg.max_tokens = args.max_tokens
    if cfg.source == "default":
        # Nothing configured anywhere: the directory the user is in, never
        # for a server, and never one that holds the whole host or a home.
        if getattr(args, "command", None) == "mcp":
            raise ConfigError(
                "pathgate mcp serves only a directory it is given: name it with --root KEY=DIR "
                "(for example --root repo=/srv/project), or pass --config FILE; the current "
                "directory is never served implicitly")
        cwd = os.getcwd()
        refused = implicit_root_refusal(cwd)
        if refused:
            raise ConfigError(
                f"no root is configured and the current directory is {refused}, which is never "
                "served implicitly: name the directory to serve with --root KEY=DIR (for "
                "example --root repo=DIR), pass --config FILE, or run pathgate from the project")
        cfg.roots = {"repo": cwd}
        if os.path.lexists("pathgate.toml"):
            print("pathgate: note: ./pathgate.toml is not read implicitly (anything run here could "
                  "have written it); pass --config pathgate.toml to use it", file=sys.stderr)
    elif not cfg.roots and not cfg.mods:
        raise ConfigError(f"config {cfg.file}: no root or mod configured" if cfg.file
                          else "no root or mod configured")
    if cfg.allow_domains is not None:
        _check_allow_domains(cfg)
    if cfg.toolchains:
        _check_toolchains(cfg)
    return cfg


def implicit_root_refusal(directory: str) -> str | None:
    """Why directory may not be the implicit root (the current directory
    when nothing is configured), or None: the filesystem root, a home
    directory or an ancestor of one would serve far more than a project
    (docs/cli.md "Where the bases come from"). The core decides, with the
    check that also refuses a command's toolchain."""
    from . import _core

    return _core._implicit_root_refusal(directory)


def _check_allow_domains(cfg: Config) -> None:
    """A malformed allow_domains entry is a configuration error at once,
    not a refusal of every later command (pathgate mcp)."""
    from . import Error, _core

    try:
        _core._check_allow_domains(cfg.allow_domains or [])
    except Error as e:
        where = f"config {cfg.file}: " if cfg.file is not None else ""
        raise ConfigError(f"{where}{e}") from None


def _check_toolchains(cfg: Config) -> None:
    """A toolchain that fails its checks (not a directory, `/`, a home or
    an ancestor of one, ...) is a configuration error at once, naming it
    (the operator's own path)."""
    from . import Error, _core

    for i, path in enumerate(cfg.toolchains):
        try:
            _core._check_toolchains([path], cfg.toolchains_at_host_path, False)
        except Error as e:
            where = f"config {cfg.file}: " if cfg.file is not None else ""
            raise ConfigError(f"{where}toolchain {path}: "
                              f"{str(e).replace('toolchains[0]: ', '')}") from None
    try:
        _core._check_toolchains(cfg.toolchains, cfg.toolchains_at_host_path, False)
    except Error as e:
        raise ConfigError(f"toolchains: {e}") from None


def _inside(path: str, directory: str) -> bool:
    return path == directory or path.startswith(directory.rstrip("/") + "/")


def _spellings(path: Path) -> set[str]:
    """Every host spelling under which path could be replaced: as given
    (made absolute), with its directory's symlinks resolved (the name itself
    may be a symlink that is swapped), and its final target."""
    absolute = os.path.normpath(os.path.abspath(path))
    return {absolute,
            os.path.join(os.path.realpath(os.path.dirname(absolute)), os.path.basename(absolute)),
            os.path.realpath(absolute)}


def _base_is_read_only(kind: str, name: str, read_only: list[str]) -> bool:
    return name in read_only or f"{kind}:{name}" in read_only


def check_config_not_writable(cfg: Config) -> None:
    """Refuses a configuration that the sandbox it defines could rewrite:
    the file in use and every user configuration location (of any
    environment: _user_config_locations) must lie in no writable base (a
    base marked read-only may hold them)."""
    protected: list[tuple[str, Path]] = []
    if cfg.file is not None:
        protected.append((f"config {cfg.file}", cfg.file))
        try:
            links = cfg.file.stat().st_nlink
        except OSError:
            links = 1
        if links > 1:
            raise ConfigError(f"config {cfg.file}: has {links} hard links; one of them could lie in a "
                              "writable base, so it is refused (copy it to a file of its own)")
    for user in _user_config_locations():
        if user != cfg.file:
            protected.append((f"the user configuration location {user}", user))
    for kind, bases in (("root", cfg.roots), ("mod", cfg.mods)):
        for name, directory in bases.items():
            if _base_is_read_only(kind, name, cfg.read_only):
                continue
            spellings = {os.path.normpath(os.path.abspath(directory)), os.path.realpath(directory)}
            for what, path in protected:
                if any(_inside(p, d) for p in _spellings(path) for d in spellings):
                    raise ConfigError(_writable_config_message(cfg, what, kind, name, directory))


def _writable_config_message(cfg: Config, what: str, kind: str, name: str, directory: str) -> str:
    """The refusal of a configuration writable through its own sandbox.
    Its advice never widens what is served: first a narrower directory
    (--root KEY=DIR), and a read-only mark only for a base the operator
    named; the implicit root (the current directory) gets no such advice,
    since keeping it would keep serving the directory that holds the file."""
    head = (f"{what} lies inside the writable {kind} '{name}' ({directory})"
            f"{' (the default: the current directory)' if cfg.source == 'default' else ''}: "
            "a configuration must never be writable through the sandbox it defines; ")
    if cfg.source == "default":
        return head + ("name the directory to serve with --root KEY=DIR (one that does not hold "
                       "it), or run pathgate from the project")
    flag = "--root" if kind == "root" else "--mod"
    return head + (f"serve a directory that does not hold it ({flag} {name}=DIR), or mark the "
                   f"{kind} read-only (--read-only {name})")


# ---------------------------------------------------------------- policy

_POLICY_KEYS = ("deny_read", "deny_write", "presets", "audit_log")


def _read_policy_keys(data: dict[str, Any], cfg: Config, where: str, here: Path) -> None:
    """deny_read, deny_write, presets (lists of str) and audit_log (a file,
    relative to the configuration's directory) of a configuration file."""
    for key, target in (("deny_read", cfg.deny_read), ("deny_write", cfg.deny_write),
                        ("presets", cfg.presets)):
        if key in data:
            value = data[key]
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise ConfigError(f"{where}: {key} must be a list of strings")
            target.extend(value)
    if "audit_log" in data:
        value = data["audit_log"]
        if not isinstance(value, str) or not value:
            raise ConfigError(f"{where}: audit_log must be a file name (a non-empty string)")
        cfg.audit_log = os.fspath(here / os.path.expanduser(value))


class AuditLog:
    """The audit callback of ``--audit-log FILE``: one JSON object per line
    per decision (docs/policy.md "Audit"), appended and flushed at once, so
    that a crash loses no decision. The file is the operator's: it holds
    host paths (``host_path``) and is never shown to an agent."""

    def __init__(self, path: str) -> None:
        import threading

        self._lock = threading.Lock()
        # O_APPEND: several writers (an MCP server and a CLI run) interleave
        # whole lines; 0o600: the operator's alone
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600)
        self._file = os.fdopen(fd, "a", encoding="utf-8", buffering=1)

    def __call__(self, event: dict[str, Any]) -> None:
        import datetime

        record = dict(event)
        record["time"] = datetime.datetime.fromtimestamp(
            event["time"], datetime.timezone.utc).isoformat(timespec="microseconds")
        line = json.dumps(record, ensure_ascii=False, separators=(",", ":"))
        with self._lock:
            self._file.write(line + "\n")
            self._file.flush()


def _check_log_not_writable(cfg: Config) -> None:
    """An audit log the sandbox could rewrite records nothing: refused
    inside a writable base, as a configuration is."""
    if not cfg.audit_log:
        return
    for kind, bases in (("root", cfg.roots), ("mod", cfg.mods)):
        for name, directory in bases.items():
            if _base_is_read_only(kind, name, cfg.read_only):
                continue
            spellings = {os.path.normpath(os.path.abspath(directory)), os.path.realpath(directory)}
            if any(_inside(p, d) for p in _spellings(Path(cfg.audit_log)) for d in spellings):
                raise ConfigError(
                    f"the audit log {cfg.audit_log} lies inside the writable {kind} '{name}' "
                    f"({directory}): the sandbox could rewrite its own log; put it elsewhere or "
                    f"mark the {kind} read-only (--read-only {name})")


def _policy_kwargs(args: argparse.Namespace, cfg: Config) -> dict[str, Any]:
    kwargs: dict[str, Any] = {}
    if cfg.deny_read:
        kwargs["deny_read"] = cfg.deny_read
    if cfg.deny_write:
        kwargs["deny_write"] = cfg.deny_write
    if cfg.presets:
        kwargs["presets"] = cfg.presets
    if cfg.audit_log:
        try:
            kwargs["audit"] = AuditLog(cfg.audit_log)
        except OSError as e:
            raise ConfigError(f"--audit-log {cfg.audit_log}: cannot be opened "
                              f"({e.strerror or e})") from None
        kwargs["audit_door"] = "mcp" if getattr(args, "command", None) == "mcp" else "cli"
    return kwargs


def make_resolver(args: argparse.Namespace, cfg: Config | None = None) -> Any:
    """The resolver of cfg (default: load_config(args)), after the checks
    every configuration gets."""
    from . import Error, Resolver

    if cfg is None:
        cfg = load_config(args)
    where = f"config {cfg.file}: " if cfg.file is not None else ""
    # The operator's own directories may be named here (never to an agent).
    for kind, bases in (("root", cfg.roots), ("mod", cfg.mods)):
        for name, directory in bases.items():
            if not os.path.exists(directory):
                raise ConfigError(f"{where}{kind} '{name}': the directory {directory} does not exist")
            if not os.path.isdir(directory):
                raise ConfigError(f"{where}{kind} '{name}': {directory} is not a directory")
    kwargs: dict[str, Any] = {"roots": cfg.roots, "mods": cfg.mods}
    if cfg.max_tokens is not None:
        kwargs["max_tokens"] = cfg.max_tokens
    if cfg.read_only:
        kwargs["read_only"] = cfg.read_only
    if cfg.native_prefixes:
        kwargs["native_prefixes"] = cfg.native_prefixes
    _check_log_not_writable(cfg)
    kwargs.update(_policy_kwargs(args, cfg))
    try:
        with warnings.catch_warnings(record=True) as said:
            warnings.simplefilter("always", UserWarning)
            resolver = Resolver(**kwargs)
    except Error as e:
        # The core's configuration messages name keys, never directories.
        raise ConfigError(f"{where}{e}") from None
    # the set-up's warnings (git tracks a path the policy hides) go to the
    # operator's stderr, as the other start-up lines (also for `mcp`)
    for w in said:
        print(f"pathgate: warning: {w.message}", file=sys.stderr)
    check_config_not_writable(cfg)
    return resolver


def make_session(args: argparse.Namespace, cfg: Config | None = None) -> Any:
    """A session whose home is the first base and whose cwd is --cwd: the
    one rule every subcommand applies to relative input."""
    from . import Error, Session

    resolver = make_resolver(args, cfg)
    home = f"root:{resolver.roots[0]}" if resolver.roots else f"mod:{resolver.mods[0]}"
    session = Session(resolver, home)
    cwd = getattr(args, "cwd", None) or getattr(args, "base", None)
    if cwd:
        try:
            session.push(cwd)
        except Error as e:
            raise UsageError(f"--cwd: {e}") from None
    return session


# ---------------------------------------------------------------- output


def _jsonable(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, bytes):
        import base64

        return base64.b64encode(value).decode("ascii")
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return str(value)


def emit_json(data: Any) -> None:
    json.dump(_jsonable(data), sys.stdout, ensure_ascii=False, indent=None)
    sys.stdout.write("\n")


def emit(args: argparse.Namespace, plain: str | None, data: Any) -> None:
    if args.json:
        emit_json({"ok": True, **data})
    elif plain:
        sys.stdout.write(plain if plain.endswith("\n") else plain + "\n")


def note(args: argparse.Namespace, text: str) -> None:
    """A notice on stderr (after what stdout already holds)."""
    sys.stdout.flush()
    print(f"pathgate: {args.command}: {text}", file=sys.stderr)


# ---------------------------------------------------------------- subcommands


def cmd_resolve(args: argparse.Namespace) -> int:
    session = make_session(args)
    resolver = session.resolver
    records = []
    lines = []
    failed = False
    for index, text in enumerate(args.address, 1):
        res = session.resolve(text, require_exists=not args.no_require_exists)
        record: dict[str, Any] = {
            "input": text,
            "ok": res.ok,
            "address": str(res.ref) if res.ok else None,
            "root_category": res.root_category,
            "relative_path": res.relative_path,
            "exists": res.exists,
            "error_message": res.error_message,
            "reason": res.reason,
        }
        if args.host_path:
            host = resolver.host_path(res.ref) if res.ok else None
            record["host_path"] = os.fspath(host) if host is not None else None
        records.append(record)
        if res.ok:
            where = f"root {res.root_category}" if res.root_category else "mod"
            line = (f"{res.ref}\t{where}\trel={res.relative_path or '.'}\t"
                    f"{'exists' if res.exists else 'missing'}")
            if args.host_path:
                line += f"\t{record['host_path']}"
            lines.append(line)
        else:
            failed = True
            print(f"pathgate: resolve: argument {index}: {res.error_message} ({res.reason})",
                  file=sys.stderr)
    if args.json:
        emit_json({"ok": not failed, "results": records})
    elif lines:
        sys.stdout.write("\n".join(lines) + "\n")
    return EXIT_FAILED if failed else EXIT_OK


def _convention(args: argparse.Namespace) -> Literal["posix", "windows"] | None:
    # argparse's choices= already restricted the value.
    return cast('Literal["posix", "windows"] | None', args.convention)


def cmd_address_of(args: argparse.Namespace) -> int:
    """The canonical address of each native path (a .mod descriptor's
    path="C:/...", a host path): docs/cli.md."""
    from . import PathError

    resolver = make_resolver(args)
    records, lines, failed = [], [], False
    for text in args.native:
        try:
            address = resolver.address_of(text)
        except PathError as e:
            failed = True
            records.append({"input": text, "ok": False, "address": None, "error": str(e)})
            if not args.json:
                print(f"pathgate: address-of: {e}", file=sys.stderr)
            continue
        records.append({"input": text, "ok": True, "address": address, "error": None})
        lines.append(address)
    if args.json:
        emit_json({"ok": not failed, "results": records})
    elif lines:
        sys.stdout.write("\n".join(lines) + "\n")
    return EXIT_FAILED if failed else EXIT_OK


def cmd_uri(args: argparse.Namespace) -> int:
    from . import PathError, PathUri

    try:
        uri = PathUri.from_native(args.path, _convention(args))
    except PathError as e:
        raise Failed(f"cannot convert to a URI ({e.kind})", e.kind) from None
    emit(args, str(uri), {"uri": str(uri), "convention": uri.convention, "is_opaque": uri.is_opaque})
    return EXIT_OK


def cmd_native(args: argparse.Namespace) -> int:
    from . import PathError, PathUri

    try:
        uri = PathUri.parse(args.uri)
        text = uri.to_native(_convention(args))
    except PathError as e:
        raise Failed(f"cannot render as a native path ({e.kind})", e.kind) from None
    emit(args, text, {"native": text, "convention": _convention(args) or uri.convention})
    return EXIT_OK


# ------------------------------------------------------ file operations


def _get(obj: Any, name: str, default: Any = None) -> Any:
    """Field of a protocol result, whether a dataclass or a TypedDict-style dict."""
    if isinstance(obj, dict):
        return obj.get(name, default)
    return getattr(obj, name, default)


def make_backend(args: argparse.Namespace, cfg: Config | None = None) -> Any:
    from . import Backend

    return Backend(make_session(args, cfg))


def _cli_message(text: str, kind: str | None) -> str:
    # The core names the problem; the advice is the front end's (a
    # command-line user has a flag).
    if kind == "edit_ambiguous":
        return (f"{text} Use --replace-all to replace all instances, or provide a more specific "
                "string with surrounding context.")
    return text


def _check(result: Any) -> Any:
    error = _get(result, "error")
    if error:
        raise Failed(_cli_message(str(error), _get(result, "kind")), _get(result, "kind"))
    return result


def _canonical(backend: Any, text: str | None) -> str | None:
    """The canonical address of an operand (None when it has none)."""
    session = backend.session
    res = session.resolve(text if text is not None else session.pwd(), require_exists=False)
    if not res.ok:
        return None
    address = str(res.ref)
    session.resolver.release(res.ref)
    return address


def _dir_operand(args: argparse.Namespace, backend: Any) -> str:
    # Without an operand: the working directory (--cwd, or the home base).
    return str(args.path) if args.path else str(backend.session.pwd())


def cmd_ls(args: argparse.Namespace) -> int:
    backend = make_backend(args)
    target = _dir_operand(args, backend)
    result = _check(backend.ls(target))
    entries = _get(result, "entries") or []
    lines = []
    for e in entries:
        size = _get(e, "size")
        lines.append(f"{_get(e, 'path')}\t{'' if size is None else size}\t{_get(e, 'modified_at') or ''}")
    emit(args, "\n".join(lines), {"path": _canonical(backend, target), "entries": entries})
    return EXIT_OK


def _read_whole(args: argparse.Namespace, backend: Any) -> int:
    (answer,) = backend.download_files([args.file_path])
    content = _get(answer, "content")
    if _get(answer, "error") or content is None:
        # The exact message (not found, a directory, ...) from read.
        _check(backend.read(args.file_path, offset=0, limit=1))
        raise Failed(f"cannot read '{args.file_path}' ({_get(answer, 'error')})", _get(answer, "error"))
    if args.json:
        try:
            text, encoding = content.decode("utf-8"), "utf-8"
        except UnicodeDecodeError:
            import base64

            text, encoding = base64.b64encode(content).decode("ascii"), "base64"
        emit_json({"ok": True, "path": _canonical(backend, args.file_path), "encoding": encoding,
                   "content": text, "window": None})
    else:
        sys.stdout.flush()
        sys.stdout.buffer.write(content)
    return EXIT_OK


def cmd_read(args: argparse.Namespace) -> int:
    backend = make_backend(args)
    if args.offset is None and args.limit is None:
        return _read_whole(args, backend)
    offset = args.offset or 0
    limit = _ALL_LINES if args.limit is None else args.limit
    if offset < 0 or limit <= 0:
        raise UsageError("read: --offset must be >= 0 and --limit > 0")
    result = _check(backend.read(args.file_path, offset=offset, limit=limit))
    data = _get(result, "file_data") or {}
    if _get(data, "encoding") != "utf-8":
        raise Failed(f"'{args.file_path}' is not UTF-8 text, so it has no lines to window; "
                     "read it whole (without --offset/--limit)", "not_text")
    total = _get(result, "total_lines")
    if total is None:  # empty or whitespace-only: no lines
        content, window = "", {"start_line": None, "end_line": None, "total_lines": 0, "next_offset": None}
    else:
        content = _get(data, "content") or ""
        window = {"start_line": _get(result, "start_line"), "end_line": _get(result, "end_line"),
                  "total_lines": total,
                  "next_offset": _get(result, "end_line") if _get(result, "end_line") < total else None}
    emit(args, content, {"path": _canonical(backend, args.file_path), "encoding": "utf-8",
                         "content": content, "window": window})
    return EXIT_OK


def cmd_grep(args: argparse.Namespace) -> int:
    backend = make_backend(args)
    kwargs: dict[str, Any] = {"path": args.path, "glob": args.glob}
    if args.max_count is not None:
        kwargs["max_count"] = args.max_count
    if args.regex:
        kwargs["regex"] = True
    if args.ignore_case:
        kwargs["ignore_case"] = True
    if args.all_bases:
        if args.path is not None:
            raise UsageError("grep --all-bases searches every base and takes no PATH")
        kwargs["all_bases"] = True
    if not args.json:
        return _stream(args, "grep", backend, kwargs)
    result = _check(backend.grep(args.pattern, **kwargs))
    matches = _get(result, "matches") or []
    truncated = bool(_get(result, "truncated"))
    lines = [f"{_get(m, 'path')}:{_get(m, 'line')}:{_get(m, 'text')}" for m in matches]
    emit(args, "\n".join(lines), {"matches": matches, "truncated": truncated})
    if truncated:
        note(args, "output truncated at --max-count")
    return EXIT_OK if matches else EXIT_FAILED


def cmd_glob(args: argparse.Namespace) -> int:
    backend = make_backend(args)
    if not args.json:
        return _stream(args, "glob", backend, {"path": args.path})
    result = _check(backend.glob(args.pattern, path=args.path))
    matches = _get(result, "matches") or []
    emit(args, "\n".join(str(_get(m, "path")) for m in matches), {"matches": matches})
    return EXIT_OK


def _stdin_bytes() -> bytes | str:
    buffer = getattr(sys.stdin, "buffer", None)
    return buffer.read() if buffer is not None else sys.stdin.read()


def _stream(args: argparse.Namespace, op: str, backend: Any, kwargs: dict[str, Any]) -> int:
    """Prints grep/glob results as they are found (so `| head` ends the
    search early), with progress on stderr after a second when stderr is
    a terminal."""
    import time

    from . import Error

    if op == "grep":
        it = backend.grep_iter(args.pattern, **kwargs)
    else:
        it = backend.glob_iter(args.pattern, kwargs["path"])
    show = sys.stderr.isatty()
    start = last = time.monotonic()
    shown = False
    count = 0
    summary: dict[str, Any] = {}
    try:
        for item in it:
            count += 1
            if op == "grep":
                line = f"{item['path']}:{item['line']}:{item['text']}"
            else:
                line = str(item["path"])
            try:
                sys.stdout.write(line + "\n")
            except BrokenPipeError:
                it.close()
                _quiet_stdout()
                return EXIT_OK
            now = time.monotonic()
            if show and now - start > 1.0 and now - last > 0.1:
                last = now
                shown = True
                scanned = f", {it.files_scanned()} files searched" if op == "grep" else ""
                sys.stderr.write(f"\rpathgate: {op}: {count} found{scanned} ")
                sys.stderr.flush()
        summary = it.summary() or {}
    except Error as exc:
        if shown:
            sys.stderr.write("\n")
        raise Failed(str(exc)) from None
    finally:
        it.close()
    if shown:
        sys.stderr.write("\r\033[K")
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        _quiet_stdout()
        return EXIT_OK
    if summary.get("truncated") and op == "grep":
        print("pathgate: grep: output truncated at max-count", file=sys.stderr)
    if summary.get("incomplete"):
        left = ", ".join(f"{k}={v}" for k, v in summary.items()
                         if k in ("unreadable_dirs", "unreadable_files", "skipped_names",
                                  "skipped_large") and v)
        print(f"pathgate: {op}: incomplete answer ({left})", file=sys.stderr)
    # grep's convention: 1 when nothing matched
    return EXIT_FAILED if op == "grep" and count == 0 else EXIT_OK


def _quiet_stdout() -> None:
    # stdout's reader went away (`| head`): no traceback at exit
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


def cmd_write(args: argparse.Namespace) -> int:
    backend = make_backend(args)
    result = _check(backend.write(args.file_path, _stdin_bytes()))
    emit(args, f"wrote {_get(result, 'path')}", {"path": _get(result, "path")})
    return EXIT_OK


def cmd_edit(args: argparse.Namespace) -> int:
    backend = make_backend(args)
    result = _check(backend.edit(args.file_path, args.old_string, args.new_string,
                                 replace_all=args.replace_all))
    count = _get(result, "occurrences")
    emit(args, f"edited {_get(result, 'path')} ({count} replacement(s))",
         {"path": _get(result, "path"), "occurrences": count})
    return EXIT_OK


def cmd_apply_patch(args: argparse.Namespace) -> int:
    backend = make_backend(args)
    data = args.patch if args.patch is not None else _stdin_bytes()
    text = data.decode("utf-8", "surrogateescape") if isinstance(data, bytes) else data
    result = backend.apply_patch(text, atomic=not args.file_by_file)
    if result.error is not None:
        raise Failed(result.error, result.kind)
    emit(args, result.output, {"output": result.output, "files": result.files})
    return EXIT_OK


def cmd_delete(args: argparse.Namespace) -> int:
    backend = make_backend(args)
    result = _check(backend.delete(args.file_path))
    emit(args, f"deleted {_get(result, 'path')}", {"path": _get(result, "path")})
    return EXIT_OK


def cmd_execute(args: argparse.Namespace) -> int:
    cfg = load_config(args)
    backend = make_backend(args, cfg)
    if args.timeout is not None and args.timeout <= 0:
        raise UsageError("execute: --timeout must be a positive number of seconds")
    if cfg.execute_options():
        backend.configure_execute(**cfg.execute_options())
    response = backend.execute(args.shell_command, timeout=args.timeout)
    code = _get(response, "exit_code")
    output = str(_get(response, "output") or "")
    data = {"output": output, "exit_code": code, "truncated": bool(_get(response, "truncated")),
            "timed_out": bool(_get(response, "timed_out")),
            "landlock_abi": _get(response, "landlock_abi"),
            # links the command planted at protected names, moved into the
            # quarantine (docs/exec.md "Planted links")
            "quarantined": list(_get(response, "quarantined") or ())}
    if code is None:
        if args.json:
            emit_json({"ok": False, "error": output, "kind": "not_run", **data})
        else:
            note(args, f"the command could not be run: {output}")
        return EXIT_NOT_RUN
    if args.json:
        emit_json({"ok": code == 0, **data})
    else:
        sys.stdout.write(output)
        if data["truncated"]:
            note(args, "output truncated")
        if data["timed_out"]:
            note(args, "the command timed out")
        for address in data["quarantined"]:
            note(args, f"quarantined a link the command planted: {address} "
                       "(pathgate quarantine list)")
    return int(code) if 0 <= int(code) <= 255 else EXIT_FAILED


def quarantine_dir(args: argparse.Namespace) -> str:
    """Where commands' planted links are kept (docs/exec.md "Planted
    links"): --quarantine-dir, $PATHGATE_QUARANTINE_DIR,
    $XDG_STATE_HOME/pathgate/quarantine, ~/.local/state/pathgate/quarantine
    (the core's order, core/src/exec/linux/exec_quarantine.c)."""
    for value in (getattr(args, "quarantine_dir", None), os.environ.get("PATHGATE_QUARANTINE_DIR")):
        if value:
            return value
    state = os.environ.get("XDG_STATE_HOME")
    if state and state.startswith("/"):
        return os.path.join(state, "pathgate", "quarantine")
    return os.path.join(os.path.expanduser("~"), ".local", "state", "pathgate", "quarantine")


def _quarantine_entries(top: str, only: str | None = None) -> list[dict[str, Any]]:
    """Every entry of the quarantine (of the call `only`), in order."""
    entries: list[dict[str, Any]] = []
    try:
        ids = sorted(os.listdir(top))
    except FileNotFoundError:
        ids = []
    for qid in ids:
        if only is not None and qid != only:
            continue
        call = os.path.join(top, qid)
        if not os.path.isdir(call) or os.path.islink(call):
            continue
        for k in sorted((n for n in os.listdir(call) if n.isdigit()), key=int):
            d = os.path.join(call, k)

            def field(name: str, d: str = d) -> bytes | None:
                try:
                    with open(os.path.join(d, name), "rb") as f:
                        return f.read()
                except FileNotFoundError:
                    return None

            address = field("address") or b""
            entries.append({
                "id": qid, "entry": int(k), "dir": d,
                "address": address.decode("utf-8", "surrogateescape"),
                "kind": (field("kind") or b"").decode("ascii", "replace"),
                "host_path": field("host_path"), "target": field("target"),
            })
    return entries


def _restore_one(e: dict[str, Any]) -> None:
    """Puts a quarantined entry back where it was, unless something is
    there now; no symlink followed on the way (the sandbox may have put
    one there)."""
    host = e["host_path"]
    if not host or not host.startswith(b"/"):
        raise Failed(f"{e['id']}/{e['entry']}: no place recorded", kind="invalid")
    parent, name = host.rsplit(b"/", 1)
    fd = os.open("/", os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        for part in [p for p in parent.split(b"/") if p]:
            nxt = os.open(part, os.O_PATH | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC,
                          dir_fd=fd)
            os.close(fd)
            fd = nxt
        try:
            os.lstat(name, dir_fd=fd)
            raise Failed(f"{e['address']} exists again: not restored", kind="exists")
        except FileNotFoundError:
            pass
        if e["kind"] == "symlink":
            os.symlink(e["target"] or b"", name, dir_fd=fd)
        else:
            out = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
                          0o644, dir_fd=fd)
            with open(os.path.join(e["dir"], "data"), "rb") as src, os.fdopen(out, "wb") as dst:
                shutil.copyfileobj(src, dst)
    except OSError as err:
        raise Failed(f"{e['address']}: cannot be restored: {err.strerror}", kind="io") from None
    finally:
        os.close(fd)
    shutil.rmtree(e["dir"])


def cmd_quarantine(args: argparse.Namespace) -> int:
    top = quarantine_dir(args)
    if args.action == "list":
        entries = _quarantine_entries(top)
        lines = [f"{e['id']}/{e['entry']}\t{e['address']}\t{e['kind']}" for e in entries]
        emit(args, "\n".join(lines) if lines else None,
             {"entries": [{"id": e["id"], "entry": e["entry"], "address": e["address"],
                           "kind": e["kind"],
                           "host_path": os.fsdecode(e["host_path"] or b""),
                           "target": os.fsdecode(e["target"]) if e["target"] is not None
                           else None} for e in entries]})
        return EXIT_OK
    if not args.id:
        raise UsageError("quarantine restore: which one? (an ID or ID/N from `quarantine list`)")
    qid, _, k = args.id.partition("/")
    entries = [e for e in _quarantine_entries(top, qid) if not k or str(e["entry"]) == k]
    if not entries or "/" in qid or qid in (".", ".."):
        raise Failed(f"no such quarantined entry: {args.id}", kind="not_found")
    restored = []
    for e in entries:
        _restore_one(e)
        restored.append(e["address"])
    try:
        os.rmdir(os.path.join(top, qid))
    except OSError:
        pass  # (entries left)
    emit(args, "\n".join(f"restored {a}" for a in restored), {"restored": restored})
    return EXIT_OK


def cmd_mcp(args: argparse.Namespace) -> int:
    from .mcp import serve_command

    return serve_command(args)


# ---------------------------------------------------------------- parser


class _Parser(argparse.ArgumentParser):
    """argparse whose errors are UsageError (so --json can report them)."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message}\n{self.format_usage().rstrip()}")


def build_parser() -> argparse.ArgumentParser:
    from . import __version__

    def options(suppress: bool) -> _Parser:
        # The same options are accepted before and after the subcommand; after
        # it their defaults are suppressed so they never undo what came before.
        extra: dict[str, Any] = {"default": argparse.SUPPRESS} if suppress else {}
        p = _Parser(add_help=False)
        p.add_argument("--root", action="append", metavar="KEY=DIR", **extra,
                       help="a root directory, reached as root:KEY (repeatable); "
                            "with no configuration at all root:repo is the current directory")
        p.add_argument("--mod", action="append", metavar="NAME=DIR", **extra,
                       help="a mod directory, reached as mod:NAME (repeatable)")
        p.add_argument("--read-only", action="append", metavar="NAME", **extra,
                       help="a root key or mod name whose files are read but never written, "
                            "deleted or changed by a command (repeatable)")
        p.add_argument("--native-prefix", action="append", metavar="PREFIX=ADDRESS", **extra,
                       help="address-of: a native path prefix (a Windows path read on Linux, "
                            "C:/Users/me/.../mod) that stands for ADDRESS (root:KEY/... or "
                            "mod:NAME/...) (repeatable)")
        p.add_argument("--deny-read", action="append", metavar="PATTERN", **extra,
                       help="a gitignore-style pattern no operation may read: hidden, "
                            "'Invalid path / not found' (repeatable; docs/policy.md)")
        p.add_argument("--deny-write", action="append", metavar="PATTERN", **extra,
                       help="a gitignore-style pattern no operation may change (repeatable)")
        p.add_argument("--preset", action="append", metavar="NAME", **extra,
                       choices=("vcs", "secrets", "agent-config"),
                       help="a built-in rule set: vcs, secrets, agent-config (repeatable)")
        p.add_argument("--audit-log", metavar="FILE", **extra,
                       help="append one JSON line per decision to FILE (the operator's: it "
                            "holds host paths)")
        p.add_argument("--allow-domain", action="append", metavar="HOST", **extra,
                       help="execute: a host the command may reach through pathgate's proxy "
                            "(example.com, *.example.com, an IP address; optional :port; "
                            "repeatable; docs/exec.md)")
        p.add_argument("--toolchain", action="append", metavar="DIR", **extra,
                       help="execute: a host directory (a venv, ~/.pyenv, a node installation) "
                            "shown read-only at /pathgate/tool/<its name>, its bin first in "
                            "PATH (repeatable; docs/exec.md)")
        p.add_argument("--toolchains-at-host-path", action="store_true", **extra,
                       help="execute: show the toolchains at their own host paths instead "
                            "(a venv's absolute paths then work; commands learn those paths)")
        p.add_argument("--id-range", metavar="FIRST:COUNT|none", **extra,
                       help="execute: the host ids a command's ids 1..65533 map to, as "
                            "/etc/subuid's root:FIRST:COUNT (another user: inside its own "
                            "entries); none: only 0 (default: root's /etc/subuid entry, else "
                            "2130706432+; another user: its own entries; docs/exec.md)")
        p.add_argument("--config", metavar="FILE", **extra,
                       help="TOML configuration ([roots], [mods], read_only, max_tokens, "
                            "deny_read, deny_write, presets, audit_log, allow_domains, "
                            "toolchains, toolchains_at_host_path, id_range); "
                            "default: $XDG_CONFIG_HOME/pathgate/config.toml when no "
                            "--root/--mod is given")
        p.add_argument("--cwd", metavar="ADDRESS", **extra,
                       help="the directory relative input is relative to and commands run in "
                            "(default: the first root, or the first mod)")
        p.add_argument("--max-tokens", type=int, metavar="N", **extra,
                       help="capacity of the token registry for this run")
        p.add_argument("--json", action="store_true", **extra,
                       help="print one JSON object on stdout, failures included")
        return p

    common = options(suppress=True)
    parser = _Parser(
        prog="pathgate", parents=[options(suppress=False)],
        description="Resolve canonical addresses, convert paths and URIs, and run contained file "
                    "operations and commands.",
        epilog="Exit status: 0 success, 1 a resolution or operation failed, 2 a usage or "
               "configuration error (grep: 1 no match, 2 error; execute: the command's status, "
               "125 when it could not be run).")
    parser.add_argument("--version", action="version", version=f"pathgate {__version__}",
                        help="print the version and exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True, help="the subcommand",
                                parser_class=_Parser)

    def add(name: str, func: Any, help_text: str) -> argparse.ArgumentParser:
        p = sub.add_parser(name, parents=[common], help=help_text, description=help_text)
        p.set_defaults(func=func)
        return p

    p = add("resolve", cmd_resolve, "resolve addresses, URIs or paths to canonical addresses")
    p.add_argument("address", nargs="+",
                   help="a canonical address, legacy alias, file: URI, host path inside a base, "
                        "or a path relative to --cwd")
    p.add_argument("--no-require-exists", action="store_true", help="accept a missing target")
    p.add_argument("--base", metavar="ADDRESS", help="the same as --cwd (kept for compatibility)")
    p.add_argument("--host-path", action="store_true",
                   help="also print the host path (for the operator; never show it to an agent)")

    p = add("address-of", cmd_address_of,
            "the canonical address of native paths (host paths under a base, or paths under a "
            "--native-prefix)")
    p.add_argument("native", nargs="+",
                   help="a native path: C:/Users/me/.../mod/x, /srv/game/x, a file: URI")

    for name, func, what in (("uri", cmd_uri, "convert a native path to a file: URI"),
                             ("native", cmd_native, "render a file: URI as a native path")):
        p = add(name, func, what)
        if name == "native":
            p.add_argument("uri", help="a file: URI")
        else:
            p.add_argument("path", help="a Windows or POSIX path (absolute)")
        p.add_argument("--convention", choices=("posix", "windows"),
                       help="path convention (default: inferred)")

    p = add("ls", cmd_ls, "list a directory")
    p.add_argument("path", nargs="?", help="the directory (default: --cwd)")
    p = add("read", cmd_read, "print a file (whole, byte for byte), or a window of its lines")
    p.add_argument("file_path", help="the file")
    p.add_argument("--offset", type=int, metavar="N",
                   help="first line to print, 0-based (a window: lines end at \\n)")
    p.add_argument("--limit", type=int, metavar="N",
                   help="number of lines to print (default with --offset: to the end)")
    p = add("grep", cmd_grep, "search files for a literal string (or, with --regex, a PCRE2 regex)")
    p.add_argument("pattern", help="the literal text to find (a PCRE2 regular expression with --regex)")
    p.add_argument("path", nargs="?", help="a file or directory to search (default: --cwd)")
    p.add_argument("--glob", help="only files whose names match this glob")
    p.add_argument("--max-count", type=int, metavar="N", help="stop after this many matches in total")
    p.add_argument("-e", "--regex", action="store_true",
                   help="the pattern is a PCRE2 regular expression")
    p.add_argument("-i", "--ignore-case", action="store_true", help="match case-insensitively")
    p.add_argument("--all-bases", action="store_true",
                   help="search every root and mod (roots first, in configuration order) "
                        "instead of one directory; takes no PATH")
    p = add("glob", cmd_glob, "list regular files matching a glob pattern")
    p.add_argument("pattern", help="a glob: *, ?, [...], {a,b} and ** across directories")
    p.add_argument("path", nargs="?", help="the directory to search (default: --cwd)")
    p = add("write", cmd_write, "write standard input to a file (created or replaced atomically)")
    p.add_argument("file_path", help="the file to create or replace")
    p = add("edit", cmd_edit, "replace an exact string in a file")
    p.add_argument("file_path", help="the file to edit")
    p.add_argument("old_string", help="the exact text to replace (must occur once without --replace-all)")
    p.add_argument("new_string", help="the replacement text")
    p.add_argument("--replace-all", action="store_true", help="replace every occurrence")
    p = add("apply-patch", cmd_apply_patch,
            "apply a patch in Codex's apply_patch format (standard input); print Codex's summary")
    p.add_argument("patch", nargs="?", help="the patch text (default: standard input)")
    p.add_argument("--file-by-file", action="store_true",
                   help="apply hunk by hunk as Codex does (default: all or nothing)")
    p = add("delete", cmd_delete, "delete a file, a symlink or a directory tree")
    p.add_argument("file_path", help="what to delete (never a base itself)")
    p = add("execute", cmd_execute,
            "run a shell command contained to the bases (as Backend.execute), in --cwd")
    p.add_argument("shell_command", metavar="COMMAND", help="the shell command, as one argument")
    p.add_argument("--timeout", type=float, metavar="SECONDS", help="time limit (default: 120)")
    p = add("quarantine", cmd_quarantine,
            "list or restore the links commands planted at protected names (docs/exec.md)")
    p.add_argument("action", choices=("list", "restore"), help="list, or restore ID")
    p.add_argument("id", nargs="?", help="restore: an ID (every entry of that call) or ID/N")
    p.add_argument("--quarantine-dir", metavar="DIR",
                   help="the quarantine (default: $PATHGATE_QUARANTINE_DIR, else "
                        "$XDG_STATE_HOME/pathgate/quarantine, else "
                        "~/.local/state/pathgate/quarantine)")
    p = add("mcp", cmd_mcp, "serve the file tools to an MCP client over stdio or HTTP (docs/mcp.md)")
    # (unless the common options define them already)
    if "--read-only" not in p._option_string_actions:
        p.add_argument("--read-only", action="append", metavar="NAME",
                       help="a root key or mod name to serve read-only (repeatable)")
    if "--allow-execute" not in p._option_string_actions:
        p.add_argument("--allow-execute", action="store_true", help="offer the contained execute tool")
    from .mcp import add_arguments as add_mcp_arguments

    add_mcp_arguments(p)
    return parser


def main(argv: _abc.Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    want_json = "--json" in argv[: argv.index("--")] if "--" in argv else "--json" in argv
    parser = build_parser()
    args: argparse.Namespace | None = None
    try:
        try:
            args = parser.parse_args(argv)
        except SystemExit as e:  # --help, --version
            return int(e.code or 0)
        return int(args.func(args))
    except UsageError as e:
        print(f"pathgate: {e}", file=sys.stderr)
        if want_json:
            emit_json({"ok": False, "error": str(e).split("\n")[0], "kind": e.kind})
        return EXIT_USAGE
    except Failed as e:
        assert args is not None
        print(f"pathgate: {args.command}: {e}", file=sys.stderr)
        if args.json:
            emit_json({"ok": False, "error": str(e), "kind": e.kind})
        return EXIT_USAGE if args.command == "grep" else EXIT_FAILED
    except BrokenPipeError:
        # The reader went away (| head): not an error of ours.
        try:
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - no flush error at exit
        except OSError:
            pass
        return EXIT_OK


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
