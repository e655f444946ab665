"""Loopback stand-ins for the Semantic Scholar Graph API and the OpenAlex works API.

End-to-end tests point `academic.semantic_scholar.base_url` and
`academic.openalex.base_url` at an `S2Server` and an `OpenAlexServer` that serve one
`AcademicWorld`, so the real request builders, the fetch layer and the real parsers
meet answers shaped like the recorded ones in shared/realworld/academic/ (read there,
never copied): S2 always sends `paperId`, `venue: ""` when unknown, `null` for an
unknown batch id and for unresolved references, omits `data` on an empty search and
`next` on a last page; OpenAlex sends full-URL ids, inverted abstracts and a
`next_cursor` after every non-empty cursor page (the empty page after the last one
carries `null`).

Both servers record each request with its arrival time on the server's monotonic
clock (politeness is measured where it lands), can be told to fail the next requests
(429 with `Retry-After`, 5xx), and answer `/robots.txt` with 404, recorded apart.

Search rule (both APIs, documented because tests depend on it): the query's words
(lowercase letters and digits, longer than 2 characters, minus a few stop words) are
matched against the title and abstract the API knows; a paper matches when any word
does, ranked by how many distinct words it matches, ties in world order.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, NamedTuple, Self
from urllib.parse import parse_qsl, unquote, urlsplit

from tests.academic_world import (
    AcademicWorld,
    FakePaper,
    Payload,
    S2FieldError,
    cursor_offset,
    cursor_token,
    openalex_filter,
    openalex_work,
    s2_edge,
    s2_edges,
    s2_paper,
    sample_world,
)

__all__ = ["AcademicWorld", "FakePaper", "OpenAlexServer", "S2Server", "sample_world"]


class ApiHit(NamedTuple):
    """One request as the server saw it; `at` is the server's `time.monotonic()`.

    Header names are lowercased (HTTP names are case-insensitive; clients differ).
    """

    at: float
    method: str
    path: str
    headers: dict[str, str]
    body: bytes


class Reply(NamedTuple):
    """An answer: status, JSON payload, extra headers."""

    status: int
    payload: Payload
    headers: dict[str, str]


@dataclass
class _Failure:
    status: int
    retry_after: str | None
    body: Payload


class _Httpd(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False


class FakeApiServer:
    """A threaded loopback HTTP server answering one academic API over a world.

    Subclasses implement `answer`; this class records requests, injects failures,
    answers `/robots.txt` with 404 (recorded in `robots_requests` only, and never
    failed: an API host's robots file is not part of its API) and owns the socket.
    """

    api = ""

    def __init__(self, world: AcademicWorld, host: str = "127.0.0.1") -> None:
        self.world = world
        self.host = host
        self._lock = threading.Lock()
        self._requests: list[ApiHit] = []
        self._robots: list[ApiHit] = []
        self._failures: list[_Failure] = []
        self._httpd = _Httpd((host, 0), self._handler_class())
        self.port = int(self._httpd.server_address[1])
        # A short poll interval: shutdown() waits up to one interval, once per test.
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self._thread.start()

    @property
    def origin(self) -> str:
        """`http://host:port` of this server."""
        return f"http://{self.host}:{self.port}"

    @property
    def base_url(self) -> str:
        """The value for `academic.<api>.base_url` (the API root is the origin)."""
        return self.origin

    @property
    def requests(self) -> list[ApiHit]:
        """A snapshot of the API requests received so far, in arrival order."""
        with self._lock:
            return list(self._requests)

    @property
    def robots_requests(self) -> list[ApiHit]:
        """A snapshot of the `/robots.txt` requests received so far."""
        with self._lock:
            return list(self._robots)

    def paths(self) -> list[str]:
        """Paths with query of the API requests received so far."""
        return [hit.path for hit in self.requests]

    def min_gap(self) -> float:
        """Smallest interval in seconds between consecutive API request arrivals.

        Raises ValueError with fewer than two requests: no interval was observed, and
        an infinite gap would let a politeness assertion pass without evidence.
        """
        times = [hit.at for hit in self.requests]
        if len(times) < 2:
            raise ValueError(f"min_gap needs two requests, the server saw {len(times)}")
        return min(b - a for a, b in itertools.pairwise(times))

    def fail_next(
        self,
        status: int,
        count: int = 1,
        retry_after: str | None = None,
        body: Payload | None = None,
    ) -> None:
        """Answer the next `count` API requests with `status` (and `Retry-After`).

        `body` replaces the API's usual error body: JSON for a dict or list, sent as is
        for `str` / `bytes` (a gateway's HTML error page, say).
        """
        failure = _Failure(status, retry_after, self.error_body(status) if body is None else body)
        with self._lock:
            self._failures.extend([failure] * count)

    def clear(self) -> None:
        """Forget recorded requests (between phases of one test)."""
        with self._lock:
            self._requests.clear()
            self._robots.clear()

    def wait_for(
        self, predicate: Callable[[list[ApiHit]], bool], timeout: float = 10.0
    ) -> list[ApiHit]:
        """Poll until `predicate(requests)` holds; raise TimeoutError otherwise."""
        deadline = time.monotonic() + timeout
        while not predicate(snapshot := self.requests):
            if time.monotonic() >= deadline:
                raise TimeoutError(f"not met within {timeout}s; saw {[h.path for h in snapshot]}")
            time.sleep(0.01)
        return snapshot

    def close(self) -> None:
        """Stop serving and release the port."""
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def error_body(self, status: int) -> Payload:
        """The body this API sends with an error status."""
        return {"error": f"{status} {HTTPStatus(status).phrase}"}

    def answer(self, hit: ApiHit, path: str, query: dict[str, str]) -> Reply:
        """The reply to one API request; `path` is percent-decoded."""
        raise NotImplementedError

    def _dispatch(self, hit: ApiHit) -> Reply:
        split = urlsplit(hit.path)
        if split.path == "/robots.txt":
            with self._lock:
                self._robots.append(hit)
            return Reply(404, None, {})
        with self._lock:
            self._requests.append(hit)
            failure = self._failures.pop(0) if self._failures else None
        if failure is not None:
            extra = {"Retry-After": failure.retry_after} if failure.retry_after else {}
            return Reply(failure.status, failure.body, extra)
        query = dict(parse_qsl(split.query, keep_blank_values=True))
        return self.answer(hit, unquote(split.path), query)

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            # Headers and body go out in two writes; with Nagle on, a keep-alive client
            # waits ~40 ms on each answer for the delayed ACK (measured with curl_cffi).
            disable_nagle_algorithm = True

            def do_GET(self) -> None:
                self._serve()

            def do_POST(self) -> None:
                self._serve()

            def _serve(self) -> None:
                at = time.monotonic()
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                headers = {k.lower(): v for k, v in self.headers.items()}
                hit = ApiHit(at, self.command, self.path, headers, body)
                reply = server._dispatch(hit)
                if reply.payload is None:
                    data, kind = b"Not Found", "text/plain"
                elif isinstance(reply.payload, str | bytes):
                    raw = reply.payload
                    data = raw.encode() if isinstance(raw, str) else raw
                    kind = "text/html" if data.lstrip().startswith(b"<") else "text/plain"
                else:
                    data, kind = json.dumps(reply.payload).encode(), "application/json"
                self.send_response(reply.status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(data)))
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: object) -> None:
                return  # requests are in server.requests

        return Handler


def _int_param(query: Mapping[str, str], name: str, default: int) -> int | None:
    """An integer query parameter, None when it is not a number."""
    text = query.get(name, str(default))
    return int(text) if text.lstrip("-").isdigit() else None


class S2Server(FakeApiServer):
    """Semantic Scholar Graph API v1 over a world: search, paper, batch, links.

    With `api_key` set, a request whose `x-api-key` differs answers 403 (as S2 does
    for a wrong key); a request without the header is served (S2's shared pool).
    """

    api = "semantic_scholar"
    SEARCH_MAX_LIMIT = 100
    LINKS_MAX_LIMIT = 1000
    WINDOW = 1000  # S2 serves offset + limit up to 1000 on relevance search
    BATCH_MAX_IDS = 500

    def __init__(
        self, world: AcademicWorld, host: str = "127.0.0.1", *, api_key: str | None = None
    ) -> None:
        self.api_key = api_key
        super().__init__(world, host)

    def error_body(self, status: int) -> Payload:
        if status == 429:  # the gateway's wording, not the API's `error` form
            return {"message": "Too Many Requests. Please wait and try again.", "code": "429"}
        if status >= 500:
            return {"message": "Internal server error"}
        return {"error": HTTPStatus(status).phrase}

    def answer(self, hit: ApiHit, path: str, query: dict[str, str]) -> Reply:
        key = hit.headers.get("x-api-key")
        if self.api_key is not None and key is not None and key != self.api_key:
            return Reply(403, {"message": "Forbidden"}, {})
        prefix = "/graph/v1/paper/"
        if not path.startswith(prefix):
            return _s2_error(404, f"Path {path} not found")
        rest = path[len(prefix) :]
        fields = [f for f in query.get("fields", "title").split(",") if f]
        try:
            if hit.method == "POST" and rest == "batch":
                return self._batch(hit.body, fields)
            if hit.method != "GET":
                return _s2_error(405, f"{hit.method} is not allowed on {path}")
            if rest == "search":
                return self._search(query, fields)
            for direction in ("references", "citations"):
                if rest.endswith("/" + direction):
                    return self._links(rest[: -len(direction) - 1], direction, query, fields)
            return self._paper(rest, fields)
        except S2FieldError as exc:
            return _s2_error(400, str(exc))

    def _paper(self, identifier: str, fields: list[str]) -> Reply:
        paper = self.world.s2_lookup(identifier)
        if paper is None:
            return _s2_error(404, f"Paper with id {identifier} not found")
        return Reply(200, s2_paper(self.world, paper, fields), {})

    def _batch(self, body: bytes, fields: list[str]) -> Reply:
        try:
            ids = json.loads(body or b"{}").get("ids")
        except (ValueError, AttributeError):
            ids = None
        if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
            return _s2_error(400, "Body must be a JSON object with a list of string ids")
        if len(ids) > self.BATCH_MAX_IDS:
            return _s2_error(400, f"Too many ids: {len(ids)}, at most {self.BATCH_MAX_IDS}")
        found = [self.world.s2_lookup(i) for i in ids]
        return Reply(200, [s2_paper(self.world, p, fields) if p else None for p in found], {})

    def _search(self, query: dict[str, str], fields: list[str]) -> Reply:
        text = query.get("query", "").strip()
        offset, limit = _int_param(query, "offset", 0), _int_param(query, "limit", 100)
        if not text:
            return _s2_error(400, "Missing required parameter: 'query'")
        if offset is None or limit is None or not 0 < limit <= self.SEARCH_MAX_LIMIT:
            return _s2_error(400, f"limit must be between 1 and {self.SEARCH_MAX_LIMIT}")
        if offset < 0 or offset + limit > self.WINDOW:
            return _s2_error(400, "Requested data for this limit and/or offset is not available")
        found = self.world.search(text, (p for p in self.world.papers if p.in_s2), s2=True)
        hits = [p for p, _ in found]
        page: dict[str, Any] = {"total": len(hits), "offset": offset}
        if offset + limit < len(hits):
            page["next"] = offset + limit
        data = [s2_paper(self.world, p, fields) for p in hits[offset : offset + limit]]
        if hits:  # S2 leaves `data` out of an empty result (recorded empty search)
            page["data"] = data
        return Reply(200, page, {})

    def _links(
        self, identifier: str, direction: str, query: dict[str, str], fields: list[str]
    ) -> Reply:
        paper = self.world.s2_lookup(identifier)
        if paper is None:
            return _s2_error(404, f"Paper with id {identifier} not found")
        offset, limit = _int_param(query, "offset", 0), _int_param(query, "limit", 100)
        if offset is None or limit is None or offset < 0 or not 0 < limit <= self.LINKS_MAX_LIMIT:
            return _s2_error(400, f"limit must be between 1 and {self.LINKS_MAX_LIMIT}")
        edges = s2_edges(self.world, paper, direction)
        page: dict[str, Any] = {"offset": offset}
        if offset + limit < len(edges):
            page["next"] = offset + limit
        page["data"] = [
            s2_edge(self.world, e, direction, fields) for e in edges[offset : offset + limit]
        ]
        return Reply(200, page, {})


def _s2_error(status: int, message: str) -> Reply:
    return Reply(status, {"error": message}, {})


class OpenAlexServer(FakeApiServer):
    """OpenAlex works API over a world: `/works` lists and `/works/{id}` lookups.

    Lists page by `cursor` (`*` first; a cursor after every non-empty page, null on
    the empty page past the end) or, without one, by `page` (no `next_cursor` key).
    """

    api = "openalex"
    MAX_PER_PAGE = 200

    def error_body(self, status: int) -> Payload:
        if status == 429:
            return {"error": "Too Many Requests", "message": "Rate limit exceeded"}
        return {"error": f"{status} {HTTPStatus(status).phrase}", "message": "Server error"}

    def answer(self, hit: ApiHit, path: str, query: dict[str, str]) -> Reply:
        if hit.method != "GET":
            return _oa_error(405, f"{hit.method} is not allowed")
        select = [s for s in query.get("select", "").split(",") if s]
        known = openalex_work(_PROBE, _PROBE.papers[0])  # every field a work object has
        bad = [s for s in select if s not in known and s != "relevance_score"]
        if bad:
            return _oa_error(
                400,
                f"{bad[0]} is not a valid select field. Valid fields for select are: "
                f"{', '.join(known)}.",
            )
        if path == "/works":
            return self._list(query, select)
        if path.startswith("/works/"):
            paper = self.world.openalex_lookup(path[len("/works/") :])
            if paper is None:
                return _not_found()
            return Reply(200, _select(openalex_work(self.world, paper), select), {})
        return _not_found()

    def _list(self, query: dict[str, str], select: list[str]) -> Reply:
        per_page = _int_param(query, "per-page", _int_param(query, "per_page", 25) or 0)
        if per_page is None or not 1 <= per_page <= self.MAX_PER_PAGE:
            return _oa_error(400, f"per-page must be between 1 and {self.MAX_PER_PAGE}")
        works = [p for p in self.world.papers if p.in_openalex]
        try:
            if "filter" in query:
                works = openalex_filter(self.world, query["filter"], works)
        except ValueError as exc:
            return _oa_error(400, str(exc))
        scores: dict[str, int] = {}
        if query.get("search", "").strip():
            found = self.world.search(query["search"], works, s2=False)
            works, scores = [p for p, _ in found], {p.key: score for p, score in found}
        meta: dict[str, Any] = {"count": len(works), "db_response_time_ms": 1}
        if "cursor" in query:
            start = cursor_offset(query["cursor"])
            if start is None:
                return _oa_error(400, f"'{query['cursor']}' is not a valid cursor")
            meta["page"] = None
        else:
            page_no = _int_param(query, "page", 1)
            if page_no is None or page_no < 1:
                return _oa_error(400, "page must be a positive integer")
            start = (page_no - 1) * per_page
            meta["page"] = page_no
        chunk = works[start : start + per_page]
        meta["per_page"] = per_page
        if "cursor" in query:
            meta["next_cursor"] = cursor_token(start + len(chunk)) if chunk else None
        meta["groups_count"] = None
        results = []
        for p in chunk:
            work = openalex_work(self.world, p)
            if scores:
                work["relevance_score"] = float(scores[p.key])
            results.append(_select(work, select))
        return Reply(200, {"meta": meta, "results": results, "group_by": []}, {})


_PROBE = AcademicWorld([FakePaper(key="probe", title="Probe")])


def _select(work: dict[str, Any], select: list[str]) -> dict[str, Any]:
    return {k: v for k, v in work.items() if k in select} if select else work


def _oa_error(status: int, message: str) -> Reply:
    return Reply(status, {"error": "Invalid query parameters error.", "message": message}, {})


def _not_found() -> Reply:
    """OpenAlex's answer for an unknown id or path (its framework's stock 404)."""
    message = (
        "The requested URL was not found on the server. If you entered the URL manually "
        "please check your spelling and try again."
    )
    return Reply(404, {"error": "404 Not Found", "message": message}, {})
