"""The ``pathgate`` command: resolve addresses, convert paths and URIs, and run
the agent file operations against configured roots.

Configuration comes from ``--root key=DIR`` / ``--mod Name=DIR`` flags, from a
TOML file (``--config FILE``, or ``pathgate.toml`` in the current directory)::

    max_tokens = 10000
    [roots]
    repo = "."            # relative to the config file
    [mods]
    "Some Mod" = "../mods/some"

or, with no configuration at all, ``root:repo`` is the current directory.
Flags add to (and override) what the file says.

Exit status: 0 success, 1 a resolution or operation failed, 2 usage error.
Messages go to stderr and never contain a host path unless asked for
(``resolve --host-path``).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import tomllib
import collections.abc as _abc
from pathlib import Path
from typing import Any, Literal, cast

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2


class UsageError(Exception):
    """A mistake in the command line or the configuration (exit status 2)."""


class Failed(Exception):
    """A resolution or file operation that failed (exit status 1)."""


# ---------------------------------------------------------------- configuration


def _split_assignment(text: str, flag: str) -> tuple[str, str]:
    name, sep, value = text.partition("=")
    if not sep or not name or not value:
        raise UsageError(f"{flag} expects NAME=DIR")
    return name, value


def load_config(args: argparse.Namespace) -> tuple[dict[str, str], dict[str, str], int | None]:
    """Roots, mods and max_tokens from the config file (if any) and the flags."""
    roots: dict[str, str] = {}
    mods: dict[str, str] = {}
    max_tokens: int | None = None

    config = Path(args.config) if args.config else Path("pathgate.toml")
    if args.config or config.is_file():
        try:
            with config.open("rb") as f:
                data = tomllib.load(f)
        except FileNotFoundError:
            raise UsageError("config file not found") from None
        except tomllib.TOMLDecodeError as e:
            raise UsageError(f"config file is not valid TOML ({e.args[0] if e.args else e})") from None
        except OSError:
            raise UsageError("config file cannot be read") from None
        here = config.resolve().parent
        for table, target in (("roots", roots), ("mods", mods)):
            section = data.get(table, {})
            if not isinstance(section, dict):
                raise UsageError(f"config: [{table}] must be a table")
            for name, value in section.items():
                if not isinstance(value, str):
                    raise UsageError(f"config: {table}.{name} must be a string")
                target[name] = os.fspath(here / value)
        if "max_tokens" in data:
            if not isinstance(data["max_tokens"], int) or data["max_tokens"] <= 0:
                raise UsageError("config: max_tokens must be a positive integer")
            max_tokens = data["max_tokens"]
        unknown = set(data) - {"roots", "mods", "max_tokens"}
        if unknown:
            raise UsageError(f"config: unknown key {sorted(unknown)[0]!r}")

    for text in args.root or ():
        name, value = _split_assignment(text, "--root")
        roots[name] = os.path.abspath(value)
    for text in args.mod or ():
        name, value = _split_assignment(text, "--mod")
        mods[name] = os.path.abspath(value)
    if args.max_tokens is not None:
        max_tokens = args.max_tokens
    if not roots:
        roots = {"repo": os.getcwd()}
    return roots, mods, max_tokens


def make_resolver(args: argparse.Namespace) -> Any:
    from . import Error, Resolver

    roots, mods, max_tokens = load_config(args)
    kwargs: dict[str, Any] = {"roots": roots, "mods": mods}
    if max_tokens is not None:
        kwargs["max_tokens"] = max_tokens
    try:
        return Resolver(**kwargs)
    except Error as e:
        # The core's configuration messages name keys, never directories.
        raise UsageError(str(e)) from None


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


def emit(args: argparse.Namespace, plain: str | None, data: Any) -> None:
    if args.json:
        json.dump(_jsonable(data), sys.stdout, ensure_ascii=False, indent=None)
        sys.stdout.write("\n")
    elif plain is not None:
        sys.stdout.write(plain if plain.endswith("\n") or not plain else plain + "\n")


# ---------------------------------------------------------------- subcommands


def cmd_resolve(args: argparse.Namespace) -> int:
    resolver = make_resolver(args)
    # Relative input is relative to --base, or to the home root (the first
    # configured root), as in a fresh Session.
    base = args.base if args.base else f"root:{resolver.roots[0]}"
    records = []
    lines = []
    failed = False
    for index, text in enumerate(args.address, 1):
        res = resolver.resolve(text, require_exists=not args.no_require_exists, base=base)
        record: dict[str, Any] = {
            "ok": res.ok,
            "address": str(res.ref) if res.ok else None,
            "root_category": res.root_category,
            "relative_path": res.relative_path,
            "exists": res.exists,
            "error_message": res.error_message,
            "reason": res.reason,
        }
        if res.ok and args.host_path:
            host = resolver.host_path(res.ref)
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
    emit(args, "\n".join(lines) if lines else None, records if len(records) != 1 else records[0])
    return EXIT_FAILED if failed else EXIT_OK


def _convention(args: argparse.Namespace) -> Literal["posix", "windows"] | None:
    # argparse's choices= already restricted the value.
    return cast('Literal["posix", "windows"] | None', args.convention)


def cmd_uri(args: argparse.Namespace) -> int:
    from . import PathError, PathUri

    try:
        uri = PathUri.from_native(args.path, _convention(args))
    except PathError as e:
        raise Failed(f"cannot convert to a URI ({e.kind})") from None
    emit(args, str(uri), {"uri": str(uri), "convention": uri.convention, "is_opaque": uri.is_opaque})
    return EXIT_OK


def cmd_native(args: argparse.Namespace) -> int:
    from . import PathError, PathUri

    try:
        uri = PathUri.parse(args.uri)
        text = uri.to_native(_convention(args))
    except PathError as e:
        raise Failed(f"cannot render as a native path ({e.kind})") from None
    emit(args, text, {"native": text, "convention": _convention(args) or uri.convention})
    return EXIT_OK


# ------------------------------------------------------ file operations


def _get(obj: Any, name: str, default: Any = None) -> Any:
    """Field of a protocol result, whether a dataclass or a TypedDict-style dict."""
    if isinstance(obj, dict):
        return obj.get(name, default)
    return getattr(obj, name, default)


def make_backend(args: argparse.Namespace) -> Any:
    from . import Backend

    return Backend(make_resolver(args))


def _check(result: Any) -> Any:
    error = _get(result, "error")
    if error:
        raise Failed(str(error))
    return result


def _default_dir(args: argparse.Namespace, backend: Any) -> str:
    # Without an operand, the home root (the first configured root).
    return str(args.path) if args.path else f"root:{backend.resolver.roots[0]}"


def cmd_ls(args: argparse.Namespace) -> int:
    backend = make_backend(args)
    result = _check(backend.ls(_default_dir(args, backend)))
    entries = _get(result, "entries") or []
    lines = []
    for e in entries:
        size = _get(e, "size")
        lines.append(f"{_get(e, 'path')}\t{'' if size is None else size}\t{_get(e, 'modified_at') or ''}")
    emit(args, "\n".join(lines), entries)
    return EXIT_OK


def cmd_read(args: argparse.Namespace) -> int:
    backend = make_backend(args)
    result = _check(backend.read(args.file_path, offset=args.offset, limit=args.limit))
    data = _get(result, "file_data") or {}
    emit(args, _get(data, "content") or "", result)
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
    if not args.json:
        return _stream(args, "grep", backend, kwargs)
    result = _check(backend.grep(args.pattern, **kwargs))
    matches = _get(result, "matches") or []
    lines = [f"{_get(m, 'path')}:{_get(m, 'line')}:{_get(m, 'text')}" for m in matches]
    emit(args, "\n".join(lines), result)
    if _get(result, "truncated"):
        sys.stdout.flush()
        print("pathgate: grep: output truncated at max-count", file=sys.stderr)
    return EXIT_OK


def cmd_glob(args: argparse.Namespace) -> int:
    backend = make_backend(args)
    if not args.json:
        return _stream(args, "glob", backend, {"path": args.path})
    result = _check(backend.glob(args.pattern, path=args.path))
    matches = _get(result, "matches") or []
    emit(args, "\n".join(str(_get(m, "path")) for m in matches), result)
    return EXIT_OK


def _stream(args: argparse.Namespace, op: str, backend: Any, kwargs: dict[str, Any]) -> int:
    """Prints grep/glob results as they are found (so `| head` ends the
    search early), with progress on stderr after a second when stderr is
    a terminal."""
    import time

    from . import _core

    owner = backend._owner
    if op == "grep":
        it = _core._fs_grep_iter(owner, args.pattern, kwargs.pop("path"), kwargs.pop("glob"),
                                 kwargs.pop("max_count", None), **kwargs)
    else:
        it = _core._fs_glob_iter(owner, args.pattern, kwargs["path"])
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
    except _core.Error as exc:
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
    return EXIT_OK


def _quiet_stdout() -> None:
    # stdout's reader went away (`| head`): no traceback at exit
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


def cmd_write(args: argparse.Namespace) -> int:
    backend = make_backend(args)
    content = sys.stdin.read()
    result = _check(backend.write(args.file_path, content))
    emit(args, f"wrote {_get(result, 'path')}", result)
    return EXIT_OK


def cmd_edit(args: argparse.Namespace) -> int:
    backend = make_backend(args)
    result = _check(backend.edit(args.file_path, args.old_string, args.new_string,
                                 replace_all=args.replace_all))
    emit(args, f"edited {_get(result, 'path')} ({_get(result, 'occurrences')} replacement(s))", result)
    return EXIT_OK


# ---------------------------------------------------------------- parser


def build_parser() -> argparse.ArgumentParser:
    def options(suppress: bool) -> argparse.ArgumentParser:
        # The same options are accepted before and after the subcommand; after
        # it their defaults are suppressed so they never undo what came before.
        extra: dict[str, Any] = {"default": argparse.SUPPRESS} if suppress else {}
        p = argparse.ArgumentParser(add_help=False)
        p.add_argument("--root", action="append", metavar="KEY=DIR", **extra,
                       help="a root directory (repeatable); default: root:repo is the current directory")
        p.add_argument("--mod", action="append", metavar="NAME=DIR", **extra,
                       help="a mod directory (repeatable)")
        p.add_argument("--config", metavar="FILE", **extra,
                       help="TOML configuration ([roots], [mods], max_tokens); default: ./pathgate.toml if present")
        p.add_argument("--max-tokens", type=int, metavar="N", **extra, help="registry capacity")
        p.add_argument("--json", action="store_true", **extra, help="machine-readable output")
        return p

    common = options(suppress=True)
    parser = argparse.ArgumentParser(
        prog="pathgate", parents=[options(suppress=False)],
        description="Resolve canonical addresses, convert paths and URIs, and run contained file operations.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    def add(name: str, func: Any, help_text: str) -> argparse.ArgumentParser:
        p = sub.add_parser(name, parents=[common], help=help_text, description=help_text)
        p.set_defaults(func=func)
        return p

    p = add("resolve", cmd_resolve, "resolve addresses, URIs or paths to canonical addresses")
    p.add_argument("address", nargs="+")
    p.add_argument("--no-require-exists", action="store_true", help="accept a missing target")
    p.add_argument("--base", help="canonical address that relative input is relative to (default: the first root)")
    p.add_argument("--host-path", action="store_true", help="also print the host path (local use only)")

    for name, func, what in (("uri", cmd_uri, "convert a native path to a file: URI"),
                             ("native", cmd_native, "render a file: URI as a native path")):
        p = add(name, func, what)
        p.add_argument("uri" if name == "native" else "path")
        p.add_argument("--convention", choices=("posix", "windows"), help="default: inferred")

    p = add("ls", cmd_ls, "list a directory")
    p.add_argument("path", nargs="?")
    p = add("read", cmd_read, "read a window of lines of a file")
    p.add_argument("file_path")
    p.add_argument("--offset", type=int, default=0)
    p.add_argument("--limit", type=int, default=2000)
    p = add("grep", cmd_grep, "search for a literal string (or, with --regex, a PCRE2 regex)")
    p.add_argument("pattern")
    p.add_argument("path", nargs="?")
    p.add_argument("--glob", help="only files whose names match this glob")
    p.add_argument("--max-count", type=int, help="stop after this many matches in total")
    p.add_argument("-e", "--regex", action="store_true",
                   help="the pattern is a PCRE2 regular expression")
    p.add_argument("-i", "--ignore-case", action="store_true", help="match case-insensitively")
    p = add("glob", cmd_glob, "list regular files matching a glob pattern")
    p.add_argument("pattern")
    p.add_argument("path", nargs="?")
    p = add("write", cmd_write, "write standard input to a file (created or replaced atomically)")
    p.add_argument("file_path")
    p = add("edit", cmd_edit, "replace an exact string in a file")
    p.add_argument("file_path")
    p.add_argument("old_string")
    p.add_argument("new_string")
    p.add_argument("--replace-all", action="store_true")
    return parser


def main(argv: _abc.Sequence[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:  # argparse: 0 for --help, 2 for usage errors
        return int(e.code or 0)
    try:
        return int(args.func(args))
    except UsageError as e:
        print(f"pathgate: {e}", file=sys.stderr)
        return EXIT_USAGE
    except Failed as e:
        print(f"pathgate: {args.command}: {e}", file=sys.stderr)
        return EXIT_FAILED
    except BrokenPipeError:
        return EXIT_OK


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
