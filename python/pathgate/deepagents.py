"""``PathgateBackend``: deepagents' sandbox backend, contained by pathgate.

``create_deep_agent(backend=PathgateBackend(session))`` gives an unmodified
deepagents agent pathgate's kernel-enforced containment: every file tool
(``ls``, ``read_file``, ``write_file``, ``edit_file``, ``glob``, ``grep``)
runs through the C core beneath a base directory's fd, and ``execute`` runs
the command confined by Landlock and seccomp (see docs/exec.md).

``PathgateBackend`` subclasses deepagents' ``SandboxBackendProtocol`` and
answers with deepagents' own result classes (subclassed only to add
``kind``, the core's error name, to failed results), so ``CompositeBackend``,
``FilesystemMiddleware`` and ``SkillsMiddleware`` accept it as they accept
``FilesystemBackend``. The file operations are those of
:class:`pathgate.Backend` (shared, not copied); this module maps paths
between the agent's virtual spelling and pathgate's addresses and matches
``FilesystemBackend(virtual_mode=True)``'s observable behaviour.

Paths in (what the agent, ``validate_path`` and ``CompositeBackend`` send):

* ``/x`` is ``x`` under the session's home root (``/`` is the home root);
* ``/root:<key>/x``, ``/mod:<Name>/x`` are those addresses (``validate_path``
  turns ``root:docs/x`` into ``/root:docs/x``);
* ``/ROOT_REPO:/x`` and ``/ROOT_REPO:`` are the legacy aliases
  ``ROOT_REPO:/x`` and ``ROOT_REPO:/``; ``/file:/abs/x`` is ``file:///abs/x``;
* an absolute host path inside a configured base is that host path. A host
  path wins over the virtual reading: ``/srv/repo/a.txt`` with a base at
  ``/srv/repo`` is ``a.txt`` of that base, never ``srv/repo/a.txt`` under
  the home root (the agent only sees host paths that pathgate did not
  produce, e.g. from a command's output);
* relative text is relative to the session's working directory.

Paths out: ``/x`` for the home root, ``/root:<key>/x`` and ``/mod:<Name>/x``
for the other bases. Each survives ``validate_path`` unchanged and can be
prefixed by a ``CompositeBackend`` route. No answer contains a host path.

Importing this module needs the ``deepagents`` package; ``pathgate``
itself does not depend on it.
"""

from __future__ import annotations

try:
    from deepagents.backends import protocol as _da
    from deepagents.backends import utils as _du
except ImportError as _exc:  # pragma: no cover - exercised by a subprocess test
    raise ImportError(
        "pathgate.deepagents needs the 'deepagents' package (pip install deepagents); "
        "pathgate itself works without it",
        name="deepagents",
    ) from _exc

import asyncio
import base64
import dataclasses
import logging
import posixpath
import re
import threading
from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeVar

from . import _core
from ._core import Resolver, Session
from .backend import Backend, PatchFile, PatchResult, PathArg, path_text

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

logger = logging.getLogger(__name__)

# deepagents' result classes with `kind`, the core's error name (None on
# success). isinstance checks against deepagents' classes still hold.


@dataclasses.dataclass
class ReadResult(_da.ReadResult):
    kind: str | None = None


@dataclasses.dataclass
class WriteResult(_da.WriteResult):
    kind: str | None = None


@dataclasses.dataclass
class EditResult(_da.EditResult):
    kind: str | None = None


@dataclasses.dataclass
class DeleteResult(_da.DeleteResult):
    kind: str | None = None


@dataclasses.dataclass
class LsResult(_da.LsResult):
    kind: str | None = None


@dataclasses.dataclass
class GrepResult(_da.GrepResult):
    kind: str | None = None


@dataclasses.dataclass
class GlobResult(_da.GlobResult):
    kind: str | None = None


# download/upload codes (deepagents' FileOperationError) -> the core's names
_CODE_KIND = {
    "file_not_found": "not_found",
    "permission_denied": "permission_denied",
    "is_directory": "is_directory",
    "invalid_path": "invalid_path",
}

# agent-facing text of a download/upload code
_CODE_TEXT = {
    "file_not_found": "not found",
    "permission_denied": "Permission denied",
    "is_directory": "is a directory",
    "invalid_path": _core.INVALID_PATH_MESSAGE,
}

