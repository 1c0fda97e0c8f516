"""The deepagents backend protocol over pathgate's contained file operations.

``Backend(resolver_or_session)`` offers the method names, parameter names and
result types of deepagents' ``BackendProtocol`` (``ls``, ``read``, ``write``,
``edit``, ``delete``, ``grep``, ``glob``, ``upload_files``,
``download_files`` and their ``a``-prefixed async twins). Paths are anything
the resolver accepts: canonical addresses (``root:repo/x``), legacy aliases,
``file://`` URIs, host paths inside a base, and, for a ``Session``, text
relative to its working directory. Every operation runs in the C core, which
touches the filesystem only beneath the base directory's fd (the GIL is
released meanwhile); results name canonical addresses, never host paths.

As in deepagents, failures are results carrying an ``error`` string, not
exceptions; only misuse (a wrong argument type) raises. ``FileInfo``,
``GrepMatch`` and ``FileData`` are ``TypedDict``s for type checkers, as in
deepagents, and the values are plain dicts.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import os
from collections.abc import Generator, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Literal, Union

from . import _core
from ._core import Error, Resolver, Session, VisibilityRef, VisibilityResolution
from .sandbox import SandboxMixin

__all__ = [
    "Backend",
    "DeleteResult",
    "EditResult",
    "FileData",
    "FileDownloadResponse",
    "FileInfo",
    "FileOperationError",
    "FileUploadResponse",
    "GlobResult",
    "GrepMatch",
    "GrepResult",
    "LsResult",
    "ReadResult",
    "WriteResult",
    "convert_file_data",
    "resolved",
]

# Spelled as a Union of Literals (the same type as deepagents' Literal[...])
# so that mypy 1.0's stubtest accepts it against the stub.
FileOperationError = Union[
    Literal["file_not_found"], Literal["permission_denied"], Literal["is_directory"],
    Literal["invalid_path"],
]

# FileInfo, GrepMatch and FileData are TypedDicts for type checkers (see
# backend.pyi), as in deepagents. At runtime they are plain dict subclasses:
# results are ordinary dicts either way, and mypy 1.0's stubtest cannot
# check a runtime TypedDict against its stub.


class FileInfo(dict):  # type: ignore[type-arg]
    """One entry of ``ls`` or ``glob``: path, is_dir, size, modified_at."""

    __annotations__ = {"path": str, "is_dir": bool, "size": int, "modified_at": str}


class GrepMatch(dict):  # type: ignore[type-arg]
    """One matching line of ``grep``: path, line (1-based), text."""

    __annotations__ = {"path": str, "line": int, "text": str}


class FileData(dict):  # type: ignore[type-arg]
    """File content (UTF-8 text or base64) with its encoding and timestamps."""

    __annotations__ = {"content": str, "encoding": str, "created_at": str, "modified_at": str}


@dataclass
class ReadResult:
    error: str | None = None
    file_data: FileData | None = None
    total_lines: int | None = None
    start_line: int | None = None
    end_line: int | None = None
    next_offset: int | None = None
    no_lines_requested: bool = False
    kind: str | None = None
    # why content is base64 and the window was not applied, or that only
    # part of a file over the size cap was read
    notice: str | None = None

    def __post_init__(self) -> None:
        # the window consistency rules of deepagents' ReadResult
        if (self.start_line is None) != (self.end_line is None):
            raise ValueError("ReadResult.start_line and end_line must be set together")
        if self.no_lines_requested and (
            self.error is not None or self.start_line is not None or self.total_lines is not None
        ):
            raise ValueError("ReadResult.no_lines_requested cannot carry an error or a window")
        if (self.next_offset is not None or self.total_lines is not None) and self.start_line is None:
            raise ValueError("ReadResult.next_offset and total_lines need start_line and end_line")
        if self.start_line is not None and self.end_line is not None:
            if self.start_line < 1 or self.end_line < self.start_line:
                raise ValueError("ReadResult window must satisfy 1 <= start_line <= end_line")
            if self.total_lines is not None and self.total_lines < self.end_line:
                raise ValueError("ReadResult.total_lines cannot be less than end_line")
            if self.next_offset is not None and self.next_offset != self.end_line:
                raise ValueError("ReadResult.next_offset must equal end_line")


@dataclass
class WriteResult:
    error: str | None = None
    path: str | None = None
    kind: str | None = None


@dataclass
class EditResult:
    error: str | None = None
    path: str | None = None
    occurrences: int | None = None
    kind: str | None = None


@dataclass
class DeleteResult:
    error: str | None = None
    path: str | None = None
    kind: str | None = None


@dataclass
class LsResult:
    error: str | None = None
    entries: list[FileInfo] | None = None
    kind: str | None = None
    # the answer is not the whole tree: what was left out, in words
    incomplete: bool = False
    notice: str | None = None


@dataclass
class GrepResult:
    error: str | None = None
    matches: list[GrepMatch] | None = None
    truncated: bool = False
    kind: str | None = None
    # the answer is not the whole tree: what was left out, in words
    incomplete: bool = False
    notice: str | None = None


@dataclass
class GlobResult:
    error: str | None = None
    matches: list[FileInfo] | None = None
    truncated: bool = False
    kind: str | None = None
    # the answer is not the whole tree: what was left out, in words
    incomplete: bool = False
    notice: str | None = None


@dataclass
class FileUploadResponse:
    path: str
    error: FileOperationError | str | None = None


@dataclass
class FileDownloadResponse:
    path: str
    content: bytes | None = None
    error: FileOperationError | str | None = None


def _walk_notice(info: Mapping[str, Any]) -> str | None:
    """What a walk left out, in words (None when nothing was)."""
    parts = []
    if info.get("skipped_names"):
        parts.append(f"{info['skipped_names']} entries whose names are not UTF-8, hold a "
                     "backslash or control character, or begin or end with whitespace "
                     "were skipped")
    if info.get("unreadable_dirs"):
        parts.append(f"{info['unreadable_dirs']} directories could not be read")
    if info.get("unreadable_files"):
        parts.append(f"{info['unreadable_files']} files could not be read")
    if info.get("skipped_large"):
        parts.append(f"{info['skipped_large']} files over the size cap were not searched")
    if info.get("depth_limited"):
        parts.append("directories deeper than 256 levels were not entered")
    return "; ".join(parts) if parts else None


def _read_notice(r: Mapping[str, Any]) -> str | None:
    if r.get("not_text"):
        why = "holds a NUL byte" if r["not_text"] == "nul_byte" else "is not valid UTF-8"
        return f"The file {why}: its whole content is returned as base64 and offset/limit " \
               "were not applied"
    if r.get("partial"):
        return "The file is larger than the size cap: only the lines up to the end of the " \
               "window were read, so total_lines counts only those"
    return None


def convert_file_data(data: Mapping[str, Any]) -> FileData:
    """Returns the current (``v2``) form of a FileData mapping.

    ``v1`` (legacy): ``content`` is a list of lines (joined with ``"\\n"``)
    and there is no ``encoding`` (``"utf-8"``). ``v2``: ``content`` is a str
    with an ``encoding`` of ``"utf-8"`` or ``"base64"``. Timestamps are kept.
    """
    if not isinstance(data, Mapping) or "content" not in data:
        raise TypeError("FileData must be a mapping with a 'content' key")
    content = data["content"]
    if isinstance(content, list):
        if not all(isinstance(line, str) for line in content):
            raise TypeError("v1 FileData content must be a list of str")
        out: dict[str, Any] = {"content": "\n".join(content), "encoding": "utf-8"}
    elif isinstance(content, str):
        encoding = data.get("encoding", "utf-8")
        if encoding not in ("utf-8", "base64"):
            raise ValueError(f"unknown FileData encoding {encoding!r}")
        out = {"content": content, "encoding": encoding}
    else:
        raise TypeError("FileData content must be str or list of str")
    for key in ("created_at", "modified_at"):
        if key in data:
            out[key] = data[key]
    return out  # type: ignore[return-value]


def _content_bytes(content: str | bytes | Mapping[str, Any]) -> str | bytes:
    """What write/upload hand to the core: str (UTF-8) or bytes."""
    if isinstance(content, (str, bytes, bytearray, memoryview)):
        return content if not isinstance(content, (bytearray, memoryview)) else bytes(content)
    data = convert_file_data(content)
    if data["encoding"] == "base64":
        try:
            return base64.b64decode(data["content"], validate=True)
        except binascii.Error as exc:
            raise ValueError(f"FileData content is not valid base64: {exc}") from None
    return data["content"]


PathArg = Union[str, "os.PathLike[str]", VisibilityRef]


def path_text(path: Any) -> Any:
    """The text of a path argument: a ``VisibilityRef`` stands for its
    address, an ``os.PathLike`` for ``os.fspath`` of it (which must be str);
    anything else is passed on unchanged (the core refuses non-str)."""
    if isinstance(path, VisibilityRef):
        return path.session_abs
    if isinstance(path, os.PathLike):
        text = os.fspath(path)
        if not isinstance(text, str):
            raise TypeError("a path must be str, os.PathLike[str] or VisibilityRef, not bytes")
        return text
    return path


def _optional_path(path: Any) -> Any:
    return None if path is None else path_text(path)


@contextmanager
def resolved(
    owner: Resolver | Session, text: PathArg, *, require_exists: bool = True
) -> Iterator[VisibilityResolution]:
    """Resolves ``text`` and releases the ref when the block ends.

    Every successful ``resolve`` holds a token in the resolver's registry
    (capped at ``max_tokens``) until ``release``; this is the form that
    cannot forget to release::

        with pathgate.resolved(session, "docs/a.md") as res:
            if res.ok:
                print(res.ref, res.relative_path)
        # res.ref is released here (and no longer resolves)
    """
    if not isinstance(owner, (Resolver, Session)):
        raise TypeError("resolved() needs a pathgate.Resolver or pathgate.Session")
    res = owner.resolve(path_text(text), require_exists=require_exists)
    try:
        yield res
    finally:
        if res.ok and res.ref is not None:
            resolver = owner if isinstance(owner, Resolver) else owner.resolver
            resolver.release(res.ref)


class Backend(SandboxMixin):
    """deepagents' BackendProtocol over a pathgate Resolver or Session.

    Path arguments are ``str``, ``os.PathLike[str]`` or a ``VisibilityRef``
    (its address). A failed result carries ``error`` (the deepagents-style
    text) and ``kind``, the core's error name (``not_found``,
    ``invalid_path``, ``is_directory``, ``not_a_directory``,
    ``permission_denied``, ``edit_failed``, ``out_of_range``, ...), so that
    a program can tell failures apart without parsing text."""

    __slots__ = ("_owner", "_glob_metadata")

    def __init__(self, resolver_or_session: Resolver | Session, *, glob_metadata: bool = False) -> None:
        """``glob_metadata=True`` adds ``size`` and ``modified_at`` to every
        glob match (one stat per match); by default glob answers paths only,
        as the protocol requires (``ls`` always has both)."""
        if not isinstance(resolver_or_session, (Resolver, Session)):
            raise TypeError("Backend needs a pathgate.Resolver or pathgate.Session")
        self._owner = resolver_or_session
        self._glob_metadata = bool(glob_metadata)

    @property
    def resolver(self) -> Resolver:
        owner = self._owner
        return owner if isinstance(owner, Resolver) else owner.resolver

    @property
    def session(self) -> Session | None:
        owner = self._owner
        return owner if isinstance(owner, Session) else None

    def __repr__(self) -> str:
        return f"Backend({self._owner!r})"

    def resolved(self, path: PathArg, *, require_exists: bool = True) -> Any:
        """``pathgate.resolved`` on this backend's session or resolver: a
        context manager giving the resolution and releasing its ref."""
        return resolved(self._owner, path, require_exists=require_exists)

    # ------------------------------------------------------------ sync

    def ls(self, path: PathArg) -> LsResult:
        try:
            entries, info = _core._fs_ls(self._owner, path_text(path), info=True)
            return LsResult(entries=entries, incomplete=info["incomplete"],
                            notice=_walk_notice(info))
        except Error as exc:
            return LsResult(error=str(exc), kind=exc.kind)

    def read(self, file_path: PathArg, offset: int = 0, limit: int = 2000) -> ReadResult:
        try:
            r = _core._fs_read(self._owner, path_text(file_path), offset, limit)
        except Error as exc:
            return ReadResult(error=str(exc), kind=exc.kind)
        if r["no_lines_requested"]:
            return ReadResult(file_data={"content": "", "encoding": "utf-8"}, no_lines_requested=True)  # type: ignore[typeddict-item]
        data = {"content": r["content"], "encoding": r["encoding"], "modified_at": r["modified_at"]}
        return ReadResult(
            file_data=data,  # type: ignore[arg-type]
            total_lines=r["total_lines"],
            start_line=r["start_line"],
            end_line=r["end_line"],
            next_offset=r["next_offset"],
            notice=_read_notice(r),
        )

    def write(self, file_path: PathArg, content: str | bytes | Mapping[str, Any]) -> WriteResult:
        try:
            return WriteResult(path=_core._fs_write(self._owner, path_text(file_path), _content_bytes(content)))
        except Error as exc:
            return WriteResult(error=str(exc), kind=exc.kind)
        except ValueError as exc:
            return WriteResult(error=str(exc), kind="invalid_content")

    def edit(
        self,
        file_path: PathArg,
        old_string: str,
        new_string: str,
        replace_all: bool = False,  # noqa: FBT001, FBT002 (the protocol's signature)
    ) -> EditResult:
        try:
            path, count = _core._fs_edit(self._owner, path_text(file_path), old_string, new_string, replace_all)
        except Error as exc:
            return EditResult(error=str(exc), kind=exc.kind)
        return EditResult(path=path, occurrences=count)

    def delete(self, file_path: PathArg) -> DeleteResult:
        try:
            return DeleteResult(path=_core._fs_delete(self._owner, path_text(file_path)))
        except Error as exc:
            return DeleteResult(error=str(exc), kind=exc.kind)

    def grep(
        self,
        pattern: str,
        path: PathArg | None = None,
        glob: str | None = None,
        *,
        max_count: int | None = None,
        regex: bool = False,
        ignore_case: bool = False,
    ) -> GrepResult:
        try:
            matches, truncated, info = _core._fs_grep(
                self._owner, pattern, _optional_path(path), glob, max_count, regex=regex,
                ignore_case=ignore_case, info=True)
        except Error as exc:
            return GrepResult(error=str(exc), kind=exc.kind)
        return GrepResult(matches=matches, truncated=truncated, incomplete=info["incomplete"],
                          notice=_walk_notice(info))

    def glob(self, pattern: str, path: PathArg | None = None) -> GlobResult:
        try:
            matches, info = _core._fs_glob(self._owner, pattern, _optional_path(path),
                                           metadata=self._glob_metadata, info=True)
        except Error as exc:
            return GlobResult(error=str(exc), kind=exc.kind)
        return GlobResult(matches=matches, incomplete=info["incomplete"],
                          notice=_walk_notice(info))

    def grep_iter(
        self,
        pattern: str,
        path: PathArg | None = None,
        glob: str | None = None,
        *,
        max_count: int | None = None,
        regex: bool = False,
        ignore_case: bool = False,
        max_file_size: int | None = None,
    ) -> Generator[GrepMatch, None, dict[str, Any] | None]:
        """grep as a generator: matches as they are found, in grep's order;
        leaving the loop early stops the search. Errors raise pathgate.Error.
        max_file_size (bytes): files larger are skipped (default 1 GiB).
        Its return value (StopIteration.value) is the walk's summary:
        truncated, incomplete and the counts of what was left out."""
        it = _core._fs_grep_iter(self._owner, pattern, _optional_path(path), glob, max_count, regex=regex,
                                 ignore_case=ignore_case, max_file_size=max_file_size)
        try:
            yield from it
            return it.summary()
        finally:
            it.close()

    def glob_iter(self, pattern: str, path: PathArg | None = None) -> Generator[FileInfo, None, dict[str, Any] | None]:
        """glob as a generator (see grep_iter)."""
        it = _core._fs_glob_iter(self._owner, pattern, _optional_path(path), metadata=self._glob_metadata)
        try:
            yield from it
            return it.summary()
        finally:
            it.close()

    def upload_files(self, files: Iterable[tuple[PathArg, bytes]]) -> list[FileUploadResponse]:
        items = [(path_text(path), content) for path, content in files]
        prepared: list[tuple[str, str | bytes]] = []
        bad: dict[int, str] = {}
        for i, item in enumerate(items):
            path, content = item
            try:
                prepared.append((path, _content_bytes(content)))
            except ValueError:
                bad[i] = "invalid_content"
                prepared.append((path, b""))
        # items whose content could not be read are not written at all
        answers = _core._fs_upload(self._owner, [p for i, p in enumerate(prepared) if i not in bad])
        it = iter(answers)
        return [
            FileUploadResponse(path=path, error=bad[i] if i in bad else next(it))
            for i, (path, _) in enumerate(items)
        ]

    def download_files(self, paths: Iterable[PathArg]) -> list[FileDownloadResponse]:
        paths = [path_text(p) for p in paths]
        answers = _core._fs_download(self._owner, paths)
        return [
            FileDownloadResponse(path=path, content=content, error=error)
            for path, (content, error) in zip(paths, answers)
        ]

    # ----------------------------------------------------------- async

    async def als(self, path: PathArg) -> LsResult:
        return await asyncio.to_thread(self.ls, path)

    async def aread(self, file_path: PathArg, offset: int = 0, limit: int = 2000) -> ReadResult:
        return await asyncio.to_thread(self.read, file_path, offset, limit)

    async def awrite(self, file_path: PathArg, content: str | bytes | Mapping[str, Any]) -> WriteResult:
        return await asyncio.to_thread(self.write, file_path, content)

    async def aedit(
        self,
        file_path: PathArg,
        old_string: str,
        new_string: str,
        replace_all: bool = False,  # noqa: FBT001, FBT002
    ) -> EditResult:
        return await asyncio.to_thread(self.edit, file_path, old_string, new_string, replace_all)

    async def adelete(self, file_path: PathArg) -> DeleteResult:
        return await asyncio.to_thread(self.delete, file_path)

    async def agrep(
        self,
        pattern: str,
        path: PathArg | None = None,
        glob: str | None = None,
        *,
        max_count: int | None = None,
        regex: bool = False,
        ignore_case: bool = False,
    ) -> GrepResult:
        return await asyncio.to_thread(self.grep, pattern, path, glob, max_count=max_count,
                                       regex=regex, ignore_case=ignore_case)

    async def aglob(self, pattern: str, path: PathArg | None = None) -> GlobResult:
        return await asyncio.to_thread(self.glob, pattern, path)

    async def aupload_files(self, files: Iterable[tuple[PathArg, bytes]]) -> list[FileUploadResponse]:
        return await asyncio.to_thread(self.upload_files, list(files))

    async def adownload_files(self, paths: Iterable[PathArg]) -> list[FileDownloadResponse]:
        return await asyncio.to_thread(self.download_files, list(paths))

    # ------------------------------------------- MCP server operations
    # Not part of deepagents' protocol: these raise pathgate.Error (its
    # message is the agent-visible one) instead of answering a result.

    def mkdir(self, path: str, *, parents: bool = True) -> str:
        """Creates a directory (and missing parents); answers its address."""
        return _core._fs_mkdir(self._owner, path, parents)  # type: ignore[no-any-return]

    def move(self, source: str, destination: str) -> str:
        """Moves a file or directory (never over an existing entry)."""
        return _core._fs_move(self._owner, source, destination)  # type: ignore[no-any-return]

    def stat(self, path: str) -> dict[str, Any]:
        """path, type ("file", "directory", "other"), size, mode and times."""
        return _core._fs_stat(self._owner, path)  # type: ignore[no-any-return]

    def multi_edit(
        self, file_path: str, edits: Iterable[tuple[str, str] | tuple[str, str, bool]], *,
        dry_run: bool = False, max_file_size: int | None = None,
    ) -> tuple[str, str]:
        """Applies (old, new[, replace_all]) edits in order, all or nothing;
        answers (address, unified diff). dry_run changes nothing. A file
        larger than max_file_size (bytes; default 64 MiB) is refused."""
        return _core._fs_edits(self._owner, file_path, list(edits), dry_run,  # type: ignore[no-any-return]
                               max_file_size=max_file_size)

    def head(self, file_path: str, lines: int | None = None) -> str:
        """The first lines of a text file (None: all), bad UTF-8 replaced."""
        data: bytes = _core._fs_head(self._owner, file_path, lines)
        return data.decode("utf-8", "replace")

    def tail(self, file_path: str, lines: int) -> str:
        """The last lines of a text file, bad UTF-8 replaced."""
        data: bytes = _core._fs_tail(self._owner, file_path, lines)
        return data.decode("utf-8", "replace")

    def tree(self, path: str, exclude: Iterable[str] = (), *,
             limit: int | None = None) -> tuple[list[FileInfo], bool]:
        """Every directory and file below path, depth first (directories end
        in '/'), without entries matching an exclude glob; and truncated.
        limit: only the first that many entries are returned."""
        return _core._fs_tree(self._owner, path, list(exclude), limit=limit)  # type: ignore[no-any-return]

    # ------------------------------------- bounded reads, names-only listing
    # For long-running servers (pathgate mcp). Like the MCP server
    # operations above, these raise pathgate.Error. max_file_size (bytes;
    # None: the core's default, 64 MiB) bounds what one call reads and
    # holds: an answer that would be larger (the whole of a larger file, or
    # a window of more bytes) raises with kind "too_large" and the size
    # cap's message, after reading at most the cap plus 64 KiB.

    def head_bytes(self, file_path: PathArg, lines: int | None = None, *,
                   max_file_size: int | None = None) -> bytes:
        """The first `lines` lines of a regular file (None: all of it), bytes
        as they are (terminators kept), reading only as far as needed."""
        return _core._fs_head(self._owner, path_text(file_path), lines,  # type: ignore[no-any-return]
                              max_file_size=max_file_size)

    def tail_bytes(self, file_path: PathArg, lines: int | None = None, *,
                   max_file_size: int | None = None) -> bytes:
        """The last `lines` lines of a regular file (None: all of it), read
        backwards from the end."""
        return _core._fs_tail(self._owner, path_text(file_path), lines,  # type: ignore[no-any-return]
                              max_file_size=max_file_size)

    def listdir(self, path: PathArg, *, metadata: bool = False, limit: int | None = None) -> list[FileInfo]:
        """The direct children of a directory, sorted: ``path`` (a
        directory's ends in '/') and ``is_dir``, from the directory entries
        without a stat per entry (``ls`` without its metadata), or with
        ``size`` and ``modified_at`` when metadata is true. limit: only the
        first that many entries are returned."""
        return _core._fs_ls(self._owner, path_text(path), metadata=metadata,  # type: ignore[no-any-return]
                            limit=limit)
