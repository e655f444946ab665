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
import logging
import re
import threading
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import tldextract
import yaml

DOMAINS_FILE = Path(__file__).resolve().parents[2] / "config" / "domains.yaml"
USER_DOMAINS_FILENAME = "domains.yaml"  # under LYRA_HOME: the user's own layer
# Under LYRA_HOME: the blocks the `feedback` tool made (Lyra writes it; decision 0050).
# Merged last, so a person's latest word on a site wins over both domains.yaml files.
FEEDBACK_DOMAINS_FILENAME = "feedback_domains.yaml"
FEEDBACK_RULES_KEY = "feedback_blocks"  # the sites that layer blocks, in the merged rules

log = logging.getLogger(__name__)

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


def warm_suffix_list() -> None:
    """Parse the public suffix list now (about 0.1 s of CPU), not in the first lookup."""
    _extractor()("example.com")


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


# A DNS label as sites use them: letters, digits, inner hyphens; underscores too (some
# hosts have them, and browsers reach them).
_LABEL = re.compile(r"[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?")


def host_name_problem(host: str) -> str | None:
    """Why ``host`` (lower case, as `host_of` gives it) names no site, or None: an IP
    address, ``localhost``, or a DNS name of 1-63-character labels (letters, digits,
    inner hyphens or underscores; an IDN checked in its ``xn--`` form), at most 253
    characters, whose last
    label is not all digits and which is not itself a public suffix (``com``,
    ``co.uk``: blocking one would block every site under it)."""
    if _is_ip(host) or host == "localhost":
        return None
    if not host.isascii():
        try:  # an internationalised name is checked in the form DNS carries (xn--)
            host = host.encode("idna").decode("ascii")
        except UnicodeError:
            return "not a host name (an internationalised name IDNA cannot encode)"
    if not host or len(host) > 253:
        return "not a host name (1 to 253 characters)"
    labels = host.split(".")
    if not all(_LABEL.fullmatch(label) for label in labels):
        return "not a host name (labels of 1-63 letters, digits and inner hyphens)"
    if labels[-1].isdigit():
        return "not a host name, nor an IP address"
    result = _extractor()(host)
    if result.suffix and not result.domain:
        return "a public suffix, not a site"
    return None


# A pure function of its text (the suffix list is the packaged one): remembered, since
# every get_status folds each stance edge's page domain through it (decision 0080).
@lru_cache(maxsize=16384)
def registrable_domain(host_or_url: str) -> str:
    """The registrable domain (eTLD+1) of a URL or host; IPs, localhost and bare names as is."""
    return _domain_under(_extractor(), host_or_url)


@lru_cache(maxsize=1)
def _owner_extractor() -> tldextract.TLDExtract:
    return tldextract.TLDExtract(
        suffix_list_urls=(), cache_dir=None, include_psl_private_domains=True
    )


def owner_domain(host_or_url: str) -> str:
    """The registrable domain under the public suffix list's private section too: each
    ``*.github.io`` or ``*.blogspot.com`` site is its own owner (source verification
    judges owners; politeness and blocks keep `registrable_domain`)."""
    return _domain_under(_owner_extractor(), host_or_url)


def _domain_under(extractor: tldextract.TLDExtract, host_or_url: str) -> str:
    host = host_of(host_or_url)
    if not host:
        raise ValueError(f"no host in {host_or_url!r}")
    if _is_ip(host) or host == "localhost":
        return host
    result = extractor(host)
    if result.domain and result.suffix:
        return f"{result.domain}.{result.suffix}"
    labels = host.rstrip(".").split(".")
    if len(labels) >= 2 and all(labels[-2:]):
        # A suffix the list does not know (".example", ".test", ".internal"): the
        # list's default rule "*" makes its last label the suffix, so the site is
        # the last two labels ("www.healthblog.example" is "healthblog.example").
        return ".".join(labels[-2:])
    # A bare name ("intranet", "localhost"): the host is its own domain.
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


def merge_domain_rules(base: Mapping[str, Any], user: Mapping[str, Any]) -> dict[str, Any]:
    """Packaged rules with the user's layer on top: its patterns add, overrides and qps win."""
    patterns = {level: list(items) for level, items in base["patterns"].items()}
    for level, items in user["patterns"].items():
        patterns.setdefault(level, [])
        patterns[level].extend(p for p in items if p not in patterns[level])
    return {
        "patterns": patterns,
        "user_overrides": {**base["user_overrides"], **user["user_overrides"]},
        "qps": {**base["qps"], **user["qps"]},
    }


