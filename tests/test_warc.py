"""WARC store: records written, read back byte for byte, digests verified."""

from __future__ import annotations

import gzip
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest
from warcio.archiveiterator import ArchiveIterator

from lyra.storage.warc import (
    StoredCapture,
    WarcStore,
    read_capture,
    read_response,
    sha1_payload_digest,
    verify,
)

WHEN = datetime(2026, 11, 21, 12, 30, 5, tzinfo=UTC)
BODY = b"<html><body>caf\xc3\xa9 and tea</body></html>"


def _records(path: Path) -> list[tuple[str, dict[str, str]]]:
    with open(path, "rb") as stream:
        return [(r.rec_type, dict(r.rec_headers.headers)) for r in ArchiveIterator(stream)]


def test_exchange_is_written_and_read_back(tmp_path: Path) -> None:
    store = WarcStore(tmp_path, prefix="example.org")
    path, offset = store.write_exchange(
        "https://example.org/a?b=1",
        {"User-Agent": "LyraTest"},
        200,
        [
            ("Content-Type", "text/html; charset=utf-8"),
            ("Set-Cookie", "a=1"),
            ("Set-Cookie", "b=2"),
        ],
        BODY,
        fetched_at=WHEN,
        ip_address="93.184.215.14",
    )

    assert path == tmp_path / "example.org-20261121.warc.gz"
    stored = read_response(path, offset)
    assert stored.body == BODY
    assert stored.status == 200
    assert stored.target_uri == "https://example.org/a?b=1"
    assert stored.warc_date == "2026-11-21T12:30:05Z"
    assert stored.truncated is None
    assert stored.payload_digest == sha1_payload_digest(BODY)
    assert ("Set-Cookie", "a=1") in stored.headers
    assert ("Set-Cookie", "b=2") in stored.headers
    assert ("Content-Length", str(len(BODY))) in stored.headers
    assert verify(path) == []
    assert WarcStore.verify(path) == []

    kinds = [kind for kind, _ in _records(path)]
    assert kinds == ["warcinfo", "request", "response"]
    request_headers = _records(path)[1][1]
    response_headers = _records(path)[2][1]
    assert request_headers["WARC-Concurrent-To"] == response_headers["WARC-Record-ID"]
    assert request_headers["WARC-Target-URI"] == "https://example.org/a?b=1"
    assert response_headers["WARC-IP-Address"] == "93.184.215.14"


def test_request_record_carries_method_target_and_host(tmp_path: Path) -> None:
    store = WarcStore(tmp_path)
    path, _ = store.write_exchange(
        "http://127.0.0.1:8080/x/y?q=1", {"Accept": "*/*"}, 204, {}, b"", fetched_at=WHEN
    )
    with open(path, "rb") as stream:
        requests = [r for r in ArchiveIterator(stream) if r.rec_type == "request"]
    assert len(requests) == 1
    assert requests[0].http_headers.protocol == "GET"
    assert requests[0].http_headers.statusline == "/x/y?q=1 HTTP/1.1"
    assert requests[0].http_headers.get_header("Host") == "127.0.0.1:8080"
    assert requests[0].http_headers.get_header("Accept") == "*/*"


def test_appends_keep_every_exchange_addressable(tmp_path: Path) -> None:
    store = WarcStore(tmp_path, prefix="site")
    bodies = [b"first", b"", b"third" * 1000]
    written = [
        store.write_exchange(f"https://site.test/{i}", {}, 200 + i, {}, body, fetched_at=WHEN)
        for i, body in enumerate(bodies)
    ]
    assert {path for path, _ in written} == {tmp_path / "site-20261121.warc.gz"}
    offsets = [offset for _, offset in written]
    assert offsets == sorted(offsets)
    for (path, offset), body, i in zip(written, bodies, range(3), strict=True):
        stored = read_response(path, offset)
        assert stored.body == body
        assert stored.status == 200 + i
    kinds = [kind for kind, _ in _records(written[0][0])]
    assert kinds == ["warcinfo"] + ["request", "response"] * 3
    assert verify(written[0][0]) == []


def test_an_offset_that_is_no_record_is_a_value_error(tmp_path: Path) -> None:
    store = WarcStore(tmp_path, prefix="site")
    path, offset = store.write_exchange("https://site.test/a", {}, 200, {}, BODY, fetched_at=WHEN)
    for read in (read_response, read_capture):
        with pytest.raises(ValueError, match="no WARC record at"):
            read(path, offset + 7)  # inside a gzip member: no record starts there
    with pytest.raises(ValueError, match="is not a browser capture"):
        read_capture(path, offset)  # a response record


