"""Registrable domains, trust levels and per-domain request rates.

A `DomainFetcher` owns one registrable domain (eTLD+1, ARCHITECTURE §2), so the
mapping from a URL to its domain decides which token bucket a request is charged
to. The public suffix list is tldextract's bundled snapshot: Lyra never downloads
it (ENVIRONMENT.md: tldextract tries the network first unless told otherwise).

Trust levels come from `config/domains.yaml` (ARCHITECTURE §4); they are metadata
for edges and ranking, never an input to confidence.
"""

from __future__ import annotations

import fnmatch
import ipaddress
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import tldextract
import yaml

DOMAINS_FILE = Path(__file__).resolve().parents[1] / "config" / "domains.yaml"

TRUST_LEVELS: tuple[str, ...] = (
    "BLOCKED",
    "PRIMARY",
    "GOVERNMENT",
    "ACADEMIC",
    "TRUSTED",
    "LOW",
    "UNVERIFIED",
)
DEFAULT_TRUST_LEVEL = "UNVERIFIED"


@lru_cache(maxsize=1)
def _extractor() -> tldextract.TLDExtract:
    # suffix_list_urls=() keeps tldextract offline (bundled snapshot); cache_dir=None
    # keeps it from writing under the user's ~/.cache.
    return tldextract.TLDExtract(suffix_list_urls=(), cache_dir=None)


def host_of(host_or_url: str) -> str:
    """The lower-cased host of a URL or a bare ``host[:port]``, without port or trailing dot."""
    text = host_or_url.strip()
    if "://" in text:
        host = urlsplit(text).hostname or ""
    elif text.startswith("["):
        host = text[1:].split("]", 1)[0]
    elif text.count(":") == 1:
        host = text.split(":", 1)[0]
    else:
        # A bare IPv6 address has several colons and no port.
        host = text
    host = host.split("/", 1)[0]
    return host.lower().rstrip(".")


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def registrable_domain(host_or_url: str) -> str:
    """The registrable domain (eTLD+1) of a URL or host; IPs, localhost and bare names as is."""
    host = host_of(host_or_url)
    if not host:
        raise ValueError(f"no host in {host_or_url!r}")
    if _is_ip(host) or host == "localhost":
        return host
    result = _extractor()(host)
    if result.domain and result.suffix:
        return f"{result.domain}.{result.suffix}"
    # No public suffix (an intranet name, a bare TLD): the host is its own domain.
    return host


def load_domain_rules(path: str | Path | None = None) -> dict[str, Any]:
    """Load and validate a domains.yaml mapping (the packaged one when no path is given)."""
    source = Path(path) if path is not None else DOMAINS_FILE
    data = yaml.safe_load(source.read_text(encoding="utf-8")) or {}
    if not isinstance(data, dict):
        raise ValueError(f"{source}: top level must be a mapping")
    patterns = data.get("patterns") or {}
    overrides = data.get("user_overrides") or {}
    qps = data.get("qps") or {}
    if (
        not isinstance(patterns, dict)
        or not isinstance(overrides, dict)
        or not isinstance(qps, dict)
    ):
        raise ValueError(f"{source}: patterns, user_overrides and qps must be mappings")
    for level in list(patterns) + list(overrides.values()):
        if level not in TRUST_LEVELS:
            raise ValueError(f"{source}: unknown trust level {level!r}; known: {TRUST_LEVELS}")
    clean_patterns = {
        str(level): [str(p).lower() for p in (items or [])] for level, items in patterns.items()
    }
    clean_overrides = {str(d).lower().rstrip("."): str(lv) for d, lv in overrides.items()}
    clean_qps: dict[str, float] = {}
    for domain, rate in qps.items():
        value = float(rate)
        if value <= 0:
            raise ValueError(f"{source}: qps for {domain!r} must be positive, got {value}")
        clean_qps[str(domain).lower().rstrip(".")] = value
    return {"patterns": clean_patterns, "user_overrides": clean_overrides, "qps": clean_qps}


def _specificity(pattern: str) -> int:
    return len(pattern.replace("*", "").replace("?", ""))


def trust_level_for(domain: str, rules: Mapping[str, Any]) -> str:
    """Trust level of a host under `rules`: user override, else the most specific pattern."""
    host = host_of(domain)
    candidates = [host]
    if host:
        registrable = registrable_domain(host)
        if registrable != host:
            candidates.append(registrable)
    overrides: Mapping[str, str] = rules.get("user_overrides") or {}
    for name in candidates:
        if name in overrides:
            return overrides[name]
    best: tuple[int, int, str] | None = None
    patterns: Mapping[str, list[str]] = rules.get("patterns") or {}
    for level, items in patterns.items():
        for pattern in items:
            if any(fnmatch.fnmatchcase(name, pattern) for name in candidates):
                # Longer literal part first; on a tie the stricter level (lower index).
                key = (_specificity(pattern), -TRUST_LEVELS.index(level), level)
                if best is None or key > best:
                    best = key
    return best[2] if best is not None else DEFAULT_TRUST_LEVEL


def qps_for(domain: str, rules: Mapping[str, Any], default_qps: float) -> float:
    """The configured requests per second for a domain, or `default_qps` when none is set."""
    host = host_of(domain)
    table: Mapping[str, float] = rules.get("qps") or {}
    if host in table:
        return float(table[host])
    registrable = registrable_domain(host)
    if registrable in table:
        return float(table[registrable])
    return default_qps