class DomainRulesWatcher:
    """`config/domains.yaml` (plus ``LYRA_HOME/domains.yaml``) re-read when either changes.

    ARCHITECTURE §4: trust levels and per-domain rates reload without a restart. The
    files are stat'ed on each `current()` call (cheap) and re-parsed only when their
    modification time or size changed. A file that fails validation is reported in the
    log and `last_error`, and the previous good rules stay in force: a typo in a
    hand-edited file must not reset every domain to the defaults mid-task.
    """

    def __init__(
        self,
        path: Path | None = None,
        user_path: Path | None = None,
        feedback_path: Path | None = None,
    ) -> None:
        self.path = path or DOMAINS_FILE
        self.user_path = user_path
        self.feedback_path = feedback_path
        self._stamp: tuple[Any, ...] | None = None
        self._rules: dict[str, Any] = load_domain_rules(self.path)
        self.version = 0
        self.last_error: str | None = None
        self._lock = threading.Lock()
        self.current()

    def _stat(self) -> tuple[Any, ...]:
        out: list[Any] = []
        for p in (self.path, self.user_path, self.feedback_path):
            try:
                st = p.stat() if p is not None else None
            except FileNotFoundError:
                st = None
            # The inode too: the feedback tool replaces its file in one rename, and two
            # writes of the same size within the clock's resolution would look alike.
            out.append((st.st_ino, st.st_mtime_ns, st.st_size) if st is not None else None)
        return tuple(out)

    def current(self) -> dict[str, Any]:
        """The rules in force now (reloaded first if a file changed); thread-safe (the
        browser's guard asks from worker threads)."""
        with self._lock:
            return self._current()

    def _current(self) -> dict[str, Any]:
        stamp = self._stat()
        if stamp == self._stamp:
            return self._rules
        self._stamp = stamp
        try:
            rules = load_domain_rules(self.path)
            if self.user_path is not None and self.user_path.is_file():
                rules = merge_domain_rules(rules, load_domain_rules(self.user_path))
            feedback: list[str] = []
            if self.feedback_path is not None and self.feedback_path.is_file():
                layer = load_domain_rules(self.feedback_path)
                rules = merge_domain_rules(rules, layer)
                overrides = layer["user_overrides"].items()
                feedback = sorted(d for d, level in overrides if level == "BLOCKED")
            # Which blocks the feedback tool made, for get_status's listing.
            rules[FEEDBACK_RULES_KEY] = feedback
        except (OSError, ValueError, yaml.YAMLError) as exc:
            self.last_error = str(exc)
            log.error("domains.yaml not reloaded, keeping the previous rules: %s", exc)
            return self._rules
        self.last_error = None
        if rules != self._rules or self.version == 0:
            self._rules = rules
            self.version += 1
        return self._rules


def home_rules_watcher(home: Path) -> DomainRulesWatcher:
    """The rules a Lyra under ``home`` runs with: config/domains.yaml, then the user's
    ``LYRA_HOME/domains.yaml``, then the feedback tool's blocks."""
    return DomainRulesWatcher(
        user_path=home / USER_DOMAINS_FILENAME, feedback_path=home / FEEDBACK_DOMAINS_FILENAME
    )


def _specificity(pattern: str) -> int:
    return len(pattern.replace("*", "").replace("?", ""))


def _trust_match(domain: str, rules: Mapping[str, Any]) -> tuple[str, str | None, str]:
    """(level, rule, the name the rule matched: the host or its registrable domain).

    A user override wins, else the most specific pattern. The rule reads as
    ``user_overrides: spam.example`` or ``patterns.BLOCKED: *.spam.example`` (None:
    the default level).
    """
    host = host_of(domain)
    candidates = [host]
    if host:
        registrable = registrable_domain(host)
        if registrable != host:
            candidates.append(registrable)
    overrides: Mapping[str, str] = rules.get("user_overrides") or {}
    for name in candidates:
        if name in overrides:
            return overrides[name], f"user_overrides: {name}", name
    best: tuple[int, int, str, str, str] | None = None
    patterns: Mapping[str, list[str]] = rules.get("patterns") or {}
    for level, items in patterns.items():
        for pattern in items:
            # The widest name the pattern covers: the registrable domain if it matches.
            matched = [n for n in candidates if fnmatch.fnmatchcase(n, pattern)]
            if matched:
                # Longer literal part first; on a tie the stricter level (lower index).
                key = (
                    _specificity(pattern),
                    -TRUST_LEVELS.index(level),
                    level,
                    pattern,
                    matched[-1],
                )
                if best is None or key[:3] > best[:3]:
                    best = key
    if best is None:
        return DEFAULT_TRUST_LEVEL, None, host
    return best[2], f"patterns.{best[2]}: {best[3]}", best[4]


def trust_rule(domain: str, rules: Mapping[str, Any]) -> str | None:
    """The rule that sets a host's trust level, None when it has the default level."""
    return _trust_match(domain, rules)[1]


def page_trust_level(domain: str | None, url: str | None, rules: Mapping[str, Any]) -> str:
    """Trust level of a page: by the host of its http(s) URL (a rule may name one host,
    ``pubmed.ncbi.nlm.nih.gov``; pages store only the registrable domain), else by its
    stored domain (a corpus file's folder)."""
    if url and url.lower().startswith(("http://", "https://")):
        try:
            if host_of(url):
                return trust_level_for(url, rules)
        except ValueError:
            pass  # a malformed URL: the stored domain decides
    return trust_level_for(domain or "", rules)


