"""Type stubs for pathgate.deepagents (deepagents' types are not required
to type-check pathgate: its bases and result classes are Any here)."""

from collections.abc import Iterable, Mapping
from typing import Any

from ._core import Resolver, Session
from .backend import Backend, PatchResult, PathArg

__all__ = [
    "DeleteResult",
    "EditResult",
    "GlobResult",
    "GrepResult",
    "LsResult",
    "PathgateBackend",
    "ReadResult",
    "WriteResult",
]

_DeepagentsBase = Any

class ReadResult(_DeepagentsBase):
    kind: str | None

class WriteResult(_DeepagentsBase):
    kind: str | None

class EditResult(_DeepagentsBase):
    kind: str | None

class DeleteResult(_DeepagentsBase):
    kind: str | None

class LsResult(_DeepagentsBase):
    kind: str | None

class GrepResult(_DeepagentsBase):
    kind: str | None

class GlobResult(_DeepagentsBase):
    kind: str | None

class PathgateBackend(_DeepagentsBase):
    def __init__(
        self,
        resolver_or_session: Resolver | Session,
        *,
        home: str | None = None,
        glob_timeout: float = 5.0,
        max_file_size_mb: int = 10,
        **execute_options: Any,
    ) -> None: ...
    @property
    def backend(self) -> Backend: ...
    @property
    def home(self) -> str: ...
    @property
    def id(self) -> str: ...
    def configure_execute(self, **options: Any) -> None: ...
    def to_pathgate(self, path: PathArg) -> str: ...
    def to_agent(self, address: str, home: str | None = None) -> str: ...
    def ls(self, path: PathArg) -> LsResult: ...
    def read(self, file_path: PathArg, offset: int = 0, limit: int = 2000) -> ReadResult: ...
    def write(self, file_path: PathArg, content: str | bytes | Mapping[str, Any]) -> WriteResult: ...
    def edit(self, file_path: PathArg, old_string: str, new_string: str, replace_all: bool = False) -> EditResult: ...
    def delete(self, file_path: PathArg) -> DeleteResult: ...
    def grep(
        self,
        pattern: str,
        path: PathArg | None = None,
        glob: str | None = None,
        *,
        max_count: int | None = None,
        context_lines: int = 0,
    ) -> GrepResult: ...
    def glob(self, pattern: str, path: PathArg | None = None) -> GlobResult: ...
    def upload_files(self, files: Iterable[tuple[PathArg, bytes]]) -> list[Any]: ...
    def download_files(self, paths: Iterable[PathArg]) -> list[Any]: ...
    def execute(self, command: str, *, timeout: int | None = None) -> Any: ...
    def apply_patch(self, patch: str, *, atomic: bool = True) -> PatchResult: ...
    async def aapply_patch(self, patch: str, *, atomic: bool = True) -> PatchResult: ...
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
        context_lines: int = 0,
    ) -> GrepResult: ...
    async def aglob(self, pattern: str, path: PathArg | None = None) -> GlobResult: ...
    async def aupload_files(self, files: Iterable[tuple[PathArg, bytes]]) -> list[Any]: ...
    async def adownload_files(self, paths: Iterable[PathArg]) -> list[Any]: ...
    async def aexecute(self, command: str, *, timeout: int | None = None) -> Any: ...
