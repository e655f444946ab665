"""BrowserActor: the one owner of Chromium (ARCHITECTURE §2, §3 step 6; seed 003 §4.3).

Renders JavaScript pages and SERPs, takes a screenshot of each, archives every render
to WARC, and opens pages for a person to solve a CAPTCHA or log in (seed 003 §3.6.1).
The actor owns the browser process; the work, and the network rules every page stays
inside (a Playwright route and an in-actor guard proxy), are `jobs.chromium.Chromium`.
"""

from __future__ import annotations

from typing import Any

import ray

from lyra.actors.runtime import BROWSER, report_restart, setup_actor_logging
from lyra.config.settings import Settings
from lyra.jobs.chromium import Chromium


@ray.remote(max_restarts=2, max_task_retries=0)
class BrowserActor:
    """Owns Chromium (launched on the research profile, or the user's Chrome over CDP).

    Fault behaviour: ``max_task_retries=0`` because `render` is not retried: a page
    that crashed the browser process would crash it again, and every retry would
    burn a restart. ``max_restarts=2`` lets a crash caused by one page cost that
    page only. State rebuilt in ``__init__``: none is kept in memory that matters;
    contexts are reopened lazily on the next call, and the cookies of launched
    browsers live in the persistent profile on disk (cookies given to `add_cookies`
    are re-applied only while the actor lives). Idempotent: `status`, `close`,
    `cookies_for`, `add_cookies`. Not idempotent: `render` (a new request to the
    site, a new screenshot and WARC capture) and `open_for_human` (a new window).
    """

    def __init__(self, settings: Settings) -> None:
        setup_actor_logging(settings.home_dir)
        report_restart(BROWSER, settings.ray.namespace)
        self.settings = settings
        self._chromium = Chromium(settings)

    async def render(
        self,
        url: str,
        *,
        headful: bool = False,
        cookies: list[dict[str, Any]] | None = None,
        slots: Any = None,
    ) -> dict[str, Any]:
        """Load `url` in a new page and let its JS run; return the render dict. `slots`:
        the DomainFetcher of `url`'s site, whose `browser_slot` times the page's own
        requests to that site."""
        return await self._chromium.render(url, headful=headful, cookies=cookies, slots=slots)

    async def open_for_human(self, url: str) -> dict[str, Any]:
        """Open `url` in the visible browser for a person and bring it to the front."""
        return await self._chromium.open_for_human(url)

    async def cookies_for(self, domain: str) -> list[dict[str, Any]]:
        """Cookies of every context held whose domain is `domain`'s registrable domain."""
        return await self._chromium.cookies_for(domain)

    async def add_cookies(self, cookies: list[dict[str, Any]]) -> int:
        """Add cookies to every context held, and to contexts opened later; return the count."""
        return await self._chromium.add_cookies(cookies)

    async def status(self) -> dict[str, Any]:
        """Which contexts are open, the display used, and counters. Idempotent."""
        return await self._chromium.status()

    async def close(self) -> None:
        """Close the launched browsers (over CDP: disconnect), stop proxy and Xvfb. Idempotent."""
        await self._chromium.close()
