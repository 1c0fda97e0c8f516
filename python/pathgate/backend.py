"""The deepagents backend protocol over pathgate's contained file operations.

``Backend(resolver_or_session)`` offers the method names, parameter names and
result types of deepagents' ``BackendProtocol`` (``ls``, ``read``, ``write``,
``edit``, ``delete``, ``grep``, ``glob``, ``upload_files``,
``download_files`` and their ``a``-prefixed async twins), and pathgate's
further operations (``mkdir``, ``move``, ``stat``, ``multi_edit``, ``head``,
``tail``, ``tree``). Every operation runs in the C core, which touches the
filesystem only beneath the base directory's fd (the GIL is released
meanwhile); results name canonical addresses, never host paths.

Paths are anything the resolver accepts: canonical addresses
(``root:repo/x``), legacy aliases, ``file://`` URIs, host paths inside a
base, and relative text: relative to a ``Session``'s working directory, or,
for a ``Resolver``, to its first base (the first root, or the first mod),
where a new session starts. Each path parameter takes a ``str``, an
``os.PathLike[str]``, a ``VisibilityRef`` or a ``VisibilityResolution``
(``pathgate.resolved``'s; a failed one is an ``invalid_path`` result).

One error style: every operation answers a result; a failed result carries
``error`` (the text shown to an agent) and ``kind`` (the core's error name,
for programs). Only misuse raises (a wrong argument type, a negative line
count), and the iterators (``grep_iter``, ``glob_iter``) raise
``pathgate.Error``. ``FileInfo``, ``GrepMatch`` and ``FileData`` are
``TypedDict``s, as in deepagents: the values are plain dicts. The operation
table with every rule is docs/fs.md; docs/python.md says what each method
returns.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import contextlib
import os
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Literal, NotRequired, Protocol, TypedDict, TypeVar, Union, cast

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
    "LinesResult",
    "LsResult",
    "MkdirResult",
    "MoveResult",
    "ReadResult",
    "SearchIterator",
    "StatResult",
    "TreeResult",
    "WriteResult",
    "convert_file_data",
    "resolved",
]

FileOperationError = Literal["file_not_found", "permission_denied", "is_directory", "invalid_path"]


class FileInfo(TypedDict):
    """One entry of ``ls``, ``glob`` or ``tree``: its address (a directory's
    ends in ``/``), and, where asked for, is_dir, size and modified_at."""

    path: str
    is_dir: NotRequired[bool]
    size: NotRequired[int]
    modified_at: NotRequired[str]


class GrepMatch(TypedDict):
    """One matching line of ``grep``: path, line (1-based), text."""

    path: str
    line: int
    text: str


class FileData(TypedDict):
    """File content (UTF-8 text or base64) with its encoding and timestamps."""

    content: str
    encoding: str
    created_at: NotRequired[str]
    modified_at: NotRequired[str]


# ------------------------------------------------------------- results
# deepagents' result classes (same fields, same checks), each with `kind`.


@dataclass
class ReadResult:
    """``read``'s answer. ``file_data["content"]`` is the window's lines
    joined with ``"\\n"``, without the last line's line break
    (``final_newline`` says whether it had one); or, for a file that is not
    UTF-8 text, the whole file as base64 (``not_text`` says why, ``notice``
    in words); or the empty-file reminder (no window)."""

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
    # the window's last line ended with a line break (left out of content)
    final_newline: bool = False
    # "nul_byte" or "invalid_utf8" when content is the whole file as base64
    not_text: str | None = None

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
    """``write``'s answer: the address written."""

    error: str | None = None
    path: str | None = None
    kind: str | None = None


@dataclass
class EditResult:
    """``edit``'s and ``multi_edit``'s answer: the address, the number of
    replacements (``edit``), the unified diff (``multi_edit``)."""

    error: str | None = None
    path: str | None = None
    occurrences: int | None = None
    kind: str | None = None
    diff: str | None = None


