"""channels/sender.py against a local server answering as a platform's API does: what
is retried (429, 5xx), after how long, within what bounds, and what a failure says.
The sender waits by a FakeClock, so the calls' times are that clock's."""

import itertools
from typing import Any

import pytest
from aiohttp import web

from integrations_api.channels import sender
from integrations_api.channels.platform import Call
from integrations_api.channels.sender import SendFailed, opened
from support.clock import FakeClock

CALL = Call(path="/bot1:secret-token/sendMessage", json={"chat_id": 1, "text": "hi"})


class Api:
    """Answers each call with the next of `answers` ((status, JSON, headers)), then 200."""

    def __init__(self, *answers: tuple[int, dict[str, Any], dict[str, str]]) -> None:
        self.clock = FakeClock()
        self.answers = list(answers)
        self.calls: list[tuple[float, dict[str, Any]]] = []
        self.content_types: list[str] = []

    async def handle(self, request: web.Request) -> web.Response:
        self.calls.append((self.clock(), await request.json()))
        self.content_types.append(request.headers["Content-Type"])
        if self.answers:
            status, body, headers = self.answers.pop(0)
            return web.json_response(body, status=status, headers=headers)
        return web.json_response({"ok": True, "result": {}})


async def send(aiohttp_server: Any, api: Api, seconds: float = sender.ANSWER_SECONDS) -> None:
    app = web.Application()
    app.router.add_post("/{tail:.*}", api.handle)
    server = await aiohttp_server(app)
    async with opened(
        {"telegram": str(server.make_url("/"))}, api.clock, api.clock.sleep
    ) as platforms:
        await platforms.send("telegram", CALL, seconds)


def gaps(api: Api) -> list[float]:
    return [later[0] - earlier[0] for earlier, later in itertools.pairwise(api.calls)]


async def test_telegram_s_retry_after_is_waited_for(aiohttp_server: Any) -> None:
    api = Api((429, {"ok": False, "error_code": 429, "description": "Too Many Requests",
                     "parameters": {"retry_after": 1}}, {}))  # fmt: skip
    await send(aiohttp_server, api)
    assert len(api.calls) == 2 and gaps(api)[0] >= 1.0
    assert api.clock.slept == [1.0]
    assert api.calls[1][1] == {"chat_id": 1, "text": "hi"}


async def test_every_call_is_json_that_names_its_charset(aiohttp_server: Any) -> None:
    api = Api()
    await send(aiohttp_server, api)
    assert api.content_types == ["application/json; charset=utf-8"]


async def test_a_retry_after_header_and_5xx_backoff(aiohttp_server: Any) -> None:
    api = Api((503, {}, {"Retry-After": "1"}), (500, {}, {}))
    await send(aiohttp_server, api)
    assert len(api.calls) == 3
    first, second = gaps(api)
    assert first >= 1.0 and second >= sender.BACKOFF_SECONDS * 2
    assert api.clock.slept == [1.0, sender.BACKOFF_SECONDS * 2]


async def test_a_4xx_is_not_retried_and_says_the_platform_s_reason_without_the_url(
    aiohttp_server: Any,
) -> None:
    api = Api(
        (400, {"ok": False, "error_code": 400, "description": "Bad Request: chat not found"}, {})
    )
    with pytest.raises(SendFailed) as failure:
        await send(aiohttp_server, api)
    assert str(failure.value) == "telegram sendMessage: HTTP 400: Bad Request: chat not found"
    assert "secret-token" not in str(failure.value)
    assert len(api.calls) == 1


async def test_a_200_with_ok_false_is_a_failure(aiohttp_server: Any) -> None:
    api = Api((200, {"ok": False, "error": "channel_not_found"}, {}))
    with pytest.raises(SendFailed, match="HTTP 200: channel_not_found"):
        await send(aiohttp_server, api)


async def test_attempts_and_time_are_bounded(aiohttp_server: Any) -> None:
    always = Api(*[(502, {}, {})] * 10)
    with pytest.raises(SendFailed, match="HTTP 502"):
        await send(aiohttp_server, always)
    assert len(always.calls) == sender.ATTEMPTS
    assert always.clock.slept == [sender.BACKOFF_SECONDS * 2**n for n in range(3)]

    too_long = Api((429, {}, {"Retry-After": "60"}))
    with pytest.raises(SendFailed, match=r"HTTP 429 \(retry after 60 s\)"):
        await send(aiohttp_server, too_long, seconds=5)  # gives up rather than wait past 5 s
    assert len(too_long.calls) == 1 and too_long.clock.slept == []


async def test_an_unreachable_platform_fails_without_its_address() -> None:
    clock = FakeClock()
    async with opened({"telegram": "http://127.0.0.1:9"}, clock, clock.sleep) as platforms:
        with pytest.raises(SendFailed) as failure:
            await platforms.send("telegram", CALL, 1.0)
    assert "unreachable" in str(failure.value) and "secret-token" not in str(failure.value)
    assert clock.slept == [sender.BACKOFF_SECONDS]  # a second wait would pass the budget
