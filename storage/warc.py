"""WARC archive of every exchange the fetch layer makes (ARCHITECTURE §3 step 6).

One gzip WARC file per writer prefix (a registrable domain) per UTC day, under
`$LYRA_HOME/warc/`. Each exchange is a `request` and a `response` record linked by
WARC-Concurrent-To; the returned offset points at the response record, so a page
row can name `warc_path` + offset and be replayed with `read_response`.

The HTTP client decodes Content-Encoding before Lyra sees the body, so the stored
payload is the decoded entity: Content-Encoding and Transfer-Encoding are moved to
`X-Lyra-Original-*` headers and Content-Length is set to the stored length, or
replay tools would try to gunzip plain bytes. A body cut at the size cap is marked
`WARC-Truncated: length` (WARC 1.1 §5.13).

Both records of an exchange are built in memory and appended with one `write`
under an exclusive `flock`: a crash leaves either the whole exchange or nothing
after the last complete record, and two processes never interleave records.
"""

from __future__ import annotations

import base64
import fcntl
import gzip
import hashlib
import io
import os
import re
import zlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from http import HTTPStatus
from pathlib import Path
from urllib.parse import urlsplit

from warcio.archiveiterator import ArchiveIterator
from warcio.exceptions import ArchiveLoadFailed
from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

HeaderItems = Mapping[str, str] | Iterable[tuple[str, str]]

SOFTWARE = "Lyra research server (lyra-research)"
_PREFIX_UNSAFE = re.compile(r"[^a-z0-9._-]+")
_DROPPED_RESPONSE_HEADERS = ("content-encoding", "transfer-encoding")


@dataclass(frozen=True)
class StoredResponse:
    """A response record read back from a WARC file."""

    target_uri: str
    warc_date: str
    status: int
    headers: list[tuple[str, str]]
    body: bytes
    truncated: str | None
    payload_digest: str


def _items(headers: HeaderItems) -> list[tuple[str, str]]:
    pairs = headers.items() if isinstance(headers, Mapping) else headers
    return [(str(k), str(v)) for k, v in pairs]


def _warc_date(when: datetime) -> str:
    if when.tzinfo is None:
        raise ValueError("fetched_at must be timezone-aware (UTC)")
    return when.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _payload_headers(headers: HeaderItems, body_length: int) -> list[tuple[str, str]]:
    kept: list[tuple[str, str]] = []
    for name, value in _items(headers):
        lower = name.lower()
        if lower in _DROPPED_RESPONSE_HEADERS:
            kept.append((f"X-Lyra-Original-{name}", value))
        elif lower == "content-length":
            kept.append(("X-Lyra-Original-Content-Length", value))
        else:
            kept.append((name, value))
    kept.append(("Content-Length", str(body_length)))
    return kept


def _status_line(status: int) -> str:
    try:
        phrase = HTTPStatus(status).phrase
    except ValueError:
        phrase = "Unknown"
    return f"{status} {phrase}"


class WarcStore:
    """Appends request/response exchanges to daily gzip WARC files under `root`."""

    def __init__(self, root: Path, prefix: str = "lyra") -> None:
        self.root = Path(root)
        clean = _PREFIX_UNSAFE.sub("_", prefix.lower()).strip("._") or "lyra"
        self.prefix = clean[:100]

    def path_for(self, when: datetime) -> Path:
        """The WARC file an exchange fetched at `when` goes to."""
        day = when.astimezone(UTC).strftime("%Y%m%d")
        return self.root / f"{self.prefix}-{day}.warc.gz"

    def write_exchange(
        self,
        url: str,
        request_headers: HeaderItems,
        status: int,
        response_headers: HeaderItems,
        body: bytes,
        *,
        fetched_at: datetime,
        truncated: bool = False,
        method: str = "GET",
        ip_address: str | None = None,
    ) -> tuple[Path, int]:
        """Append a request and a response record; return the file and the response offset."""
        path = self.path_for(fetched_at)
        date = _warc_date(fetched_at)
        buffer = io.BytesIO()
        writer = WARCWriter(buffer, gzip=True)

        response_http = StatusAndHeaders(
            _status_line(status), _payload_headers(response_headers, len(body)), protocol="HTTP/1.1"
        )
        response_meta: dict[str, str] = {"WARC-Date": date}
        if truncated:
            response_meta["WARC-Truncated"] = "length"
        if ip_address:
            response_meta["WARC-IP-Address"] = ip_address
        response = writer.create_warc_record(
            url,
            "response",
            payload=io.BytesIO(body),
            length=len(body),
            warc_headers_dict=response_meta,
            http_headers=response_http,
        )
        response_id = response.rec_headers.get_header("WARC-Record-ID")

        parts = urlsplit(url)
        target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        request_items = _items(request_headers)
        if not any(k.lower() == "host" for k, _ in request_items):
            request_items.insert(0, ("Host", parts.netloc))
        request_http = StatusAndHeaders(
            f"{method} {target} HTTP/1.1", request_items, protocol="", is_http_request=True
        )
        request = writer.create_warc_record(
            url,
            "request",
            payload=io.BytesIO(b""),
            length=0,
            warc_headers_dict={"WARC-Date": date, "WARC-Concurrent-To": response_id},
            http_headers=request_http,
        )

        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            start = os.fstat(fd).st_size
            if start == 0:
                info = {"software": SOFTWARE, "format": "WARC File Format 1.0"}
                writer.write_record(writer.create_warcinfo_record(path.name, info))
            writer.write_record(request)
            response_offset = start + buffer.tell()
            writer.write_record(response)
            os.write(fd, buffer.getvalue())
            os.fsync(fd)
        finally:
            os.close(fd)  # closing the descriptor releases the flock
        return path, response_offset

    @staticmethod
    def verify(path: Path) -> list[str]:
        """The problems found reading every record of `path` back (see module `verify`)."""
        return verify(path)


