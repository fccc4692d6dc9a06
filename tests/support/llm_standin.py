"""A stand-in of an OpenAI-compatible `POST /v1/chat/completions` (Ollama, llama.cpp's
server, vLLM) on loopback: it checks each request's shape, keeps what it was asked, and
answers as a test sets it: a whole JSON body or a stream of server-sent events, 429,
500, malformed, or slower than the caller's timeout."""

import asyncio
import contextlib
import json
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

MODEL = "standin-7b"
KEY = "sk-standin-secret-0123456789"
USAGE = {"prompt_tokens": 321, "completion_tokens": 17, "total_tokens": 338}


@dataclass
class LlmStandIn:
    reply: str = "Goods may be returned within thirty days with their receipt [1]."
    """The answer's text, as the model would write it."""
    shape: str = "stream"
    """`stream` (server-sent events, as asked), `json` (the whole body), `429`, `500`,
    `malformed` (a body that is no JSON) or `slow` (the stream's first event after
    `slow_seconds`)."""
    slow_seconds: float = 5.0
    asked: list[dict[str, Any]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    released: asyncio.Event = field(default_factory=asyncio.Event)
    """Set when the test ends: a slow answer still waiting gives up, so that the server
    closes at once."""

    def app(self) -> web.Application:
        app = web.Application()
        app.router.add_post("/v1/chat/completions", self._completions)
        return app

    def user_message(self, call: int = -1) -> str:
        return str(self.asked[call]["messages"][-1]["content"])

    async def _completions(self, request: web.Request) -> web.StreamResponse:
        body = await request.json()
        self.asked.append(body)
        self._check(request, body)
        if self.shape == "429":
            return web.json_response({"error": {"message": "busy"}}, status=429)
        if self.shape == "500":
            return web.json_response({"error": {"message": "it broke"}}, status=500)
        if self.shape == "malformed":
            return web.Response(text='{"choices": [', content_type="application/json")
        if self.shape == "json":
            return web.json_response(
                {
                    "id": "chatcmpl-1",
                    "object": "chat.completion",
                    "model": MODEL,
                    "choices": [
                        {
                            "index": 0,
                            "message": {"role": "assistant", "content": self.reply},
                            "finish_reason": "stop",
                        }
                    ],
                    "usage": USAGE,
                }
            )
        return await self._stream(request)

    async def _stream(self, request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        if self.shape == "slow":
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.released.wait(), self.slow_seconds)
            transport = request.transport
            if self.released.is_set() or transport is None or transport.is_closing():
                return response  # the caller gave up
        words = self.reply.split(" ")
        for number, word in enumerate(words):
            piece = word if number == 0 else f" {word}"
            chunk = {
                "object": "chat.completion.chunk",
                "choices": [{"index": 0, "delta": {"content": piece}}],
            }
            await response.write(f"data: {json.dumps(chunk)}\n\n".encode())
        last = {"object": "chat.completion.chunk", "choices": [], "usage": USAGE}
        await response.write(f"data: {json.dumps(last)}\n\ndata: [DONE]\n\n".encode())
        await response.write_eof()
        return response

    def _check(self, request: web.Request, body: Any) -> None:
        def problem(where: str, what: str) -> None:
            self.problems.append(f"{where}: {what}")

        if request.headers.get("Authorization") != f"Bearer {KEY}":
            problem("Authorization", "not the bearer key")
        if body.get("model") != MODEL:
            problem("model", repr(body.get("model")))
        if body.get("temperature") != 0:
            problem("temperature", repr(body.get("temperature")))
        if not isinstance(body.get("seed"), int):
            problem("seed", "no whole number")
        if body.get("stream") is not True:
            problem("stream", "not asked for")
        messages = body.get("messages")
        if not isinstance(messages, list) or [m.get("role") for m in messages] != [
            "system",
            "user",
        ]:
            problem("messages", "not a system and a user message")
        elif not all(isinstance(m.get("content"), str) and m["content"] for m in messages):
            problem("messages", "a message without text")


async def served(standin: LlmStandIn, aiohttp_server: Any) -> str:
    """Serve the stand-in on loopback (pytest-aiohttp's server); its base address."""
    server = await aiohttp_server(standin.app())
    return f"http://127.0.0.1:{server.port}"
