"""What the browser loads, blocks and shares: pure rules of the BrowserActor.

Resource blocking (seed 003 §3.1.2, §4.3: ads, trackers and large media are not
loaded), the cookie format shared between Playwright and the HTTP client's jar
(session transfer, same registrable domain only), and where research profiles live.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from lyra.config.settings import Settings
from lyra.pipelines.net.domains import registrable_domain

LOCAL_SCHEMES = frozenset({"data", "blob", "about"})
# A media response announcing more than this is cut at its headers: a page's video
# is not research content, and Chromium would otherwise stream it while we wait.
MAX_MEDIA_BYTES = 8 * 1024 * 1024
COOKIE_KEYS = ("name", "value", "url", "domain", "path", "expires", "httpOnly", "secure")
SAME_SITE = {"strict": "Strict", "lax": "Lax", "none": "None"}
# Well-known ad, analytics and tracking hosts (a host matches itself and its
# subdomains). Facts about who serves ads, kept short on purpose: the net guard is
# the security layer; this list only saves bandwidth and keeps beacons quiet.
TRACKER_DOMAINS: tuple[str, ...] = (
    "2mdn.net",
    "adnxs.com",
    "adsrvr.org",
    "adservice.google.com",
    "ads-twitter.com",
    "amazon-adsystem.com",
    "bat.bing.com",
    "casalemedia.com",
    "chartbeat.com",
    "chartbeat.net",
    "clarity.ms",
    "criteo.com",
    "criteo.net",
    "demdex.net",
    "doubleclick.net",
    "facebook.net",
    "google-analytics.com",
    "googleadservices.com",
    "googlesyndication.com",
    "googletagmanager.com",
    "googletagservices.com",
    "hotjar.com",
    "mc.yandex.ru",
    "moatads.com",
    "omtrdc.net",
    "openx.net",
    "outbrain.com",
    "pubmatic.com",
    "quantserve.com",
    "rubiconproject.com",
    "scorecardresearch.com",
    "taboola.com",
)


def tracker_host(host: str) -> bool:
    """Whether `host` is a listed ad/tracker host or a subdomain of one."""
    name = host.lower().rstrip(".")
    return any(name == d or name.endswith("." + d) for d in TRACKER_DOMAINS)


def block_reason(
    url: str, resource_type: str, blocked_types: Iterable[str], main_navigation: bool
) -> str | None:
    """Why a render drops this request ("tracker", "resource_type:<t>"), or None to load it.

    Decided from the URL alone, before the net guard, so a tracker never costs a
    DNS lookup. The page's own navigation is never dropped here (the guard decides).
    """
    if main_navigation or urlsplit(url).scheme.lower() in LOCAL_SCHEMES:
        return None
    if tracker_host(urlsplit(url).hostname or ""):
        return "tracker"
    if resource_type in blocked_types:
        return f"resource_type:{resource_type}"
    return None


def announced_size(headers: Iterable[dict[str, str]]) -> int | None:
    """The entity size a response announces (CDP header list), or None when it does not.

    A ranged answer (206, what Chromium's media stack asks for) names the whole size
    after the slash of Content-Range; otherwise Content-Length is the size.
    """
    values = {h.get("name", "").lower(): h.get("value", "") for h in headers}
    total = values.get("content-range", "").rpartition("/")[2].strip()
    if total.isdigit():
        return int(total)
    length = values.get("content-length", "").strip()
    return int(length) if length.isdigit() else None


def domain_of(url: str) -> str | None:
    """The registrable domain of an http(s) URL, or None (about:, data:, no host)."""
    if urlsplit(url).scheme.lower() not in ("http", "https"):
        return None
    try:
        return registrable_domain(url)
    except ValueError:
        return None


def cookie_in_domain(cookie: dict[str, Any], domain: str) -> bool:
    """Whether a Playwright cookie belongs to the registrable domain `domain` (an IP: itself)."""
    host = str(cookie.get("domain") or "").lstrip(".").lower()
    if not host:
        return False
    try:
        return registrable_domain(host) == registrable_domain(domain)
    except ValueError:
        return False


def browser_cookies(cookies: Iterable[dict[str, Any]], url: str | None) -> list[dict[str, Any]]:
    """Cookies in the shape ``context.add_cookies`` accepts.

    Keeps Playwright's keys only; a cookie naming neither ``url`` nor ``domain`` is
    scoped to `url` (dropped when there is none); ``expires`` None means a session
    cookie; a ``sameSite`` Chromium does not know is left out (its default applies).
    """
    out: list[dict[str, Any]] = []
    for cookie in cookies:
        if not cookie.get("name"):
            continue
        kept = {k: cookie[k] for k in COOKIE_KEYS if cookie.get(k) is not None}
        kept["value"] = str(cookie.get("value") or "")
        if "url" not in kept and "domain" not in kept:
            if url is None:
                continue
            kept["url"] = url
        if "domain" in kept:
            kept.pop("url", None)
            kept.setdefault("path", "/")
        same_site = SAME_SITE.get(str(cookie.get("sameSite") or "").lower())
        if same_site is not None:
            kept["sameSite"] = same_site
        out.append(kept)
    return out


def research_profile(settings: Settings, mode: str) -> Path:
    """The persistent profile directory of a launched browser mode."""
    configured = settings.browser.profile_dir
    root = Path(configured).expanduser() if configured else settings.home_dir / "browser-profile"
    return root / mode
