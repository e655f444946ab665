"""The HTTP path of a DomainFetcher: guarded, paced, streamed, capped and archived.

`HttpPath` is a mixin of `jobs.site_fetcher.SiteFetcher` (the state lives there; the
`DomainFetcher` actor owns one): one request per call of `_exchange`, after the
domain's politeness slot, to the addresses the net guard pinned, with the body
streamed through a bounded decoder and ended at once at the cap or on timeout
(curl_cffi's own close waits for the whole body), then written to the WARC.
`_fetch_http` follows same-domain redirects and consults robots.txt (except for API
calls, see `RequestSpec`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import zlib
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

from curl_cffi import CurlOpt
from curl_cffi.requests import AsyncSession
from curl_cffi.requests.exceptions import RequestException, Timeout

from lyra.config.settings import Settings
from lyra.jobs.fetch_state import (
    MAX_PERSISTED_ROBOTS_BYTES,
    PolitenessClock,
    Validator,
    ValidatorCache,
)
from lyra.pipelines.net.backoff import backoff_delay
from lyra.pipelines.net.body import BodyReader
from lyra.pipelines.net.cookies import CookieJar
from lyra.pipelines.net.domains import registrable_domain
from lyra.pipelines.net.net_guard import GuardedTarget, TargetRefused, check_url
from lyra.pipelines.net.robots import (
    MAX_ROBOTS_BYTES,
    MAX_ROBOTS_REDIRECTS,
    RobotsPolicy,
    effective_qps,
    origin_of,
    robots_url,
)
from lyra.pipelines.net.token_bucket import TokenBucket
from lyra.storage.warc import WarcStore, read_response

log = logging.getLogger(__name__)

FetchResult = dict[str, Any]
REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
# Codings BodyReader decodes itself (bounded); nothing else is advertised.
ACCEPT_ENCODING = "gzip, deflate, br"
MAX_SESSIONS = 8  # kept-alive sessions per fetcher (hosts of one domain)
STREAM_CLOSE_GRACE_SECONDS = 1.0
# A token due in less than this counts as due (float residue of the bucket's sums).
SLOT_TOLERANCE_S = 1e-6
# The clock file is written before a politeness wait, for a departure this much later.
CLOCK_MARGIN_S = 0.01
# The event loop's timers are only as fine as epoll's millisecond: the end of a
# politeness wait is awaited by yielding to the loop instead.
SPIN_S = 0.002


# Request headers that carry credentials: archived as "[redacted]", never in clear.
_SECRET_HEADERS = frozenset({"authorization", "x-api-key", "proxy-authorization"})


@dataclass(frozen=True)
class RequestSpec:
    """What a caller asks beyond a plain GET of a page.

    `api`: the URL is a documented programmatic endpoint (an academic API) that Lyra is
    invited to call at the API's own published rate: robots.txt, written for crawlers
    of web resources, is not consulted, and a refused answer is never escalated to Tor
    or the browser (docs/decisions/0012). Politeness still applies in full: the
    domain's bucket, circuit breaker, Retry-After and the WARC record.
    """

    method: str = "GET"
    headers: tuple[tuple[str, str], ...] = ()
    json_body: Any = None
    api: bool = False


_PLAIN_GET = RequestSpec()


@dataclass
class _Exchange:
    """The outcome of one HTTP request (one hop)."""

    url: str
    status: int | None = None
    headers: list[tuple[str, str]] = field(default_factory=list)
    body: bytes = b""
    truncated: bool = False
    error: str | None = None
    fetched_at: datetime = field(default_factory=lambda: datetime.now(UTC))
    ip: str | None = None
    warc_path: str | None = None
    warc_offset: int | None = None
    request_headers: dict[str, str] = field(default_factory=dict)

    def header(self, name: str) -> str | None:
        lower = name.lower()
        for key, value in self.headers:
            if key.lower() == lower:
                return value
        return None


def _content_type(headers: list[tuple[str, str]]) -> str:
    for key, value in headers:
        if key.lower() == "content-type":
            return value.split(";", 1)[0].strip().lower()
    return ""


def _header_dict(headers: list[tuple[str, str]]) -> dict[str, str]:
    merged: dict[str, str] = {}
    for key, value in headers:
        lower = key.lower()
        merged[lower] = f"{merged[lower]}, {value}" if lower in merged else value
    return merged


def blocked_result(url: str, domain: str, rule: str) -> FetchResult:
    """What a fetch of a BLOCKED domain returns: no request made (ARCHITECTURE §4).

    The keys of every FetchResult, status None and an empty body, ``error``
    ``domain_blocked`` and ``block_rule`` the domains.yaml rule that blocks it.
    """
    return {
        "url": url,
        "final_url": url,
        "domain": domain,
        "status": None,
        "headers": {},
        "body": b"",
        "content_type": "",
        "truncated": False,
        "warc_path": None,
        "warc_offset": None,
        "fetched_at": datetime.now(UTC).isoformat(),
        "elapsed_ms": 0.0,
        "redirects": [],
        "redirect_to": None,
        "error": "domain_blocked",
        "block_rule": rule,
        "not_modified": False,
        "retry_after": None,
        "sent_headers": {},
        "attempts": [],
        "path": "http",
        "challenge": None,
        "circuit_state": None,
    }


async def _read_body(response: Any, reader: BodyReader, exchange: _Exchange) -> None:
    """Read and decode a streamed body up to the reader's cap (then stop the transfer)."""
    parts: list[bytes] = []
    try:
        async for chunk in response.aiter_content():
            parts.append(reader.feed(chunk))
            if reader.full:
                break
        parts.append(reader.flush())
    except zlib.error as exc:
        exchange.error = f"decode_error:{exc}"
    finally:
        exchange.body = b"".join(parts)
        exchange.truncated = reader.full


