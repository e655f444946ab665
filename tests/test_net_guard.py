"""SSRF guard and allowed hosts as tables of good and bad inputs (STYLE §7, ARCHITECTURE §6)."""

from __future__ import annotations

import ipaddress
from pathlib import Path

import pytest

from lyra.pipelines.net.domains import (
    load_domain_rules,
    page_trust_level,
    qps_for,
    registrable_domain,
    trust_level_for,
)
from lyra.pipelines.net.net_guard import (
    GuardedTarget,
    TargetRefused,
    check_url,
    embedded_ipv4,
    is_refused,
    private_reason,
)

# (url, reason) refused with allow_private=False and no allowed_hosts.
REFUSED_PUBLIC_MODE = [
    ("http://127.0.0.1/", "loopback"),
    ("http://127.8.9.10:8080/x", "loopback"),
    ("http://localhost/", "loopback"),
    ("http://LOCALHOST./", "loopback"),
    ("http://10.0.0.1/", "private"),
    ("http://172.16.5.4/", "private"),
    ("http://192.168.1.1/admin", "private"),
    ("http://169.254.169.254/latest/meta-data/", "link_local"),
    ("http://100.64.0.1/", "not_global"),
    ("http://0.0.0.0/", "unspecified"),
    ("http://224.0.0.1/", "multicast"),
    ("http://240.0.0.1/", "reserved"),
    ("http://255.255.255.255/", "reserved"),
    ("http://[::1]/", "loopback"),
    ("http://[::]/", "unspecified"),
    ("http://[fe80::1]/", "link_local"),
    ("http://[fc00::1]/", "private"),
    ("http://[ff02::1]/", "multicast"),
    ("http://[::ffff:127.0.0.1]/", "ipv4_mapped"),
    ("http://[::ffff:8.8.8.8]/", "ipv4_mapped"),
    ("http://[::ffff:7f00:1]/", "ipv4_mapped"),
    ("http://[2002:7f00:1::]/", "embedded_loopback"),
    ("http://[64:ff9b::a00:1]/", "embedded_private"),
    # Legacy numeric spellings of 127.0.0.1 that resolvers accept.
    ("http://2130706433/", "noncanonical_ip"),
    ("http://0177.0.0.1/", "noncanonical_ip"),
    ("http://0x7f.0.0.1/", "noncanonical_ip"),
    ("http://0x7f000001/", "noncanonical_ip"),
    ("http://127.1/", "noncanonical_ip"),
    ("http://127.000.000.001/", "noncanonical_ip"),
    # Parser differentials and schemes.
    ("http://evil.example@127.0.0.1/", "userinfo"),
    ("http://user:pass@example.com/", "userinfo"),
    ("http://127.0.0.1\\@example.com/", "bad_url_characters"),
    ("http://example.com /", "bad_url_characters"),
    ("http://exa\tmple.com/", "bad_url_characters"),
    ("file:///etc/passwd", "scheme"),
    ("gopher://127.0.0.1:70/", "scheme"),
    ("ftp://example.com/", "scheme"),
    ("javascript:alert(1)", "scheme"),
    ("//example.com/", "scheme"),
    ("http:///path", "no_host"),
    ("http://exa_mple..com/", "bad_host"),
    ("http://[::1/", "bad_url"),
    ("http://example.com:99999/", "bad_url"),
]


@pytest.mark.parametrize(("url", "reason"), REFUSED_PUBLIC_MODE)
def test_refused_without_private_targets(url: str, reason: str) -> None:
    with pytest.raises(TargetRefused) as caught:
        check_url(url, allow_private=False, allowed_hosts=[])
    assert caught.value.reason == reason


# (url, allowed_hosts, expected addresses) accepted with allow_private=True.
ACCEPTED_PRIVATE_MODE = [
    ("http://127.0.0.1:8080/x", [], ("127.0.0.1",)),
    ("http://127.0.0.1/", ["127.0.0.0/8"], ("127.0.0.1",)),
    ("http://127.0.0.2/", ["127.0.0.0/8"], ("127.0.0.2",)),
    ("http://127.0.0.1/", ["127.0.0.1"], ("127.0.0.1",)),
    ("https://[::1]:8443/", ["::1/128"], ("::1",)),
    ("http://10.1.2.3/", ["10.0.0.0/8"], ("10.1.2.3",)),
    # A name whose addresses fall inside a CIDR entry: pinned to those addresses only.
    ("http://localhost:9000/", ["127.0.0.0/8"], ("127.0.0.1",)),
]


@pytest.mark.parametrize(("url", "allowed", "addresses"), ACCEPTED_PRIVATE_MODE)
def test_accepted_with_private_targets(
    url: str, allowed: list[str], addresses: tuple[str, ...]
) -> None:
    target = check_url(url, allow_private=True, allowed_hosts=allowed)
    assert target.addresses == addresses


