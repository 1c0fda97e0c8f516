"""The head of an HTTP/1.x request, parsed strictly (RFC 9112), for the MCP
transport (:mod:`.http`): :func:`parse_head` takes the bytes before the
blank line and answers a :class:`Head`, or raises :class:`HeadError` with
the status to answer (never any other exception: tests/python fuzzes it
with hypothesis).

What it takes and what it refuses:

- the request line ``METHOD SP origin-form SP HTTP/1.1`` (or ``1.0``):
  method a token, target visible ASCII starting with ``/``; else ``400``;
- header fields ``name ":" OWS value OWS``, name a token, value without
  control characters but HTAB (obs-text kept as Latin-1); obsolete line
  folding, a bare CR or LF, a space before the colon: ``400``;
- lines end with CRLF only (one or more empty lines before the request
  line are skipped, RFC 9112 2.2);
- bodies by ``Content-Length`` only: ``1*DIGIT`` (ASCII), several equal
  values allowed, anything else ``400``; ``Transfer-Encoding`` (chunked
  or any other) ``411`` (send a Content-Length);
- HTTP/1.1 needs exactly one ``Host``; several ``400``;
- ``Expect: 100-continue`` is honoured (a client such as curl waits for
  it); any other expectation ``417``.
"""

from __future__ import annotations

import re

__all__ = ["MAX_HEAD", "Head", "HeadError", "parse_head"]

# The longest request head (request line and fields); longer: 431.
MAX_HEAD = 16 * 1024

_TOKEN = r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+"
# (on the head decoded as Latin-1: one character a byte)
_REQUEST_LINE = re.compile(r"(" + _TOKEN + r") (/[\x21-\x7e]*) HTTP/1\.([01])")
# every field line, CRLF-terminated: a value holds no control character but
# HTAB (nor DEL); checked in one pass, then the fields taken apart
_FIELDS = re.compile(r"(?:" + _TOKEN + r":[^\x00-\x08\x0a-\x1f\x7f]*\r\n)*")
_FIELD = re.compile(r"(" + _TOKEN + r"):([^\r]*)\r\n")
_DIGITS = re.compile(r"[0-9]{1,18}")


class HeadError(Exception):
    """A request head that is refused: the status to answer and why."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


class Head:
    """A parsed request head. ``headers``: lower-case names to Latin-1
    values (repeated fields joined with ``", "``); ``length``: the body's
    Content-Length (0 when absent); ``keep_alive``: the connection may
    carry another request after this one's answer."""

    __slots__ = ("method", "target", "path", "version", "headers", "length", "keep_alive",
                 "expect_continue")

    def __init__(self, method: str, target: str, version: int, headers: dict[str, str],
                 length: int, keep_alive: bool, expect_continue: bool) -> None:
        self.method = method
        self.target = target
        self.path = target.partition("?")[0]
        self.version = version  # the minor version: 1 or 0
        self.headers = headers
        self.length = length
        self.keep_alive = keep_alive
        self.expect_continue = expect_continue


def parse_head(data: bytes) -> Head:
    """The head in data (everything before the CRLF CRLF that ends it)."""
    if len(data) > MAX_HEAD:
        raise HeadError(431, "Request Header Fields Too Large")
    text = data.decode("latin-1")
    while text.startswith("\r\n"):
        text = text[2:]  # empty lines before the request line
    line, _, block = text.partition("\r\n")
    m = _REQUEST_LINE.fullmatch(line)
    if m is None:
        raise HeadError(400, "Bad Request: malformed request line")
    method, target, minor = m.groups()
    block += "\r\n"
    if _FIELDS.fullmatch(block) is None:
        raise HeadError(400, "Bad Request: malformed header field")
    pairs = _FIELD.findall(block)
    headers = {n.lower(): v.strip(" \t") for n, v in pairs}
    if len(headers) == len(pairs):
        lengths = [headers["content-length"]] if "content-length" in headers else []
        hosts = 1 if "host" in headers else 0
    else:  # a field repeated: its values joined
        headers = {}
        lengths = []
        hosts = 0
        for n, v in pairs:
            name, value = n.lower(), v.strip(" \t")
            if name == "content-length":
                lengths.append(value)
            elif name == "host":
                hosts += 1
            old = headers.get(name)
            headers[name] = value if old is None else f"{old}, {value}"
    if "transfer-encoding" in headers:
        raise HeadError(411, "Length Required: send the body with Content-Length "
                             "(Transfer-Encoding is not supported)")
    length = 0
    if lengths:
        # "5, 5" in one field or in several is one length (RFC 9110 8.6)
        parts = [p.strip(" \t") for raw in lengths for p in raw.split(",")]
        if any(_DIGITS.fullmatch(p) is None for p in parts) or len(set(parts)) != 1:
            raise HeadError(400, "Bad Request: malformed Content-Length")
        length = int(parts[0])
    version = 1 if minor == "1" else 0
    if version == 1 and hosts != 1:
        raise HeadError(400, "Bad Request: an HTTP/1.1 request needs exactly one Host")
    if hosts > 1:
        raise HeadError(400, "Bad Request: more than one Host")
    expect = headers.get("expect")
    expect_continue = False
    if expect is not None:
        if expect.lower() != "100-continue" or version == 0:
            raise HeadError(417, "Expectation Failed: only 100-continue is understood")
        expect_continue = True
    connection = headers.get("connection")
    if connection is None:
        keep_alive = version == 1
    else:
        tokens = {t.strip() for t in connection.lower().split(",")}
        keep_alive = "close" not in tokens if version == 1 else "keep-alive" in tokens
    return Head(method, target, version, headers, length, keep_alive, expect_continue)
