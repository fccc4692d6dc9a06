"""The calls to the platforms' APIs, with their retries.

A call that meets a 429 or a 5xx (or no answer) is tried again after the platform's
`Retry-After` (Telegram's `parameters.retry_after`), or else a backoff doubling from
BACKOFF_SECONDS, at most ATTEMPTS times and never past the call's time budget; what
still fails is a `SendFailed` whose message names the method and the platform's
reason, never the URL (Telegram's holds the bot token).
"""

import asyncio
import contextlib
import json
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from typing import Any

import aiohttp

from integrations_api.channels.platform import Call

ATTEMPTS = 4
BACKOFF_SECONDS = 0.5
ANSWER_SECONDS = 30.0
"""The time budget of a call sending an answer: what Telegram asks to wait after a
429 is seconds (its documented flood limits: 1 message per second per chat, 30 per
second per bot), so a burst is usually through within it."""
REGISTRATION_SECONDS = 5.0
"""A webhook registration happens within the API request (REQUEST_BUDGET_SECONDS, 10
by default), so it has half of it."""
ATTEMPT_SECONDS = 10.0
ANSWER_BYTES = 64 * 1024
"""What is read of a platform's answer: its status and reason are all Parley uses."""
JSON = "application/json; charset=utf-8"
"""The content type of every call: Slack warns (`missing_charset`) when a JSON body does
not name its charset."""


class SendFailed(Exception):
    """The platform did not take the call: the message says why (no secret in it)."""


Sleep = Callable[[float], Awaitable[None]]


class Sender:
    """`clock` and `sleep` are the time the retries wait by: a test passes a clock of its
    own, so waiting out a `Retry-After` costs it no real second."""

    def __init__(
        self,
        session: aiohttp.ClientSession,
        bases: Mapping[str, str],
        clock: Callable[[], float] = time.monotonic,
        sleep: Sleep = asyncio.sleep,
    ) -> None:
        self._session = session
        self._bases = bases
        """The API base address of each channel type."""
        self._clock = clock
        self._sleep = sleep

    async def send(self, channel_type: str, call: Call, seconds: float = ANSWER_SECONDS) -> None:
        deadline = self._clock() + seconds
        method = call.path.rsplit("/", 1)[-1]
        url = self._bases[channel_type].rstrip("/") + call.path
        for attempt in range(ATTEMPTS):
            retry_after, reason = await self._attempt(url, call, deadline - self._clock())
            if reason is None:
                return
            if retry_after is None or attempt == ATTEMPTS - 1:
                raise SendFailed(f"{channel_type} {method}: {reason}")
            wait = max(retry_after, BACKOFF_SECONDS * 2**attempt)
            if self._clock() + wait >= deadline:
                raise SendFailed(f"{channel_type} {method}: {reason} (retry after {wait:g} s)")
            await self._sleep(wait)
        raise AssertionError("unreachable: the last attempt raises")

    async def _attempt(
        self, url: str, call: Call, seconds: float
    ) -> tuple[float | None, str | None]:
        """(seconds to wait before a retry, None when not to retry; None when the call
        succeeded, else why it failed)."""
        timeout = aiohttp.ClientTimeout(total=max(0.1, min(ATTEMPT_SECONDS, seconds)))
        try:
            async with self._session.request(
                call.method,
                url,
                data=json.dumps(call.json).encode(),
                headers={**call.headers, "Content-Type": JSON},
                timeout=timeout,
            ) as response:
                answer = await _answer(response)
                return _verdict(response.status, response.headers, answer)
        except TimeoutError:
            return 0.0, "no answer in time"
        except aiohttp.ClientError as error:
            return 0.0, f"unreachable ({type(error).__name__})"


async def _answer(response: aiohttp.ClientResponse) -> Any:
    """The answer's JSON, read up to ANSWER_BYTES; None when it is not JSON."""
    data = b""
    while len(data) < ANSWER_BYTES and (chunk := await response.content.read(ANSWER_BYTES)):
        data += chunk
    try:
        return json.loads(data)
    except ValueError:
        return None


def _verdict(
    status: int, headers: Mapping[str, str], answer: Any
) -> tuple[float | None, str | None]:
    described = _description(answer)
    if 200 <= status < 300 and not (isinstance(answer, dict) and answer.get("ok") is False):
        return None, None
    if status == 429 or status >= 500:
        return _retry_after(headers, answer) or 0.0, f"HTTP {status}{described}"
    return None, f"HTTP {status}{described}"


def _description(answer: Any) -> str:
    """Telegram's `description`, Slack's `error`, Meta's `error.message`."""
    if not isinstance(answer, dict):
        return ""
    reason = answer.get("description") or answer.get("error")
    if isinstance(reason, dict):
        reason = reason.get("message")
    return f": {str(reason)[:200]}" if reason else ""


def _retry_after(headers: Mapping[str, str], answer: Any) -> float | None:
    parameters = answer.get("parameters") if isinstance(answer, dict) else None
    if isinstance(parameters, dict) and isinstance(parameters.get("retry_after"), int | float):
        return float(parameters["retry_after"])
    with contextlib.suppress(ValueError):
        return float(headers.get("Retry-After", ""))
    return None


@contextlib.asynccontextmanager
async def opened(
    bases: Mapping[str, str],
    clock: Callable[[], float] = time.monotonic,
    sleep: Sleep = asyncio.sleep,
) -> AsyncIterator[Sender]:
    async with aiohttp.ClientSession() as session:
        yield Sender(session, bases, clock, sleep)
