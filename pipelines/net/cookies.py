"""A cookie jar for one registrable domain, in Playwright's cookie format.

Seed 003 §3.5 (session transfer): after a person or the browser passes a challenge,
the browser's cookies (``context.cookies()``) move into the HTTP client so later
fetches of the same domain ride the cleared session; cookies the HTTP client
receives can go back into a browser context (``context.add_cookies(jar.to_state())``).
Keeping one format on both sides means no conversion that could drop a flag.

A cookie is a dict with exactly the keys Playwright uses: ``name, value, domain,
path, expires (float seconds, -1 = session), httpOnly, secure, sameSite``. As in
Playwright / Chromium output, a ``domain`` with a leading dot is a domain cookie
(sent to subdomains too); without one it is host-only.

Set-Cookie parsing follows RFC 6265 §5.2 (with the §5.1.1 date algorithm, which
accepts the ``10-Jun-24`` style real servers send) rather than ``http.cookies``,
whose Morsel parser drops whole headers over characters browsers accept. The
RFC 6265bis rules browsers enforce are kept too: Secure cookies only from https,
``__Secure-`` / ``__Host-`` prefixes, and no cookies for public suffixes or other
sites (the registrable domain comes from the bundled public suffix list).
"""

from __future__ import annotations

import calendar
import ipaddress
import re
from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import urlsplit

from lyra.pipelines.net.domains import registrable_domain

SESSION = -1.0
SAME_SITE_VALUES = ("Strict", "Lax", "None")
# Chromium's per-domain limit is 180; 200 leaves room without letting a hostile
# site grow the persisted state without bound.
DEFAULT_MAX_COOKIES = 200
# RFC 6265 §6.1 minimums a user agent must support; longer values are dropped.
MAX_COOKIE_BYTES = 4096

_DATE_DELIMITER = re.compile(r"[\x09\x20-\x2f\x3b-\x40\x5b-\x60\x7b-\x7e]+")
_TIME = re.compile(r"^(\d{1,2}):(\d{1,2}):(\d{1,2})(?:[^\d].*)?$")
_DAY = re.compile(r"^(\d{1,2})(?:[^\d].*)?$")
_YEAR = re.compile(r"^(\d{2,4})(?:[^\d].*)?$")
_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")


def parse_cookie_date(value: str) -> float | None:
    """Seconds since the epoch for a cookie ``Expires`` value (RFC 6265 §5.1.1), or None."""
    hour = minute = second = day = month = year = None
    for token in _DATE_DELIMITER.split(value):
        if not token:
            continue
        if hour is None and (match := _TIME.match(token)):
            hour, minute, second = (int(part) for part in match.groups())
            continue
        if day is None and (match := _DAY.match(token)):
            day = int(match.group(1))
            continue
        if month is None and token[:3].lower() in _MONTHS:
            month = _MONTHS.index(token[:3].lower()) + 1
            continue
        if year is None and (match := _YEAR.match(token)):
            year = int(match.group(1))
            continue
    if hour is None or minute is None or second is None or None in (day, month, year):
        return None
    assert day is not None and month is not None and year is not None
    if 70 <= year <= 99:
        year += 1900
    elif 0 <= year <= 69:
        year += 2000
    if not (1 <= day <= 31 and year >= 1601 and hour <= 23 and minute <= 59 and second <= 59):
        return None
    try:
        return float(calendar.timegm((year, month, day, hour, minute, second, 0, 0, 0)))
    except (OverflowError, ValueError):
        return None


def _host(url: str) -> str:
    return (urlsplit(url).hostname or "").lower().rstrip(".")


def _is_secure_url(url: str) -> bool:
    return urlsplit(url).scheme.lower() in ("https", "wss")


def _default_path(url: str) -> str:
    """RFC 6265 §5.1.4: the request path up to (not including) its last slash."""
    path = urlsplit(url).path
    if not path.startswith("/") or path.count("/") == 1:
        return "/"
    return path[: path.rfind("/")]


def domain_match(host: str, cookie_domain: str) -> bool:
    """Whether `host` may receive a cookie stored for `cookie_domain` (leading dot = subdomains)."""
    if cookie_domain.startswith("."):
        bare = cookie_domain[1:]
        return host == bare or host.endswith(cookie_domain)
    return host == cookie_domain


