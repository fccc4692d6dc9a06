"""Making a webhook call: at most 3 s for the whole call, redirects never followed, an
answer over 64 KiB or a non-2xx status is a failed delivery, as are a timeout and a
refused connection. Through a connection, the call carries its headers, HTTP Basic
credentials and a Standard Webhooks signature keyed by its token (docs/webhooks.md)."""

import asyncio
import base64
import hashlib
import hmac
import ipaddress
import json
import time
from collections.abc import Iterable
from typing import Any

import aiohttp
from yarl import URL

from bot_api.connections.repository import Connection
from bot_api.query.webhooks.failures import DeliveryFailed
from shared.address_guard import GuardedResolver, RefusedAddress, check_literal_host
from shared.webhook_tokens import SECRET_PREFIX, UnusableToken, signing_key

TIMEOUT_SECONDS = 3.0
MAX_ANSWER_BYTES = 64 * 1024


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
        self, url: str, body: dict[str, Any], connection: Connection | None = None
    ) -> bytes:
        """The answer's body, never longer than the budget whatever the network does, or
        DeliveryFailed with the reason."""
        try:
            return await asyncio.wait_for(self._post(url, body, connection), TIMEOUT_SECONDS + 0.1)
        except TimeoutError:
            raise DeliveryFailed(f"timeout after {TIMEOUT_SECONDS * 1000:.0f} ms") from None

    async def _post(self, url: str, body: dict[str, Any], connection: Connection | None) -> bytes:
        assert self._session is not None, "start() opens the session"
        data = json.dumps(body).encode()
        headers = _headers(connection, body["messageId"], data)
        try:
            check_literal_host(URL(url).host or "", self._allowed)
            async with self._session.post(
                url, data=data, headers=headers, allow_redirects=False
            ) as response:
                if not 200 <= response.status < 300:
                    raise DeliveryFailed(f"HTTP {response.status}")
                raw = await response.content.read(MAX_ANSWER_BYTES + 1)
        except RefusedAddress as refused:
            raise DeliveryFailed(str(refused)) from None
        except TimeoutError:
            raise DeliveryFailed(f"timeout after {TIMEOUT_SECONDS * 1000:.0f} ms") from None
        except aiohttp.ClientConnectorError as error:
            if isinstance(error.os_error, RefusedAddress):
                raise DeliveryFailed(str(error.os_error)) from None
            raise DeliveryFailed(f"cannot connect: {error.os_error}") from None
        except aiohttp.ClientError as error:
            raise DeliveryFailed(f"request failed: {error}") from None
        except ValueError as error:  # a stored header aiohttp refuses to send
            raise DeliveryFailed(f"cannot send the request: {error}") from None
        if len(raw) > MAX_ANSWER_BYTES:
            raise DeliveryFailed("answer larger than 64 KiB")
        return raw


def signature(token: str, message_id: str, timestamp: str, data: bytes) -> str:
    """A stored token with no usable key (written before integrations-api checked it)
    fails the delivery: the backend could not verify the call anyway."""
    try:
        key = signing_key(token)
    except UnusableToken:
        raise DeliveryFailed(
            f"the connection's token is not base64 after {SECRET_PREFIX}"
        ) from None
    signed = f"{message_id}.{timestamp}.".encode() + data
    digest = hmac.new(key, signed, hashlib.sha256).digest()
    return "v1," + base64.b64encode(digest).decode()


def _headers(connection: Connection | None, message_id: str, data: bytes) -> dict[str, str]:
    headers = {"Content-Type": "application/json"}
    if connection is None:
        return headers
    headers = {**connection.headers, **headers}
    if connection.token:
        timestamp = str(int(time.time()))
        headers["webhook-id"] = message_id
        headers["webhook-timestamp"] = timestamp
        headers["webhook-signature"] = signature(connection.token, message_id, timestamp, data)
    if connection.auth is not None:
        username, password = connection.auth
        try:
            headers["Authorization"] = aiohttp.encode_basic_auth(username, password)
        except ValueError as error:  # a username with ":", stored before it was refused
            raise DeliveryFailed(f"unusable credentials: {error}") from None
    return headers