def verify(path: Path) -> list[str]:
    """Read every record of a WARC file back; return the problems found (empty = sound)."""
    errors: list[str] = []
    count = 0
    try:
        with open(path, "rb") as stream:
            records = ArchiveIterator(stream, check_digests=True)
            for record in records:
                count += 1
                offset = records.get_record_offset()
                rec_type = record.rec_type
                for required in ("WARC-Record-ID", "WARC-Date", "WARC-Type"):
                    if not record.rec_headers.get_header(required):
                        errors.append(f"offset {offset}: {rec_type} record lacks {required}")
                if rec_type in ("request", "response") and not record.rec_headers.get_header(
                    "WARC-Target-URI"
                ):
                    errors.append(f"offset {offset}: {rec_type} record lacks WARC-Target-URI")
                if rec_type == "response" and not record.rec_headers.get_header(
                    "WARC-Payload-Digest"
                ):
                    errors.append(f"offset {offset}: response record lacks WARC-Payload-Digest")
                stream_in = record.content_stream()
                while stream_in.read(1 << 20):
                    pass
                if record.digest_checker.passed is False:
                    errors.extend(f"offset {offset}: {p}" for p in record.digest_checker.problems)
    except (ArchiveLoadFailed, OSError, EOFError, ValueError) as exc:
        errors.append(f"unreadable after {count} records: {type(exc).__name__}: {exc}")
    if count == 0 and not errors:
        errors.append("no records")
    if path.name.endswith(".gz"):
        errors.extend(_gzip_errors(path))
    return errors


def _gzip_errors(path: Path) -> list[str]:
    # warcio reads a member cut short without complaint; gzip itself checks every
    # member's end marker and CRC, which is how a crash mid-append shows up.
    try:
        with gzip.open(path, "rb") as stream:
            while stream.read(1 << 20):
                pass
    except (EOFError, OSError, zlib.error) as exc:
        return [f"gzip stream damaged: {type(exc).__name__}: {exc}"]
    return []


def read_response(path: Path, offset: int) -> StoredResponse:
    """The response record at `offset` of a WARC file (as returned by `write_exchange`)."""
    with open(path, "rb") as stream:
        stream.seek(offset)
        for record in ArchiveIterator(stream):
            if record.rec_type != "response":
                raise ValueError(f"record at {path}:{offset} is {record.rec_type}, not response")
            http = record.http_headers
            body = record.content_stream().read()
            return StoredResponse(
                target_uri=record.rec_headers.get_header("WARC-Target-URI"),
                warc_date=record.rec_headers.get_header("WARC-Date"),
                status=int(http.get_statuscode()),
                headers=list(http.headers),
                body=body,
                truncated=record.rec_headers.get_header("WARC-Truncated"),
                payload_digest=record.rec_headers.get_header("WARC-Payload-Digest"),
            )
    raise ValueError(f"no record at {path}:{offset}")


def sha1_payload_digest(body: bytes) -> str:
    """The WARC-Payload-Digest value warcio writes for `body` (sha1, base32)."""
    return "sha1:" + base64.b32encode(hashlib.sha1(body).digest()).decode("ascii")