def test_decoded_payload_headers_are_rewritten(tmp_path: Path) -> None:
    store = WarcStore(tmp_path)
    path, offset = store.write_exchange(
        "https://example.org/",
        {},
        200,
        {"Content-Encoding": "gzip", "Transfer-Encoding": "chunked", "Content-Length": "17"},
        BODY,
        fetched_at=WHEN,
    )
    stored = read_response(path, offset)
    names = [name for name, _ in stored.headers]
    assert "Content-Encoding" not in names
    assert "Transfer-Encoding" not in names
    assert ("X-Lyra-Original-Content-Encoding", "gzip") in stored.headers
    assert ("X-Lyra-Original-Transfer-Encoding", "chunked") in stored.headers
    assert ("X-Lyra-Original-Content-Length", "17") in stored.headers
    assert stored.body == BODY


def test_truncated_body_is_marked(tmp_path: Path) -> None:
    store = WarcStore(tmp_path)
    path, offset = store.write_exchange(
        "https://example.org/big", {}, 200, {}, b"x" * 1000, fetched_at=WHEN, truncated=True
    )
    stored = read_response(path, offset)
    assert stored.truncated == "length"
    assert len(stored.body) == 1000


def test_days_go_to_separate_files_in_utc(tmp_path: Path) -> None:
    store = WarcStore(tmp_path, prefix="Example.ORG/../x")
    tokyo = timezone(timedelta(hours=9))
    first, _ = store.write_exchange(
        "https://e.org/", {}, 200, {}, b"a", fetched_at=datetime(2026, 1, 2, 8, 0, tzinfo=tokyo)
    )
    second, _ = store.write_exchange(
        "https://e.org/", {}, 200, {}, b"b", fetched_at=datetime(2026, 1, 2, 10, 0, tzinfo=tokyo)
    )
    # No path separator survives in the prefix: the file stays in the store's root.
    assert first == tmp_path / "example.org_.._x-20260101.warc.gz"
    assert second == tmp_path / "example.org_.._x-20260102.warc.gz"


def test_naive_datetime_is_rejected(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="timezone-aware"):
        WarcStore(tmp_path).write_exchange(
            "https://e.org/", {}, 200, {}, b"", fetched_at=datetime(2026, 1, 1)
        )


def test_verify_reports_a_corrupted_payload(tmp_path: Path) -> None:
    store = WarcStore(tmp_path)
    path, _ = store.write_exchange(
        "https://example.org/", {}, 200, {}, b"ORIGINAL-BODY", fetched_at=WHEN
    )
    raw = gzip.decompress(path.read_bytes())
    assert raw.count(b"ORIGINAL-BODY") == 1
    # Same length, different bytes: only the digest can notice (uncompressed WARC).
    tampered = tmp_path / "tampered.warc"
    tampered.write_bytes(raw.replace(b"ORIGINAL-BODY", b"TAMPERED-BODY"))

    errors = verify(tampered)

    assert len(errors) == 2
    assert "block digest failed" in errors[0]
    assert "payload digest failed" in errors[1]
    assert errors[0].split(":")[0] == errors[1].split(":")[0]  # the same (response) record


def test_verify_reports_a_truncated_file(tmp_path: Path) -> None:
    store = WarcStore(tmp_path)
    path, _ = store.write_exchange(
        "https://example.org/", {}, 200, {}, b"y" * 5000, fetched_at=WHEN
    )
    cut = tmp_path / "cut.warc.gz"
    cut.write_bytes(path.read_bytes()[:-40])

    errors = verify(cut)

    assert len(errors) == 1
    assert errors[0].startswith("gzip stream damaged")


def test_verify_reports_an_empty_file(tmp_path: Path) -> None:
    empty = tmp_path / "empty.warc.gz"
    empty.write_bytes(b"")
    assert verify(empty) == ["no records"]


# -- browser captures ------------------------------------------------------------------

HTML = '<!doctype html><html><body><p id="x">rendered café</p></body></html>'
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 64
RESOURCES = [
    {
        "url": "https://example.org/page",
        "status": 200,
        "resource_type": "document",
        "sha256": "a" * 64,
        "bytes": 120,
    },
    {
        "url": "https://example.org/old",
        "status": 301,
        "resource_type": "document",
        "sha256": None,
        "bytes": None,
    },
]


def _offsets(path: Path) -> list[tuple[str, int]]:
    """(record type, offset) of every record of an uncompressed WARC file."""
    with open(path, "rb") as stream:
        records = ArchiveIterator(stream)
        found = []
        for record in records:
            record.content_stream().read()
            found.append((record.rec_type, records.get_record_offset()))
    return found