@dataclass
class DeleteResult:
    """``delete``'s answer: the address deleted."""

    error: str | None = None
    path: str | None = None
    kind: str | None = None


@dataclass
class LsResult:
    """``ls``'s answer: the directory's entries."""

    error: str | None = None
    entries: list[FileInfo] | None = None
    kind: str | None = None
    # the answer is not the whole tree: what was left out, in words
    incomplete: bool = False
    notice: str | None = None


@dataclass
class GrepResult:
    """``grep``'s answer: the matches, in path then line order."""

    error: str | None = None
    matches: list[GrepMatch] | None = None
    truncated: bool = False
    kind: str | None = None
    # the answer is not the whole tree: what was left out, in words
    incomplete: bool = False
    notice: str | None = None


@dataclass
class GlobResult:
    """``glob``'s answer: the matching files, sorted."""

    error: str | None = None
    matches: list[FileInfo] | None = None
    truncated: bool = False
    kind: str | None = None
    # the answer is not the whole tree: what was left out, in words
    incomplete: bool = False
    notice: str | None = None


@dataclass
class FileUploadResponse:
    """One item of ``upload_files``: the path given, and a deepagents
    error code or None."""

    path: str
    error: FileOperationError | str | None = None


@dataclass
class FileDownloadResponse:
    """One item of ``download_files``: the path given, the bytes, or a
    deepagents error code."""

    path: str
    content: bytes | None = None
    error: FileOperationError | str | None = None


# pathgate's further operations answer in the same style.


@dataclass
class MkdirResult:
    """``mkdir``'s answer: the directory's address."""

    error: str | None = None
    path: str | None = None
    kind: str | None = None


@dataclass
class MoveResult:
    """``move``'s answer: the destination's address."""

    error: str | None = None
    path: str | None = None
    kind: str | None = None


@dataclass
class StatResult:
    """``stat``'s answer: the address, ``type`` (``"file"``,
    ``"directory"``, ``"other"``), size in bytes, permission bits and
    times (ISO 8601 UTC; ``created_at`` None where the file system keeps
    no birth time)."""

    error: str | None = None
    path: str | None = None
    type: str | None = None
    size: int | None = None
    mode: int | None = None
    modified_at: str | None = None
    accessed_at: str | None = None
    changed_at: str | None = None
    created_at: str | None = None
    kind: str | None = None


@dataclass
class LinesResult:
    """``head``'s and ``tail``'s answer: the lines as they are in the file
    (line breaks kept), bytes that are not UTF-8 replaced by U+FFFD."""

    error: str | None = None
    content: str | None = None
    kind: str | None = None


@dataclass
class TreeResult:
    """``tree``'s answer: every directory and file below the directory,
    depth first (directories end in ``/``); ``truncated`` when it stopped
    at the entry cap."""

    error: str | None = None
    entries: list[FileInfo] | None = None
    truncated: bool = False
    kind: str | None = None


_T_co = TypeVar("_T_co", covariant=True)


class SearchIterator(Protocol[_T_co]):
    """What ``grep_iter`` and ``glob_iter`` return: an iterator over results
    as they are found (the search runs ahead on a thread of its own, a few
    batches at most). ``close()`` stops the search (so does dropping the
    iterator); ``summary()`` is the answer's flags and counts (truncated,
    incomplete, unreadable_dirs, ...) once the iterator is exhausted;
    ``files_scanned()`` counts the files grep has searched so far. A
    failure raises ``pathgate.Error``."""

    def __iter__(self) -> SearchIterator[_T_co]: ...
    def __next__(self) -> _T_co: ...
    def close(self) -> None: ...
    def summary(self) -> dict[str, Any] | None: ...
    def files_scanned(self) -> int: ...


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
    return out  # type: ignore[return-value]  # built key by key above


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


PathArg = Union[str, "os.PathLike[str]", VisibilityRef, VisibilityResolution]


