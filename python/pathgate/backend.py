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
from dataclasses import dataclass, field
from typing import IO, Any, Literal, NotRequired, Protocol, TypedDict, TypeVar, Union, cast

from . import _core, handles
from ._core import Error, Resolver, Session, VisibilityRef, VisibilityResolution
from .handles import DirEntry, PathResult, ReadlinkResult, ScandirIterator
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
    "PatchFile",
    "PatchResult",
    "ReadResult",
    "SearchIterator",
    "StatResult",
    "TextEditorResult",
    "TreeResult",
    "WriteResult",
    "convert_file_data",
    "resolved",
    # handles and the toolkit (handles.py)
    "DirEntry",
    "PathResult",
    "ReadlinkResult",
    "ScandirIterator",
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
    """``stat``'s and ``lstat``'s answer: the address, ``type``
    (``"file"``, ``"directory"``, ``"other"``; ``lstat`` of a symlink:
    ``"symlink"``, its size the length of its target), size in bytes,
    permission bits and times (ISO 8601 UTC; ``created_at`` None where the
    file system keeps no birth time)."""

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
    (line breaks kept) as text, bytes that are not UTF-8 replaced by
    U+FFFD; or, asked for ``binary``, as ``data``, the bytes themselves
    (``content`` then None)."""

    error: str | None = None
    content: str | None = None
    kind: str | None = None
    data: bytes | None = None


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


# The edit tools models use (docs/patch.md, docs/editor.md).

PatchFile = TypedDict("PatchFile", {"change": Literal["A", "M", "D"], "path": str, "from": "str | None"})
"""One change of a patch: ``change`` ``"A"`` (added), ``"M"`` (updated)
or ``"D"`` (deleted), ``path`` its canonical address, ``from`` a move's
source (None otherwise)."""


@dataclass
class PatchResult:
    """``apply_patch``'s answer: ``error`` None and ``output``, Codex's
    summary (``Success. Updated the following files:`` and ``A``/``M``/``D``
    lines naming canonical addresses), or ``error`` (Codex's message, paths
    written as addresses) and ``kind``. ``files`` lists the changes; after
    a failure with ``atomic=False``, the ones applied before it."""

    error: str | None = None
    output: str = ""
    files: list[PatchFile] = field(default_factory=list)
    kind: str | None = None


@dataclass
class TextEditorResult:
    """``text_editor``'s answer: the tool's text in ``output``, or its
    error text in ``error`` (with ``kind``, the core's error name)."""

    error: str | None = None
    output: str | None = None
    kind: str | None = None


def _walk_notice(info: Mapping[str, Any]) -> str | None:
    """What a walk left out, in words (None when nothing was)."""
    parts = []
    if info.get("skipped_names"):
        parts.append(f"{info['skipped_names']} entries whose names are not UTF-8, hold a "
                     "backslash or control character, or begin or end with whitespace "
                     "were skipped")
    if info.get("skipped_denied"):
        parts.append(f"{info['skipped_denied']} entries the host's policy hides were left out")
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


# ------------------------------------------------- the core's handles
# handles.py makes the io objects and iterators; the calls into the core
# they stand on are made here, so that backend.py is the one way into the
# core's file operations.


def core_open(owner: Resolver | Session, text: str, flags: int, *,
              writing: bool) -> tuple[_core._Atomic | None, int, str]:
    """(the pending replacement or None, descriptor, canonical address) of
    a file opened beneath its base: a write opens a temp file beside it."""
    if writing:
        return _core._fs_atomic_open(owner, text, flags)
    fd, address = _core._fs_open(owner, text, flags)
    return None, fd, address


def core_exists(owner: Resolver | Session, address: str) -> str | None:
    """The kind of what address leads to (symlinks followed), or None."""
    return _core._fs_exists(owner, address)


def core_stat(owner: Resolver | Session, address: str, *, follow_symlinks: bool) -> dict[str, Any]:
    """The core's stat record (lstat's without following)."""
    return (_core._fs_stat if follow_symlinks else _core._fs_lstat)(owner, address)


def core_scandir(owner: Resolver | Session, text: str) -> _core._Scandir:
    return _core._fs_scandir(owner, text)


def core_walk(owner: Resolver | Session, text: str, *, bottom_up: bool) -> _core._Walk:
    return _core._fs_walk(owner, text, bottom_up)


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


def _stat_result(st: Mapping[str, Any]) -> StatResult:
    """The StatResult of the core's stat record (``stat`` and ``lstat``)."""
    return StatResult(path=st["path"], type=st["type"], size=st["size"], mode=st["mode"],
                      modified_at=st["modified_at"], accessed_at=st["accessed_at"],
                      changed_at=st["changed_at"], created_at=st.get("created_at"))


def _lines_result(data: bytes, binary: bool) -> LinesResult:
    """head's and tail's answer: the bytes, or the text they hold."""
    if binary:
        return LinesResult(data=data)
    return LinesResult(content=data.decode("utf-8", "replace"))


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

    __slots__ = ("_owner", "_glob_metadata", "_editor")

    def __init__(self, resolver_or_session: Resolver | Session, *, glob_metadata: bool = False) -> None:
        """``glob_metadata=True`` adds ``size`` and ``modified_at`` to every
        glob match (one stat per match); by default glob answers paths only,
        as the protocol requires (``ls`` always has both)."""
        if not isinstance(resolver_or_session, (Resolver, Session)):
            raise TypeError("Backend needs a pathgate.Resolver or pathgate.Session")
        self._owner = resolver_or_session
        self._glob_metadata = bool(glob_metadata)
        self._editor = _core._Editor()  # the text editor's undo history

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

    def ls(self, path: PathArg, *, metadata: bool = True, limit: int | None = None) -> LsResult:
        """The entries directly in the directory ``path``, sorted: each a
        FileInfo with ``path`` (a directory's ends in ``/``), ``is_dir``,
        ``size`` and ``modified_at``; ``metadata=False``: ``path`` and
        ``is_dir`` only, from the directory entries without a stat per
        entry. ``limit``: only the first that many entries are converted
        and answered (ask for one more than you show to learn that there
        were more). ``incomplete``/``notice`` say what could not be
        listed. Fails with ``not_found``, ``not_a_directory``,
        ``invalid_path``, ``permission_denied``."""
        try:
            entries, info = _core._fs_ls(self._owner, path_text(path), info=True,
                                         metadata=metadata, limit=limit)
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
        all_bases: bool = False,
    ) -> GrepResult:
        """Lines matching ``pattern`` (literal, or a PCRE2 regular
        expression with ``regex``; ``ignore_case``) in every text file below
        ``path`` (default: the cwd, or the first base; a file: that file),
        files filtered by ``glob``; at most ``max_count`` matches
        (``truncated`` when more existed). ``threads`` (default: every
        core) and ``max_file_size`` (files over it are skipped) tune the
        walk. ``all_bases=True`` searches every root and mod (roots first,
        in configuration order; ``path`` must then be None), e.g. a game and
        its mods together. Fails with ``not_found``, ``invalid_argument`` (a
        bad pattern), ``invalid_path``."""
        try:
            matches, truncated, info = _core._fs_grep(
                self._owner, pattern, _optional_path(path), glob, max_count, regex=regex,
                ignore_case=ignore_case, threads=threads, max_file_size=max_file_size, info=True,
                all_bases=all_bases)
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
        all_bases: bool = False,
    ) -> SearchIterator[GrepMatch]:
        """grep as an iterator (see SearchIterator): matches as they are
        found, in grep's order; leaving the loop early stops the search.
        Errors raise pathgate.Error."""
        it = _core._fs_grep_iter(self._owner, pattern, _optional_path(path), glob, max_count,
                                 regex=regex, ignore_case=ignore_case, threads=threads,
                                 max_file_size=max_file_size, all_bases=all_bases)
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
            return _stat_result(_core._fs_stat(self._owner, path_text(path)))
        except Error as exc:
            return StatResult(error=str(exc), kind=exc.kind)

    def multi_edit(
        self, file_path: PathArg, edits: Iterable[tuple[str, str] | tuple[str, str, bool]], *,
        dry_run: bool = False, lenient: bool = False, max_file_size: int | None = None,
    ) -> EditResult:
        """Applies ``(old, new[, replace_all])`` edits in order, each to the
        result of the one before, all or nothing, with edit's rules; answers
        the address and the unified ``diff`` of the change. ``dry_run``
        computes the diff and changes nothing. Fails as edit does, and with
        ``too_large`` for a file larger than ``max_file_size`` (bytes;
        default 64 MiB). ``lenient`` matches as the reference MCP server's
        ``edit_file`` (docs/fs.md): the first exact occurrence, else the
        first lines equal ignoring whitespace at both ends, re-indented
        (``replace_all`` is not used)."""
        try:
            path, diff = _core._fs_edits(self._owner, path_text(file_path), list(edits), dry_run,
                                         lenient=lenient, max_file_size=max_file_size)
        except Error as exc:
            return EditResult(error=str(exc), kind=exc.kind)
        return EditResult(path=path, diff=diff)

    def head(self, file_path: PathArg, lines: int | None = None, *,
             max_file_size: int | None = None, binary: bool = False) -> LinesResult:
        """The first ``lines`` lines of a regular file (None: all of it),
        as they are in the file, read from the start only as far as
        needed: ``content`` the text, or with ``binary`` ``data`` the bytes.
        ``max_file_size`` (bytes; default 64 MiB) bounds what one call
        reads and holds: an answer that would be larger (the whole of a
        larger file, or a window of more bytes, such as the first line of a
        file without a newline) fails with ``too_large`` after reading at
        most the cap and 64 KiB. Fails with ``not_found``,
        ``is_directory``, ``not_regular_file``, ``invalid_path``; a
        negative ``lines`` raises ValueError."""
        try:
            data = _core._fs_head(self._owner, path_text(file_path), lines,
                                  max_file_size=max_file_size)
        except Error as exc:
            return LinesResult(error=str(exc), kind=exc.kind)
        return _lines_result(data, binary)

    def tail(self, file_path: PathArg, lines: int, *, max_file_size: int | None = None,
             binary: bool = False) -> LinesResult:
        """The last ``lines`` lines of a regular file (read backwards from
        the end), as head."""
        try:
            data = _core._fs_tail(self._owner, path_text(file_path), lines,
                                  max_file_size=max_file_size)
        except Error as exc:
            return LinesResult(error=str(exc), kind=exc.kind)
        return _lines_result(data, binary)

    def tree(self, path: PathArg, exclude: Iterable[str] = (), *,
             limit: int | None = None) -> TreeResult:
        """Every directory and regular file below the directory ``path``,
        depth first (a directory's address ends in ``/`` and comes before
        its entries), leaving out what matches an ``exclude`` glob
        (relative to ``path``); ``limit``: only the first that many entries
        are converted and answered (ask for one more than you show to learn
        that there were more). Fails with ``not_found``,
        ``not_a_directory``, ``invalid_path``."""
        try:
            entries, truncated = _core._fs_tree(self._owner, path_text(path), list(exclude),
                                                limit=limit)
        except Error as exc:
            return TreeResult(error=str(exc), kind=exc.kind)
        return TreeResult(entries=cast("list[FileInfo]", entries), truncated=truncated)

    # ---------------------------------------- handles and the toolkit
    # Go's os.Root, through canonical addresses (docs/fs.md, "Handles and
    # the toolkit"). open() raises OSErrors as builtin open does; scandir
    # and walk raise for a bad start; exists/isdir/isfile answer a bool;
    # the others answer results with error and kind, as above; subroot
    # raises pathgate.Error (it builds a Backend).

    def open(
        self,
        path: PathArg,
        mode: str = "r",
        encoding: str | None = None,
        newline: str | None = None,
        *,
        errors: str | None = None,
        buffering: int = -1,
    ) -> IO[Any]:
        """The file at path as a standard io object (see pathgate.open):
        reading follows symlinks that stay inside the base; writing modes
        write a temp file that replaces the target atomically on close(),
        and an exception in the ``with`` block leaves the old content."""
        return handles.open(self._owner, path, mode, encoding, newline, errors=errors,
                            buffering=buffering)

    def scandir(self, path: PathArg = ".") -> ScandirIterator:
        """The entries of a directory, in name order, as DirEntry objects
        (name, path = address, kind; stat() on demand). Raises OSError
        (FileNotFoundError, NotADirectoryError, ...) for a bad path."""
        return handles.scandir(self._owner, path)

    def walk(self, top: PathArg = ".", topdown: bool = True) -> Iterator[tuple[str, list[str], list[str]]]:  # noqa: FBT001, FBT002 (os.walk's)
        """os.walk over the tree: (address, dirnames, filenames) per
        directory, names sorted; top down, removing names from dirnames
        prunes them. A directory symlink is listed, never entered; links
        leading out, FIFOs and unreadable directories are left out. Raises
        OSError for a bad top."""
        return handles.walk(self._owner, top, topdown)

    def exists(self, path: PathArg) -> bool:
        """Whether path names something reachable (symlinks followed inside
        the base); never raises for a path, invalid or escaping ones are False."""
        return _core._fs_exists(self._owner, path_text(path)) is not None

    def isdir(self, path: PathArg) -> bool:
        """Whether path names a directory (symlinks followed inside the
        base); False for anything else, never raises for a path."""
        return _core._fs_exists(self._owner, path_text(path)) == "directory"

    def isfile(self, path: PathArg) -> bool:
        """Whether path names a regular file (symlinks followed inside the
        base); False for anything else, never raises for a path."""
        return _core._fs_exists(self._owner, path_text(path)) == "file"

    def _path_result(self, fn: Any, *args: Any, **kwargs: Any) -> PathResult:
        try:
            return PathResult(path=fn(self._owner, *args, **kwargs))
        except Error as exc:
            return PathResult(error=str(exc), kind=exc.kind)

    def copy(self, source: PathArg, destination: PathArg, *, replace: bool = False) -> PathResult:
        """Copies a regular file (a reflink where the filesystem can) to a
        new name, atomically; replace=True replaces an existing one."""
        return self._path_result(_core._fs_copy, path_text(source), path_text(destination),
                                 replace=replace)

    def link(self, source: PathArg, destination: PathArg) -> PathResult:
        """A hard link destination -> source (a symlink is linked as itself)."""
        return self._path_result(_core._fs_link, path_text(source), path_text(destination))

    def symlink(self, target: str, path: PathArg) -> PathResult:
        """The symlink path -> target: a relative target that stays inside
        the base (kind invalid_argument otherwise)."""
        return self._path_result(_core._fs_symlink, path_text(target), path_text(path))

    def readlink(self, path: PathArg) -> ReadlinkResult:
        """A symlink's target text, only when it stays inside the base."""
        text = path_text(path)
        try:
            return ReadlinkResult(path=text, target=_core._fs_readlink(self._owner, text))
        except Error as exc:
            return ReadlinkResult(error=str(exc), kind=exc.kind)

    def chmod(self, path: PathArg, mode: int) -> PathResult:
        """Permission bits (0o777 at most: setuid, setgid and sticky refused)."""
        return self._path_result(_core._fs_chmod, path_text(path), mode)

    def utime(
        self, path: PathArg, times: tuple[float, float] | None = None, *,
        ns: tuple[int, int] | None = None,
    ) -> PathResult:
        """os.utime: times (atime, mtime) in seconds, or ns in nanoseconds;
        neither: now."""
        if times is not None and ns is not None:
            raise ValueError("utime: you may specify either 'times' or 'ns' but not both")
        if times is not None:
            ns = (int(times[0] * 1e9), int(times[1] * 1e9))
        a, m = ns if ns is not None else (None, None)
        return self._path_result(_core._fs_utime, path_text(path), a, m)

    def remove_tree(self, path: PathArg) -> PathResult:
        """Removes a file, a symlink (itself) or a directory with everything
        below it, never following a symlink; nothing there is success."""
        return self._path_result(_core._fs_remove_tree, path_text(path))

    def lstat(self, path: PathArg) -> StatResult:
        """``stat`` of the entry itself: a symlink is not followed (its
        ``type`` is ``"symlink"``). A symlink leading out of the base is
        ``invalid_path``, as everywhere."""
        try:
            return _stat_result(_core._fs_lstat(self._owner, path_text(path)))
        except Error as exc:
            return StatResult(error=str(exc), kind=exc.kind)

    def subroot(self, path: PathArg, key: str | None = None) -> Backend:
        """A Backend over a new Resolver whose one root, ``root:<key>``, is
        the directory at path (Go's Root.OpenRoot): nothing above it can be
        reached. key defaults to the directory's name, lower-cased. Raises
        pathgate.Error."""
        return Backend(_core._fs_subroot(self._owner, path_text(path), key))

    # --------------------------------------- the edit tools models use
    # apply_patch (Codex's format, docs/patch.md) and the text editor tool
    # (Anthropic's, docs/editor.md): failures are results, as above.

    _EDITOR_ARGUMENTS = frozenset((
        "file_text", "old_str", "new_str", "insert_line", "view_range", "max_characters", "tool",
        "max_file_size",
    ))

    def apply_patch(self, patch: str, *, atomic: bool = True,
                    max_file_size: int | None = None) -> PatchResult:
        """Applies a patch in Codex's ``*** Begin Patch`` format. Every path is
        resolved (and checked writable) before anything is written; with
        ``atomic`` (the default) every file changes or none does, otherwise
        the hunks apply one by one as Codex applies them. A file to update
        larger than ``max_file_size`` (bytes; default 64 MiB) is
        ``too_large``."""
        kind, error, output, files = _core._fs_apply_patch(self._owner, patch, atomic=atomic,
                                                           max_file_size=max_file_size)
        return PatchResult(error=error, output=output or "", files=cast("list[PatchFile]", files),
                           kind=kind)

    def text_editor(self, command: str, path: PathArg, **arguments: Any) -> TextEditorResult:
        """Runs a command of the text editor tool (``view``, ``create``,
        ``str_replace``, ``insert``, ``undo_edit``) with its arguments
        (``file_text``, ``old_str``, ``new_str``, ``insert_line``,
        ``view_range``, ``max_characters``; ``max_file_size``, the size cap
        of the file read (bytes; default 64 MiB); ``tool``:
        ``"str_replace_based_edit_tool"`` (default) or ``"str_replace_editor"``,
        which has ``undo_edit``). Answers as Anthropic's reference
        implementation does, addresses in place of paths; the undo history
        belongs to this backend."""
        unknown = set(arguments) - self._EDITOR_ARGUMENTS
        if unknown:
            raise TypeError(f"text_editor() got unexpected arguments: {', '.join(sorted(unknown))}")
        view_range = arguments.pop("view_range", None)
        if view_range:  # the reference's own test: a list of two integers
            ok = isinstance(view_range, (list, tuple)) and all(isinstance(v, int) for v in view_range)
            if ok:
                arguments["view_range"] = list(view_range)
            else:
                arguments["view_range_invalid"] = True
        kind, error, output = self._editor.run(self._owner, command, path_text(path), **arguments)
        return TextEditorResult(error=error, output=output, kind=kind)

    async def aapply_patch(self, patch: str, *, atomic: bool = True,
                           max_file_size: int | None = None) -> PatchResult:
        """``apply_patch`` in a worker thread."""
        return await asyncio.to_thread(self.apply_patch, patch, atomic=atomic,
                                       max_file_size=max_file_size)

    async def atext_editor(self, command: str, path: PathArg, **arguments: Any) -> TextEditorResult:
        """``text_editor`` in a worker thread."""
        return await asyncio.to_thread(self.text_editor, command, path, **arguments)
