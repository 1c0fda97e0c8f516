"""Type stubs for pathgate.sandbox (checked against the module by mypy.stubtest)."""

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ._core import Resolver, Session

__all__ = ["ExecuteResponse", "SandboxMixin", "execute", "landlock_abi"]

PROTECTIONS: dict[str, int]

@dataclass
class ExecuteResponse:
    output: str
    exit_code: int | None = None
    truncated: bool = False
    timed_out: bool = False
    landlock_abi: int = 0
    protections: frozenset[str] = ...

def landlock_abi() -> int: ...
def execute(
    target: Resolver | Session,
    command: str,
    *,
    timeout: float | None = None,
    cwd: str | None = None,
    output_cap: int | None = None,
    allow_network: bool = False,
    allow_unconfined: bool = False,
    env: Mapping[str, str] | None = None,
    max_processes: int | None = None,
    max_memory: int | None = None,
    max_cpu_seconds: int | None = None,
    max_file_size: int | None = None,
    tmp_size: int | None = None,
    home: str | None = None,
) -> ExecuteResponse: ...

class SandboxMixin:
    _owner: Resolver | Session
    def __new__(cls, *args: Any, **kwargs: Any) -> Any: ...
    @property
    def id(self) -> str: ...
    def configure_execute(
        self,
        *,
        allow_network: bool = False,
        allow_unconfined: bool = False,
        output_cap: int | None = None,
        env: Mapping[str, str] | None = None,
        max_processes: int | None = None,
        max_memory: int | None = None,
        max_cpu_seconds: int | None = None,
        max_file_size: int | None = None,
        tmp_size: int | None = None,
        home: str | None = None,
    ) -> None: ...
    def execute(self, command: str, *, timeout: int | None = None) -> ExecuteResponse: ...
    async def aexecute(self, command: str, *, timeout: int | None = None) -> ExecuteResponse: ...
