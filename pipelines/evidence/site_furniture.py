"""A site's own furniture among the sentences a page states: a cookie notice, a sign-up
box, a copyright line (decision 0100). The claim rules reject it (`claims.is_rejected_claim`).
"""

from __future__ import annotations

import re

# A site's own furniture: a cookie notice, a sign-up box, a copyright line (decision
# 0100). Some phrases are furniture wherever they stand; the words a finding may also
# use ("cookies" eaten, a "subscription" that costs, an app that makes you "sign up")
# are furniture in a short sentence, where the site speaks ("we", "our"), or at the
# head of an imperative ("Subscribe to ...", "Read more").
_FURNITURE = re.compile(
    r"\b(click here|all rights reserved|privacy policy|terms of (use|service)|share this|"
    r"follow us|related articles|enable javascript|sponsored content|paid content|"
    r"partner content|advertorial|donate now|support our work)\b|\u00a9",
    re.IGNORECASE,
)
_FURNITURE_WORDS = re.compile(
    r"\b(cookies?|subscribe|subscription|newsletter|sign up|sign in|log in|advertisement|"
    r"read more)\b",
    re.IGNORECASE,
)
_SITE_SPEAKS = re.compile(
    r"\b(we|our|us|this (site|website|page)|nuestr[oa]s?|notre|nos|unser(e|en|em|er)?)\b",
    re.IGNORECASE,
)
_FURNITURE_IMPERATIVE = re.compile(
    r"^(subscribe|sign (up|in)|log in|read more|accept|manage|register|join)\b", re.IGNORECASE
)
_FURNITURE_MAX_WORDS = 12


def is_boilerplate(text: str) -> bool:
    """True for a site's furniture rather than anything its page states."""
    if _FURNITURE.search(text):
        return True
    if not _FURNITURE_WORDS.search(text):
        return False
    return (
        len(text.split()) < _FURNITURE_MAX_WORDS
        or _SITE_SPEAKS.search(text) is not None
        or _FURNITURE_IMPERATIVE.match(text) is not None
    )