# (url, allowed_hosts, reason) refused with allow_private=True because of the allow list.
REFUSED_BY_ALLOW_LIST = [
    ("http://127.0.0.2/", ["127.0.0.1"], "not_in_allowed_hosts"),
    ("http://127.0.0.1/", ["10.0.0.0/8"], "not_in_allowed_hosts"),
    ("http://[::1]/", ["127.0.0.0/8"], "not_in_allowed_hosts"),
    ("http://localhost/", ["example.com"], "not_in_allowed_hosts"),
    ("http://localhost/", ["*.localhost"], "not_in_allowed_hosts"),
    ("http://2130706433/", ["127.0.0.0/8"], "noncanonical_ip"),
    ("http://me@127.0.0.1/", ["127.0.0.0/8"], "userinfo"),
    ("file:///etc/passwd", ["127.0.0.0/8"], "scheme"),
]


@pytest.mark.parametrize(("url", "allowed", "reason"), REFUSED_BY_ALLOW_LIST)
def test_refused_by_allowed_hosts(url: str, allowed: list[str], reason: str) -> None:
    assert is_refused(url, allow_private=True, allowed_hosts=allowed) == reason


def test_hostname_entry_and_wildcard_match_names() -> None:
    by_name = check_url("http://localhost:8000/", allow_private=True, allowed_hosts=["LocalHost"])
    assert by_name.host == "localhost"
    assert by_name.port == 8000
    assert by_name.host_is_ip is False
    # /etc/hosts may or may not list ::1 for localhost; 127.0.0.1 is always there.
    assert "127.0.0.1" in by_name.addresses
    assert set(by_name.addresses) <= {"127.0.0.1", "::1"}


def test_wildcard_entry_matches_subdomains_only() -> None:
    assert (
        is_refused("http://localhost/", allow_private=True, allowed_hosts=["*.host"])
        == "not_in_allowed_hosts"
    )
    assert (
        is_refused("http://localhost/", allow_private=True, allowed_hosts=["*.localhost"])
        == "not_in_allowed_hosts"
    )


def test_unresolvable_name_is_refused() -> None:
    with pytest.raises(TargetRefused) as caught:
        check_url("http://no-such-host.invalid/", allow_private=False, allowed_hosts=[])
    assert caught.value.reason == "unresolvable"


def test_public_ip_literal_is_accepted_without_dns() -> None:
    target = check_url("https://93.184.215.14/a?b=c", allow_private=False, allowed_hosts=[])
    assert target == GuardedTarget(
        url="https://93.184.215.14/a?b=c",
        scheme="https",
        host="93.184.215.14",
        port=443,
        addresses=("93.184.215.14",),
        host_is_ip=True,
    )
    assert target.curl_resolve() == []


def test_public_ipv6_literal_is_accepted() -> None:
    target = check_url("http://[2606:4700:4700::1111]:8080/", allow_private=False, allowed_hosts=[])
    assert target.addresses == ("2606:4700:4700::1111",)
    assert target.port == 8080


def test_allow_list_without_private_still_refuses_loopback() -> None:
    assert (
        is_refused("http://127.0.0.1/", allow_private=False, allowed_hosts=["127.0.0.0/8"])
        == "loopback"
    )


def test_curl_resolve_pins_names_to_checked_addresses() -> None:
    target = check_url("http://localhost:8123/", allow_private=True, allowed_hosts=["127.0.0.0/8"])
    assert target.curl_resolve() == ["localhost:8123:127.0.0.1"]
    v6 = GuardedTarget("http://h/", "http", "h", 80, ("::1", "127.0.0.1"), host_is_ip=False)
    assert v6.curl_resolve() == ["h:80:[::1],127.0.0.1"]


EMBEDDED = [
    ("::ffff:10.0.0.1", "10.0.0.1"),
    ("2002:c0a8:0101::", "192.168.1.1"),
    ("64:ff9b::808:808", "8.8.8.8"),
    ("2001:0:4136:e378:8000:63bf:3fff:fdd2", "192.0.2.45"),
    ("2606:4700::1111", None),
]


@pytest.mark.parametrize(("address", "inner"), EMBEDDED)
def test_embedded_ipv4(address: str, inner: str | None) -> None:
    found = embedded_ipv4(ipaddress.ip_address(address))
    assert (str(found) if found is not None else None) == inner


def test_public_addresses_have_no_private_reason() -> None:
    assert private_reason(ipaddress.ip_address("8.8.8.8")) is None
    assert private_reason(ipaddress.ip_address("2001:4860:4860::8888")) is None
    assert private_reason(ipaddress.ip_address("64:ff9b::808:808")) is None


# -- Host classification (pipelines/net/domains.py) ---------------------------------
# Kept here until the project has a tests/test_domains.py: both modules decide
# which host a request belongs to.

