"""Chromium for Lyra: renders, pages for a person, and the network rules around them.

The work of the BrowserActor (actors/browser.py; ARCHITECTURE §2, §3 step 6; seed 003 §4.3).

Renders JavaScript pages and SERPs with Playwright, takes a screenshot of each,
archives every render to WARC, and opens pages for a person to solve a CAPTCHA or
log in (seed 003 §3.6.1). Three kinds of browser context, each opened lazily and
kept for the actor's life:

- ``headless`` and ``headful``: Chromium launched on a persistent research profile
  (``browser.profile_dir`` or ``LYRA_HOME/browser-profile``, one sub-directory per
  mode because Chromium locks a profile directory). Cookies a person sets in the
  headful window survive restarts and can move to the HTTP client (`cookies_for`).
  Without a ``DISPLAY`` the headful browser gets a private Xvfb server.
- ``cdp``: with ``browser.cdp_url`` the user's own Chrome over CDP; the headful flag
  is ignored there (that Chrome is what the person sees). Pages open in a context
  of that Chrome that carries the guard proxy, seeded with the cookies of the
  user's default context and writing the rendered domain's cookies back to it:
  Chrome sets a proxy only per new context, and the default context without one
  would let redirect hops past the guard (below).

Every connection any page makes stays inside the network rules of §2 (SSRF guard,
`network.allowed_hosts`), subresources included. Two layers do that:

1. A Playwright route on each context checks each request before Chromium sends it
   and aborts refused ones (fast, and the refusals are reported per render).
2. A guard proxy inside the actor that Chromium must use for every connection
   (context-level proxy; Playwright forces loopback through it too). A route
   handler is not called for redirect hops, preconnects, WebSockets, workers or
   out-of-process frames; the proxy sees all of them, refuses what `net_guard`
   refuses, and connects only to the addresses it checked, so DNS rebinding cannot
   move a connection after the check. Measured here: without the proxy a 302 from
   an allowed host to a refused one reached the refused host (both for a
   subresource and for a navigation).

The proxy forwards one plain-HTTP request per client connection (``Connection:
close`` upstream, the client socket closed after the response): a browser reuses
proxy connections across hosts, and a kept-alive tunnel would carry the next
request to whichever host the first one named.

Pages a render opens also drop what research does not need (seed 003 §4.3
"resource blocking"): resource types in ``browser.block_resources``, requests to
well-known ad and tracker hosts, and media responses over `MAX_MEDIA_BYTES`. Pages
opened for a person get the network guard only: a CAPTCHA needs its images.
Stealth is one override only, ``navigator.webdriver`` (seed 003 §4.3.3: consistency
of a real profile, not disguise).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import os
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import ray
from playwright.async_api import (
    Browser,
    BrowserContext,
    Page,
    Playwright,
    Request,
    Response,
    Route,
    async_playwright,
)
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import TimeoutError as PlaywrightTimeoutError

from lyra.config.settings import Settings
from lyra.jobs.guard_proxy import REFUSED_HEADER, GuardProxy
from lyra.jobs.virtual_display import VirtualDisplay
from lyra.pipelines.net.browser_rules import (
    LOCAL_SCHEMES,
    MAX_MEDIA_BYTES,
    announced_size,
    block_reason,
    browser_cookies,
    cookie_in_domain,
    domain_of,
    research_profile,
)
from lyra.pipelines.net.domains import (
    block_rule,
    home_rules_watcher,
    qps_for,
    registrable_domain,
)
from lyra.pipelines.net.net_guard import GuardedTarget, TargetRefused, check_url
from lyra.pipelines.net.token_bucket import TokenBucket
from lyra.storage.warc import WarcStore

log = logging.getLogger(__name__)

CHROMIUM_ARGS = (
    "--no-sandbox",
    "--disable-gpu",
    # Without these Chromium calls Google on start (ENVIRONMENT.md).
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    # Chromium 156 still calls accounts.google.com (ListAccounts) and the component
    # updater (an on-demand install) on start despite the flags above (measured with
    # --log-net-log). Both are pointed at the discard port, which Chromium refuses
    # to dial, so neither reaches the guard proxy nor costs a DNS lookup.
    "--gaia-url=http://127.0.0.1:9/",
    "--component-updater=url-source=http://127.0.0.1:9/",
)
# After "load", wait this long at most for the network to go quiet (late JS content).
SETTLE_SECONDS = 2.0
VIEWPORT = {"width": 1280, "height": 900}
LAUNCH_ATTEMPTS = 3
LAUNCH_RETRY_SECONDS = 1.0
# Seed 003 §4.3.3: hide the automation flag and nothing else. A Chrome nobody
# automates reports ``false`` (not undefined), so that is what the getter returns.
WEBDRIVER_SCRIPT = (
    "Object.defineProperty(Navigator.prototype, 'webdriver', "
    "{get: () => false, configurable: true});"
)


# The share of the page-load time a render's requests may spend waiting for their
# sites' tokens; the rest is for the page to load what it was given.
POLITE_SHARE = 0.8
# The longest a render's navigation waits for its site's token (a Crawl-delay).
NAVIGATION_WAIT_S = 600.0
# A granted token reaches a route handler after a Ray reply and an event loop that may
# be busy, so two of a site's requests can leave this actor closer than the token
# schedule: they also leave at least 1/qps plus this margin apart, counted from when
# the earlier one was answered (the path on to the wire, Playwright and Chromium, has
# its own jitter; decision 0095).
SEND_MARGIN_S = 0.025
FAVICON_PATH = "/favicon.ico"


@dataclass
class _RenderState:
    """What the route handler needs to know about a page that `render` opened."""

    blocked_types: frozenset[str]
    blocked: list[dict[str, str]]
    verdicts: dict[tuple[str, str], str | None] = field(default_factory=dict)
    # The rendered page's site and its DomainFetcher (None: this actor's own bucket for
    # it).
    site: str | None = None
    slots: Any = None
    # How long the page's requests may wait for tokens once its navigation has left,
    # and until when (set then).
    polite_span: float = float("inf")
    polite_until: float = float("inf")
    navigated: bool = False
    # The requests let go, each with the answer its site's next request waits for.
    answers: dict[Request, asyncio.Future[float]] = field(default_factory=dict)

    def answered(self, request: Request) -> None:
        """`request`'s response headers came, or it failed: its site has seen it."""
        answer = self.answers.pop(request, None)
        if answer is not None and not answer.done():
            answer.set_result(time.monotonic())

    def close(self) -> None:
        """The page closed: what it still waited for will not reach the site later."""
        for request in list(self.answers):
            self.answered(request)


