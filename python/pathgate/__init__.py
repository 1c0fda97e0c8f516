"""pathgate: contained path resolution for LLM agents and game tooling.

Canonical addresses (``root:repo/x``, ``mod:Name/x``), ``file://`` URIs and
raw Windows/POSIX paths are resolved strictly inside configured roots, with
containment enforced by the kernel. Every behaviour lives in the C core; this
package re-exports its types from :mod:`pathgate._core`.
"""

from ._core import (
    CAPACITY_MESSAGE,
    INVALID_PATH_MESSAGE,
    MAX_TOKENS_DEFAULT,
    PATH_MAX,
    SESSION_MAX_DEPTH,
    Error,
    LegacyAppPathString,
    PathError,
    PathUri,
    Resolver,
    Session,
    SessionError,
    SessionState,
    VisibilityRef,
    VisibilityResolution,
    __version__,
)
from .backend import *  # noqa: E402,F401,F403 - Backend and the deepagents result types
from .handles import open  # noqa: E402,A001 - pathgate.open (not in __all__: never shadows builtins.open)
from .sandbox import *  # noqa: E402,F401,F403 - ExecuteResponse, execute, landlock_abi

__all__ = [
    "CAPACITY_MESSAGE",
    "INVALID_PATH_MESSAGE",
    "MAX_TOKENS_DEFAULT",
    "PATH_MAX",
    "SESSION_MAX_DEPTH",
    "Error",
    "LegacyAppPathString",
    "PathError",
    "PathUri",
    "Resolver",
    "Session",
    "SessionError",
    "SessionState",
    "VisibilityRef",
    "VisibilityResolution",
    "__version__",
    # backend (the deepagents protocol) and sandbox (execute)
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
    "DirEntry",
    "PathResult",
    "ReadlinkResult",
    "ScandirIterator",
    "ExecuteResponse",
    "SandboxMixin",
    "execute",
    "landlock_abi",
    "exec_capabilities",
]

# PathUri's native-text helpers (docs/uri.md)
from ._core import (  # noqa: E402
    home_relative_suffix,
    normalize_windows_device_path,
    path_segments,
    platform_convention,
)

__all__ += [
    "home_relative_suffix",
    "normalize_windows_device_path",
    "path_segments",
    "platform_convention",
]