def path_match(request_path: str, cookie_path: str) -> bool:
    """RFC 6265 §5.1.4 path-match."""
    if request_path == cookie_path:
        return True
    if not request_path.startswith(cookie_path):
        return False
    return cookie_path.endswith("/") or request_path[len(cookie_path)] == "/"


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def _allowed_domain_attribute(host: str, attribute: str) -> str | None:
    """The stored domain (".example.com") for a Domain attribute, or None to reject it.

    The attribute must domain-match the request host and must not be broader than
    the host's registrable domain: ``Domain=co.uk`` from ``bbc.co.uk`` is a cookie
    for every British company and is refused, as browsers do.
    """
    wanted = attribute.strip().lstrip(".").lower().rstrip(".")
    if not wanted:
        return None
    if _is_ip(host):
        return host if wanted == host else None
    if not (host == wanted or host.endswith("." + wanted)):
        return None
    site = registrable_domain(host)
    if not (wanted == site or wanted.endswith("." + site)):
        return None
    return "." + wanted


def _normalise(cookie: Mapping[str, Any]) -> dict[str, Any] | None:
    """A Playwright-shaped copy of a cookie dict, or None when it is malformed."""
    name = cookie.get("name")
    value = cookie.get("value", "")
    domain = cookie.get("domain")
    if not isinstance(name, str) or not name or not isinstance(value, str):
        return None
    if not isinstance(domain, str) or not domain.strip("."):
        return None
    path = cookie.get("path") or "/"
    if not isinstance(path, str) or not path.startswith("/"):
        return None
    expires = cookie.get("expires", SESSION)
    if isinstance(expires, bool) or not isinstance(expires, int | float):
        return None
    same_site = cookie.get("sameSite", "Lax")
    if same_site not in SAME_SITE_VALUES:
        return None
    return {
        "name": name,
        "value": value,
        "domain": domain.lower(),
        "path": path,
        "expires": float(expires) if expires >= 0 else SESSION,
        "httpOnly": bool(cookie.get("httpOnly", False)),
        "secure": bool(cookie.get("secure", False)),
        "sameSite": same_site,
    }


def parse_set_cookie(header: str, url: str, now: float) -> dict[str, Any] | None:
    """One Set-Cookie header received from `url` as a Playwright cookie, or None if refused.

    A cookie whose expiry is already past is returned with ``expires`` in the past
    so the caller can delete the stored cookie it replaces.
    """
    host = _host(url)
    if not host:
        return None
    pair, _, attributes = header.partition(";")
    if "=" not in pair:
        return None
    name, _, value = pair.partition("=")
    name, value = name.strip(), value.strip()
    if not name or len(name) + len(value) > MAX_COOKIE_BYTES:
        return None
    if any(ord(ch) < 0x20 or ord(ch) == 0x7F for ch in name + value):
        return None
    domain: str | None = None
    path: str | None = None
    expires: float | None = None
    max_age: float | None = None
    secure = http_only = False
    same_site = "Lax"
    for item in attributes.split(";"):
        key, _, raw = item.partition("=")
        key, raw = key.strip().lower(), raw.strip()
        if key == "expires":
            parsed = parse_cookie_date(raw)
            if parsed is not None:
                expires = parsed
        elif key == "max-age":
            if re.fullmatch(r"-?\d+", raw):
                seconds = int(raw)
                # Max-Age wins over Expires (RFC 6265 §5.3 step 3), whatever the order.
                max_age = now + seconds if seconds > 0 else 0.0
        elif key == "domain":
            if raw:
                allowed = _allowed_domain_attribute(host, raw)
                if allowed is None:
                    return None
                domain = allowed
        elif key == "path":
            path = raw if raw.startswith("/") else None
        elif key == "secure":
            secure = True
        elif key == "httponly":
            http_only = True
        elif key == "samesite":
            same_site = {"strict": "Strict", "lax": "Lax", "none": "None"}.get(raw.lower(), "Lax")
    if secure and not _is_secure_url(url):
        # RFC 6265bis §5.7 step 8: an insecure origin cannot set a Secure cookie.
        return None
    if name.startswith("__Secure-") and not secure:
        return None
    if name.startswith("__Host-") and (not secure or domain is not None or path != "/"):
        return None
    expiry = max_age if max_age is not None else expires
    if expiry is not None and expiry < 0:
        # Dates before 1970 are "already expired", never the -1 session marker.
        expiry = 0.0
    return {
        "name": name,
        "value": value,
        "domain": domain if domain is not None else host,
        "path": path if path is not None else _default_path(url),
        "expires": SESSION if expiry is None else expiry,
        "httpOnly": http_only,
        "secure": secure,
        "sameSite": same_site,
    }


