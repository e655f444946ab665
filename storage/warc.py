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

A browser fetch is archived as a *capture* (seed 003 §4.3.2, `write_browser_capture`):
a `resource` record of the rendered HTML, a `resource` record of the screenshot and
a `metadata` record (JSON) listing every subresource with its status and sha256,
the last two linked to the first by WARC-Concurrent-To. The HTML is a `resource`,
not a `response`: it is `page.content()`, the DOM serialised after scripts ran,
not the entity a server sent, and a `response` record would tell replay tools
(and digest comparisons with the HTTP client's records) that a server sent it.
The main document's status and headers are kept in the metadata record.
"""

from __future__ import annotations

import base64
import fcntl
import gzip
import hashlib
import io
import json
import os
import re
import zlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from http import HTTPStatus
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from warcio.archiveiterator import ArchiveIterator
from warcio.exceptions import ArchiveLoadFailed
from warcio.recordloader import ArcWarcRecord
from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

HeaderItems = Mapping[str, str] | Iterable[tuple[str, str]]

SOFTWARE = "Lyra research server (lyra-research)"
_PREFIX_UNSAFE = re.compile(r"[^a-z0-9._-]+")
_DROPPED_RESPONSE_HEADERS = ("content-encoding", "transfer-encoding")
HTML_CONTENT_TYPE = "text/html; charset=utf-8"
PNG_CONTENT_TYPE = "image/png"
JSON_CONTENT_TYPE = "application/json"
SCREENSHOT_URI_PREFIX = "urn:lyra:screenshot:"
CAPTURE_FORMAT = "lyra-browser-capture/1"
# WARC 1.1 §5.5 / §5.7: the record types that must name the resource they hold.
_TARGET_REQUIRED = ("request", "response", "resource")
_DIGEST_REQUIRED = ("response", "resource")


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


@dataclass(frozen=True)
class StoredCapture:
    """A browser capture read back from a WARC file (see `write_browser_capture`)."""

    target_uri: str
    warc_date: str
    html: str
    screenshot: bytes | None
    resources: list[dict[str, Any]]
    status: int | None
    headers: list[tuple[str, str]]
    requested_url: str | None


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

        return path, _append(path, writer, buffer, [request, response], mark=1)

    def write_browser_capture(
        self,
        url: str,
        html: str,
        screenshot_png: bytes | None,
        resources: list[dict[str, Any]],
        fetched_at: datetime,
        status: int | None,
        headers: HeaderItems | None,
        *,
        requested_url: str | None = None,
    ) -> tuple[Path, int]:
        """Append a browser capture; return the file and the offset of its first record.

        `url` is the final URL the page settled on (the records' WARC-Target-URI);
        `requested_url`, when it differs, is kept in the metadata record.
        """
        path = self.path_for(fetched_at)
        date = _warc_date(fetched_at)
        buffer = io.BytesIO()
        writer = WARCWriter(buffer, gzip=True)
        body = html.encode("utf-8")
        page = writer.create_warc_record(
            url,
            "resource",
            payload=io.BytesIO(body),
            length=len(body),
            warc_content_type=HTML_CONTENT_TYPE,
            warc_headers_dict={"WARC-Date": date},
        )
        linked = {
            "WARC-Date": date,
            "WARC-Concurrent-To": page.rec_headers.get_header("WARC-Record-ID"),
        }
        records = [page]
        if screenshot_png is not None:
            records.append(
                writer.create_warc_record(
                    SCREENSHOT_URI_PREFIX + url,
                    "resource",
                    payload=io.BytesIO(screenshot_png),
                    length=len(screenshot_png),
                    warc_content_type=PNG_CONTENT_TYPE,
                    warc_headers_dict=dict(linked),
                )
            )
        meta = capture_metadata(url, requested_url, status, headers, resources, screenshot_png)
        records.append(
            writer.create_warc_record(
                url,
                "metadata",
                payload=io.BytesIO(meta),
                length=len(meta),
                warc_content_type=JSON_CONTENT_TYPE,
                warc_headers_dict=dict(linked),
            )
        )
        return path, _append(path, writer, buffer, records, mark=0)

    @staticmethod
    def read_capture(path: Path, offset: int) -> StoredCapture:
        """The browser capture starting at `offset` (see module `read_capture`)."""
        return read_capture(path, offset)

    @staticmethod
    def verify(path: Path) -> list[str]:
        """The problems found reading every record of `path` back (see module `verify`)."""
        return verify(path)


def capture_metadata(
    url: str,
    requested_url: str | None,
    status: int | None,
    headers: HeaderItems | None,
    resources: list[dict[str, Any]],
    screenshot_png: bytes | None,
) -> bytes:
    """The JSON payload of a capture's metadata record (a CDXJ-like resource list, §4.3.2)."""
    listed = [
        {
            "url": str(item["url"]),
            "status": item.get("status"),
            "resource_type": item.get("resource_type"),
            "sha256": item.get("sha256"),
            "bytes": item.get("bytes"),
        }
        for item in resources
    ]
    document = {
        "format": CAPTURE_FORMAT,
        "url": requested_url or url,
        "final_url": url,
        "status": status,
        "headers": [list(pair) for pair in _items(headers or [])],
        "screenshot_sha256": hashlib.sha256(screenshot_png).hexdigest()
        if screenshot_png is not None
        else None,
        "resources": listed,
    }
    return json.dumps(document, ensure_ascii=False, sort_keys=True).encode("utf-8")


def _append(
    path: Path, writer: WARCWriter, buffer: io.BytesIO, records: list[ArcWarcRecord], mark: int
) -> int:
    """Append `records` in one locked write; return the offset of ``records[mark]``.

    A new file gets a warcinfo record first. One `flock` + one write per call is what
    keeps a crash or a second process from leaving half an exchange or a capture.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        start = os.fstat(fd).st_size
        if start == 0:
            info = {"software": SOFTWARE, "format": "WARC File Format 1.0"}
            writer.write_record(writer.create_warcinfo_record(path.name, info))
        offset = start
        for index, record in enumerate(records):
            if index == mark:
                offset = start + buffer.tell()
            writer.write_record(record)
        data = memoryview(buffer.getvalue())
        while data:
            data = data[os.write(fd, data) :]
        os.fsync(fd)
    finally:
        os.close(fd)  # closing the descriptor releases the flock
    return offset


def verify(path: Path) -> list[str]:
    """Read every record of a WARC file back; return the problems found (empty = sound).

    Beyond warcio's block and payload digests: the header fields WARC 1.1 requires
    per record type, WARC-Concurrent-To naming a record of the same file (every
    writer here keeps linked records together), and metadata JSON that parses.
    """
    errors: list[str] = []
    count = 0
    seen_ids: set[str] = set()
    links: list[tuple[int, str]] = []
    try:
        with open(path, "rb") as stream:
            records = ArchiveIterator(stream, check_digests=True)
            for record in records:
                count += 1
                # Content first: get_record_offset() reads a record to its end itself,
                # after which its content stream is empty.
                content_problems = _content_problems(record)
                offset = records.get_record_offset()
                rec_type = record.rec_type
                for required in ("WARC-Record-ID", "WARC-Date", "WARC-Type"):
                    if not record.rec_headers.get_header(required):
                        errors.append(f"offset {offset}: {rec_type} record lacks {required}")
                header = record.rec_headers.get_header
                if rec_type in _TARGET_REQUIRED and not header("WARC-Target-URI"):
                    errors.append(f"offset {offset}: {rec_type} record lacks WARC-Target-URI")
                if rec_type in _DIGEST_REQUIRED and not header("WARC-Payload-Digest"):
                    errors.append(f"offset {offset}: {rec_type} record lacks WARC-Payload-Digest")
                seen_ids.add(header("WARC-Record-ID") or "")
                if header("WARC-Concurrent-To"):
                    links.append((offset, header("WARC-Concurrent-To")))
                errors.extend(f"offset {offset}: {p}" for p in content_problems)
    except (ArchiveLoadFailed, OSError, EOFError, ValueError) as exc:
        errors.append(f"unreadable after {count} records: {type(exc).__name__}: {exc}")
    errors.extend(
        f"offset {offset}: WARC-Concurrent-To {target} is not a record of this file"
        for offset, target in links
        if target not in seen_ids
    )
    if count == 0 and not errors:
        errors.append("no records")
    if path.name.endswith(".gz"):
        errors.extend(_gzip_errors(path))
    return errors


def _content_problems(record: ArcWarcRecord) -> list[str]:
    """Read a record's content through (which runs the digest checks) and judge it."""
    stream = record.content_stream()
    is_json = record.rec_type == "metadata" and (
        record.rec_headers.get_header("Content-Type") == JSON_CONTENT_TYPE
    )
    kept = bytearray()
    while chunk := stream.read(1 << 20):
        if is_json:
            kept.extend(chunk)
    problems: list[str] = []
    if record.digest_checker.passed is False:
        problems.extend(record.digest_checker.problems)
    if is_json:
        try:
            json.loads(bytes(kept))
        except ValueError as exc:
            problems.append(f"metadata JSON does not parse: {exc}")
    return problems


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
    """The response record at `offset` of a WARC file (as returned by `write_exchange`);
    ValueError when there is no response record there."""
    try:
        return _read_response(path, offset)
    except ArchiveLoadFailed as exc:  # the bytes there are not a record
        raise ValueError(f"no WARC record at {path}:{offset} ({exc})") from exc


def _read_response(path: Path, offset: int) -> StoredResponse:
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


def find_archived(path: Path, url: str) -> tuple[bytes, list[tuple[str, str]]] | None:
    """The body and headers of the last exchange archived for ``url`` in a WARC file: a
    response record, or the rendered HTML of a browser capture; None when there is none."""
    found: tuple[bytes, list[tuple[str, str]]] | None = None
    with open(path, "rb") as stream:
        for record in ArchiveIterator(stream):
            if record.rec_headers.get_header("WARC-Target-URI") != url:
                continue
            if record.rec_type == "response" and record.http_headers is not None:
                found = (record.content_stream().read(), list(record.http_headers.headers))
            elif record.rec_type == "resource" and (
                record.rec_headers.get_header("Content-Type") or ""
            ).startswith("text/html"):
                body = record.content_stream().read()
                found = (body, [("Content-Type", "text/html; charset=utf-8")])
    return found


def read_capture(path: Path, offset: int) -> StoredCapture:
    """The browser capture starting at `offset` (as `write_browser_capture` returns it);
    ValueError when there is no capture there."""
    try:
        return _read_capture(path, offset)
    except ArchiveLoadFailed as exc:  # the bytes there are not a record
        raise ValueError(f"no WARC record at {path}:{offset} ({exc})") from exc


def _read_capture(path: Path, offset: int) -> StoredCapture:
    with open(path, "rb") as stream:
        stream.seek(offset)
        records = iter(ArchiveIterator(stream))
        first = next(records, None)
        if first is None:
            raise ValueError(f"no record at {path}:{offset}")
        content_type = first.rec_headers.get_header("Content-Type")
        if first.rec_type != "resource" or content_type != HTML_CONTENT_TYPE:
            raise ValueError(f"record at {path}:{offset} is not a browser capture's HTML record")
        page_id = first.rec_headers.get_header("WARC-Record-ID")
        html = first.content_stream().read().decode("utf-8")
        screenshot: bytes | None = None
        meta: dict[str, Any] = {}
        for record in records:
            if record.rec_headers.get_header("WARC-Concurrent-To") != page_id:
                break
            if record.rec_type == "resource":
                screenshot = record.content_stream().read()
            elif record.rec_type == "metadata":
                meta = json.loads(record.content_stream().read())
        return StoredCapture(
            target_uri=first.rec_headers.get_header("WARC-Target-URI"),
            warc_date=first.rec_headers.get_header("WARC-Date"),
            html=html,
            screenshot=screenshot,
            resources=list(meta.get("resources", [])),
            status=meta.get("status"),
            headers=[(str(k), str(v)) for k, v in meta.get("headers", [])],
            requested_url=meta.get("url"),
        )


def sha1_payload_digest(body: bytes) -> str:
    """The WARC-Payload-Digest value warcio writes for `body` (sha1, base32)."""
    return "sha1:" + base64.b32encode(hashlib.sha1(body).digest()).decode("ascii")