REGISTRABLE = [
    ("https://www.bbc.co.uk/news", "bbc.co.uk"),
    ("https://en.wikipedia.org/wiki/Coffee", "wikipedia.org"),
    ("http://a.b.example.com:8080/x", "example.com"),
    ("EXAMPLE.COM.", "example.com"),
    ("docs.example.org:443", "example.org"),
    ("http://127.0.0.1:8765/page", "127.0.0.1"),
    ("127.0.0.2:80", "127.0.0.2"),
    ("http://[::1]:8080/", "::1"),
    ("localhost:3000", "localhost"),
    ("http://intranet/wiki", "intranet"),
]


@pytest.mark.parametrize(("value", "domain"), REGISTRABLE)
def test_registrable_domain(value: str, domain: str) -> None:
    assert registrable_domain(value) == domain


RULES = {
    "patterns": {
        "GOVERNMENT": ["*.gov", "who.int", "*.who.int"],
        "ACADEMIC": ["*.edu", "arxiv.org", "*.nih.gov"],
        "LOW": ["*.wikipedia.org"],
        "BLOCKED": ["*.bad.example"],
    },
    "user_overrides": {"cdc.gov": "PRIMARY", "arxiv.org": "TRUSTED"},
    "qps": {"arxiv.org": 0.25},
}

TRUST = [
    ("www.fda.gov", "GOVERNMENT"),
    ("who.int", "GOVERNMENT"),
    ("www.who.int", "GOVERNMENT"),
    ("pubmed.ncbi.nlm.nih.gov", "ACADEMIC"),  # *.nih.gov is more specific than *.gov
    ("cs.stanford.edu", "ACADEMIC"),
    ("en.wikipedia.org", "LOW"),
    ("www.cdc.gov", "PRIMARY"),  # override on the registrable domain wins
    ("arxiv.org", "TRUSTED"),
    ("x.bad.example", "BLOCKED"),
    ("example.com", "UNVERIFIED"),
    ("gov", "UNVERIFIED"),
]


@pytest.mark.parametrize(("host", "level"), TRUST)
def test_trust_level_for(host: str, level: str) -> None:
    assert trust_level_for(host, RULES) == level


def test_packaged_domain_rules() -> None:
    rules = load_domain_rules()
    assert trust_level_for("en.wikipedia.org", rules) == "LOW"
    assert trust_level_for("www.who.int", rules) == "GOVERNMENT"
    assert trust_level_for("arxiv.org", rules) == "ACADEMIC"
    assert trust_level_for("unknown-site.example", rules) == "UNVERIFIED"
    assert qps_for("export.arxiv.org", rules, 0.2) == 0.25
    assert qps_for("example.com", rules, 0.2) == 0.2


def test_domain_rules_reject_unknown_levels(tmp_path: Path) -> None:
    bad = tmp_path / "domains.yaml"
    bad.write_text("patterns:\n  SUPER: ['*.x']\n", encoding="utf-8")
    with pytest.raises(ValueError, match="unknown trust level 'SUPER'"):
        load_domain_rules(bad)


def test_refused_without_lookup_never_resolves_an_unlisted_name() -> None:
    from lyra.pipelines.net.net_guard import refused_without_lookup

    loopback = ["127.0.0.0/8"]
    assert refused_without_lookup("https://api.semanticscholar.org/x", allowed_hosts=loopback) == (
        "not_in_allowed_hosts"
    )
    assert refused_without_lookup("http://127.0.0.5:8080/x", allowed_hosts=loopback) is None
    assert refused_without_lookup("http://10.0.0.5/x", allowed_hosts=loopback) == (
        "not_in_allowed_hosts"
    )
    assert refused_without_lookup("http://localhost:9/x", allowed_hosts=loopback) is None
    named = ["api.openalex.org", "*.semanticscholar.org"]
    assert refused_without_lookup("https://api.openalex.org/works", allowed_hosts=named) is None
    assert refused_without_lookup("https://api.semanticscholar.org/g", allowed_hosts=named) is None
    assert refused_without_lookup("https://evil.example/", allowed_hosts=named) == (
        "not_in_allowed_hosts"
    )
    assert refused_without_lookup("https://api.openalex.org/works", allowed_hosts=[]) is None
    assert refused_without_lookup("ftp://x.org/", allowed_hosts=loopback) == "scheme"


@pytest.mark.parametrize(
    ("domain", "url", "level"),
    [
        # Pages store the registrable domain; a rule on one host reaches them by URL.
        ("nih.gov", "https://pubmed.ncbi.nlm.nih.gov/123/", "ACADEMIC"),
        ("nih.gov", "https://www.nih.gov/about", "ACADEMIC"),
        ("cdc.gov", "HTTPS://www.cdc.gov/x", "PRIMARY"),
        ("bad.example", "https://x.bad.example/", "BLOCKED"),
        ("local", "file:///corpus/local/a.md", "UNVERIFIED"),  # a corpus file: its folder
        ("nih.gov", "http://[zz/y", "GOVERNMENT"),  # a malformed URL: the stored domain
        (None, None, "UNVERIFIED"),
    ],
)
def test_a_page_is_judged_by_the_host_of_its_url(
    domain: str | None, url: str | None, level: str
) -> None:
    assert page_trust_level(domain, url, RULES) == level