def _key(cookie: Mapping[str, Any]) -> tuple[str, str, str]:
    return (cookie["name"], cookie["domain"], cookie["path"])


def _expired(cookie: Mapping[str, Any], now: float) -> bool:
    expires = float(cookie["expires"])
    return expires != SESSION and expires <= now


class CookieJar:
    """The cookies of one registrable domain, shared by the HTTP client and the browser."""

    def __init__(
        self, cookies: Iterable[Mapping[str, Any]] = (), max_cookies: int = DEFAULT_MAX_COOKIES
    ) -> None:
        if max_cookies < 1:
            raise ValueError(f"max_cookies must be >= 1, got {max_cookies}")
        self._max = int(max_cookies)
        # Insertion order is creation order: the oldest cookie is evicted first.
        self._cookies: dict[tuple[str, str, str], dict[str, Any]] = {}
        self.add(cookies)

    def __len__(self) -> int:
        return len(self._cookies)

    def update_from_response(self, url: str, set_cookie_headers: list[str], now: float) -> int:
        """Store the cookies a response to `url` set; returns how many were stored or replaced.

        Refused cookies (bad domain, Secure over http, malformed) are skipped; a
        cookie that arrives already expired deletes the stored one of the same
        name, domain and path and is not counted.
        """
        stored = 0
        for header in set_cookie_headers:
            cookie = parse_set_cookie(header, url, now)
            if cookie is None:
                continue
            key = _key(cookie)
            if _expired(cookie, now):
                self._cookies.pop(key, None)
                continue
            self._put(key, cookie)
            stored += 1
        return stored

    def add(self, cookies: Iterable[Mapping[str, Any]]) -> int:
        """Add browser cookies (Playwright dicts), skipping malformed ones; returns how many."""
        kept = 0
        for raw in cookies:
            cookie = _normalise(raw)
            if cookie is None:
                continue
            self._put(_key(cookie), cookie)
            kept += 1
        return kept

    def header_for(self, url: str, now: float) -> str | None:
        """The ``Cookie`` header value for a request to `url` at `now`, or None if none apply.

        RFC 6265 §5.4: longer paths first, then older cookies first. Secure cookies
        go only over https. SameSite is not checked: the fetcher makes top-level
        navigations, which Lax and None cookies accompany; Strict ones are sent too
        because the session being continued is the site's own.
        """
        host = _host(url)
        if not host:
            return None
        request_path = urlsplit(url).path or "/"
        secure_ok = _is_secure_url(url)
        matching = [
            cookie
            for cookie in self._cookies.values()
            if not _expired(cookie, now)
            and domain_match(host, cookie["domain"])
            and path_match(request_path, cookie["path"])
            and (secure_ok or not cookie["secure"])
        ]
        if not matching:
            return None
        # sorted() is stable, so equal path lengths keep creation order.
        matching.sort(key=lambda cookie: -len(cookie["path"]))
        return "; ".join(f"{cookie['name']}={cookie['value']}" for cookie in matching)

    def remove_expired(self, now: float) -> int:
        """Drop cookies past their expiry; returns how many were dropped."""
        stale = [key for key, cookie in self._cookies.items() if _expired(cookie, now)]
        for key in stale:
            del self._cookies[key]
        return len(stale)

    def to_state(self) -> list[dict[str, Any]]:
        """Copies of every cookie, ready for JSON or ``context.add_cookies``."""
        return [dict(cookie) for cookie in self._cookies.values()]

    @classmethod
    def from_state(cls, state: list[dict[str, Any]]) -> CookieJar:
        """A jar holding the cookies of a `to_state` snapshot."""
        return cls(state)

    def _put(self, key: tuple[str, str, str], cookie: dict[str, Any]) -> None:
        # Replacing a cookie keeps its original creation position (RFC 6265 §5.3 step 11.3).
        self._cookies[key] = cookie
        while len(self._cookies) > self._max:
            del self._cookies[next(iter(self._cookies))]