# a spelling validate_path may have prefixed with "/": canonical addresses,
# file: URIs, legacy aliases (ROOT_REPO:)
_SPELLING = re.compile(r"(?:root|mod):[^/]|file:\Z|[A-Z][A-Z0-9_]*:\Z")
# a quoted address inside a core message
_QUOTED = re.compile(r"'((?:root|mod):[^']*)'")

_DEFAULT_GLOB_TIMEOUT = 5.0
_DEFAULT_EXECUTE_TIMEOUT = 120  # pathgate.execute's default, in seconds
_T = TypeVar("_T")


def _video_limit() -> int:
    # The guard FilesystemBackend applies (its module's constant, so that a
    # deployment's override applies to both backends).
    try:
        from deepagents.backends import filesystem as _fs

        return int(_fs.MAX_VIDEO_INPUT_BYTES)
    except (ImportError, AttributeError):  # pragma: no cover
        return int(_du.MAX_VIDEO_INPUT_BYTES)


def _async_grep_timeout() -> float:
    # agrep's bound, as FilesystemBackend's (its module's constant)
    try:
        from deepagents.backends import filesystem as _fs

        return float(_fs.ASYNC_GREP_TIMEOUT)
    except (ImportError, AttributeError):  # pragma: no cover
        return float(_da.ASYNC_GREP_TIMEOUT)


# The extensions deepagents reads as media (the whole file, base64) rather
# than as text: its multimodal table (deepagents 0.7.8,
# deepagents/backends/utils.py, _EXTENSION_TO_FILE_TYPE and
# _VIDEO_EXTRA_EXTENSIONS; MIT licence), transcribed so that pathgate needs
# no private deepagents name at run time. tests/deepagents compares it with
# deepagents' own.
MEDIA_EXTENSIONS: dict[str, str] = {
    **dict.fromkeys((".png", ".jpeg", ".jpg", ".webp", ".gif", ".heic", ".heif"), "image"),
    **dict.fromkeys((".mp4", ".mpeg", ".mov", ".avi", ".flv", ".mpg", ".webm", ".wmv", ".3gpp",
                     ".mkv"), "video"),
    **dict.fromkeys((".wav", ".mp3", ".aiff", ".aac", ".ogg", ".flac"), "audio"),
    **dict.fromkeys((".pdf", ".ppt", ".pptx"), "file"),
}


def _media_type(path: str) -> str:
    """deepagents' reading of a file by its name: "text", or a media type."""
    return MEDIA_EXTENSIONS.get(posixpath.splitext(path)[1].lower(), "text")


def _lf(text: str) -> str:
    return text.replace("\r\n", "\n")


def _swap_prefix(output: str, prefix: str, agent: str) -> str:
    """``output`` with the directory ``prefix`` (a host or view path) shown
    as the agent path ``agent``, both as a path's start and standing alone."""
    output = output.replace(prefix + "/", "/" if agent == "/" else agent + "/")
    return re.sub(re.escape(prefix) + r"(?=[\s'\":;,)]|\Z)", lambda _m: agent, output)


