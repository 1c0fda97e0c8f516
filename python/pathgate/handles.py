"""File handles and directory iterators over pathgate's contained operations.

``pathgate.open(owner, path, mode)`` (and ``Backend.open``) returns the
standard :mod:`io` objects (``io.TextIOWrapper``, ``io.BufferedReader``,
``io.FileIO``, ...) over a descriptor the C core opened beneath the base, so
any library that takes a file object takes one of these. A file opened for
writing (``w``, ``a``, ``x``, ``+``) is a temp file beside its target that
takes the target's name atomically on ``close()``: until then, and if the
``with`` block raises, or the handle is collected without ``close()``, the
old content stays. Failures raise the ``OSError`` builtin ``open`` raises
(``FileNotFoundError``, ``PermissionError``, ...) with pathgate's message
(canonical addresses only) and ``.kind``, pathgate's error name.

``scandir`` and ``walk`` (through ``Backend``) are lazy iterators: entries
with ``name``, ``path`` (the canonical address), ``kind`` and ``stat()`` on
demand; ``(address, dirnames, filenames)`` per directory, pruned by editing
``dirnames`` as with ``os.walk``.
"""

from __future__ import annotations

import errno
import io
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING, Any

from . import _core
from ._core import Error, Resolver, Session

if TYPE_CHECKING:  # backend.py imports this module
    from .backend import Backend, PathArg

__all__ = ["DirEntry", "PathResult", "ReadlinkResult", "ScandirIterator", "open"]


@dataclass
class PathResult:
    """The answer of copy, link, symlink, chmod, utime and remove_tree."""

    error: str | None = None
    path: str | None = None
    kind: str | None = None


@dataclass
class ReadlinkResult:
    """readlink's answer: the link's address as given and its target text."""

    error: str | None = None
    path: str | None = None
    target: str | None = None
    kind: str | None = None


def _text(path: PathArg) -> str:
    """backend.path_text, a failed resolution raised as the OSError open
    raises for an invalid path."""
    from .backend import path_text  # imported late: backend.py imports this module

    try:
        return path_text(path)
    except Error as exc:
        raise os_error(exc, None) from None


def _owner(owner: Resolver | Session | Backend) -> Resolver | Session:
    owner = getattr(owner, "_owner", owner)  # a Backend stands for its resolver or session
    if not isinstance(owner, (Resolver, Session)):
        raise TypeError("open() needs a pathgate.Resolver, Session or Backend")
    return owner


# pathgate's error names -> the OSError builtin open raises for them
_OS_ERRORS: dict[str, tuple[int, type[OSError]]] = {
    "not_found": (errno.ENOENT, FileNotFoundError),
    "invalid_path": (errno.ENOENT, FileNotFoundError),
    "is_directory": (errno.EISDIR, IsADirectoryError),
    "not_a_directory": (errno.ENOTDIR, NotADirectoryError),
    "permission_denied": (errno.EACCES, PermissionError),
    "policy_denied": (errno.EACCES, PermissionError),  # the host's policy (docs/policy.md)
    "already_exists": (errno.EEXIST, FileExistsError),
    "not_regular_file": (errno.EINVAL, OSError),
}


def os_error(exc: Error, path: object) -> OSError:
    """The OSError of a pathgate failure: its errno class, pathgate's own
    message (no host path), the caller's text as filename, and .kind."""
    code, cls = _OS_ERRORS.get(exc.kind or "", (errno.EIO, OSError))
    err = cls(code, str(exc), path if isinstance(path, str) else None)
    err.kind = exc.kind  # type: ignore[attr-defined]
    return err


def _parse_mode(mode: str) -> tuple[int, str, bool]:
    """(core open flags, FileIO mode, binary) of an open() mode, checked as
    builtin open checks it."""
    if not isinstance(mode, str):
        raise TypeError(f"open() argument 'mode' must be str, not {type(mode).__name__}")
    chars = set(mode)
    if (len(chars) != len(mode) or not chars <= set("rwaxbt+")
            or sum(c in chars for c in "rwax") != 1 or {"b", "t"} <= chars):
        raise ValueError(f"invalid mode: {mode!r}")
    plus = "+" in chars
    kind = next(c for c in mode if c in "rwax")
    flags = {
        "r": _core._OPEN_READ,
        "w": _core._OPEN_WRITE | _core._OPEN_CREATE | _core._OPEN_TRUNCATE,
        "a": _core._OPEN_WRITE | _core._OPEN_APPEND | _core._OPEN_CREATE,
        "x": _core._OPEN_WRITE | _core._OPEN_CREATE | _core._OPEN_EXCL,
    }[kind]
    if plus:
        flags |= _core._OPEN_READ | _core._OPEN_WRITE
    return flags, kind + ("+" if plus else ""), "b" in chars


