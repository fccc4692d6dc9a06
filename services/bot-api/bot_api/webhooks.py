"""Calling an interaction's webhook from /query (DESIGN.md "Webhooks").

At most 3 s for the whole call; redirects are never followed; an answer over 64 KiB,
not JSON or outside SPEC.md's tables is a failed delivery, as are a timeout, a refused
connection and a non-2xx status. Addresses on loopback, private, link-local,
unique-local or metadata networks (IPv4 and IPv6, mapped forms included) are refused
unless allow-listed (`WEBHOOK_ALLOW`).
"""

import asyncio
import base64
import hashlib
import hmac
import ipaddress
import json
import socket
import time
from collections.abc import Iterable, Mapping
from typing import Any

import aiohttp
from aiohttp.abc import AbstractResolver, ResolveResult
from aiohttp.resolver import DefaultResolver
from marshmallow import ValidationError
from yarl import URL

from bot_api.schemas.webhook_answer import WebhookAnswerSchema
from shared.errors import first_error_path

TIMEOUT_SECONDS = 3.0
MAX_ANSWER_BYTES = 64 * 1024
ANSWER = WebhookAnswerSchema()

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


class DeliveryFailed(Exception):
    """A readable reason: "timeout after 3000 ms", "HTTP 500", ..."""


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


class WebhookCaller:
    def __init__(self, allowed: Iterable[str]) -> None:
        self._allowed = tuple(ipaddress.ip_network(n, strict=False) for n in allowed)
        self._session: aiohttp.ClientSession | None = None

    async def start(self) -> None:
        connector = aiohttp.TCPConnector(resolver=GuardedResolver(self._allowed))
        self._session = aiohttp.ClientSession(
            connector=connector, timeout=aiohttp.ClientTimeout(total=TIMEOUT_SECONDS)
        )

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()

    async def call(
        self, url: str, body: dict[str, Any], connection: Mapping[str, Any] | None = None
    ) -> dict[str, Any]:
        """The validated answer, or DeliveryFailed with the reason. Through a connection,
        with its headers, HTTP Basic credentials and a signature keyed by its token."""
        assert self._session is not None
        data = json.dumps(body).encode()
        headers = _headers(connection, body["messageId"], data)
        host = URL(url).host or ""
        try:
            ipaddress.ip_address(host.strip("[]"))
            literal = True
        except ValueError:
            literal = False
        if literal and refused(host.strip("[]"), self._allowed):
            raise DeliveryFailed(f"refused address {host}")
        try:
            async with self._session.post(
                url, data=data, headers=headers, allow_redirects=False
            ) as response:
                if not 200 <= response.status < 300:
                    raise DeliveryFailed(f"HTTP {response.status}")
                raw = await response.content.read(MAX_ANSWER_BYTES + 1)
        except TimeoutError:
            raise DeliveryFailed(f"timeout after {TIMEOUT_SECONDS * 1000:.0f} ms") from None
        except aiohttp.ClientConnectorError as error:
            if isinstance(error.os_error, DeliveryFailed):
                raise error.os_error from None
            raise DeliveryFailed(f"cannot connect: {error.os_error}") from None
        except aiohttp.ClientError as error:
            raise DeliveryFailed(f"request failed: {error}") from None
        if len(raw) > MAX_ANSWER_BYTES:
            raise DeliveryFailed("answer larger than 64 KiB")
        try:
            answer = json.loads(raw) if raw.strip() else {}
        except ValueError:
            raise DeliveryFailed("answer is not JSON") from None
        try:
            loaded: dict[str, Any] = ANSWER.load(answer)
        except ValidationError as error:
            messages = (
                error.messages if isinstance(error.messages, dict) else {"_schema": error.messages}
            )
            path, message = first_error_path(messages)
            raise DeliveryFailed(f"{path}: {message}") from None
        return loaded


def signing_key(token: str) -> bytes:
    """Standard Webhooks: a `whsec_` token holds its key in base64; any other token is
    its own UTF-8 bytes."""
    if token.startswith("whsec_"):
        return base64.b64decode(token[len("whsec_") :] + "==")
    return token.encode()


def signature(token: str, message_id: str, timestamp: str, data: bytes) -> str:
    signed = f"{message_id}.{timestamp}.".encode() + data
    digest = hmac.new(signing_key(token), signed, hashlib.sha256).digest()
    return "v1," + base64.b64encode(digest).decode()


def _headers(connection: Mapping[str, Any] | None, message_id: str, data: bytes) -> dict[str, str]:
    """The connection's custom headers, its HTTP Basic credentials and the signature."""
    headers = {"Content-Type": "application/json"}
    if connection is None:
        return headers
    headers = {**(connection.get("headers") or {}), **headers}
    token = connection.get("token")
    if token:
        timestamp = str(int(time.time()))
        headers["webhook-id"] = message_id
        headers["webhook-timestamp"] = timestamp
        headers["webhook-signature"] = signature(token, message_id, timestamp, data)
    auth = connection.get("auth")
    if auth:
        headers["Authorization"] = aiohttp.encode_basic_auth(auth["username"], auth["password"])
    return headers


async def within_budget(
    caller: WebhookCaller,
    url: str,
    body: dict[str, Any],
    connection: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The call, never longer than the budget whatever the network does."""
    try:
        return await asyncio.wait_for(caller.call(url, body, connection), TIMEOUT_SECONDS + 0.1)
    except TimeoutError:
        raise DeliveryFailed(f"timeout after {TIMEOUT_SECONDS * 1000:.0f} ms") from None
