"""Who a request comes from: the client address that per-client limits count.

The peer of the TCP connection is the client unless it is one of `TRUSTED_PROXIES`
(the gateway, loopback by default): then the client is the nearest address in
`X-Forwarded-For` that is not itself a trusted proxy, read from the right, since
everything left of the last proxy's entry was written by the client and may be forged.
"""

import functools
import ipaddress
from collections.abc import Iterable

from aiohttp import web

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def trusted_networks(cidrs: Iterable[str]) -> tuple[Network, ...]:
    return tuple(ipaddress.ip_network(cidr, strict=False) for cidr in cidrs)


@functools.lru_cache(maxsize=4096)
def is_trusted(address: str, trusted: tuple[Network, ...]) -> bool:
    """Remembered for the addresses seen last: parsing the peer's address took about 2 % of
    bot-api's time under wrk on /query (py-spy), for the same few peers each request."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(ip in network for network in trusted)


def client_address(request: web.BaseRequest, trusted: tuple[Network, ...]) -> str:
    """The address of the client behind `request` ("" when the peer is unknown)."""
    peer = request.remote or ""
    if not is_trusted(peer, trusted):
        return peer
    forwarded = [
        a.strip() for h in request.headers.getall("X-Forwarded-For", []) for a in h.split(",")
    ]
    for address in reversed(forwarded):
        if not address:
            continue
        if not is_trusted(address, trusted):
            return _plain(address)
        peer = address
    return peer


def _plain(address: str) -> str:
    """`address` as one canonical IP, or the text as given when it is none."""
    try:
        return str(ipaddress.ip_address(address))
    except ValueError:
        return address[:64]