class _AtomicFileIO(io.FileIO):
    """The temp file of a write handle: close() commits it (fsync, then the
    rename over the target); a discarded one is removed instead."""

    def __init__(self, fd: int, mode: str, atomic: _core._Atomic | None, address: str) -> None:
        super().__init__(fd, mode, closefd=True)
        self._atomic: _core._Atomic | None = atomic
        self._discard = False
        self.name = address

    def close(self) -> None:
        if self.closed:
            return
        atomic, self._atomic = self._atomic, None
        try:
            if atomic is not None and atomic.pending:
                if self._discard:
                    atomic.abort()
                else:
                    try:
                        atomic.commit(self.fileno())
                    except Error as exc:
                        raise os_error(exc, self.name) from None
        finally:
            super().close()

    def __del__(self) -> None:
        if not getattr(self, "closed", True):
            self._discard = True
            self.close()


def _raw_of(f: Any) -> Any:
    while not isinstance(f, io.FileIO):
        f = f.buffer if isinstance(f, io.TextIOWrapper) else f.raw
    return f


class _Atomic:
    """What the write handles add to their io class: an exception leaving a
    ``with`` block, a failed flush, or a handle collected unclosed discards
    the new content instead of committing it."""

    def _discard(self) -> None:
        _raw_of(self)._discard = True

    def close(self) -> None:
        if self.closed:  # type: ignore[attr-defined]
            return
        try:
            self.flush()  # type: ignore[attr-defined]
        except BaseException:
            self._discard()
            try:
                super().close()  # type: ignore[misc]
            except Exception:
                pass
            raise
        super().close()  # type: ignore[misc]

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        if exc_type is not None:
            self._discard()
        self.close()

    def __del__(self) -> None:
        try:
            closed = self.closed  # type: ignore[attr-defined]
        except Exception:
            return
        if not closed:
            name = getattr(_raw_of(self), "name", "?")
            warnings.warn(f"pathgate file {name!r} was never closed: its new content was "
                          "discarded", ResourceWarning, stacklevel=2)
            self._discard()
            try:
                self.close()
            except Exception:
                pass


# typeshed spells io's classes as both io.IOBase and typing.IO, whose
# method signatures differ; mypy compares the two only in a class with
# several bases, as these are (hence the ignores).


class _AtomicTextIOWrapper(_Atomic, io.TextIOWrapper):  # type: ignore[misc]
    pass


class _AtomicBufferedWriter(_Atomic, io.BufferedWriter):  # type: ignore[misc]
    pass


class _AtomicBufferedRandom(_Atomic, io.BufferedRandom):  # type: ignore[misc]
    pass


def open(  # noqa: A001 - the file API's own name
    owner: Resolver | Session | Backend,
    path: PathArg,
    mode: str = "r",
    encoding: str | None = None,
    newline: str | None = None,
    *,
    errors: str | None = None,
    buffering: int = -1,
) -> IO[Any]:
    """Opens path (any text the resolver accepts, an ``os.PathLike``, a
    ``VisibilityRef`` or a ``VisibilityResolution``) beneath its base, as builtin ``open`` does; owner is
    a Resolver, Session or Backend. Text mode defaults to UTF-8. Writing
    modes write a temp file that replaces the target atomically on
    ``close()`` (``a`` and ``+`` modes start from a copy of the old
    content); an exception in the ``with`` block leaves the old content."""
    flags, raw_mode, binary = _parse_mode(mode)
    if binary and (encoding is not None or errors is not None or newline is not None):
        raise ValueError("binary mode doesn't take an encoding, errors or newline argument")
    if not isinstance(buffering, int):
        raise TypeError("buffering must be an int")
    if buffering == 0 and not binary:
        raise ValueError("can't have unbuffered text I/O")
    who = _owner(owner)
    text = _text(path)
    writing = raw_mode != "r"
    from .backend import core_open  # imported late: backend.py imports this module

    try:
        atomic, fd, address = core_open(who, text, flags, writing=writing)
    except Error as exc:
        raise os_error(exc, text) from None
    line_buffering = buffering == 1 and not binary
    size = io.DEFAULT_BUFFER_SIZE if buffering in (-1, 1) else buffering
    if not writing:
        raw = io.FileIO(fd, "r", closefd=True)
        raw.name = address
        if buffering == 0:
            return raw
        buffered = io.BufferedReader(raw, size)
        if binary:
            return buffered
        text_io = io.TextIOWrapper(buffered, encoding or "utf-8", errors, newline,
                                   line_buffering=line_buffering)
        text_io.mode = mode  # type: ignore[misc]
        return text_io
    araw = _AtomicFileIO(fd, raw_mode, atomic, address)
    if buffering == 0:
        return araw
    if binary:
        return (_AtomicBufferedRandom(araw, size) if "+" in raw_mode
                else _AtomicBufferedWriter(araw, size))
    wbuf = io.BufferedRandom(araw, size) if "+" in raw_mode else io.BufferedWriter(araw, size)
    out = _AtomicTextIOWrapper(wbuf, encoding or "utf-8", errors, newline,
                               line_buffering=line_buffering)
    out.mode = mode  # type: ignore[misc]
    return out