@dataclass
class _SiteSends:
    """When this actor last let a request to a site go, and that request's answer."""

    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    went: float = float("-inf")
    answer: asyncio.Future[float] | None = None


class Chromium:
    """Chromium (launched on the research profile, or the user's Chrome over CDP) and
    what is done with it: renders, pages opened for a person, cookies.

    The work of the `BrowserActor` (actors/browser.py), which owns one instance; its
    fault behaviour and idempotency are documented there. Contexts open lazily and
    are kept for the instance's life.
    """

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._playwright: Playwright | None = None
        self._proxy: GuardProxy | None = None
        self._domain_rules = home_rules_watcher(settings.home_dir)
        # Other sites a render's pages reach, one bucket each (decision 0062).
        self._buckets: dict[str, TokenBucket] = {}
        # When this actor last let a request to each site go, and its answer.
        self._sends: dict[str, _SiteSends] = {}
        self._proxy_url: str | None = None
        self._contexts: dict[str, BrowserContext] = {}
        self._cdp_browser: Browser | None = None
        self._cdp_default: BrowserContext | None = None
        self._display: VirtualDisplay | None = None
        self._display_name: str | None = None
        self._pages: dict[Page, _RenderState] = {}
        self._transferred: dict[tuple[str, str, str], dict[str, Any]] = {}
        self._lock = asyncio.Lock()
        self._renders = 0
        self._opened_for_human = 0
        self._refused_elsewhere = 0
        self._tasks: set[asyncio.Future[Any]] = set()
        self.screenshot_dir = settings.home_dir / "screenshots"
        self.warc_dir = settings.home_dir / "warc"

    async def render(
        self,
        url: str,
        *,
        headful: bool = False,
        cookies: list[dict[str, Any]] | None = None,
        slots: Any = None,
    ) -> dict[str, Any]:
        """Load `url` in a new page and let its JS run; return the render dict.

        `cookies` (Playwright format, e.g. the HTTP client's jar) are added to the
        context first: session transfer from the HTTP client to the browser. `slots`:
        the DomainFetcher of `url`'s site; every later request of the page to that site
        waits for its `browser_slot` (decision 0062).
        """
        started = time.monotonic()
        mode = self._mode_for(headful)
        result: dict[str, Any] = {
            "url": url,
            "final_url": url,
            "status": None,
            "headers": {},
            "html": "",
            "title": "",
            "screenshot_path": None,
            "fetched_at": datetime.now(UTC).isoformat(),
            "elapsed_ms": 0.0,
            "blocked_requests": [],
            "error": None,
            "mode": mode,
            "resources": [],
            "cookies": [],
            "warc_path": None,
            "warc_offset": None,
        }
        try:
            await asyncio.to_thread(self._check, url)
        except TargetRefused as exc:
            result["error"] = f"target_refused:{exc.reason}"
            return result
        async with self._lock:
            context = await self._context(mode)
            if cookies:
                await context.add_cookies(browser_cookies(cookies, url))  # type: ignore[arg-type]
            screenshot = await self._render_into(context, mode, url, result, slots)
        if screenshot is not None:
            path, offset = await asyncio.to_thread(self._archive, result, screenshot or None)
            result["warc_path"], result["warc_offset"] = str(path), offset
        result["elapsed_ms"] = round((time.monotonic() - started) * 1000, 1)
        return result

    async def open_for_human(self, url: str) -> dict[str, Any]:
        """Open `url` in the visible browser for a person and bring it to the front.

        Seed 003 §3.6.1: navigate and raise the window, nothing else. No script is
        run, the DOM is not touched, nothing is typed or clicked; the page stays
        open for the person to solve the CAPTCHA or log in.
        """
        mode = "cdp" if self.settings.browser.cdp_url else "headful"
        answer: dict[str, Any] = {"opened": False, "url": url, "mode": mode, "display": None}
        try:
            await asyncio.to_thread(self._check, url)
        except TargetRefused as exc:
            return {**answer, "error": f"target_refused:{exc.reason}"}
        async with self._lock:
            context = await self._context(mode)
            page = await context.new_page()
            page.set_default_navigation_timeout(
                self.settings.browser.navigation_timeout_seconds * 1000
            )
            try:
                # "commit": the person takes over as soon as the document arrives; a
                # challenge page may never fire "load".
                await page.goto(url, wait_until="commit")
            except PlaywrightError as exc:
                await page.close()
                return {**answer, "error": "navigation_failed:" + str(exc).splitlines()[0][:200]}
            await page.bring_to_front()
            self._opened_for_human += 1
        return {**answer, "opened": True, "display": self._display_label(mode)}

    async def cookies_for(self, domain: str) -> list[dict[str, Any]]:
        """Cookies of every context held whose domain is `domain`'s registrable domain.

        One cookie per (name, domain, path); the user's and the headful contexts come
        first, since that is where a person solved a challenge. Idempotent.
        """
        found: dict[tuple[str, str, str], dict[str, Any]] = {}
        for context in self._cookie_sources():
            try:
                jar = await context.cookies()
            except PlaywrightError as exc:
                log.warning("cookies of a closed browser context skipped: %s", exc)
                continue
            for cookie in jar:
                if cookie_in_domain(dict(cookie), domain):
                    key = (cookie["name"], cookie["domain"], cookie["path"])
                    found.setdefault(key, dict(cookie))
        return list(found.values())

    async def add_cookies(self, cookies: list[dict[str, Any]]) -> int:
        """Add cookies to every context held, and to contexts opened later; return the count.

        Cookies must name a ``url`` or a ``domain``. Idempotent (a cookie replaces
        the one with its name, domain and path).
        """
        accepted = browser_cookies(cookies, None)
        for cookie in accepted:
            key = (cookie["name"], str(cookie.get("domain") or cookie.get("url")), cookie["path"])
            self._transferred[key] = cookie
        for context in self._cookie_sources():
            await context.add_cookies(accepted)  # type: ignore[arg-type]
        return len(accepted)

    async def status(self) -> dict[str, Any]:
        """Which contexts are open, the display used, and counters. Idempotent."""
        return {
            "connected": bool(self._contexts),
            "mode": self._mode_for(False),
            "contexts": sorted(self._contexts),
            "display": self._display_name,
            "xvfb": self._display is not None,
            "renders": self._renders,
            "opened_for_human": self._opened_for_human,
            "proxy_refused": len(self._proxy.refused) if self._proxy else 0,
            "proxy_forwarded": self._proxy.forwarded if self._proxy else 0,
            "route_refused_outside_renders": self._refused_elsewhere,
        }

    async def close(self) -> None:
        """Close the launched browsers (over CDP: disconnect), stop proxy and Xvfb. Idempotent."""
        async with self._lock:
            await self._shutdown()

    # -- contexts ------------------------------------------------------------------

    def _spawn(self, coroutine: Any) -> None:
        """Run a Playwright event's follow-up without blocking the event, keeping a reference."""
        task = asyncio.ensure_future(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _mode_for(self, headful: bool) -> str:
        if self.settings.browser.cdp_url:
            return "cdp"
        return "headful" if headful or not self.settings.browser.headless else "headless"

    def _display_label(self, mode: str) -> str | None:
        return self._display_name if mode == "headful" else None

    def _cookie_sources(self) -> list[BrowserContext]:
        ordered = [self._cdp_default, *(self._contexts.get(m) for m in ("cdp", "headful"))]
        ordered.append(self._contexts.get("headless"))
        return [c for c in ordered if c is not None]

    async def _context(self, mode: str) -> BrowserContext:
        existing = self._contexts.get(mode)
        if existing is not None:
            return existing
        if self._playwright is None:
            await self._start()
        context = await (self._open_cdp() if mode == "cdp" else self._launch(mode))
        context.on("close", lambda _: self._forget(mode, context))
        await context.add_init_script(WEBDRIVER_SCRIPT)
        await context.route("**/*", self._route)
        if self._transferred:
            await context.add_cookies(list(self._transferred.values()))  # type: ignore[arg-type]
        self._contexts[mode] = context
        return context

    async def _start(self) -> None:
        network = self.settings.network
        self._proxy = GuardProxy(
            allow_private=network.allow_private_targets,
            allowed_hosts=list(network.allowed_hosts),
            connect_timeout=self.settings.fetch.connect_timeout_seconds,
            refuse=self._blocked,
        )
        self._proxy_url = await self._proxy.start()
        self._playwright = await async_playwright().start()

    async def _launch(self, mode: str) -> BrowserContext:
        assert self._playwright is not None and self._proxy_url is not None
        headless = mode == "headless"
        env: dict[str, str | float | bool] | None = None
        if not headless:
            env = {**os.environ, "DISPLAY": await self._display_for_headful()}
        profile = research_profile(self.settings, mode)
        profile.mkdir(parents=True, exist_ok=True)
        for attempt in range(1, LAUNCH_ATTEMPTS + 1):
            try:
                return await self._playwright.chromium.launch_persistent_context(
                    str(profile),
                    executable_path=self.settings.browser.executable_path,
                    headless=headless,
                    args=[*CHROMIUM_ARGS, "--headless=new"] if headless else list(CHROMIUM_ARGS),
                    env=env,
                    proxy={"server": self._proxy_url},
                    service_workers="block",
                    viewport=VIEWPORT,  # type: ignore[arg-type]
                )
            except PlaywrightError as exc:
                if attempt == LAUNCH_ATTEMPTS:
                    raise
                # Chromium hands a profile another Chromium still holds to that one and
                # exits: after an actor restart the old browser may still be exiting.
                log.warning("launch on %s failed (%s); retrying", profile, exc)
                await asyncio.sleep(LAUNCH_RETRY_SECONDS)
                if not headless and "X server" in str(exc) and self._display is not None:
                    # Our Xvfb is gone or not answering: start a fresh one.
                    log.warning(
                        "no X server on %s (Xvfb running: %s); its log: %s",
                        self._display_name,
                        self._display.alive(),
                        self._display.log_tail(),
                    )
                    await self._display.stop()
                    self._display = None
                    self._display_name = None
                    env = {**os.environ, "DISPLAY": await self._display_for_headful()}
        raise AssertionError("unreachable")

    async def _display_for_headful(self) -> str:
        if self._display is not None and not self._display.alive():
            log.warning(
                "Xvfb %s exited; starting another. Its log: %s",
                self._display_name,
                self._display.log_tail(),
            )
            self._display_name = None
        if self._display_name is None:
            current = os.environ.get("DISPLAY")
            if current:
                self._display_name = current
            else:
                self._display = VirtualDisplay(
                    log_path=self.settings.home_dir / "logs" / "xvfb.log"
                )
                self._display_name = await self._display.start()
                log.info("headful browser on Xvfb display %s", self._display_name)
        return self._display_name

    async def _open_cdp(self) -> BrowserContext:
        assert self._playwright is not None and self._proxy_url is not None
        cdp_url = self.settings.browser.cdp_url
        assert cdp_url is not None
        browser = await self._playwright.chromium.connect_over_cdp(cdp_url)
        browser.on("disconnected", lambda _: self._forget_cdp())
        self._cdp_browser = browser
        self._cdp_default = browser.contexts[0] if browser.contexts else None
        context = await browser.new_context(
            proxy={"server": self._proxy_url},
            service_workers="block",
            viewport=VIEWPORT,  # type: ignore[arg-type]
        )
        if self._cdp_default is not None:
            await context.add_cookies(await self._cdp_default.cookies())  # type: ignore[arg-type]
        return context

    def _forget(self, mode: str, context: BrowserContext) -> None:
        if self._contexts.get(mode) is context:
            del self._contexts[mode]

    def _forget_cdp(self) -> None:
        self._contexts.pop("cdp", None)
        self._cdp_browser = None
        self._cdp_default = None

    async def _shutdown(self) -> None:
        work = self._contexts.pop("cdp", None)
        if work is not None and self._cdp_default is not None:
            with contextlib.suppress(PlaywrightError):
                await self._cdp_default.add_cookies(await work.cookies())  # type: ignore[arg-type]
        for context in [work, *self._contexts.values()]:
            if context is not None:
                with contextlib.suppress(PlaywrightError):
                    await context.close()
        self._contexts.clear()
        if self._cdp_browser is not None:
            with contextlib.suppress(PlaywrightError):
                await self._cdp_browser.close()  # over CDP this only disconnects
            self._forget_cdp()
        if self._playwright is not None:
            await self._playwright.stop()
            self._playwright = None
        if self._proxy is not None:
            await self._proxy.stop()
            self._proxy = None
        if self._display is not None:
            await self._display.stop()
            self._display = None
        self._display_name = None

    # -- one render ----------------------------------------------------------------

    def _blocked(self, url: str) -> str | None:
        """``domain_blocked`` when domains.yaml (re-read on change) makes `url`'s domain
        BLOCKED: no page, subresource or redirect hop of a render reaches it."""
        return "domain_blocked" if block_rule(url, self._domain_rules.current()) else None

    def _check(self, url: str) -> GuardedTarget:
        blocked = self._blocked(url)
        if blocked is not None:
            raise TargetRefused(blocked, url)
        network = self.settings.network
        return check_url(
            url,
            allow_private=network.allow_private_targets,
            allowed_hosts=list(network.allowed_hosts),
        )

    async def _render_into(
        self,
        context: BrowserContext,
        mode: str,
        url: str,
        result: dict[str, Any],
        slots: Any = None,
    ) -> bytes | None:
        """Fill `result` from one page load in a new page of `context`.

        Returns what the archive needs: the screenshot PNG (b"" when screenshots are
        off), or None when there is nothing to archive (failed or refused navigation).
        """
        assert self._proxy is not None
        cfg = self.settings.browser
        blocked: list[dict[str, str]] = result["blocked_requests"]
        refused_before = len(self._proxy.refused)
        page = await context.new_page()
        state = _RenderState(
            frozenset(cfg.block_resources),
            blocked,
            site=_site_of(url),
            slots=slots,
            polite_span=POLITE_SHARE * cfg.navigation_timeout_seconds,
        )
        self._pages[page] = state
        responses: list[Response] = []
        page.on("response", lambda response: responses.append(response))
        page.on("response", lambda response: state.answered(response.request))
        page.on("requestfinished", state.answered)
        page.on("requestfailed", state.answered)
        # A render never needs a new window; pop-unders are ads.
        page.on("popup", lambda popup: self._spawn(popup.close()))
        try:
            if "media" not in state.blocked_types:
                await self._limit_media(context, page, blocked)
            page.set_default_navigation_timeout(cfg.navigation_timeout_seconds * 1000)
            try:
                response = await page.goto(url, wait_until="load")
            except PlaywrightError as exc:
                result["error"] = "navigation_failed:" + str(exc).splitlines()[0][:200]
                return None
            with contextlib.suppress(PlaywrightTimeoutError):
                # Best effort: late JS content; "load" already happened.
                await page.wait_for_load_state("networkidle", timeout=SETTLE_SECONDS * 1000)
            result["final_url"] = page.url
            if response is not None:
                result["status"] = response.status
                result["headers"] = await response.all_headers()
                refused = await response.header_value(REFUSED_HEADER)
                if refused:
                    result["error"] = f"target_refused:{refused}"
            result["title"] = await page.title()
            result["html"] = await page.content()
            screenshot = await page.screenshot(full_page=True) if cfg.screenshot else b""
            if screenshot:
                path = await asyncio.to_thread(self._save_screenshot, url, screenshot)
                result["screenshot_path"] = str(path)
            result["resources"] = await _describe(responses)
            domain = domain_of(page.url)
            if domain is not None:
                jar = [dict(c) for c in await context.cookies()]
                result["cookies"] = [c for c in jar if cookie_in_domain(c, domain)]
                if mode == "cdp" and self._cdp_default is not None and result["cookies"]:
                    # Back into the user's profile, where their Chrome keeps them.
                    await self._cdp_default.add_cookies(result["cookies"])
            self._renders += 1
            # A refused navigation shows the guard's own answer: nothing to archive.
            return None if result["error"] else screenshot
        finally:
            self._pages.pop(page, None)
            with contextlib.suppress(PlaywrightError):
                await page.close()
            state.close()
            for item in self._proxy.refused[refused_before:]:
                blocked.append({**item, "layer": "proxy"})

    async def _limit_media(
        self, context: BrowserContext, page: Page, blocked: list[dict[str, str]]
    ) -> None:
        """Cut media responses over `MAX_MEDIA_BYTES` at their headers.

        CDP Fetch at the response stage: a route sees only the request, and only the
        response tells the size. Playwright's own routing coexists with it (measured).
        """
        session = await context.new_cdp_session(page)
        pending: set[asyncio.Future[None]] = set()

        async def on_paused(event: dict[str, Any]) -> None:
            size = announced_size(event.get("responseHeaders") or [])
            request_id = event["requestId"]
            try:
                if size is not None and size > MAX_MEDIA_BYTES:
                    url = str(event["request"]["url"])
                    blocked.append({"url": url, "reason": "media_too_large", "layer": "route"})
                    await session.send(
                        "Fetch.failRequest",
                        {"requestId": request_id, "errorReason": "BlockedByClient"},
                    )
                else:
                    await session.send("Fetch.continueResponse", {"requestId": request_id})
            except PlaywrightError as exc:
                # The page closed between the pause and the answer.
                log.debug("media size check ended with the page: %s", exc)

        def paused(event: dict[str, Any]) -> None:
            task = asyncio.ensure_future(on_paused(event))
            pending.add(task)
            task.add_done_callback(pending.discard)

        session.on("Fetch.requestPaused", paused)
        await session.send(
            "Fetch.enable", {"patterns": [{"resourceType": "Media", "requestStage": "Response"}]}
        )

    async def _route(self, route: Route, request: Request) -> None:
        """Every request of every context: a render's own blocking, then the net guard."""
        state = self._state_for(request)
        reason = None
        if state is not None and urlsplit(request.url).path == FAVICON_PATH:
            # Chromium's own request, not the page's: research needs no icon, and the
            # site would count it against the render (decision 0062).
            with contextlib.suppress(PlaywrightError):
                await route.abort("blockedbyclient")
            return
        if state is not None:
            reason = block_reason(
                request.url, request.resource_type, state.blocked_types, _main_navigation(request)
            )
        if reason is None:
            reason = await self._guard_verdict(request.url, state.verdicts if state else {})
        if reason is None and state is not None and not await self._polite(request, state):
            reason = "politeness_wait"
        # The page may close between the check and the answer; nothing is sent then.
        with contextlib.suppress(PlaywrightError):
            if reason is None:
                await route.continue_()
                return
            if state is not None:
                state.blocked.append({"url": request.url, "reason": reason, "layer": "route"})
            else:
                self._refused_elsewhere += 1
                log.info("refused %s outside a render: %s", request.url, reason)
            await route.abort("blockedbyclient")

    async def _polite(self, request: Request, state: _RenderState) -> bool:
        """Wait for the site's next token before a render's request leaves: the page's
        navigation, scripts, styles and XHR are requests to a site like any other
        (decision 0062). The rendered site's take its DomainFetcher's tokens; any other
        site's (and the rendered site's when no fetcher was named), a bucket of this
        actor at that site's configured rate, kept across renders. False, and the
        request is not sent, when its token would come after the render's share of the
        page-load time."""
        site = _site_of(request.url)
        if site is None:
            return True  # data:, blob: and the like: nothing leaves the machine
        # The page's own navigation waits as long as its site asks (the page is the
        # point of the render); the time its requests may wait starts when it leaves.
        first = not state.navigated and _main_navigation(request)
        left = NAVIGATION_WAIT_S if first else max(0.0, state.polite_until - time.monotonic())
        interval = await self._token(site, state, left)
        granted = False
        if interval is not None:
            if not first:
                left = max(0.0, state.polite_until - time.monotonic())
            answer: asyncio.Future[float] = asyncio.get_running_loop().create_future()
            granted = await self._spaced(site, interval, left, answer) is not None
            if granted:
                state.answers[request] = answer
        if first and granted:
            state.navigated = True
            state.polite_until = time.monotonic() + state.polite_span
        return granted

    async def _token(self, site: str, state: _RenderState, left: float) -> float | None:
        """The site's interval between requests once its token is taken; None when the
        token would come after `left` seconds."""
        if site == state.site and state.slots is not None:
            try:
                granted: float | None = await state.slots.browser_slot.remote(left)
                return granted
            except ray.exceptions.RayError as exc:  # the fetcher died: this actor's bucket
                log.warning("no browser slot from %s's fetcher (%s)", site, type(exc).__name__)
                state.slots = None
                # Its last request may have just left: this bucket starts empty.
                self._buckets[site] = self._new_bucket(site, tokens=0.0)
        bucket = self._buckets.get(site) or self._buckets.setdefault(site, self._new_bucket(site))
        if bucket.wait_time() > left:
            return None
        await asyncio.sleep(bucket.reserve())
        return bucket.interval_s

    def _new_bucket(self, site: str, tokens: float | None = None) -> TokenBucket:
        rate = qps_for(site, self._domain_rules.current(), self.settings.fetch.default_qps)
        return TokenBucket(rate, tokens=tokens)

    async def _spaced(
        self,
        site: str,
        interval: float,
        left: float = float("inf"),
        answer: asyncio.Future[float] | None = None,
    ) -> float | None:
        """Hold a request whose token came until the site's last request from this
        actor was answered (its response headers came, it failed, or its page closed)
        and `interval` (the site's, a Crawl-delay included) and `SEND_MARGIN_S` have
        passed since then, or since that request went if later (decision 0095): when a
        request reaches the site is only known to lie between those two, so a slow
        first connection must not bring the next one closer. Returns when this one went,
        and `answer` (set by the caller when its answer comes) is what the next waits
        for; None, and nothing sent, when the last one's answer takes over `left`."""
        sends = self._sends.setdefault(site, _SiteSends())
        async with sends.lock:
            since = sends.went
            if sends.answer is not None:
                try:
                    answered = await asyncio.wait_for(asyncio.shield(sends.answer), left)
                except TimeoutError:
                    return None
                since = max(since, answered)
            wait = since + interval + SEND_MARGIN_S - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
            sends.went, sends.answer = time.monotonic(), answer
            return sends.went

    def _state_for(self, request: Request) -> _RenderState | None:
        try:
            page = request.frame.page
        except PlaywrightError:
            return None  # a worker's request has no frame
        return self._pages.get(page)

    async def _guard_verdict(
        self, url: str, verdicts: dict[tuple[str, str], str | None]
    ) -> str | None:
        parts = urlsplit(url)
        scheme = parts.scheme.lower()
        if scheme in LOCAL_SCHEMES:
            return None
        # Keyed by authority (userinfo included), so one DNS lookup serves a host's
        # many subresources within one render.
        key = (scheme, parts.netloc.lower())
        if key not in verdicts:
            try:
                # getaddrinfo blocks; keep Playwright's event loop free.
                await asyncio.to_thread(self._check, url)
                verdicts[key] = None
            except TargetRefused as exc:
                verdicts[key] = exc.reason
        return verdicts[key]

    def _save_screenshot(self, url: str, png: bytes) -> Path:
        self.screenshot_dir.mkdir(parents=True, exist_ok=True)
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%f")
        name = f"{hashlib.sha256(url.encode('utf-8')).hexdigest()[:16]}-{stamp}.png"
        path = self.screenshot_dir / name
        path.write_bytes(png)
        return path

    def _archive(self, result: dict[str, Any], screenshot: bytes | None) -> tuple[Path, int]:
        """Write the render's WARC capture (seed 003 §4.3.2) under LYRA_HOME/warc."""
        final_url = str(result["final_url"])
        store = WarcStore(self.warc_dir, prefix=f"browser-{domain_of(final_url) or 'unknown'}")
        return store.write_browser_capture(
            final_url,
            str(result["html"]),
            screenshot,
            list(result["resources"]),
            datetime.fromisoformat(str(result["fetched_at"])),
            result["status"],
            dict(result["headers"]),
            requested_url=str(result["url"]),
        )


def _site_of(url: str) -> str | None:
    """The registrable domain a URL's request goes to; None for what is not HTTP(S)."""
    parts = urlsplit(url)
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        return None
    return registrable_domain(parts.hostname)


def _main_navigation(request: Request) -> bool:
    try:
        return request.is_navigation_request() and request.frame.parent_frame is None
    except PlaywrightError:
        return False


async def _describe(responses: list[Response]) -> list[dict[str, Any]]:
    """url, status, resource type, sha256 and size of every response a page received.

    A body Chromium no longer holds (redirects, evicted large bodies) has sha256 and
    bytes None: the entry still says the response happened.
    """
    described: list[dict[str, Any]] = []
    for response in responses:
        digest: str | None = None
        size: int | None = None
        try:
            body = await response.body()
        except PlaywrightError:
            body = None
        if body is not None:
            digest, size = hashlib.sha256(body).hexdigest(), len(body)
        described.append(
            {
                "url": response.url,
                "status": response.status,
                "resource_type": response.request.resource_type,
                "sha256": digest,
                "bytes": size,
            }
        )
    return described
