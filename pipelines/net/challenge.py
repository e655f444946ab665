"""Is this response a challenge, a CAPTCHA, a login / consent wall or a bot block?

Seed 003 §3.5, §3.6: a page that stands between the fetcher and the content must be
recognised before it is stored as a document (a "Just a moment..." page extracted
as an article is a silent failure) and before the domain's circuit is judged. The
fetcher then decides: a JS challenge goes to the real browser (`needs_human`
False); a CAPTCHA, login or consent wall goes to the person (`needs_human` True).

Design:
- Rules are ordered most specific first (a response header set only on challenges,
  then vendor script markers, then page wording), and the first match wins.
- A marker that also appears on ordinary pages only counts together with evidence
  that the page is a *wall*: a blocking status (401/403/429/503), a challenge title,
  or little visible text. Cloudflare injects ``/cdn-cgi/challenge-platform/`` into
  normal pages, sites load reCAPTCHA v3 on every page, news pages carry login
  modals with password fields and cookie banners: none of these alone is a wall.
- Plain 404 / 410 pages are never challenges: the fetcher records them as missing.
- Only the first `MAX_SCAN_BYTES` are read; a wall is a small page or says what it
  is near the top. The cheap substring tests run first and the visible-text
  estimate (a regex pass) only when a rule needs it, so an ordinary article costs
  1-4 ms (measured on the 50 real articles under realworld/articles).

`needs_human` is decided per mechanism, not per `auth_type`: ALTCHA is a CAPTCHA
widget but a proof-of-work one that a JavaScript-capable browser completes alone
(the Mojeek page says "JavaScript is required to complete this challenge").
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cached_property
from urllib.parse import urlsplit

AUTH_TYPES: tuple[str, ...] = (
    "cloudflare",
    "captcha",
    "turnstile",
    "login",
    "consent",
    "bot_protection",
    "unsupported_browser",
)
MAX_SCAN_BYTES = 256 * 1024
# A wall page has little to read: the widget pages under realworld/challenges show
# 0-1,230 visible characters (Google's consent page, 2,343, is found by its form).
# Articles can be short too (die-partei.net: 770), so smallness only ever
# corroborates a vendor marker, a password field or a title; it never decides alone.
WALL_TEXT_CHARS = 2000
BLOCKING_STATUSES = frozenset({401, 403, 405, 429, 503})
NOT_FOUND_STATUSES = frozenset({404, 410})

# "Before you continue" in the languages Google's consent interstitial is served in
# most often (consent.google.*); lower-case.
CONSENT_TITLES = (
    "before you continue",
    "antes de ir a",
    "antes de continuar",
    "bevor sie zu",
    "bevor sie fortfahren",
    "avant d'accéder",
    "avant de continuer",
    "prima di continuare",
    "prima di accedere",
    "voordat je verdergaat",
    "zanim przejdziesz",
)
UNSUPPORTED_BROWSER_PHRASES = (
    "unsupported browser",
    "browser not supported",
    "browser is not supported",
    "your browser is no longer supported",
    "is unavailable on this browser",
)
HUMAN_CHECK_PHRASES = (
    "verify you are human",
    "verify that you are human",
    "verify you are a human",
    "are you a robot",
    "not a robot",
    "confirm you are human",
    "prove you are human",
    "complete the security check",
    "unusual traffic from your computer network",
)
SIGN_IN_PHRASES = (
    "sign in",
    "sign-in",
    "log in",
    "login",
    "iniciar sesión",
    "anmelden",
    "se connecter",
    "connexion",
    "accedi",
    "inloggen",
)

_TITLE = re.compile(rb"<title[^>]*>(.*?)</title", re.DOTALL)
_SCRIPT_STYLE = re.compile(
    r"<(script|style|noscript|template)\b[^>]*>.*?</\1\s*>", re.IGNORECASE | re.DOTALL
)
_TAG = re.compile(r"<[^>]*>", re.DOTALL)
_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
_SPACE = re.compile(r"\s+")
_PASSWORD_INPUT = re.compile(rb"type\s*=\s*[\"']?password[\"'\s/>]")
_CONSENT_FORM = re.compile(
    rb"<form\b[^>]{0,200}action\s*=\s*[\"']?https?://consent\.(?:google|youtube)\.[a-z.]+/save"
)
_DATADOME_RT = re.compile(r"['\"]rt['\"]\s*:\s*['\"]([a-z])['\"]")


@dataclass(frozen=True)
class Challenge:
    """What stands between the fetcher and the content, and who can get past it."""

    auth_type: str
    vendor: str
    marker: str
    needs_human: bool


class _Page:
    """One response, normalised once; the costly views are computed on first use."""

    def __init__(
        self, status: int | None, headers: Mapping[str, str], body: bytes | str, url: str
    ) -> None:
        self.status = status
        self.headers = {str(key).lower(): str(value) for key, value in headers.items()}
        head = body[:MAX_SCAN_BYTES]
        raw = head.encode("utf-8", "replace") if isinstance(head, str) else head
        # bytes.lower() folds ASCII only and is ~30x faster than str.lower() on a
        # non-ASCII page; every vendor marker is ASCII.
        self.data = raw.lower()
        self.url = url
        parts = urlsplit(url)
        self.host = (parts.hostname or "").lower()
        self.path = parts.path

    def has(self, *needles: str) -> str | None:
        """The first of `needles` (lower-case) found in the body, or None."""
        for needle in needles:
            if needle.encode("utf-8") in self.data:
                return needle
        return None

    @cached_property
    def text(self) -> str:
        """The scanned body decoded and lower-cased (for the regex-based views)."""
        return _decode(self.data).lower()

    def header(self, name: str) -> str:
        return self.headers.get(name, "").lower()

    @cached_property
    def title(self) -> str:
        match = _TITLE.search(self.data)
        if match is None:
            return ""
        return _SPACE.sub(" ", html.unescape(_decode(match.group(1)).lower())).strip()

    @cached_property
    def visible_text(self) -> str:
        stripped = _SCRIPT_STYLE.sub(" ", _COMMENT.sub(" ", self.text))
        return _SPACE.sub(" ", html.unescape(_TAG.sub(" ", stripped))).strip()

    @property
    def is_small(self) -> bool:
        return len(self.visible_text) < WALL_TEXT_CHARS

    @property
    def blocking(self) -> bool:
        return self.status in BLOCKING_STATUSES

    @property
    def walled(self) -> bool:
        """A blocking status or a page with almost nothing to read."""
        return self.blocking or self.is_small


def _decode(body: bytes) -> str:
    # Markers are ASCII and the multilingual phrases are UTF-8 on every page seen;
    # a cp1252 page only loses its accented phrases, never the vendor markers.
    return body.decode("utf-8", "replace")


Rule = Callable[[_Page], Challenge | None]


def _cloudflare(page: _Page) -> Challenge | None:
    if page.header("cf-mitigated") == "challenge":
        return Challenge("cloudflare", "cloudflare", "cf-mitigated: challenge", False)
    if "attention required! | cloudflare" in page.title:
        captcha = page.has("cf_chl_captcha_tk", "g-recaptcha", "h-captcha", "cf-turnstile")
        if captcha is not None or "captcha" in page.visible_text:
            return Challenge("captcha", "cloudflare", captcha or "Attention Required", True)
        # Firewall-rule block ("Sorry, you have been blocked", error 1020).
        return Challenge("bot_protection", "cloudflare", "Attention Required! | Cloudflare", False)
    marker = page.has(
        "window._cf_chl_opt",
        "jschl_vc",
        "jschl_answer",
        "__cf_chl_jschl_tk__",
        "cf-browser-verification",
        "/cdn-cgi/challenge-platform/h/b/orchestrate/",
        "/cdn-cgi/challenge-platform/h/g/orchestrate/",
    )
    if marker is not None:
        return Challenge("cloudflare", "cloudflare", marker, False)
    if page.title in ("just a moment...", "just a moment…") and page.has("cloudflare", "cdn-cgi"):
        return Challenge("cloudflare", "cloudflare", "Just a moment...", False)
    # Bot Fight Mode stub: the __CF$cv$params bootstrap and nothing to read. The same
    # bootstrap is injected at the end of ordinary pages, hence the empty-page test.
    if page.has("__cf$cv$params") and len(page.visible_text) < 200 and len(page.data) < 8192:
        return Challenge("cloudflare", "cloudflare", "__CF$cv$params", False)
    if page.title.startswith("access denied") and page.has("cf-error-details"):
        return Challenge("bot_protection", "cloudflare", "cf-error-details", False)
    return None


def _turnstile(page: _Page) -> Challenge | None:
    marker = page.has("challenges.cloudflare.com/turnstile", "cf-turnstile")
    if marker is not None and page.walled:
        return Challenge("turnstile", "turnstile", marker, True)
    return None


def _google_sorry(page: _Page) -> Challenge | None:
    on_sorry = page.host.startswith(("www.google.", "google.", "ipv4.google.", "ipv6.google."))
    if on_sorry and page.path.startswith("/sorry/"):
        return Challenge("captcha", "google", "google /sorry/", True)
    # The wording alone could be an article quoting Google; the form and a page
    # with nothing else on it make it the block itself.
    if (
        page.has("unusual traffic from your computer network")
        and page.has("captcha-form", "g-recaptcha")
        and page.is_small
    ):
        return Challenge("captcha", "google", "unusual traffic from your computer network", True)
    return None


def _datadome(page: _Page) -> Challenge | None:
    delivery = page.has("captcha-delivery.com")
    if delivery is not None and not page.walled:
        delivery = None
    # DataDome marks every response of a protected site (header and cookie); only
    # with a blocking status do they mean this response is the block.
    headers = "x-datadome" in page.headers or "datadome=" in page.header("set-cookie")
    if delivery is None and not (headers and page.blocking):
        return None
    # DataDome's block page script carries rt:'c' (CAPTCHA) or rt:'i' (device check
    # that a real browser passes on its own).
    kind = _DATADOME_RT.search(page.text)
    if kind is not None and kind.group(1) == "i":
        return Challenge("bot_protection", "datadome", "datadome rt:i", False)
    if delivery is not None:
        return Challenge("captcha", "datadome", delivery, True)
    return Challenge("bot_protection", "datadome", "x-datadome", False)


def _perimeterx(page: _Page) -> Challenge | None:
    marker = page.has("_pxcaptcha", "px-captcha", "captcha.px-cdn.net", "captcha.perimeterx.net")
    if (
        marker is None
        and page.has("press & hold", "press &amp; hold")
        and page.has("_pxappid", "perimeterx", "/_px/")
    ):
        marker = "Press & Hold"
    if marker is not None and page.walled:
        return Challenge("captcha", "perimeterx", marker, True)
    return None


def _akamai(page: _Page) -> Challenge | None:
    if not page.title.startswith("access denied") or page.has("reference #") is None:
        return None
    evidence = page.has("edgesuite.net", "akamai") or (
        "akamaighost" if "akamaighost" in page.header("server") else None
    )
    if evidence is None:
        return None
    return Challenge("bot_protection", "akamai", evidence, False)


def _imperva(page: _Page) -> Challenge | None:
    marker = page.has("_incapsula_resource", "incapsula incident id")
    if marker is not None and page.walled:
        return Challenge("bot_protection", "imperva", marker, False)
    return None


def _captcha_widget(page: _Page) -> Challenge | None:
    """A reCAPTCHA / hCaptcha / ALTCHA widget on a page that is nothing but the widget."""
    altcha = page.has("<altcha-widget", "altcha.js", "altcha.min.js")
    if altcha is not None and page.walled:
        return Challenge("captcha", "altcha", altcha, False)
    hcaptcha = page.has("h-captcha", "hcaptcha.com/1/api.js", "js.hcaptcha.com")
    recaptcha = page.has("g-recaptcha", "google.com/recaptcha/api", "recaptcha.net/recaptcha/api")
    marker = hcaptcha or recaptcha
    # Not `walled`: articles with a reCAPTCHA comment form are still articles when
    # a server sends them with 403; the widget must be (nearly) all there is.
    if marker is None or not page.is_small:
        return None
    # reCAPTCHA v3 is loaded on whole sites; on a small page it still needs a
    # visible widget or wording that asks the visitor to prove something.
    widget = page.has("g-recaptcha", "h-captcha", "data-sitekey")
    asks = next((p for p in HUMAN_CHECK_PHRASES if p in page.visible_text), None)
    if widget is None and asks is None and not page.blocking:
        return None
    return Challenge("captcha", "hcaptcha" if hcaptcha else "recaptcha", marker, True)


def _login(page: _Page) -> Challenge | None:
    google = page.host == "accounts.google.com" and (
        "signin" in page.path.lower() or "servicelogin" in page.path.lower()
    )
    if google:
        return Challenge("login", "google", "accounts.google.com sign-in", True)
    if page.status == 401:
        # Any 401 asks for credentials; the body only says whose.
        if page.has("accounts.google.com") or page.host.endswith(".google.com"):
            return Challenge("login", "google", "401 + accounts.google.com", True)
        marker = "www-authenticate" if "www-authenticate" in page.headers else "status 401"
        return Challenge("login", "generic", marker, True)
    if page.status is not None and not (200 <= page.status < 300 or page.blocking):
        return None
    # Articles carry hidden login modals with password fields; only a page with
    # almost nothing else on it is a login wall.
    if _PASSWORD_INPUT.search(page.data) is None:
        return None
    if not page.is_small:
        return None
    phrase = next((p for p in SIGN_IN_PHRASES if p in page.visible_text), None)
    if phrase is None:
        return None
    return Challenge("login", "generic", f"password field + {phrase!r}", True)


def _consent(page: _Page) -> Challenge | None:
    if page.status is not None and not 200 <= page.status < 300:
        return None
    consent_host = page.host.startswith(("consent.google.", "consent.youtube."))
    form = _CONSENT_FORM.search(page.data)
    if consent_host and form is not None:
        return Challenge("consent", "google", f"{page.host} consent form", True)
    titled = next((t for t in CONSENT_TITLES if page.title.startswith(t)), None)
    if form is not None and (titled is not None or page.is_small):
        return Challenge("consent", "google", titled or "consent.google form", True)
    # Other sites' interstitials (Yahoo's guce.*, Oath "collectConsent"): the URL
    # and a form together; a cookie banner on an article has neither.
    interstitial = page.host.startswith(("guce.", "consent.")) or "collectconsent" in page.url
    if interstitial and page.has("<form") and page.is_small:
        return Challenge("consent", "generic", page.host, True)
    if titled is not None and page.has("<form") and page.is_small and page.has("cookie"):
        return Challenge("consent", "generic", titled, True)
    return None


def _unsupported_browser(page: _Page) -> Challenge | None:
    if page.has(*UNSUPPORTED_BROWSER_PHRASES) is None:
        return None
    phrase = next((p for p in UNSUPPORTED_BROWSER_PHRASES if p in page.title), None)
    if phrase is None and page.walled:
        # Near the top of what a reader sees, not in an article about browsers.
        phrase = next(
            (p for p in UNSUPPORTED_BROWSER_PHRASES if p in page.visible_text[:600]), None
        )
    if phrase is not None and page.walled:
        return Challenge("unsupported_browser", "generic", phrase, False)
    return None


def _human_check(page: _Page) -> Challenge | None:
    """A vendor-less "prove you are human" wall served with a blocking status."""
    if not page.blocking or (
        page.has(*HUMAN_CHECK_PHRASES) is None and "captcha" not in page.title
    ):
        return None
    if not page.is_small:
        return None
    phrase = next((p for p in HUMAN_CHECK_PHRASES if p in page.visible_text), None)
    if phrase is None and "captcha" in page.title:
        phrase = "captcha"
    if phrase is None:
        return None
    return Challenge("captcha", "generic", phrase, True)


RULES: tuple[Rule, ...] = (
    _cloudflare,
    _turnstile,
    _google_sorry,
    _datadome,
    _perimeterx,
    _akamai,
    _imperva,
    _captcha_widget,
    _login,
    _consent,
    _unsupported_browser,
    _human_check,
)


def detect_challenge(
    status: int | None, headers: Mapping[str, str], body: bytes | str, url: str = ""
) -> Challenge | None:
    """The challenge a response is, or None for content (including plain 404 pages).

    `headers` may use any case; `url` is the final URL after redirects (it decides
    Google's /sorry/, consent and sign-in hosts).
    """
    if status in NOT_FOUND_STATUSES:
        return None
    page = _Page(status, headers, body, url)
    for rule in RULES:
        found = rule(page)
        if found is not None:
            return found
    return None