def test_browser_capture_is_written_and_read_back(tmp_path: Path) -> None:
    store = WarcStore(tmp_path, prefix="browser-example.org")
    path, offset = store.write_browser_capture(
        "https://example.org/page",
        HTML,
        PNG,
        RESOURCES,
        WHEN,
        200,
        {"content-type": "text/html", "set-cookie": "a=1"},
        requested_url="https://example.org/old",
    )

    assert path == tmp_path / "browser-example.org-20261121.warc.gz"
    records = _records(path)
    assert [kind for kind, _ in records] == ["warcinfo", "resource", "resource", "metadata"]
    page, shot, meta = (headers for _, headers in records[1:])
    assert page["WARC-Target-URI"] == "https://example.org/page"
    assert page["Content-Type"] == "text/html; charset=utf-8"
    assert page["WARC-Date"] == "2026-11-21T12:30:05Z"
    assert page["WARC-Payload-Digest"] == sha1_payload_digest(HTML.encode("utf-8"))
    assert shot["WARC-Target-URI"] == "urn:lyra:screenshot:https://example.org/page"
    assert shot["Content-Type"] == "image/png"
    assert shot["WARC-Payload-Digest"] == sha1_payload_digest(PNG)
    assert shot["WARC-Concurrent-To"] == page["WARC-Record-ID"]
    assert meta["Content-Type"] == "application/json"
    assert meta["WARC-Concurrent-To"] == page["WARC-Record-ID"]
    assert verify(path) == []

    capture = read_capture(path, offset)
    assert capture == StoredCapture(
        target_uri="https://example.org/page",
        warc_date="2026-11-21T12:30:05Z",
        html=HTML,
        screenshot=PNG,
        resources=RESOURCES,
        status=200,
        headers=[("content-type", "text/html"), ("set-cookie", "a=1")],
        requested_url="https://example.org/old",
    )
    assert WarcStore.read_capture(path, offset) == capture


def test_captures_and_exchanges_share_a_file_and_stay_addressable(tmp_path: Path) -> None:
    store = WarcStore(tmp_path, prefix="site")
    first = store.write_browser_capture("https://s.test/1", "<p>1</p>", None, [], WHEN, 200, None)
    exchange = store.write_exchange("https://s.test/2", {}, 200, {}, b"two", fetched_at=WHEN)
    second = store.write_browser_capture("https://s.test/3", "<p>3</p>", PNG, [], WHEN, None, [])

    assert first[0] == exchange[0] == second[0]
    assert read_capture(*first).html == "<p>1</p>"
    assert read_capture(*first).screenshot is None
    assert read_response(*exchange).body == b"two"
    assert read_capture(*second).screenshot == PNG
    assert read_capture(*second).status is None
    kinds = [kind for kind, _ in _records(first[0])]
    assert kinds == [
        "warcinfo",
        *["resource", "metadata"],
        *["request", "response"],
        *["resource", "resource", "metadata"],
    ]
    assert verify(first[0]) == []


def test_read_capture_refuses_a_response_record(tmp_path: Path) -> None:
    store = WarcStore(tmp_path)
    path, offset = store.write_exchange("https://e.org/", {}, 200, {}, b"x", fetched_at=WHEN)
    with pytest.raises(ValueError, match="not a browser capture"):
        read_capture(path, offset)


def test_verify_reports_a_tampered_capture(tmp_path: Path) -> None:
    store = WarcStore(tmp_path)
    path, _ = store.write_browser_capture(
        "https://example.org/", HTML, PNG, RESOURCES, WHEN, 200, None
    )
    raw = gzip.decompress(path.read_bytes())
    assert raw.count(b"rendered caf") == 1
    assert raw.count(b'"status": 301') == 1
    tampered = tmp_path / "tampered.warc"
    # Same lengths: only the digests (and the JSON check) can notice.
    raw = raw.replace(b"rendered caf", b"RENDERED CAF").replace(b'"status": 301', b'"status"; 301')
    tampered.write_bytes(raw)
    offsets = _offsets(tampered)
    assert [kind for kind, _ in offsets] == ["warcinfo", "resource", "resource", "metadata"]
    html_at, meta_at = offsets[1][1], offsets[3][1]

    errors = verify(tampered)

    where = [e.split(": ", 1)[0] for e in errors]
    assert where == [f"offset {html_at}"] * 2 + [f"offset {meta_at}"] * 3
    assert "block digest failed" in errors[0]
    assert "payload digest failed" in errors[1]
    assert "block digest failed" in errors[2]
    assert "payload digest failed" in errors[3]
    assert "metadata JSON does not parse" in errors[4]


def test_verify_reports_a_dangling_concurrent_to(tmp_path: Path) -> None:
    store = WarcStore(tmp_path)
    path, _ = store.write_browser_capture("https://example.org/", HTML, None, [], WHEN, 200, None)
    whole = tmp_path / "whole.warc"
    whole.write_bytes(gzip.decompress(path.read_bytes()))
    offsets = _offsets(whole)
    assert [kind for kind, _ in offsets] == ["warcinfo", "resource", "metadata"]
    raw = whole.read_bytes()
    # Drop the HTML record: the metadata record's link now points nowhere.
    cut = tmp_path / "cut.warc"
    cut.write_bytes(raw[: offsets[1][1]] + raw[offsets[2][1] :])

    errors = verify(cut)

    assert len(errors) == 1
    assert errors[0].startswith(f"offset {offsets[1][1]}: WARC-Concurrent-To <urn:uuid:")
    assert errors[0].endswith("> is not a record of this file")
