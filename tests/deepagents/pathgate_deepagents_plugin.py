"""pytest plugin: run deepagents' own backend suites against PathgateBackend.

Loaded with ``-p pathgate_deepagents_plugin`` (this directory on
``sys.path``) when running deepagents' test files. Wherever a test builds
``FilesystemBackend(root_dir=X, virtual_mode=True)`` (``virtual_mode``
defaults to True), it gets ``PathgateBackend(Session(Resolver({"repo": X})))``
instead. Only tests that built at least one such backend count: the others
(``virtual_mode=False`` host-path mode, state/store backends) are reported
as skipped, since they do not exercise pathgate.

``PATHGATE_DEEPAGENTS_NO_EXCLUDE=1`` runs the excluded tests too (to measure).
``PATHGATE_DEEPAGENTS_BASELINE=1`` substitutes the "before" adapter instead:
a plain ``pathgate.Backend`` with only an input-path rewrite (``/x`` ->
``x`` relative to the session's cwd), to measure what PathgateBackend adds.

EXCLUDED lists every test that does not run against PathgateBackend, each
with its reason (in both modes, so that the counts compare); everything
else must pass.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

import pathgate
from deepagents.backends import filesystem as _fs_module
from deepagents.backends.filesystem import FilesystemBackend as _RealFilesystemBackend

BASELINE = os.environ.get("PATHGATE_DEEPAGENTS_BASELINE") == "1"
# measurement only: run the excluded tests too
NO_EXCLUDE = os.environ.get("PATHGATE_DEEPAGENTS_NO_EXCLUDE") == "1"

_PRIVATE = "inspects FilesystemBackend's private internals ({})"
_RG = "drives FilesystemBackend's ripgrep subprocess (pathgate never runs rg; its grep is in the core)"

_STORE = ("also needs langgraph's InMemoryStore for a StoreBackend route; the shared third-party "
          "copy has only an inert stand-in, so it fails the same with FilesystemBackend")

# "function", "Class" or "Class.method" (parameters ignored) -> reason.
EXCLUDED: dict[str, str] = {
    # private internals of FilesystemBackend
    "TestToVirtualPath": _PRIVATE.format("_to_virtual_path"),
    "TestDisplayPath": _PRIVATE.format("_display_path"),
    "TestGrepPythonFallbackTimeout": _PRIVATE.format("_python_search, its Python grep fallback"),
    "TestGrepPythonFallbackIncludeGlob": _PRIVATE.format("_ripgrep_search patched out to force _python_search"),
    "test_grep_python_fallback_survives_mid_iteration_failure": _PRIVATE.format("_ripgrep_search, Path.rglob"),
    "test_grep_virtual_mode_sanitizes_runtime_error_details": _PRIVATE.format("_ripgrep_search, Path.rglob"),
    "test_grep_virtual_mode_sanitizes_oserror_path": _PRIVATE.format("_ripgrep_search, Path.rglob"),
    "TestFilesystemGrepContext.test_default_and_zero_preserve_existing_matches": _PRIVATE.format("_add_grep_context"),
    "TestFilesystemGrepContext.test_ripgrep_context_strips_crlf_terminators": _RG,
    "TestFilesystemGrepContext.test_ripgrep_context_treats_bare_carriage_returns_as_text": _RG,
    "TestFilesystemGrepContext.test_omitted_match_is_not_returned_as_truncated_context": _RG,
    "TestFilesystemGrepContext.test_context_read_failure_keeps_matches_and_surfaces_error": _PRIVATE.format("_read_grep_context"),
    "TestFilesystemGrepContext.test_context_resolver_runtime_error_keeps_matches_and_surfaces_error": _PRIVATE.format("_resolve_path"),
    "TestFilesystemGrepContext.test_read_grep_context_reports_unreadable_file": _PRIVATE.format("_read_grep_context"),
    "TestFilesystemGrepContext.test_context_error_is_appended_to_existing_partial_error": _PRIVATE.format("_python_search"),
    "TestFilesystemGrepContext.test_context_uses_python_fallback_when_ripgrep_unavailable": _PRIVATE.format("_ripgrep_search"),
    "TestVirtualModeDefault.test_omitted_virtual_mode_defaults_true": _PRIVATE.format("the virtual_mode attribute"),
    "TestFilesystemDelete.test_delete_resolve_failure_returns_error": _PRIVATE.format("_resolve_path"),
    "TestFilesystemDelete.test_delete_unlink_failure_returns_error": (
        "patches pathlib.Path.unlink; pathgate deletes in the C core (unlinkat beneath the base fd)"),
    # documented containment rules
    "test_ls_virtual_mode_reports_child_symlink_loop": (
        "containment rule (docs/deepagents.md): ls never follows a symlink it cannot resolve inside "
        "the base (a loop, a link out), so such a child is left out instead of reported as a per-child error"),
    # the environment: the inert langgraph stand-in
    "test_composite_backend_filesystem_plus_store": _STORE,
    "test_composite_backend_ls_nested_directories": _STORE,
    "test_composite_backend_ls_trailing_slash": _STORE,
    "test_composite_upload_routing": _STORE,
    "test_composite_download_routing": _STORE,
    "test_composite_upload_download_multiple_routes": _STORE,
    "test_composite_grep_targeting_specific_route": _STORE,
    "test_composite_grep_with_glob_filter": _STORE,
    "test_composite_grep_with_glob_in_specific_route": _STORE,
    "test_composite_grep_with_path_none": _STORE,
    "test_composite_grep_nested_path_in_route": _STORE,
    "test_composite_grep_empty_results": _STORE,
    "test_composite_grep_route_prefix_restoration": _STORE,
    "test_composite_backend_filesystem_plus_store_async": _STORE,
    "test_composite_backend_als_nested_directories_async": _STORE,
    "test_composite_aupload_routing_async": _STORE,
    "test_composite_adownload_routing_async": _STORE,
    "test_composite_aupload_download_multiple_routes_async": _STORE,
    "test_composite_agrep_targeting_specific_route_async": _STORE,
    "test_composite_agrep_with_glob_filter_async": _STORE,
    "test_composite_agrep_with_glob_in_specific_route_async": _STORE,
    "test_composite_agrep_with_path_none_async": _STORE,
    "test_composite_agrep_nested_path_in_route_async": _STORE,
    "test_composite_agrep_empty_results_async": _STORE,
    "test_composite_agrep_route_prefix_restoration_async": _STORE,
}


class _Current:
    substituted = 0


def _session(root_dir: Any) -> pathgate.Session:
    root = Path(root_dir) if root_dir else Path.cwd()
    return pathgate.Session(pathgate.Resolver({"repo": str(root)}))


class _BaselineBackend(pathgate.Backend):
    """pathgate.Backend with only an input-path rewrite ("before")."""

    __slots__ = ()

    @staticmethod
    def _rw(path: Any) -> Any:
        if isinstance(path, str) and path.startswith("/"):
            return path.lstrip("/") or "."
        return path

    def ls(self, path):  # type: ignore[override]
        return super().ls(self._rw(path))

    def read(self, file_path, offset=0, limit=2000):  # type: ignore[override]
        return super().read(self._rw(file_path), offset, limit)

    def write(self, file_path, content):  # type: ignore[override]
        return super().write(self._rw(file_path), content)

    def edit(self, file_path, old_string, new_string, replace_all=False):  # type: ignore[override]
        return super().edit(self._rw(file_path), old_string, new_string, replace_all)

    def delete(self, file_path):  # type: ignore[override]
        return super().delete(self._rw(file_path))

    def grep(self, pattern, path=None, glob=None, *, max_count=None):  # type: ignore[override]
        return super().grep(pattern, self._rw(path), glob, max_count=max_count)

    def glob(self, pattern, path=None):  # type: ignore[override]
        return super().glob(pattern, self._rw(path))

    def upload_files(self, files):  # type: ignore[override]
        return super().upload_files([(self._rw(p), c) for p, c in files])

    def download_files(self, paths):  # type: ignore[override]
        return super().download_files([self._rw(p) for p in paths])


class SubstituteFilesystemBackend(_RealFilesystemBackend):
    """Stands in for FilesystemBackend in a test module: virtual mode gives
    a PathgateBackend, host-path mode the real FilesystemBackend."""

    def __new__(cls, root_dir: Any = None, virtual_mode: bool = True, max_file_size_mb: int = 10) -> Any:  # noqa: FBT001, FBT002
        if not virtual_mode:
            return _RealFilesystemBackend(root_dir=root_dir, virtual_mode=False, max_file_size_mb=max_file_size_mb)
        _Current.substituted += 1
        if BASELINE:
            return _BaselineBackend(_session(root_dir))
        from pathgate.deepagents import PathgateBackend

        return PathgateBackend(_session(root_dir), max_file_size_mb=max_file_size_mb)


def _excluded(item: pytest.Item) -> str | None:
    name = getattr(item, "originalname", None) or item.name.split("[", 1)[0]
    cls = getattr(item, "cls", None)
    keys = [name] if cls is None else [f"{cls.__name__}.{name}", cls.__name__]
    for key in keys:
        if key in EXCLUDED:
            return EXCLUDED[key]
    return None


@pytest.fixture(autouse=True)
def _pathgate_substitute(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    module = request.module
    if getattr(module, "FilesystemBackend", None) is _RealFilesystemBackend:
        monkeypatch.setattr(module, "FilesystemBackend", SubstituteFilesystemBackend)
    if getattr(module, "fs_module", None) is _fs_module:
        pass  # fs_module.FilesystemBackend stays real (used for private-internal tests)


def pytest_runtest_setup(item: pytest.Item) -> None:
    _Current.substituted = 0
    reason = _excluded(item)
    if reason is not None and not NO_EXCLUDE:
        pytest.skip(f"excluded for PathgateBackend: {reason}")


_counts = {"passed": 0, "failed": 0, "excluded": 0, "not_substituted": 0}
_failed: list[str] = []


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):  # type: ignore[no-untyped-def]
    outcome = yield
    report = outcome.get_result()
    if report.when == "setup" and report.skipped and _excluded(item) and not NO_EXCLUDE:
        _counts["excluded"] += 1
        return
    if report.when == "setup" and report.failed and _Current.substituted == 0:
        report.outcome = "skipped"
        report.longrepr = (str(item.path), 0, "Skipped: not a PathgateBackend test (setup needs other backends)")
        _counts["not_substituted"] += 1
        return
    if report.when != "call":
        return
    if _Current.substituted == 0:
        report.outcome = "skipped"
        report.longrepr = (str(item.path), 0, "Skipped: builds no virtual-mode FilesystemBackend (not a PathgateBackend test)")
        _counts["not_substituted"] += 1
        return
    if report.passed:
        _counts["passed"] += 1
    elif report.failed:
        _counts["failed"] += 1
        _failed.append(item.nodeid.rsplit("/", 1)[-1])
    elif report.skipped:
        _counts["excluded"] += 1


def pytest_terminal_summary(terminalreporter: Any) -> None:
    mode = "baseline pathgate.Backend + input rewrite" if BASELINE else "PathgateBackend"
    c = _counts
    total = c["passed"] + c["failed"]
    terminalreporter.write_line(
        f"pathgate-deepagents [{mode}]: {c['passed']}/{total} substituted tests passed, "
        f"{c['failed']} failed, {c['excluded']} excluded, {c['not_substituted']} not substituted"
    )
    for name in _failed:
        terminalreporter.write_line(f"  FAILED {name}")