def trust_level_for(domain: str, rules: Mapping[str, Any]) -> str:
    """Trust level of a host under `rules`: user override, else the most specific pattern."""
    return _trust_match(domain, rules)[0]


# How a block that domains.yaml made is named in the `domains` table and get_status.
CONFIG_BLOCK_PREFIX = "domains.yaml "
# How a block that the feedback tool made is named there ("feedback: <reason>").
FEEDBACK_BLOCK_PREFIX = "feedback"


def config_block_reason(rule: str) -> str:
    """The stored reason of a domains.yaml block: ``domains.yaml <rule>``."""
    return CONFIG_BLOCK_PREFIX + rule


def block_match(host_or_url: str, rules: Mapping[str, Any]) -> tuple[str, str] | None:
    """(name, rule) when domains.yaml makes `host_or_url` BLOCKED, else None.

    ARCHITECTURE §4: a BLOCKED domain is never fetched, searched or cited. `name` is
    what the rule matched (the registrable domain, or the host for a rule on one
    subdomain), the name under which the block is recorded and listed. A URL
    without a host is not a domain this applies to (None).
    """
    try:
        host = host_of(host_or_url)
    except ValueError:
        return None
    if not host:
        return None
    level, rule, name = _trust_match(host, rules)
    return (name, rule) if level == "BLOCKED" and rule is not None else None


def block_rule(host_or_url: str, rules: Mapping[str, Any]) -> str | None:
    """The domains.yaml rule that makes `host_or_url` BLOCKED, or None when it is not."""
    match = block_match(host_or_url, rules)
    return match[1] if match is not None else None


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


def blocked_listing(
    rows: list[dict[str, Any]], rules: Mapping[str, Any]
) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """Blocked domains as `get_status` lists them, and the recorded blocks lifted since.

    `rows`: the `domains` rows marked blocked (domain, trust_level, block_reason,
    blocked_at). A block that domains.yaml made holds while a rule still says BLOCKED
    (both files are re-read on change); one no rule makes any more is returned in the
    second value (domain -> its level now) for the caller to clear. Domains named
    exactly in a BLOCKED rule that no search has met yet are listed too, with
    ``blocked_at`` None. Each entry: domain, trust_level, reason, cause, blocked_at,
    restore.
    """
    out: list[dict[str, Any]] = []
    lifted: dict[str, str] = {}
    for row in rows:
        domain = str(row["domain"])
        reason = str(row.get("block_reason") or "")
        if reason.startswith(CONFIG_BLOCK_PREFIX):
            rule = block_rule(domain, rules)
            if rule is None:
                lifted[domain] = trust_level_for(domain, rules)
                continue
            out.append(_config_block(domain, rule, row.get("blocked_at")))
        elif reason.startswith(FEEDBACK_BLOCK_PREFIX):
            if block_rule(domain, rules) is None:  # its line was taken out of the file
                lifted[domain] = trust_level_for(domain, rules)
                continue
            out.append(_feedback_block(domain, reason, row.get("blocked_at")))
        else:
            out.append(
                {
                    "domain": domain,
                    "trust_level": "BLOCKED",
                    "reason": reason or None,
                    "cause": "recorded",
                    "blocked_at": row.get("blocked_at"),
                    "restore": "recorded in the domains table, outside domains.yaml",
                }
            )
    listed = {e["domain"] for e in out} | set(lifted)
    overrides: Mapping[str, str] = rules.get("user_overrides") or {}
    named = [d for d, level in overrides.items() if level == "BLOCKED"]
    literal = [p for p in (rules.get("patterns") or {}).get("BLOCKED") or [] if "*" not in p]
    named += [p for p in literal if "?" not in p and "[" not in p]
    feedback = set(rules.get(FEEDBACK_RULES_KEY) or [])
    for domain in dict.fromkeys(named):
        rule = block_rule(domain, rules)
        if domain in listed or rule is None:
            continue
        if domain in feedback:  # the feedback file's own line, not yet recorded
            out.append(_feedback_block(domain, FEEDBACK_BLOCK_PREFIX, None))
        else:
            out.append(_config_block(domain, rule, None))
    return sorted(out, key=lambda e: e["domain"]), lifted


def _feedback_block(domain: str, reason: str, blocked_at: Any) -> dict[str, Any]:
    return {
        "domain": domain,
        "trust_level": "BLOCKED",
        "reason": reason,
        "cause": "feedback",
        "blocked_at": blocked_at,
        "restore": f"feedback(action='domain_unblock', domain='{domain}') or "
        f"`lyra feedback domain_unblock --domain {domain}`",
    }


def _config_block(domain: str, rule: str, blocked_at: Any) -> dict[str, Any]:
    return {
        "domain": domain,
        "trust_level": "BLOCKED",
        "reason": config_block_reason(rule),
        "cause": "domains.yaml",
        "blocked_at": blocked_at,
        "restore": (
            f"remove `{rule}` from $LYRA_HOME/domains.yaml or config/domains.yaml, or set "
            f"`user_overrides: {{{domain}: UNVERIFIED}}` in $LYRA_HOME/domains.yaml; "
            "both files are re-read without a restart"
        ),
    }