def _refused(res: VisibilityResolution) -> Error:
    """The error of a failed resolution given as a path."""
    exc = Error(res.error_message or _core.INVALID_PATH_MESSAGE)
    exc.kind = "capacity" if res.reason == "capacity" else "invalid_path"
    return exc


def path_text(path: PathArg) -> str:
    """The text of a path argument: a ``VisibilityRef`` stands for its
    address, a ``VisibilityResolution`` for its ref's (a failed one raises
    ``pathgate.Error`` of kind ``invalid_path``), an ``os.PathLike`` for
    ``os.fspath`` of it (which must be ``str``). Anything else is a
    ``TypeError``."""
    if isinstance(path, str):
        return path
    if isinstance(path, VisibilityRef):
        return path.session_abs
    if isinstance(path, VisibilityResolution):
        if not path.ok or path.ref is None:
            raise _refused(path)
        return path.ref.session_abs
    if isinstance(path, os.PathLike):
        text = os.fspath(path)
        if isinstance(text, str):
            return text
    raise TypeError("a path must be str, os.PathLike[str], VisibilityRef or VisibilityResolution, "
                    f"not {type(path).__name__}")


def _optional_path(path: PathArg | None) -> str | None:
    return None if path is None else path_text(path)


def _first_base(resolver: Resolver) -> str:
    """The address relative text is relative to without a session."""
    return f"root:{resolver.roots[0]}" if resolver.roots else f"mod:{resolver.mods[0]}"


@contextlib.contextmanager
def resolved(
    owner: Resolver | Session | Backend, text: PathArg, *, require_exists: bool = True
) -> Iterator[VisibilityResolution]:
    """Resolves ``text`` and releases the ref when the block ends.

    ``owner`` is a Resolver, a Session or a Backend (its resolver or
    session). Relative text is relative to the session's cwd, or to a
    resolver's first base, as in the file operations. Every successful
    ``resolve`` holds a token in the resolver's registry (capped at
    ``max_tokens``) until ``release``; this is the form that cannot forget
    to release. The resolution is itself a path argument of every Backend
    operation::

        with pathgate.resolved(session, "docs/a.md") as res:
            if res.ok:
                backend.read(res)
        # res.ref is released here (and no longer resolves)
    """
    if isinstance(owner, Backend):
        owner = owner._owner
    if not isinstance(owner, (Resolver, Session)):
        raise TypeError("resolved() needs a pathgate.Resolver, Session or Backend")
    given = path_text(text)
    if isinstance(owner, Resolver):
        res = owner.resolve(given, require_exists=require_exists, base=_first_base(owner))
    else:
        res = owner.resolve(given, require_exists=require_exists)
    try:
        yield res
    finally:
        if res.ok and res.ref is not None:
            resolver = owner if isinstance(owner, Resolver) else owner.resolver
            resolver.release(res.ref)


def _text_lines(data: bytes) -> str:
    return data.decode("utf-8", "replace")


