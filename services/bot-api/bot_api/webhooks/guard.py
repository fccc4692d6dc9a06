"""Where a webhook call may go: addresses on loopback, private, link-local, unique-local
or metadata networks (IPv4 and IPv6, mapped forms included) are refused unless
allow-listed (`WEBHOOK_ALLOW`). The check sits in the resolver itself, so the
connection goes only where the check looked."""

import ipaddress
import socket
from collections.abc import Iterable

from aiohttp.abc import AbstractResolver, ResolveResult
from aiohttp.resolver import DefaultResolver

from bot_api.webhooks.failures import DeliveryFailed

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def refused(address: str, allowed: Iterable[Network]) -> bool:
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
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
                raise DeliveryFailed(f"{host} resolves to a refused address {result['host']}")
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
        raise DeliveryFailed(f"refused address {host}")
