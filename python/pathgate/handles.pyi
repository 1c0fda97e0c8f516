"""Type stubs for pathgate.handles (checked against the module by mypy.stubtest)."""

from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO, Any

from ._core import Error, Resolver, Session

__all__ = ["DirEntry", "PathResult", "ReadlinkResult", "ScandirIterator", "StatResult", "open"]

@dataclass
class PathResult:
    error: str | None = None
    path: str | None = None
    kind: str | None = None

@dataclass
class ReadlinkResult:
    error: str | None = None
    path: str | None = None
    target: str | None = None
    kind: str | None = None

@dataclass
class StatResult:
    error: str | None = None
    path: str | None = None
    info: dict[str, Any] | None = None
    kind: str | None = None

def os_error(exc: Error, path: Any) -> OSError: ...
def open(
    owner: Any,
    path: Any,
    mode: str = "r",
    encoding: str | None = None,
    newline: str | None = None,
    *,
    errors: str | None = None,
    buffering: int = -1,
) -> IO[Any]: ...

class DirEntry:
    name: str
    path: str
    kind: str
    def __init__(self, owner: Resolver | Session, name: str, path: str, kind: str) -> None: ...
    @property
    def address(self) -> str: ...
    def __fspath__(self) -> str: ...
    def is_symlink(self) -> bool: ...
    def is_dir(self, *, follow_symlinks: bool = True) -> bool: ...
    def is_file(self, *, follow_symlinks: bool = True) -> bool: ...
    def stat(self, *, follow_symlinks: bool = True) -> dict[str, Any]: ...
    @property
    def size(self) -> int: ...

class ScandirIterator:
    def __init__(self, owner: Resolver | Session, it: Any) -> None: ...
    def __iter__(self) -> ScandirIterator: ...
    def __next__(self) -> DirEntry: ...
    @property
    def skipped(self) -> int: ...
    def close(self) -> None: ...
    def __enter__(self) -> ScandirIterator: ...
    def __exit__(self, *exc: Any) -> None: ...

def scandir(owner: Resolver | Session, path: Any) -> ScandirIterator: ...
def walk(owner: Resolver | Session, top: Any, topdown: bool) -> Iterator[tuple[str, list[str], list[str]]]: ...
