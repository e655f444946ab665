"""SSRF guard and allowed-hosts check for every outgoing request (ARCHITECTURE §3 step 6, §6).

`check_url` is called before every request the fetch layer or the browser makes,
each redirect hop included. It refuses what could reach the user's machine or
network (loopback, private, link-local, multicast, reserved, unspecified, and IPv6
forms that embed such an IPv4 address) unless `network.allow_private_targets` is
set, and, when `network.allowed_hosts` is non-empty, anything outside that list.

Parser differentials are closed by refusal rather than by guessing how the HTTP
client will read a URL: userinfo (``http://evil@127.0.0.1``), backslashes,
whitespace and control characters, and legacy numeric IPv4 spellings
(``2130706433``, ``0177.0.0.1``, ``0x7f.1``) are refused outright.

The addresses returned are the ones the caller must connect to: the fetch layer
pins them with CURLOPT_RESOLVE so a second DNS answer (rebinding) cannot move the
connection somewhere else after the check.
"""

from __future__ import annotations

import ipaddress
import re
import socket
from dataclasses import dataclass
from urllib.parse import urlsplit

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network

ALLOWED_SCHEMES = frozenset({"http", "https"})
DEFAULT_PORTS = {"http": 80, "https": 443}

_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_NAT64_LOCAL = ipaddress.ip_network("64:ff9b:1::/48")
_IPV4_COMPATIBLE = ipaddress.ip_network("::/96")
_FORBIDDEN_URL_CHARS = re.compile(r"[\x00-\x20\x7f\\]")
# Anything made only of digits, dots and hex/octal markers that is not a canonical
# dotted quad is a legacy numeric spelling some resolvers read as an IPv4 address.
_NUMERIC_HOST = re.compile(r"^(0x[0-9a-f]*|[0-9]+)(\.(0x[0-9a-f]*|[0-9]+))*\.?$")
_HOST_LABEL = re.compile(r"^(?!-)[a-z0-9_-]{1,63}(?<!-)$")


class TargetRefused(Exception):
    """A URL the guard will not let any component contact; `reason` is a stable code."""

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason
        self.detail = detail


@dataclass(frozen=True)
class GuardedTarget:
    """A checked URL and the addresses a client may connect to for it."""

    url: str
    scheme: str
    host: str
    port: int
    addresses: tuple[str, ...]
    host_is_ip: bool

    def curl_resolve(self) -> list[str]:
        """CURLOPT_RESOLVE entries pinning the host to the checked addresses (none for IPs)."""
        if self.host_is_ip:
            return []
        joined = ",".join(f"[{a}]" if ":" in a else a for a in self.addresses)
        return [f"{self.host}:{self.port}:{joined}"]


def embedded_ipv4(ip: IPAddress) -> ipaddress.IPv4Address | None:
    """The IPv4 address inside an IPv6 one (mapped, compatible, 6to4, Teredo, NAT64)."""
    if isinstance(ip, ipaddress.IPv4Address):
        return None
    if ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    if ip.sixtofour is not None:
        return ip.sixtofour
    if ip.teredo is not None:
        return ip.teredo[1]
    if ip in _NAT64 or ip in _NAT64_LOCAL or (ip in _IPV4_COMPATIBLE and int(ip) > 1):
        return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    return None


def private_reason(ip: IPAddress) -> str | None:
    """Why an address is not a public unicast target, or None when it is one."""
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return "ipv4_mapped"
    inner = embedded_ipv4(ip)
    if inner is not None:
        # The embedded IPv4 address is where a 6to4 / Teredo / NAT64 packet ends up;
        # the container prefix's own class (NAT64 is "reserved") does not matter.
        reason = private_reason(inner)
        return None if reason is None else f"embedded_{reason}"
    if ip.is_unspecified:
        return "unspecified"
    if ip.is_loopback:
        return "loopback"
    if ip.is_link_local:
        return "link_local"
    if ip.is_multicast:
        return "multicast"
    if ip.is_reserved:
        return "reserved"
    if ip.is_private:
        return "private"
    if not ip.is_global:
        # e.g. 100.64.0.0/10 (carrier-grade NAT): neither private nor global.
        return "not_global"
    return None


def _parse_allowed(entries: list[str]) -> tuple[set[str], list[str], list[IPNetwork]]:
    names: set[str] = set()
    wildcards: list[str] = []
    networks: list[IPNetwork] = []
    for raw in entries:
        entry = raw.strip().lower().rstrip(".")
        if not entry:
            continue
        if entry.startswith("*."):
            wildcards.append(entry[1:])  # keep the dot: "*.x.org" -> ".x.org"
            continue
        try:
            networks.append(ipaddress.ip_network(entry.strip("[]"), strict=False))
        except ValueError:
            names.add(entry)
    return names, wildcards, networks


def _normalise_host(hostname: str) -> str:
    host = hostname.lower().rstrip(".")
    if not host:
        raise TargetRefused("no_host")
    if host.isascii():
        return host
    try:
        return host.encode("idna").decode("ascii")
    except UnicodeError as exc:
        raise TargetRefused("bad_host", hostname) from exc