class PathgateBackend(_da.SandboxBackendProtocol):
    """deepagents' ``SandboxBackendProtocol`` over a pathgate Resolver or Session.

    ``home`` (default: the session's home, or the resolver's first root)
    is the base the virtual ``/`` names. ``glob_timeout`` bounds one glob
    (seconds; on expiry the result is empty with ``truncated=True``).
    ``max_file_size_mb`` caps the files grep re-reads for context lines.
    ``execute_options`` are passed to :meth:`pathgate.Backend.configure_execute`
    (``allow_network``, ``allow_unconfined``, ``output_cap``, ``env``,
    ``allow_domains``, ...).
    ``permissions`` (deepagents' ``FilesystemPermission`` rules) are added to
    the resolver's policy (docs/policy.md), where they hold for every tool
    and inside ``execute`` too (docs/exec.md "Policy in commands"): give
    them here, not to ``create_deep_agent``, which refuses them next to
    ``execute``.
    """

    def __init__(
        self,
        resolver_or_session: Resolver | Session,
        *,
        home: str | None = None,
        glob_timeout: float = _DEFAULT_GLOB_TIMEOUT,
        max_file_size_mb: int = 10,
        permissions: Iterable[Any] | None = None,
        **execute_options: Any,
    ) -> None:
        self._backend = Backend(resolver_or_session, glob_metadata=True)
        if execute_options:
            self._backend.configure_execute(**execute_options)
        self._owner = resolver_or_session
        resolver = self._backend.resolver
        # None: the session's home, read at each call (Session.cd moves it)
        self._fixed_home: str | None = None
        if home is not None:
            if not isinstance(home, str):
                raise TypeError("home must be a canonical address such as 'root:repo'")
            self._fixed_home = home.rstrip("/")
        elif self._backend.session is None:
            if resolver.roots:
                self._fixed_home = f"root:{resolver.roots[0]}"
            elif resolver.mods:
                self._fixed_home = f"mod:{resolver.mods[0]}"
            else:  # pragma: no cover - a Resolver always has a base
                raise ValueError("PathgateBackend needs a resolver with a root or a mod")
        self._glob_timeout = float(glob_timeout)
        self._max_file_bytes = int(max_file_size_mb) * 1024 * 1024
        # host directory of each base, for host-path input and for masking
        # host paths in command output (longest first)
        bases: list[tuple[str, str]] = []
        for kind, names in (("root", resolver.roots), ("mod", resolver.mods)):
            for name in names:
                address = f"{kind}:{name}"
                res = resolver.resolve(address, require_exists=False)
                if res.ok and res.ref is not None:
                    try:
                        host = resolver.host_path(res.ref)
                    finally:
                        resolver.release(res.ref)
                    if host is not None:
                        bases.append((str(host).rstrip("/") or "/", address))
        bases.sort(key=lambda b: len(b[0]), reverse=True)
        self._bases = bases
        if permissions is not None:
            self._restrict(permissions)

    # ----------------------------------------------------- permissions

    def _restrict(self, permissions: Iterable[Any]) -> None:
        """deepagents' FilesystemPermission rules, into the resolver's policy
        (docs/policy.md "deepagents"): held by the core for every spelling of
        a path, for every user of this resolver, from now on."""
        from .permissions import policy_lists

        deny_read, deny_write, interrupting = policy_lists(permissions, home=self.home,
                                                           bases=self._bases)
        if interrupting:
            logger.warning("pathgate cannot pause for approval: 'interrupt' permissions on %s "
                           "are enforced as 'deny'", ", ".join(interrupting))
        if deny_read or deny_write:
            self._backend.resolver.restrict(deny_read=deny_read, deny_write=deny_write,
                                            source="deepagents")

    # ------------------------------------------------------------ helpers

    @property
    def backend(self) -> Backend:
        """The :class:`pathgate.Backend` doing the operations."""
        return self._backend

    @property
    def home(self) -> str:
        """The address the virtual ``/`` names (a session's home follows ``cd``)."""
        if self._fixed_home is not None:
            return self._fixed_home
        session = self._backend.session
        assert session is not None
        return session.get().home

    @property
    def id(self) -> str:
        return self._backend.id

    def __repr__(self) -> str:
        return f"PathgateBackend({self._owner!r}, home={self.home!r})"

    def configure_execute(self, **options: Any) -> None:
        """See :meth:`pathgate.Backend.configure_execute`."""
        self._backend.configure_execute(**options)

    def _host_base(self, text: str) -> bool:
        norm = posixpath.normpath(text)
        return any(norm == host or norm.startswith(host.rstrip("/") + "/") for host, _ in self._bases)

    def to_pathgate(self, path: PathArg) -> str:
        """The pathgate text an agent path stands for (see the module doc)."""
        text = path_text(path)
        if not isinstance(text, str):
            raise TypeError(f"a path must be str, os.PathLike[str] or VisibilityRef, not {type(text).__name__}")
        if not text.startswith("/"):
            if ".." in text.split("/") and not _SPELLING.match(text.split("/", 1)[0]):
                raise ValueError(f"Path traversal not allowed: {text}")
            if self._backend.session is None and not _SPELLING.match(text.split("/", 1)[0]):
                home = self.home
                return f"{home}/{text}" if text not in ("", ".") else home
            return text
        rest = text.lstrip("/")
        head = rest.split("/", 1)[0]
        if _SPELLING.match(head):
            if head.endswith(":") and rest == head:  # "/ROOT_REPO:" from "ROOT_REPO:/"
                return rest + "/"
            return rest
        if ".." in rest.split("/"):
            raise ValueError(f"Path traversal not allowed: {text}")
        if self._host_base(text):
            return text
        home = self.home
        return f"{home}/{rest}" if rest else home

    def to_agent(self, address: str, home: str | None = None) -> str:
        """The agent's spelling of a pathgate address (``/x``, ``/root:k/x``);
        ``home`` saves looking the home up again in a loop."""
        if home is None:
            home = self.home
        if address == home:
            return "/"
        if address.startswith(home + "/"):
            return address[len(home):]
        return "/" + address

    def _message(self, text: str) -> str:
        return _QUOTED.sub(lambda m: f"'{self.to_agent(m.group(1))}'", text)

    def _relative(self, address: str, base: str) -> str:
        base = base.rstrip("/")
        return address[len(base) + 1:] if address.startswith(base + "/") else address.rsplit("/", 1)[-1]

    def _search_base(self, path: PathArg | None) -> str:
        """The address of a grep/glob search root (None: the working directory)."""
        if path is None:
            session = self._backend.session
            return session.get().cwd if session is not None else self.home
        text = self.to_pathgate(path)
        res = self._owner.resolve(text, require_exists=False)
        if res.ok and res.ref is not None:
            self._backend.resolver.release(res.ref)
            return res.ref.session_abs
        return text

    # ------------------------------------------------------------- ls

    def ls(self, path: PathArg) -> LsResult:
        """Entries directly in a directory; directories end in ``/``."""
        shown = path_text(path)
        r = self._backend.ls(self.to_pathgate(path))
        if r.error is not None:
            if r.kind == "not_found":
                return LsResult(error=f"Path '{shown}': path_not_found", kind=r.kind)
            if r.kind == "not_a_directory":
                return LsResult(error=f"Path '{shown}': not_a_directory", kind=r.kind)
            return LsResult(error=f"Cannot list '{shown}': {self._message(r.error)}", kind=r.kind)
        out: list[Any] = list(r.entries or [])
        home = self.home
        for e in out:
            e["path"] = self.to_agent(e["path"], home)
        out.sort(key=lambda e: str(e["path"]))
        return LsResult(entries=out)

    # ----------------------------------------------------------- read

    def _download(self, address: str) -> tuple[bytes | None, str | None]:
        (d,) = self._backend.download_files([address])
        return d.content, None if d.error is None else str(d.error)

    def _read_error(self, shown: str, error: str, kind: str | None) -> ReadResult:
        if kind in ("not_found", "is_directory"):
            return ReadResult(error=f"File '{shown}' not found", kind=kind)
        if kind == "out_of_range":  # deepagents' own words, as the core says them
            return ReadResult(error=error, kind=kind)
        return ReadResult(error=f"Error reading file '{shown}': {self._message(error)}", kind=kind)

    def _read_media(self, shown: str, address: str, media: str) -> ReadResult:
        """A media file (by its name, as deepagents reads it): whole, base64."""
        if media == "video":
            st, limit = self._backend.stat(address), _video_limit()
            if st.type == "file" and st.size is not None and st.size > limit:
                return ReadResult(error=f"Video file exceeds maximum input size of {limit} bytes",
                                  kind="too_large")
        raw, code = self._download(address)
        if raw is None:
            kind = _CODE_KIND.get(code or "", code)
            return self._read_error(shown, _CODE_TEXT.get(code or "", code or ""), kind)
        data = _da.FileData(content=base64.standard_b64encode(raw).decode("ascii"), encoding="base64")
        return ReadResult(file_data=data)

    def read(self, file_path: PathArg, offset: int = 0, limit: int = 2000) -> ReadResult:
        """A window of a text file with deepagents' FileData (its last line
        break kept, CRLF read as ``\\n``), through :meth:`pathgate.Backend.read`;
        a media file by its extension (images, audio, video, PDF) whole as
        base64, as deepagents reads it."""
        shown = path_text(file_path)
        address = self.to_pathgate(file_path)
        media = _media_type(shown)
        if media != "text":
            return self._read_media(shown, address, media)
        # deepagents answers the empty-file reminder before looking at limit
        r = self._backend.read(address, offset if limit > 0 else 0, max(limit, 1))
        if r.error is not None:
            return self._read_error(shown, r.error, r.kind)
        if r.not_text is not None:
            why = "holds a NUL byte" if r.not_text == "nul_byte" else "is not UTF-8 text"
            return ReadResult(error=f"Error reading file '{shown}': it {why}; download_files returns "
                                    "its bytes", kind=r.not_text)
        content = r.file_data["content"] if r.file_data is not None else ""
        if r.start_line is None:  # empty or whitespace-only: the reminder
            return ReadResult(file_data=_da.FileData(content=content, encoding="utf-8"))
        if limit <= 0:
            return ReadResult(file_data=_da.FileData(content="", encoding="utf-8"), no_lines_requested=True)
        if r.final_newline:
            content += "\n"
        return ReadResult(file_data=_da.FileData(content=content, encoding="utf-8"),
                          total_lines=r.total_lines, start_line=r.start_line, end_line=r.end_line,
                          next_offset=r.next_offset)

    # ---------------------------------------------------------- write

    def write(self, file_path: PathArg, content: str | bytes | Mapping[str, Any]) -> WriteResult:
        """Creates or replaces a file (atomically), creating parent directories."""
        shown = path_text(file_path)
        r = self._backend.write(self.to_pathgate(file_path), content)
        if r.error is not None:
            return WriteResult(error=f"Error writing file '{shown}': {self._message(r.error)}", kind=r.kind)
        return WriteResult(path=self.to_agent(r.path or ""))

    def edit(
        self,
        file_path: PathArg,
        old_string: str,
        new_string: str,
        replace_all: bool = False,  # noqa: FBT001, FBT002
    ) -> EditResult:
        """Exact replacement by the core's one edit (:meth:`pathgate.Backend.edit`:
        atomic, and never over a change made while it runs), with
        FilesystemBackend's messages (EOF-newline hint included). CRLF in
        the strings is read as ``\\n``, as read shows the file; a file
        whose lines end in CRLF keeps them."""
        shown = path_text(file_path)
        r = self._backend.edit(self.to_pathgate(file_path), _lf(old_string), _lf(new_string), replace_all)
        if r.error is None:
            return EditResult(path=self.to_agent(r.path or ""), occurrences=r.occurrences)
        if r.kind in ("not_found", "is_directory"):
            return EditResult(error=f"Error: File '{shown}' not found", kind=r.kind)
        if r.kind in ("edit_failed", "edit_ambiguous"):  # deepagents' own words, advice included
            return EditResult(error=self._edit_message(file_path, old_string, new_string, replace_all,
                                                       r.error),
                              kind=r.kind)
        return EditResult(error=f"Error editing file '{shown}': {self._message(r.error)}", kind=r.kind)

    def _edit_message(self, file_path: PathArg, old_string: str, new_string: str, replace_all: bool,
                      core_message: str) -> str:
        """deepagents' words for an edit that matched nothing or too much
        (they depend on the file: its EOF-newline hint), from the file as it
        is now; the core's words when it cannot be read again."""
        raw, _ = self._download(self.to_pathgate(file_path))
        if raw is not None:
            content = _lf(raw.decode("utf-8", "replace"))
            answer = _du.perform_string_replacement(content, _lf(old_string), _lf(new_string), replace_all)
            if isinstance(answer, str):
                return answer
        return f"Error: {core_message}"

    def delete(self, file_path: PathArg) -> DeleteResult:
        """Removes a file, or a directory with everything in it."""
        shown = path_text(file_path)
        r = self._backend.delete(self.to_pathgate(file_path))
        if r.error is not None:
            if r.kind == "not_found":
                return DeleteResult(error=f"Error: '{shown}' not found", kind=r.kind)
            return DeleteResult(error=f"Error deleting '{shown}': {self._message(r.error)}", kind=r.kind)
        return DeleteResult(path=self.to_agent(r.path or ""))

    # ---------------------------------------------------- apply_patch

    _PATCH_PATH = re.compile(r"^(\s*\*\*\* (?:Add|Delete|Update) File: |\*\*\* Move to: )(.*?)(\r?)$")

    def apply_patch(self, patch: str, *, atomic: bool = True) -> PatchResult:
        """:meth:`pathgate.Backend.apply_patch` with the agent's paths: each
        path of the patch read as the other tools read it (``/x`` under the
        home base), the answer's addresses written back the agent's way."""
        try:
            text = "\n".join(
                m.group(1) + self.to_pathgate(m.group(2)) + m.group(3) if m else line
                for line, m in ((line, self._PATCH_PATH.match(line)) for line in patch.split("\n")))
        except ValueError as exc:
            return PatchResult(error=str(exc), kind="invalid_path")
        r = self._backend.apply_patch(text, atomic=atomic)
        home = self.home
        files: list[PatchFile] = [
            {"change": f["change"], "path": self.to_agent(f["path"], home),
             "from": None if f["from"] is None else self.to_agent(f["from"], home)} for f in r.files]
        output = "".join(line[:2] + self.to_agent(line[2:], home) + "\n" if line[1:2] == " " else line + "\n"
                         for line in r.output.splitlines()) if r.error is None else r.output
        # Codex's messages name paths unquoted: the home base's as the agent's
        error = None if r.error is None else self._message(r.error).replace(home + "/", "/")
        return PatchResult(error=error, output=output, files=files, kind=r.kind)

    async def aapply_patch(self, patch: str, *, atomic: bool = True) -> PatchResult:
        """``apply_patch`` in a worker thread."""
        return await asyncio.to_thread(self.apply_patch, patch, atomic=atomic)

    # ----------------------------------------------------------- grep

    def grep(
        self,
        pattern: str,
        path: PathArg | None = None,
        glob: str | None = None,
        *,
        max_count: int | None = None,
        context_lines: int = 0,
    ) -> GrepResult:
        """Literal search. ``glob`` follows deepagents' include rules (a
        leading ``/`` anchors); ``context_lines`` adds ``context_before`` and
        ``context_after`` to every match, as FilesystemBackend does."""
        if context_lines < 0:
            raise ValueError("context_lines must be non-negative")
        try:
            base = self._search_base(path)
        except ValueError:  # traversal: nothing to search, as FilesystemBackend
            return GrepResult(matches=[])
        keep: Callable[[str], bool] | None = None
        core_glob = glob
        if glob is not None:
            try:
                keep = _du.compile_grep_include_glob(glob)
            except ValueError as exc:
                return GrepResult(error=str(exc), matches=[], kind="invalid_argument")
            if glob.startswith("/"):
                core_glob = None  # the core ignores a leading /: filter here
        # the cap applies after the include filter when we filter ourselves
        cap = max_count if core_glob == glob else None
        r = self._backend.grep(pattern, base, core_glob, max_count=cap)
        if r.error is not None:
            if r.kind in ("not_found", "invalid_path"):
                return GrepResult(matches=[])
            return GrepResult(error=self._message(r.error), matches=[], kind=r.kind)
        truncated = r.truncated
        matches: list[Any] = []
        for m in r.matches or []:
            if keep is not None and not keep(self._relative(m["path"], base)):
                continue
            if max_count is not None and len(matches) >= max_count:
                truncated = True
                break
            matches.append({"path": m["path"], "line": int(m["line"]), "text": m["text"]})
        error = None
        if context_lines:
            error = self._add_context(matches, context_lines, pattern)
        home = self.home
        for m in matches:
            m["path"] = self.to_agent(m["path"], home)
        return GrepResult(error=error, matches=matches, truncated=bool(truncated))

    def _add_context(self, matches: list[Any], context_lines: int, pattern: str) -> str | None:
        by_path: dict[str, list[Any]] = {}
        for m in matches:
            by_path.setdefault(m["path"], []).append(m)
        unreadable = []
        for address, file_matches in by_path.items():
            raw, _ = self._download(address)
            lines: list[str] | None = None
            if raw is not None and len(raw) <= self._max_file_bytes:
                try:
                    lines = raw.decode("utf-8").split("\n")
                except UnicodeDecodeError:
                    lines = None
            if lines is None:
                unreadable.append(self.to_agent(address))
                for m in file_matches:
                    m["context_before"], m["context_after"] = [], []
                continue
            if lines and lines[-1] == "":
                lines.pop()
            text_lines = [ln[:-1] if ln.endswith("\r") else ln for ln in lines]
            numbers = {m["line"] for m in file_matches}

            def ctx(lo: int, hi: int, _lines: list[str] = text_lines, _numbers: set[int] = numbers) -> list[Any]:
                return [{"line": n, "text": _lines[n - 1]} for n in range(max(1, lo), min(len(_lines), hi) + 1)
                        if n not in _numbers and pattern not in _lines[n - 1]]

            for m in file_matches:
                n = m["line"]
                m["context_before"] = ctx(n - context_lines, n - 1)
                m["context_after"] = ctx(n + 1, n + context_lines)
        if not unreadable:
            return None
        joined = ", ".join(sorted(unreadable))
        return f"Error: could not read context for {len(unreadable)} file(s) (non-UTF-8 or unreadable): {joined}"

    # ----------------------------------------------------------- glob

    def _bounded(self, fn: Callable[[], _T]) -> tuple[_T | None, bool]:
        """Runs fn in a worker thread for at most glob_timeout seconds.
        (None, True) when it did not finish; it then runs on, unobserved."""
        box: dict[str, Any] = {}

        def run() -> None:
            try:
                box["value"] = fn()
            except BaseException as exc:  # noqa: BLE001 - re-raised in the caller
                box["error"] = exc

        worker = threading.Thread(target=run, name="pathgate-glob", daemon=True)
        worker.start()
        worker.join(self._glob_timeout)
        if worker.is_alive():
            return None, True
        if "error" in box:
            raise box["error"]
        return box["value"], False

    def glob(self, pattern: str, path: PathArg | None = None) -> GlobResult:
        """Regular files matching ``pattern`` below ``path``, with deepagents'
        rules: a pattern without ``/`` matches a file name at any depth (also
        under dot-directories), ``**`` never enters a dot-directory, a name
        starting with ``.`` needs an explicit ``.``, a leading ``/`` anchors."""
        if ".." in pattern.lstrip("/").split("/"):
            raise ValueError("Path traversal not allowed in glob pattern")
        base = self._search_base(path)
        r, timed_out = self._bounded(lambda: self._backend.glob(pattern, base, basename=True))
        if timed_out or r is None:
            logger.warning("glob of %r timed out after %ss; returning no matches", pattern, self._glob_timeout)
            return GlobResult(matches=[], truncated=True)
        if r.error is not None:
            if r.kind in ("not_found", "not_a_directory", "invalid_path"):
                return GlobResult(matches=[])
            return GlobResult(error=self._message(r.error), matches=[], kind=r.kind)
        found: list[Any] = list(r.matches or [])
        home = self.home
        for e in found:
            e["path"] = self.to_agent(e["path"], home)
        found.sort(key=lambda e: str(e["path"]))
        return GlobResult(matches=found)

    # ------------------------------------------------ upload, download

    def _batch_paths(self, shown: list[Any]) -> tuple[list[str], dict[int, str]]:
        """pathgate text of each path; the index of each path refused here."""
        out, bad = [], {}
        for i, p in enumerate(shown):
            try:
                out.append(self.to_pathgate(p))
            except (ValueError, TypeError):
                bad[i] = "invalid_path"
                out.append("")
        return out, bad

    def upload_files(self, files: Iterable[tuple[PathArg, bytes]]) -> list[_da.FileUploadResponse]:
        items = [(path_text(p), c) for p, c in files]
        addresses, bad = self._batch_paths([p for p, _ in items])
        todo = [(a, c) for i, (a, (_, c)) in enumerate(zip(addresses, items)) if i not in bad]
        answers = iter(self._backend.upload_files(todo))
        return [_da.FileUploadResponse(path=p, error=bad[i] if i in bad else next(answers).error)
                for i, (p, _) in enumerate(items)]

    def download_files(self, paths: Iterable[PathArg]) -> list[_da.FileDownloadResponse]:
        shown = [path_text(p) for p in paths]
        addresses, bad = self._batch_paths(shown)
        answers = iter(self._backend.download_files([a for i, a in enumerate(addresses) if i not in bad]))
        out = []
        for i, p in enumerate(shown):
            if i in bad:
                out.append(_da.FileDownloadResponse(path=p, content=None, error=bad[i]))
            else:
                a = next(answers)
                out.append(_da.FileDownloadResponse(path=p, content=a.content, error=a.error))
        return out

    # ---------------------------------------------------------- execute

    def _mask(self, output: str) -> str:
        for host, address in self._bases:
            if host == "/" or host not in output:
                continue
            output = _swap_prefix(output, host, self.to_agent(address))
        # Commands see the bases at /pathgate/root/<key> and
        # /pathgate/mod/<Name>, with /root:<key> and /mod:<Name> symlinks
        # to them (docs/exec.md): each is shown in the agent's spelling
        # (the home root's is the agent's "/").
        for _, address in self._bases:
            agent = self.to_agent(address)
            kind, _, name = address.partition(":")
            for view in (f"/pathgate/{kind}/{name}", "/" + address):
                if view in output:
                    output = _swap_prefix(output, view, agent)
        return output

    def execute(self, command: str, *, timeout: int | None = None) -> _da.ExecuteResponse:
        """Runs ``command`` with ``/bin/sh -c`` in the session's working
        directory, confined to the bases (pathgate.Backend.execute), which
        it sees at ``/pathgate/root/<key>`` and ``/pathgate/mod/<Name>``
        (also reachable as ``/root:<key>``, ``/mod:<Name>``). Those paths
        and host directories of the bases in the output are shown in the
        agent's spelling (``/`` for the home root). A timeout is exit code 124 with
        a notice, as deepagents' LocalShellBackend reports it; ``timeout=0``
        (no timeout) is refused with ValueError: a contained command always
        has a deadline."""
        r = self._backend.execute(command, timeout=timeout)
        output = self._mask(r.output)
        if r.timed_out:
            # LocalShellBackend's wording, after whatever was printed
            seconds = timeout if timeout is not None else _DEFAULT_EXECUTE_TIMEOUT
            notice = (f"Error: Command timed out after {seconds} seconds (custom timeout). The command may be "
                      "stuck or require more time." if timeout is not None else
                      f"Error: Command timed out after {seconds} seconds. For long-running commands, "
                      "re-run using the timeout parameter.")
            output = f"{output.rstrip(chr(10))}\n{notice}" if output else notice
        return _da.ExecuteResponse(output=output, exit_code=r.exit_code, truncated=r.truncated)

    # ------------------------------------------------------------ async

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
        context_lines: int = 0,
    ) -> GrepResult:
        if context_lines < 0:
            raise ValueError("context_lines must be non-negative")
        if context_lines == 0:
            answer: GrepResult = await super().agrep(pattern, path, glob, max_count=max_count)
            return answer
        limit = _async_grep_timeout()
        try:
            return await asyncio.wait_for(
                asyncio.to_thread(self.grep, pattern, path, glob, max_count=max_count,
                                  context_lines=context_lines),
                timeout=limit)
        except TimeoutError:
            return GrepResult(error=f"Error: grep timed out after {limit}s. Try a more specific pattern "
                                    "or a narrower path.", kind="timeout")

    async def aglob(self, pattern: str, path: PathArg | None = None) -> GlobResult:
        return await asyncio.to_thread(self.glob, pattern, path)

    async def aupload_files(self, files: Iterable[tuple[PathArg, bytes]]) -> list[_da.FileUploadResponse]:
        return await asyncio.to_thread(self.upload_files, list(files))

    async def adownload_files(self, paths: Iterable[PathArg]) -> list[_da.FileDownloadResponse]:
        return await asyncio.to_thread(self.download_files, list(paths))

    async def aexecute(self, command: str, *, timeout: int | None = None) -> _da.ExecuteResponse:  # noqa: ASYNC109
        return await asyncio.to_thread(self.execute, command, timeout=timeout)