class Backend(SandboxMixin):
    """deepagents' BackendProtocol, and pathgate's further operations, over a
    pathgate Resolver or Session.

    Path arguments are a ``str``, an ``os.PathLike[str]``, a
    ``VisibilityRef`` or a ``VisibilityResolution``; relative text is
    relative to the session's cwd, or to a resolver's first base. Every
    operation answers a result: a failed one carries ``error`` (the
    agent-visible text, never a host path) and ``kind``, the core's error
    name (``not_found``, ``invalid_path``, ``is_directory``,
    ``not_a_directory``, ``permission_denied``, ``edit_failed``,
    ``out_of_range``, ``already_exists``, ...), so that a program can tell
    failures apart without parsing text. Only misuse raises (``TypeError``,
    ``ValueError``), and the iterators raise ``pathgate.Error``.

    One Backend (and its Session) per agent or thread: a Session's cwd and
    stack are shared state (docs/python.md, "Threads")."""

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
        """The resolver (a session's own, for a Session)."""
        owner = self._owner
        return owner if isinstance(owner, Resolver) else owner.resolver

    @property
    def session(self) -> Session | None:
        """The session, or None for a Backend over a Resolver."""
        owner = self._owner
        return owner if isinstance(owner, Session) else None

    def __repr__(self) -> str:
        return f"Backend({self._owner!r})"

    def resolved(
        self, path: PathArg, *, require_exists: bool = True
    ) -> contextlib.AbstractContextManager[VisibilityResolution]:
        """``pathgate.resolved`` on this backend's session or resolver: a
        context manager giving the resolution and releasing its ref."""
        return resolved(self._owner, path, require_exists=require_exists)

    # ------------------------------------------------------------ sync

    def ls(self, path: PathArg) -> LsResult:
        """The entries directly in the directory ``path``, sorted: each a
        FileInfo with ``path`` (a directory's ends in ``/``), ``is_dir``,
        ``size`` and ``modified_at``. ``incomplete``/``notice`` say what
        could not be listed. Fails with ``not_found``, ``not_a_directory``,
        ``invalid_path``, ``permission_denied``."""
        try:
            entries, info = _core._fs_ls(self._owner, path_text(path), info=True)
        except Error as exc:
            return LsResult(error=str(exc), kind=exc.kind)
        return LsResult(entries=entries, incomplete=info["incomplete"], notice=_walk_notice(info))

    def read(self, file_path: PathArg, offset: int = 0, limit: int = 2000) -> ReadResult:
        """``limit`` lines of a text file from line ``offset`` (0-based; a
        negative offset reads from 0; ``limit <= 0`` reads nothing:
        ``no_lines_requested``). The content is the lines joined with
        ``"\\n"`` (CRLF read as one line break) without the last line's
        line break (``final_newline`` tells); ``start_line``/``end_line``
        are 1-based, ``next_offset`` is set while lines remain. A file that
        is not UTF-8 or holds a NUL byte comes back whole as base64
        (``not_text``); an empty one as the empty-file reminder. Fails with
        ``not_found``, ``is_directory``, ``not_regular_file``,
        ``out_of_range`` (offset at or past the end), ``too_large``,
        ``invalid_path``."""
        try:
            r = _core._fs_read(self._owner, path_text(file_path), offset, limit)
        except Error as exc:
            return ReadResult(error=str(exc), kind=exc.kind)
        if r["no_lines_requested"]:
            return ReadResult(file_data={"content": "", "encoding": "utf-8"}, no_lines_requested=True)
        data: FileData = {"content": r["content"], "encoding": r["encoding"],
                          "modified_at": r["modified_at"]}
        return ReadResult(
            file_data=data,
            total_lines=r["total_lines"],
            start_line=r["start_line"],
            end_line=r["end_line"],
            next_offset=r["next_offset"],
            notice=_read_notice(r),
            final_newline=r["final_newline"],
            not_text=r["not_text"],
        )

    def write(self, file_path: PathArg, content: str | bytes | Mapping[str, Any]) -> WriteResult:
        """Creates or replaces the file (atomically), creating missing
        parent directories; ``content`` is str (written as UTF-8), bytes,
        or a deepagents FileData mapping. Answers the address. Fails with
        ``permission_denied`` (a read-only base), ``is_directory``,
        ``not_a_directory``, ``invalid_content`` (FileData whose base64 does
        not decode), ``invalid_path``."""
        try:
            return WriteResult(path=_core._fs_write(self._owner, path_text(file_path),
                                                    _content_bytes(content)))
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
        """Replaces ``old_string`` (exact text; it must occur once unless
        ``replace_all``) by ``new_string`` and answers the address and the
        number of replacements. In a file whose first line ends in CRLF a
        ``"\\n"`` of either string is read as CRLF, so the file keeps its
        line endings. The file is replaced atomically, and never over a
        change someone made while the edit ran (the edit starts over on the
        new content; docs/fs.md). Fails with ``edit_failed`` (not found,
        empty ``old_string``), ``edit_ambiguous`` (more than one occurrence
        without ``replace_all``: "String '<old>' appears N times in file."),
        ``not_found``,
        ``permission_denied``, ``timeout`` (the file kept changing),
        ``invalid_path``."""
        try:
            path, count = _core._fs_edit(self._owner, path_text(file_path), old_string, new_string,
                                         replace_all)
        except Error as exc:
            return EditResult(error=str(exc), kind=exc.kind)
        return EditResult(path=path, occurrences=count)

    def delete(self, file_path: PathArg) -> DeleteResult:
        """Deletes a file, a symlink (the link itself) or a directory with
        everything in it; answers the address. Fails with ``not_found``,
        ``permission_denied`` (a base itself, or read-only),
        ``invalid_path``."""
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
        threads: int | None = None,
        max_file_size: int | None = None,
    ) -> GrepResult:
        """Lines matching ``pattern`` (literal, or a PCRE2 regular
        expression with ``regex``; ``ignore_case``) in every text file below
        ``path`` (default: the cwd, or the first base; a file: that file),
        files filtered by ``glob``; at most ``max_count`` matches
        (``truncated`` when more existed). ``threads`` (default: every
        core) and ``max_file_size`` (files over it are skipped) tune the
        walk. Fails with ``not_found``, ``invalid_argument`` (a bad
        pattern), ``invalid_path``."""
        try:
            matches, truncated, info = _core._fs_grep(
                self._owner, pattern, _optional_path(path), glob, max_count, regex=regex,
                ignore_case=ignore_case, threads=threads, max_file_size=max_file_size, info=True)
        except Error as exc:
            return GrepResult(error=str(exc), kind=exc.kind)
        return GrepResult(matches=matches, truncated=truncated, incomplete=info["incomplete"],
                          notice=_walk_notice(info))

    def glob(self, pattern: str, path: PathArg | None = None, *, basename: bool = False) -> GlobResult:
        """Regular files below ``path`` (default as for grep) matching
        ``pattern`` (``*``, ``?``, ``[abc]``, ``{a,b}``, ``**``; a pattern
        without ``/`` matches at any depth), sorted. ``basename=True``
        applies deepagents' rules instead (a pattern without ``/`` matches
        names under dot-directories too, ``**`` never enters one, a leading
        ``/`` anchors). Fails with ``not_found``, ``not_a_directory``,
        ``invalid_path``."""
        try:
            matches, info = _core._fs_glob(self._owner, pattern, _optional_path(path),
                                           metadata=self._glob_metadata, info=True,
                                           basename=basename)
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
        threads: int | None = None,
        max_file_size: int | None = None,
    ) -> SearchIterator[GrepMatch]:
        """grep as an iterator (see SearchIterator): matches as they are
        found, in grep's order; leaving the loop early stops the search.
        Errors raise pathgate.Error."""
        it = _core._fs_grep_iter(self._owner, pattern, _optional_path(path), glob, max_count,
                                 regex=regex, ignore_case=ignore_case, threads=threads,
                                 max_file_size=max_file_size)
        return cast("SearchIterator[GrepMatch]", it)

    def glob_iter(self, pattern: str, path: PathArg | None = None) -> SearchIterator[FileInfo]:
        """glob as an iterator (see grep_iter)."""
        it = _core._fs_glob_iter(self._owner, pattern, _optional_path(path),
                                 metadata=self._glob_metadata)
        return cast("SearchIterator[FileInfo]", it)

    def upload_files(self, files: Iterable[tuple[PathArg, bytes]]) -> list[FileUploadResponse]:
        """Writes each ``(path, content)`` as ``write`` does; one response
        per item, in order, with deepagents' error codes
        (``file_not_found``, ``permission_denied``, ``is_directory``,
        ``invalid_path``; ``invalid_content`` for FileData that does not
        decode)."""
        items = list(files)
        prepared: list[tuple[str, str | bytes]] = []
        shown: list[str] = []
        bad: dict[int, str] = {}
        for i, (path, content) in enumerate(items):
            try:
                text = path_text(path)
            except Error:  # a failed resolution
                bad[i], text = "invalid_path", str(path)
            shown.append(text)
            try:
                data = _content_bytes(content)
            except ValueError:
                bad.setdefault(i, "invalid_content")
                data = b""
            prepared.append((text, data))
        # items whose path or content could not be read are not written at all
        answers = iter(_core._fs_upload(self._owner, [p for i, p in enumerate(prepared) if i not in bad]))
        return [
            FileUploadResponse(path=shown[i], error=bad[i] if i in bad else next(answers))
            for i in range(len(items))
        ]

    def download_files(self, paths: Iterable[PathArg]) -> list[FileDownloadResponse]:
        """The whole content of each file, as bytes; one response per path,
        in order, with deepagents' error codes (see upload_files)."""
        shown: list[str] = []
        bad: set[int] = set()
        for i, p in enumerate(paths):
            try:
                shown.append(path_text(p))
            except Error:
                bad.add(i)
                shown.append(str(p))
        answers = iter(_core._fs_download(self._owner, [p for i, p in enumerate(shown) if i not in bad]))
        out = []
        for i, path in enumerate(shown):
            if i in bad:
                out.append(FileDownloadResponse(path=path, error="invalid_path"))
            else:
                content, error = next(answers)
                out.append(FileDownloadResponse(path=path, content=content, error=error))
        return out

    # ----------------------------------------------------------- async

    async def als(self, path: PathArg) -> LsResult:
        """``ls`` in a worker thread."""
        return await asyncio.to_thread(self.ls, path)

    async def aread(self, file_path: PathArg, offset: int = 0, limit: int = 2000) -> ReadResult:
        """``read`` in a worker thread."""
        return await asyncio.to_thread(self.read, file_path, offset, limit)

    async def awrite(self, file_path: PathArg, content: str | bytes | Mapping[str, Any]) -> WriteResult:
        """``write`` in a worker thread."""
        return await asyncio.to_thread(self.write, file_path, content)

    async def aedit(
        self,
        file_path: PathArg,
        old_string: str,
        new_string: str,
        replace_all: bool = False,  # noqa: FBT001, FBT002
    ) -> EditResult:
        """``edit`` in a worker thread."""
        return await asyncio.to_thread(self.edit, file_path, old_string, new_string, replace_all)

    async def adelete(self, file_path: PathArg) -> DeleteResult:
        """``delete`` in a worker thread."""
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
        """``grep`` in a worker thread."""
        return await asyncio.to_thread(self.grep, pattern, path, glob, max_count=max_count,
                                       regex=regex, ignore_case=ignore_case)

    async def aglob(self, pattern: str, path: PathArg | None = None) -> GlobResult:
        """``glob`` in a worker thread."""
        return await asyncio.to_thread(self.glob, pattern, path)

    async def aupload_files(self, files: Iterable[tuple[PathArg, bytes]]) -> list[FileUploadResponse]:
        """``upload_files`` in a worker thread."""
        return await asyncio.to_thread(self.upload_files, list(files))

    async def adownload_files(self, paths: Iterable[PathArg]) -> list[FileDownloadResponse]:
        """``download_files`` in a worker thread."""
        return await asyncio.to_thread(self.download_files, list(paths))

    # ------------------------------------- beyond deepagents' protocol
    # pathgate's further operations (the MCP server's, docs/mcp.md), in the
    # same error style: a result with error and kind.

    def mkdir(self, path: PathArg, *, parents: bool = True) -> MkdirResult:
        """Creates the directory (with ``parents``, missing ancestors too,
        and an existing directory is success); answers its address. Fails
        with ``already_exists`` (without ``parents``), ``not_found`` (a
        missing parent), ``not_a_directory``, ``permission_denied``,
        ``invalid_path``."""
        try:
            return MkdirResult(path=_core._fs_mkdir(self._owner, path_text(path), parents))
        except Error as exc:
            return MkdirResult(error=str(exc), kind=exc.kind)

    def move(self, source: PathArg, destination: PathArg) -> MoveResult:
        """Moves a file, directory or symlink, within a base or across
        bases, never over an existing entry; answers the destination's
        address. Fails with ``already_exists``, ``not_found``,
        ``permission_denied`` (a base itself, or read-only),
        ``invalid_argument`` (a directory into itself), ``invalid_path``."""
        try:
            return MoveResult(path=_core._fs_move(self._owner, path_text(source),
                                                  path_text(destination)))
        except Error as exc:
            return MoveResult(error=str(exc), kind=exc.kind)

    def stat(self, path: PathArg) -> StatResult:
        """What ``path`` names (a symlink inside the base followed): its
        address, type, size, permission bits and times. Fails with
        ``not_found``, ``invalid_path``."""
        try:
            st = _core._fs_stat(self._owner, path_text(path))
        except Error as exc:
            return StatResult(error=str(exc), kind=exc.kind)
        return StatResult(path=st["path"], type=st["type"], size=st["size"], mode=st["mode"],
                          modified_at=st["modified_at"], accessed_at=st["accessed_at"],
                          changed_at=st["changed_at"], created_at=st.get("created_at"))

    def multi_edit(
        self, file_path: PathArg, edits: Iterable[tuple[str, str] | tuple[str, str, bool]], *,
        dry_run: bool = False,
    ) -> EditResult:
        """Applies ``(old, new[, replace_all])`` edits in order, each to the
        result of the one before, all or nothing, with edit's rules; answers
        the address and the unified ``diff`` of the change. ``dry_run``
        computes the diff and changes nothing. Fails as edit does."""
        try:
            path, diff = _core._fs_edits(self._owner, path_text(file_path), list(edits), dry_run)
        except Error as exc:
            return EditResult(error=str(exc), kind=exc.kind)
        return EditResult(path=path, diff=diff)

    def head(self, file_path: PathArg, lines: int | None = None) -> LinesResult:
        """The first ``lines`` lines of a regular file (None: all of it),
        as they are in the file. Fails with ``not_found``,
        ``is_directory``, ``not_regular_file``, ``invalid_path``; a
        negative ``lines`` raises ValueError."""
        try:
            return LinesResult(content=_text_lines(_core._fs_head(self._owner, path_text(file_path),
                                                                  lines)))
        except Error as exc:
            return LinesResult(error=str(exc), kind=exc.kind)

    def tail(self, file_path: PathArg, lines: int) -> LinesResult:
        """The last ``lines`` lines of a regular file (read backwards from
        the end), as head."""
        try:
            return LinesResult(content=_text_lines(_core._fs_tail(self._owner, path_text(file_path),
                                                                  lines)))
        except Error as exc:
            return LinesResult(error=str(exc), kind=exc.kind)

    def tree(self, path: PathArg, exclude: Iterable[str] = ()) -> TreeResult:
        """Every directory and regular file below the directory ``path``,
        depth first (a directory's address ends in ``/`` and comes before
        its entries), leaving out what matches an ``exclude`` glob
        (relative to ``path``). Fails with ``not_found``,
        ``not_a_directory``, ``invalid_path``."""
        try:
            entries, truncated = _core._fs_tree(self._owner, path_text(path), list(exclude))
        except Error as exc:
            return TreeResult(error=str(exc), kind=exc.kind)
        return TreeResult(entries=cast("list[FileInfo]", entries), truncated=truncated)
