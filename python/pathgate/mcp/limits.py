"""The caps of ``pathgate mcp``: what one call may read, answer and list,
and how long a command may run. Every tool is bounded by them; an answer
cut short says so in a notice (its last text line, and ``truncated`` and
``notice`` in the structured answer). See docs/mcp.md, "Limits".
"""

from __future__ import annotations

import dataclasses

__all__ = ["Limits", "parse_size"]

MiB = 1 << 20


@dataclasses.dataclass(frozen=True)
class Limits:
    # Bytes one call reads from files (and answers as their content): a
    # whole file, or a head/tail window, larger than this answers the size
    # cap's message (kind too_large); read_multiple_files stops reading
    # once its files reach it; grep skips larger files; edit_file refuses
    # them.
    max_read: int = 8 * MiB
    # Bytes of text one answer composes from many items (listings, tree,
    # search results, grep lines): the items past it are left out, with a
    # notice.
    max_answer: int = 8 * MiB
    # Items one answer lists (entries, tree nodes, matches, files of
    # read_multiple_files): the rest are left out, with a notice.
    max_items: int = 10_000
    # The longest `timeout` execute accepts, in seconds (also its default
    # when that is lower than the command's own, 120 s).
    max_timeout: int = 600

    def __post_init__(self) -> None:
        for name in ("max_read", "max_answer", "max_items", "max_timeout"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
                raise ValueError(f"{name} must be a positive integer")

    def items_notice(self, shown: int, what: str) -> str:
        return (f"[truncated: only the first {shown} {what} are listed; the server lists at most "
                f"{self.max_items} per answer]")

    def answer_notice(self, shown: int, what: str) -> str:
        return (f"[truncated: only the first {shown} {what} are listed; the server answers at most "
                f"{self.max_answer} bytes of text]")

    def read_notice(self, left: int) -> str:
        return (f"[truncated: {left} more file(s) not read; the server reads at most "
                f"{self.max_read} bytes of files per call]")


_UNITS = {"": 1, "k": 1 << 10, "kib": 1 << 10, "m": MiB, "mib": MiB, "g": 1 << 30, "gib": 1 << 30}


def parse_size(text: str) -> int:
    """'8388608', '64K', '8M', '1G' (powers of 1024) as a positive int."""
    s = text.strip().lower()
    digits = len(s) - len(s.lstrip("0123456789"))
    number, unit = s[:digits], s[digits:].strip()
    if not number or unit not in _UNITS:
        raise ValueError(f"not a size: {text!r} (a number of bytes, or with K, M or G)")
    value = int(number) * _UNITS[unit]
    if value <= 0:
        raise ValueError(f"not a positive size: {text!r}")
    return value