async def _close_stream(response: Any) -> None:
    """End a streamed transfer now: curl_cffi's own close waits for the whole body.

    `quit_now` makes the next write callback abort the transfer; a server that sends
    nothing more (slowloris) never calls it, so the transfer task is cancelled after
    a short grace period.
    """
    task = getattr(response, "astream_task", None)
    if task is None or task.done():
        return
    quit_now = getattr(response, "quit_now", None)
    if quit_now is not None:
        quit_now.set()
    try:
        await asyncio.wait_for(asyncio.shield(task), STREAM_CLOSE_GRACE_SECONDS)
    except TimeoutError:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError, RequestException):
            await task
    except RequestException:
        pass  # the abort we asked for


def _archivable_headers(headers: dict[str, str]) -> dict[str, str]:
    """Request headers as the WARC keeps them: API keys and credentials redacted."""
    return {k: ("[redacted]" if k.lower() in _SECRET_HEADERS else v) for k, v in headers.items()}


class HttpPath:
    """The HTTP-path methods of SiteFetcher (a mixin: the state is the SiteFetcher's)."""

    domain: str
    settings: Settings
    base_qps: float
    _bucket: TokenBucket
    _clock: PolitenessClock
    _cookies: CookieJar
    _validators: ValidatorCache
    _robots: dict[str, RobotsPolicy]
    _robots_raw: dict[str, dict[str, Any]]
    _warc: WarcStore
    # A further refusal before any request (the DomainFetcher's: a BLOCKED domain of
    # domains.yaml), the rule that refuses `url` or None; every hop and robots.txt.
    refuse: Callable[[str], str | None] | None = None
    _sessions: OrderedDict[tuple[Any, ...], AsyncSession[Any]]
    _requests_made: int
    _last_request_at: float | None
    # Methods of SiteFetcher this mixin uses (._metrics_ and ._result).
    _metrics_: Callable[[], Any]
    _result: Callable[..., FetchResult]

    async def _fetch_http(
        self,
        url: str,
        redirects_left: int,
        started: float,
        proxy: str | None,
        spec: RequestSpec = _PLAIN_GET,
    ) -> FetchResult:
        hops: list[str] = []
        current = url
        last: _Exchange | None = None
        ua = self.settings.fetch.robots_user_agent
        while True:
            try:
                target = await self._guard(current)
            except TargetRefused as exc:
                return self._result(
                    url, current, last, hops, started, error=f"target_refused:{exc.reason}"
                )
            if registrable_domain(current) != self.domain:
                return self._result(
                    url, current, None, hops, started, error="wrong_domain", redirect_to=current
                )
            if not spec.api:
                policy = await self._policy_for(current)
                if not policy.allowed(current, ua):
                    return self._result(
                        url, current, None, hops, started, error="robots_disallowed"
                    )
            plain = proxy is None and spec.method == "GET"
            validator = self._validators.get(current) if plain else None
            last = await self._exchange_with_retries(target, validator, proxy, spec=spec)
            if last.error is not None or last.status not in REDIRECT_STATUSES:
                if last.status == 304 and validator is not None:
                    return self._not_modified(url, current, last, hops, started, validator)
                if last.error is None and last.status == 200:
                    self._remember_validator(current, last)
                return self._result(url, current, last, hops, started, error=last.error)
            location = last.header("location")
            if not location or spec.method != "GET":
                # A redirected POST is not replayed: the caller sees the 30x.
                return self._result(url, current, last, hops, started, error=None)
            if redirects_left <= 0:
                return self._result(url, current, last, hops, started, error="too_many_redirects")
            following = urljoin(current, location.strip())
            try:
                # Checked here, not only by whoever follows it: a refused hop is
                # reported by the fetcher that saw the redirect.
                await self._guard(following)
            except TargetRefused as exc:
                return self._result(
                    url, current, last, hops, started,
                    error=f"target_refused:{exc.reason}", redirect_to=following,
                )  # fmt: skip
            if registrable_domain(following) != self.domain:
                # Another domain's bucket and robots.txt govern that request.
                return self._result(
                    url, current, last, hops, started,
                    error="cross_domain_redirect", redirect_to=following,
                )  # fmt: skip
            hops.append(current)
            redirects_left -= 1
            current = following

    def _remember_validator(self, url: str, exchange: _Exchange) -> None:
        etag = exchange.header("etag")
        modified = exchange.header("last-modified")
        if exchange.truncated or exchange.warc_path is None or exchange.warc_offset is None:
            return
        if not etag and not modified:
            return
        self._validators.put(
            url,
            Validator(
                etag=etag,
                last_modified=modified,
                warc_path=exchange.warc_path,
                warc_offset=exchange.warc_offset,
                content_type=_content_type(exchange.headers),
                stored_at=time.time(),
            ),
        )

    def _not_modified(
        self,
        url: str,
        final_url: str,
        exchange: _Exchange,
        hops: list[str],
        started: float,
        validator: Validator,
    ) -> FetchResult:
        """A 304: the body is the stored one (read back from its WARC record)."""
        try:
            stored = read_response(Path(validator.warc_path), validator.warc_offset)
        except (OSError, ValueError):
            log.warning("stored body of %s is unreadable; dropping its validator", final_url)
            self._validators.entries.pop(final_url, None)
            return self._result(url, final_url, exchange, hops, started, error="stored_body_lost")
        result = self._result(url, final_url, exchange, hops, started, error=None)
        result.update(
            body=stored.body,
            content_type=validator.content_type,
            not_modified=True,
            stored_warc_path=validator.warc_path,
            stored_warc_offset=validator.warc_offset,
        )
        return result

    async def _guard(self, url: str) -> GuardedTarget:
        rule = self.refuse(url) if self.refuse is not None else None
        if rule is not None:
            raise TargetRefused("domain_blocked", rule)
        network = self.settings.network
        # getaddrinfo blocks; off the event loop so `state` calls still answer.
        return await asyncio.to_thread(
            check_url,
            url,
            allow_private=network.allow_private_targets,
            allowed_hosts=list(network.allowed_hosts),
        )

    async def _policy_for(self, url: str) -> RobotsPolicy:
        origin = origin_of(url)
        cached = self._robots.get(origin)
        if cached is not None and cached.is_fresh(self.settings.fetch.robots_cache_seconds):
            return cached
        policy, raw = await self._fetch_robots(robots_url(url))
        self._robots[origin] = policy
        if raw is not None:
            self._robots_raw[origin] = raw
        else:
            self._robots_raw.pop(origin, None)
        self._apply_robots_rate()
        return policy

    async def _fetch_robots(self, url: str) -> tuple[RobotsPolicy, dict[str, Any] | None]:
        current = url
        for _ in range(MAX_ROBOTS_REDIRECTS + 1):
            try:
                target = await self._guard(current)
            except TargetRefused as exc:
                # A robots.txt we may not read is treated as unreachable: disallow.
                log.info(
                    "robots.txt %s refused (%s): disallowing %s", current, exc.reason, self.domain
                )
                return RobotsPolicy.from_response(None, None), None
            exchange = await self._exchange_with_retries(target, None, None, cap=MAX_ROBOTS_BYTES)
            if exchange.error is not None:
                return RobotsPolicy.from_response(None, None), None
            location = exchange.header("location")
            if exchange.status in REDIRECT_STATUSES and location:
                current = urljoin(current, location.strip())
                continue
            now = time.time()
            policy = RobotsPolicy.from_response(exchange.status, exchange.body, fetched_at=now)
            raw: dict[str, Any] | None = None
            if len(exchange.body) <= MAX_PERSISTED_ROBOTS_BYTES:
                raw = {
                    "status": exchange.status,
                    "body": exchange.body.decode("utf-8", "replace"),
                    "fetched_at": now,
                }
            return policy, raw
        # More than five redirects: RFC 9309 §2.3.1.2 allows reading it as unavailable.
        return RobotsPolicy.from_response(404, None), None

    def _apply_robots_rate(self) -> None:
        ua = self.settings.fetch.robots_user_agent
        rate = self.base_qps
        for policy in self._robots.values():
            rate = min(rate, effective_qps(self.base_qps, policy, ua))
        if rate != self._bucket.rate_per_s:
            self._bucket.set_rate(rate)

    async def _wait_for_slot(self) -> None:
        """Wait for the bucket's token; the request leaves as soon as this returns.

        The departure is recorded on disk before the wait, with a margin, so the
        file write is not between the token and the request, and a crash while
        waiting leaves a clock that is late, never early; a wake-up later than the
        margin records the real time.
        """
        wait = self._bucket.wait_time()
        if wait <= SLOT_TOLERANCE_S:
            self._mark_request()
            return
        while wait > SLOT_TOLERANCE_S:
            # The wait ends at a deadline fixed before the file write, which would
            # otherwise lengthen every interval by its own duration.
            deadline = time.monotonic() + wait
            self._mark_request(time.time() + wait + CLOCK_MARGIN_S)
            await sleep_precisely(deadline - time.monotonic())
            wait = self._bucket.wait_time()
        # Woken later than the margin (a loaded machine): the record must still not be
        # earlier than the departure. Only then is the file written again.
        now = time.time()
        if self._last_request_at is None or now > self._last_request_at:
            self._mark_request(now)

    def _mark_request(self, when: float | None = None) -> None:
        """Record on disk, before the request leaves, when it leaves (now by default)."""
        when = time.time() if when is None else when
        self._clock.write(when)
        self._last_request_at = when

    def _take_token(self) -> None:
        self._bucket.reserve()
        self._requests_made += 1
        self._mark_request()

    def _request_headers(
        self, url: str, validator: Validator | None, spec: RequestSpec = _PLAIN_GET
    ) -> dict[str, str]:
        headers: dict[str, str] = dict(spec.headers)
        ua = self.settings.fetch.user_agent
        if ua:
            headers["User-Agent"] = ua
        cookie = self._cookies.header_for(url, time.time())
        if cookie:
            headers["Cookie"] = cookie
        if validator is not None:
            if validator.etag:
                headers["If-None-Match"] = validator.etag
            if validator.last_modified:
                headers["If-Modified-Since"] = validator.last_modified
        return headers

    async def _exchange_with_retries(
        self,
        target: GuardedTarget,
        validator: Validator | None,
        proxy: str | None,
        cap: int | None = None,
        spec: RequestSpec = _PLAIN_GET,
    ) -> _Exchange:
        """One request; a connection error is retried after an exponential backoff (±10 %)."""
        cfg = self.settings.fetch
        attempt = 0
        while True:
            exchange = await self._exchange(target, cap, validator, proxy, spec)
            retryable = exchange.error is not None and exchange.error.startswith("network_error")
            if not retryable or attempt >= cfg.network_retries:
                return exchange
            delay = backoff_delay(attempt, cfg.backoff_base_seconds, cfg.backoff_max_seconds)
            log.info("retrying %s after %s in %.2fs", target.url, exchange.error, delay)
            await asyncio.sleep(delay)
            attempt += 1

    async def _exchange(
        self,
        target: GuardedTarget,
        cap: int | None,
        validator: Validator | None = None,
        proxy: str | None = None,
        spec: RequestSpec = _PLAIN_GET,
    ) -> _Exchange:
        """One request (no redirects) with politeness wait, pinning, caps and a WARC record."""
        fetch_cfg = self.settings.fetch
        await self._wait_for_slot()
        exchange = _Exchange(url=target.url)
        charged = False
        request_headers = self._request_headers(target.url, validator, spec)
        exchange.request_headers = request_headers
        path = "tor" if proxy is not None else "http"
        response: Any = None
        try:
            async with asyncio.timeout(fetch_cfg.timeout_seconds):
                session = self._session(target, proxy)
                response = await session.request(
                    spec.method,  # type: ignore[arg-type]
                    target.url,
                    headers=request_headers or None,
                    json=spec.json_body,
                    allow_redirects=False,
                    accept_encoding=ACCEPT_ENCODING,
                    timeout=(fetch_cfg.connect_timeout_seconds, fetch_cfg.timeout_seconds),
                    stream=True,
                )
                # The token is taken when the answer starts: the server has seen the
                # request by then, so the next one is provably ≥ 1/qps after it on
                # the server's clock (see pipelines/net/token_bucket.py).
                self._take_token()
                charged = True
                exchange.status = int(response.status_code)
                exchange.headers = list(response.headers.multi_items())
                exchange.ip = str(response.primary_ip) if response.primary_ip else None
                if (
                    proxy is None
                    and exchange.ip is not None
                    and exchange.ip not in target.addresses
                ):
                    exchange.error = "target_refused:address_changed"
                    return exchange
                limit = cap if cap is not None else self._cap_for(exchange.headers)
                try:
                    reader = BodyReader(
                        _header_dict(exchange.headers).get("content-encoding"), limit
                    )
                except ValueError as exc:
                    exchange.error = f"unsupported_encoding:{exc}"
                else:
                    await _read_body(response, reader, exchange)
        except (TimeoutError, Timeout):
            exchange.error = "timeout"
        except RequestException as exc:
            exchange.error = f"network_error:{type(exc).__name__}"
            log.info("fetch %s failed: %s", target.url, exc)
        finally:
            if response is not None:
                await _close_stream(response)
            if not charged:
                self._take_token()
        self._cookies.update_from_response(
            target.url,
            [v for k, v in exchange.headers if k.lower() == "set-cookie"],
            time.time(),
        )
        self._metrics_().request(path, exchange.status, len(exchange.body))
        if exchange.status is not None:
            warc_path, offset = await asyncio.to_thread(
                self._warc.write_exchange,
                target.url,
                _archivable_headers(request_headers),
                exchange.status,
                exchange.headers,
                exchange.body,
                fetched_at=exchange.fetched_at,
                truncated=exchange.truncated,
                method=spec.method,
                ip_address=exchange.ip,
            )
            exchange.warc_path, exchange.warc_offset = str(warc_path), offset
        return exchange

    def _session(self, target: GuardedTarget, proxy: str | None) -> AsyncSession[Any]:
        """A kept-alive session per (host, pinned addresses, proxy): no new TLS handshake
        and no new connection per request, so the site sees fewer of both.

        Cookies are never kept by curl (`discard_cookies`): the domain's own jar
        decides what is sent. Content decoding is off: `BodyReader` decodes, so a
        compression bomb is cut before it expands (libcurl would expand it inside
        one callback, with no chance to stop it at the cap).
        """
        key = (target.host, target.port, tuple(target.addresses), proxy)
        found = self._sessions.get(key)
        if found is not None:
            self._sessions.move_to_end(key)
            return found
        options: dict[CurlOpt, Any] = {CurlOpt.HTTP_CONTENT_DECODING: 0}
        resolve = target.curl_resolve() if proxy is None else []
        if resolve:
            options[CurlOpt.RESOLVE] = resolve
        session: AsyncSession[Any] = AsyncSession(
            impersonate=self.settings.fetch.impersonate,
            curl_options=options,
            proxy=proxy,
            discard_cookies=True,
        )
        self._sessions[key] = session
        while len(self._sessions) > MAX_SESSIONS:
            _key, old = self._sessions.popitem(last=False)
            asyncio.get_running_loop().create_task(old.close())
        return session

    def _cap_for(self, headers: list[tuple[str, str]]) -> int:
        cfg = self.settings.fetch
        limit = cfg.max_pdf_bytes if _content_type(headers) == "application/pdf" else cfg.max_bytes
        encoded = _header_dict(headers)
        # A compressed body that expands beyond ratio x its wire size is a bomb: cut it.
        if encoded.get("content-encoding") and encoded.get("content-length", "").isdigit():
            wire = int(encoded["content-length"])
            limit = min(limit, max(64 * 1024, int(wire * cfg.max_decompressed_ratio)))
        return int(limit)


async def sleep_precisely(seconds: float) -> None:
    """`asyncio.sleep`, but ending within microseconds of `seconds`, not up to 1 ms late.

    Sleeps all but the last `SPIN_S` on a timer, then yields to the loop until the
    time is reached, so other coroutines still run meanwhile.
    """
    deadline = time.monotonic() + seconds
    if seconds > SPIN_S:
        await asyncio.sleep(seconds - SPIN_S)
    while time.monotonic() < deadline:
        await asyncio.sleep(0)