def _literal_ip(host: str) -> IPAddress | None:
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        pass
    if _NUMERIC_HOST.match(host):
        raise TargetRefused("noncanonical_ip", host)
    return None


def _resolve(host: str, port: int) -> list[IPAddress]:
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        raise TargetRefused("unresolvable", f"{host}: {exc}") from exc
    found: list[IPAddress] = []
    for _family, _type, _proto, _canon, sockaddr in infos:
        # Scope ids ("fe80::1%eth0") are dropped before parsing; the address class is what matters.
        ip = ipaddress.ip_address(str(sockaddr[0]).split("%", 1)[0])
        if ip not in found:
            found.append(ip)
    if not found:
        raise TargetRefused("unresolvable", host)
    return found


def split_url(url: str) -> tuple[str, str, int]:
    """Scheme, normalised host and port of a URL, refusing shapes the guard does not accept."""
    if _FORBIDDEN_URL_CHARS.search(url):
        raise TargetRefused("bad_url_characters", url[:200])
    try:
        parts = urlsplit(url)
        port_value = parts.port
    except ValueError as exc:
        raise TargetRefused("bad_url", str(exc)) from exc
    scheme = parts.scheme.lower()
    if scheme not in ALLOWED_SCHEMES:
        raise TargetRefused("scheme", scheme or "(none)")
    if "@" in parts.netloc:
        raise TargetRefused("userinfo", "credentials in URLs are refused")
    if parts.hostname is None:
        raise TargetRefused("no_host")
    host = _normalise_host(parts.hostname)
    if not host.startswith("[") and ":" not in host and _literal_ip(host) is None:
        labels = host.split(".")
        if not all(_HOST_LABEL.match(label) for label in labels):
            raise TargetRefused("bad_host", host)
    port = port_value if port_value is not None else DEFAULT_PORTS[scheme]
    return scheme, host, port


def check_url(url: str, *, allow_private: bool, allowed_hosts: list[str]) -> GuardedTarget:
    """Refuse (TargetRefused) or return the checked target with the addresses to pin."""
    scheme, host, port = split_url(url)
    literal = _literal_ip(host)
    names, wildcards, networks = _parse_allowed(allowed_hosts)
    restricted = bool(names or wildcards or networks)
    name_allowed = literal is None and (
        host in names or any(host.endswith(suffix) for suffix in wildcards)
    )

    addresses = [literal] if literal is not None else _resolve(host, port)
    if not allow_private:
        for ip in addresses:
            reason = private_reason(ip)
            if reason is not None:
                # One private answer refuses the whole name: a mixed answer is how
                # rebinding attacks look.
                raise TargetRefused(reason, f"{host} -> {ip}")

    if restricted and not name_allowed:
        # CIDR / IP entries match the resolved addresses; keep only those inside,
        # and pin the connection to them.
        addresses = [ip for ip in addresses if _in_networks(ip, networks)]
        if not addresses:
            raise TargetRefused("not_in_allowed_hosts", host)

    return GuardedTarget(
        url=url,
        scheme=scheme,
        host=host,
        port=port,
        addresses=tuple(str(ip) for ip in addresses),
        host_is_ip=literal is not None,
    )


def refused_without_lookup(url: str, *, allowed_hosts: list[str]) -> str | None:
    """Why `allowed_hosts` refuses `url`, decided without a DNS query, or None.

    For services Lyra contacts on its own initiative (the academic APIs): when the
    user restricted the hosts, a host name that no name or wildcard entry lists is
    refused here instead of being resolved to test it against the CIDR entries, so
    a machine confined to loopback never sends the name to a resolver. `localhost`
    (resolved from the hosts file) is still tested against the networks.
    """
    try:
        _scheme, host, _port = split_url(url)
        literal = _literal_ip(host)
    except TargetRefused as exc:
        return exc.reason
    names, wildcards, networks = _parse_allowed(allowed_hosts)
    if not (names or wildcards or networks):
        return None
    if literal is not None:
        return None if _in_networks(literal, networks) else "not_in_allowed_hosts"
    if host in names or any(host.endswith(suffix) for suffix in wildcards):
        return None
    if host == "localhost" or host.endswith(".localhost"):
        local = ipaddress.ip_address("127.0.0.1")
        return None if _in_networks(local, networks) else "not_in_allowed_hosts"
    return "not_in_allowed_hosts"


def _in_networks(ip: IPAddress, networks: list[IPNetwork]) -> bool:
    candidates: list[IPAddress] = [ip]
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        candidates.append(ip.ipv4_mapped)
    return any(c.version == net.version and c in net for c in candidates for net in networks)


def is_refused(url: str, *, allow_private: bool, allowed_hosts: list[str]) -> str | None:
    """The refusal reason for a URL, or None when `check_url` accepts it."""
    try:
        check_url(url, allow_private=allow_private, allowed_hosts=allowed_hosts)
    except TargetRefused as exc:
        return exc.reason
    return None
