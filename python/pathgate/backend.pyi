"""Type stubs for pathgate.backend (checked against the module by mypy.stubtest)."""

import os
from collections.abc import Generator, Iterable, Iterator, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, Literal, NotRequired, TypedDict

from ._core import Resolver, Session, VisibilityRef, VisibilityResolution
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

PathArg = str | os.PathLike[str] | VisibilityRef

FileOperationError = Literal["file_not_found", "permission_denied", "is_directory", "invalid_path"]

class FileInfo(TypedDict):
    path: str
    is_dir: NotRequired[bool]
    size: NotRequired[int]
    modified_at: NotRequired[str]

class GrepMatch(TypedDict):
    path: str
    line: int
    text: str

class FileData(TypedDict):
    content: str
    encoding: str
    created_at: NotRequired[str]
    modified_at: NotRequired[str]

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
    def __post_init__(self) -> None: ...

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

def convert_file_data(data: Mapping[str, Any]) -> FileData: ...
def path_text(path: Any) -> Any: ...
def resolved(
    owner: Resolver | Session, text: PathArg, *, require_exists: bool = True
) -> AbstractContextManager[VisibilityResolution]: ...

class Backend(SandboxMixin):
    def __init__(self, resolver_or_session: Resolver | Session, *, glob_metadata: bool = False) -> None: ...
    @property
    def resolver(self) -> Resolver: ...
    @property
    def session(self) -> Session | None: ...
    def resolved(self, path: PathArg, *, require_exists: bool = True) -> Any: ...
    def ls(self, path: PathArg) -> LsResult: ...
    def read(self, file_path: PathArg, offset: int = 0, limit: int = 2000) -> ReadResult: ...
    def write(self, file_path: PathArg, content: str | bytes | Mapping[str, Any]) -> WriteResult: ...
    def edit(
        self, file_path: PathArg, old_string: str, new_string: str, replace_all: bool = False
    ) -> EditResult: ...
    def delete(self, file_path: PathArg) -> DeleteResult: ...
    def grep(
        self,
        pattern: str,
        path: PathArg | None = None,
        glob: str | None = None,
        *,
        max_count: int | None = None,
        regex: bool = False,
        ignore_case: bool = False,
    ) -> GrepResult: ...
    def glob(self, pattern: str, path: PathArg | None = None) -> GlobResult: ...
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
    ) -> Generator[GrepMatch, None, dict[str, Any] | None]: ...
    def glob_iter(
        self, pattern: str, path: PathArg | None = None
    ) -> Generator[FileInfo, None, dict[str, Any] | None]: ...
    def upload_files(self, files: Iterable[tuple[PathArg, bytes]]) -> list[FileUploadResponse]: ...
    def download_files(self, paths: Iterable[PathArg]) -> list[FileDownloadResponse]: ...
    async def als(self, path: PathArg) -> LsResult: ...
    async def aread(self, file_path: PathArg, offset: int = 0, limit: int = 2000) -> ReadResult: ...
    async def awrite(self, file_path: PathArg, content: str | bytes | Mapping[str, Any]) -> WriteResult: ...
    async def aedit(
        self, file_path: PathArg, old_string: str, new_string: str, replace_all: bool = False
    ) -> EditResult: ...
    async def adelete(self, file_path: PathArg) -> DeleteResult: ...
    async def agrep(
        self,
        pattern: str,
        path: PathArg | None = None,
        glob: str | None = None,
        *,
        max_count: int | None = None,
        regex: bool = False,
        ignore_case: bool = False,
    ) -> GrepResult: ...
    async def aglob(self, pattern: str, path: PathArg | None = None) -> GlobResult: ...
    async def aupload_files(self, files: Iterable[tuple[PathArg, bytes]]) -> list[FileUploadResponse]: ...
    async def adownload_files(self, paths: Iterable[PathArg]) -> list[FileDownloadResponse]: ...
    def mkdir(self, path: str, *, parents: bool = True) -> str: ...
    def move(self, source: str, destination: str) -> str: ...
    def stat(self, path: str) -> dict[str, Any]: ...
    def multi_edit(
        self, file_path: str, edits: Iterable[tuple[str, str] | tuple[str, str, bool]], *,
        dry_run: bool = False, max_file_size: int | None = None,
    ) -> tuple[str, str]: ...
    def head(self, file_path: str, lines: int | None = None) -> str: ...
    def tail(self, file_path: str, lines: int) -> str: ...
    def tree(
        self, path: str, exclude: Iterable[str] = (), *, limit: int | None = None
    ) -> tuple[list[FileInfo], bool]: ...
    def head_bytes(self, file_path: PathArg, lines: int | None = None, *,
                   max_file_size: int | None = None) -> bytes: ...
    def tail_bytes(self, file_path: PathArg, lines: int | None = None, *,
                   max_file_size: int | None = None) -> bytes: ...
    def listdir(self, path: PathArg, *, metadata: bool = False, limit: int | None = None) -> list[FileInfo]: ...
