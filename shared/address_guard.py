"""Where a call out of the service may go (a webhook, a document fetched from a URL):
addresses on loopback, private, link-local, unique-local or metadata networks are refused
unless allow-listed (`WEBHOOK_ALLOW`). An IPv6 address that carries an IPv4 one (mapped,
IPv4-compatible, NAT64, 6to4, Teredo) is judged as the IPv4 it reaches, and the local-use
NAT64 prefix, whose embedding a host cannot know, is refused outright. The check sits in
the resolver itself, so the connection goes only where the check looked."""

import ipaddress
import socket
from collections.abc import Iterable

from aiohttp.abc import AbstractResolver, ResolveResult
from aiohttp.resolver import DefaultResolver

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
Address = ipaddress.IPv4Address | ipaddress.IPv6Address

NAT64 = ipaddress.ip_network("64:ff9b::/96")
LOCAL_NAT64 = ipaddress.ip_network("64:ff9b:1::/48")
IPV4_COMPATIBLE = ipaddress.ip_network("::/96")


class RefusedAddress(Exception):
    """A host that is, or resolves to, an address no call may reach."""


def embedded_ipv4(ip: ipaddress.IPv6Address) -> list[ipaddress.IPv4Address]:
    """The IPv4 addresses a packet to `ip` may reach (Teredo: its server and client)."""
    if ip.ipv4_mapped is not None:
        return [ip.ipv4_mapped]
    if ip.sixtofour is not None:
        return [ip.sixtofour]
    if ip.teredo is not None:
        return list(ip.teredo)
    if ip in NAT64 or (ip in IPV4_COMPATIBLE and int(ip) > 1):
        return [ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)]
    return []


def refused(address: str, allowed: Iterable[Network]) -> bool:
    allowed = tuple(allowed)
    ip: Address = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address):
        embedded = embedded_ipv4(ip)
        if embedded:
            return any(_refused_ip(v4, allowed) for v4 in embedded)
        if ip in LOCAL_NAT64:
            return not any(ip in network for network in allowed)
    return _refused_ip(ip, allowed)


def _refused_ip(ip: Address, allowed: tuple[Network, ...]) -> bool:
    if any(ip in network for network in allowed):
        return False
    return not ip.is_global or ip.is_multicast


class GuardedResolver(AbstractResolver):
    """Resolves like aiohttp does, then refuses any address the guard forbids, so the
    connection goes only where the check looked."""

    def __init__(self, allowed: tuple[Network, ...]) -> None:
        self._default = DefaultResolver()
        self._allowed = allowed

    async def resolve(
        self, host: str, port: int = 0, family: socket.AddressFamily = socket.AF_INET
    ) -> list[ResolveResult]:
        results = await self._default.resolve(host, port, family)
        for result in results:
            if refused(result["host"], self._allowed):
                raise RefusedAddress(f"{host} resolves to a refused address {result['host']}")
        return results

    async def close(self) -> None:
        await self._default.close()


def check_literal_host(host: str, allowed: Iterable[Network]) -> None:
    """Refuse a URL whose host is a refused IP address written out (no resolver runs)."""
    bare = host.strip("[]")
    try:
        ipaddress.ip_address(bare.split("%", 1)[0])
    except ValueError:
        return
    if refused(bare, allowed):
        raise RefusedAddress(f"refused address {host}")