# ------------------------------------------------------------- scandir


class DirEntry:
    """One entry of ``Backend.scandir``: ``name``, ``path`` (its canonical
    address; also what ``os.fspath`` gives, so the entry can be passed to
    any pathgate call) and ``kind`` (``"file"``, ``"directory"``,
    ``"symlink"``, ``"other"``: the entry itself). ``stat()`` and ``size``
    ask the filesystem on demand."""

    __slots__ = ("name", "path", "kind", "_owner", "_stat")

    def __init__(self, owner: Resolver | Session, name: str, path: str, kind: str) -> None:
        self.name = name
        self.path = path
        self.kind = kind
        self._owner = owner
        self._stat: dict[bool, dict[str, Any]] = {}

    @property
    def address(self) -> str:
        return self.path

    def __fspath__(self) -> str:
        return self.path

    def __repr__(self) -> str:
        return f"<pathgate.DirEntry {self.name!r} {self.kind}>"

    def is_symlink(self) -> bool:
        return self.kind == "symlink"

    def _target_kind(self) -> str | None:
        from .backend import core_exists

        return core_exists(self._owner, self.path)

    def is_dir(self, *, follow_symlinks: bool = True) -> bool:
        if self.kind == "symlink" and follow_symlinks:
            return self._target_kind() == "directory"
        return self.kind == "directory"

    def is_file(self, *, follow_symlinks: bool = True) -> bool:
        if self.kind == "symlink" and follow_symlinks:
            return self._target_kind() == "file"
        return self.kind == "file"

    def stat(self, *, follow_symlinks: bool = True) -> dict[str, Any]:
        """The core's stat record as a dict (the fields of StatResult:
        path, type, size, mode, the times), cached; raises pathgate.Error."""
        if follow_symlinks not in self._stat:
            from .backend import core_stat

            self._stat[follow_symlinks] = core_stat(self._owner, self.path,
                                                    follow_symlinks=follow_symlinks)
        return self._stat[follow_symlinks]

    @property
    def size(self) -> int:
        return int(self.stat()["size"])


class ScandirIterator:
    """The iterator of ``Backend.scandir``: entries in name order; usable as
    a context manager (``close()`` closes the directory)."""

    def __init__(self, owner: Resolver | Session, it: _core._Scandir) -> None:
        self._owner = owner
        self._it = it

    def __iter__(self) -> ScandirIterator:
        return self

    def __next__(self) -> DirEntry:
        name, path, kind = next(self._it)
        return DirEntry(self._owner, name, path, kind)

    @property
    def skipped(self) -> int:
        """Names no address can spell (left out)."""
        return int(self._it.skipped)

    @property
    def skipped_denied(self) -> int:
        """Entries the host's policy hides (left out; docs/policy.md)."""
        return int(self._it.skipped_denied)

    def close(self) -> None:
        self._it.close()

    def __enter__(self) -> ScandirIterator:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def scandir(owner: Resolver | Session, path: PathArg) -> ScandirIterator:
    from .backend import core_scandir

    text = _text(path)
    try:
        return ScandirIterator(owner, core_scandir(owner, text))
    except Error as exc:
        raise os_error(exc, text) from None


def _walk_steps(it: _core._Walk) -> Iterator[tuple[str, list[str], list[str]]]:
    try:
        yield from it
    finally:
        it.close()


def walk(owner: Resolver | Session, top: PathArg,
         topdown: bool) -> Iterator[tuple[str, list[str], list[str]]]:
    from .backend import core_walk

    text = _text(top)
    try:
        it = core_walk(owner, text, bottom_up=not topdown)
    except Error as exc:
        raise os_error(exc, text) from None
    return _walk_steps(it)
