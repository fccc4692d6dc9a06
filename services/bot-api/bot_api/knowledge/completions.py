"""The deployment's LLM, through the OpenAI chat completions API that Ollama, llama.cpp's
server and vLLM all serve (`POST <base>/v1/chat/completions`).

The answer is asked for streamed (`stream: true`, server-sent `data:` lines ending with
`[DONE]`): its words arrive as they are written, so a caller's deadline cuts a slow
answer off while it is being read, not after a whole body was awaited. A server that
answers the whole JSON instead (some proxies do) is read as well. The address is the
operator's, not a tenant's: no address guard, and no bound but the caller's deadline.
"""

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import aiohttp

SEED = 0
"""The same question on the same passages is answered the same way (with temperature 0)."""
MAX_TOKENS = 300
"""A knowledge answer is a few sentences: some 60 tokens each, 300 leave room for five."""


class NotWritten(Exception):
    """The LLM gave no usable answer; `reason` is what the metrics count it as."""

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason


@dataclass(frozen=True)
class Message:
    role: str
    content: str


@dataclass(frozen=True)
class Written:
    text: str
    prompt_tokens: int = 0
    completion_tokens: int = 0


class ChatCompletions:
    """One HTTP session for the process (knowledge/setup.py opens and closes it)."""

    def __init__(self, base_url: str, api_key: str, model: str, timeout_seconds: float) -> None:
        base = base_url.rstrip("/")
        self.url = (
            f"{base}/chat/completions" if base.endswith("/v1") else f"{base}/v1/chat/completions"
        )
        self.model = model
        self.timeout_seconds = timeout_seconds
        self._headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._session: aiohttp.ClientSession | None = None

    async def start(self) -> None:
        self._session = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=None))

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()

    async def write(self, messages: Sequence[Message]) -> Written:
        """The model's answer to `messages`; NotWritten when there is none to use. The
        caller bounds the time (asyncio.timeout)."""
        assert self._session is not None, "start() first"
        body = {
            "model": self.model,
            "messages": [{"role": m.role, "content": m.content} for m in messages],
            "temperature": 0,
            "seed": SEED,
            "max_tokens": MAX_TOKENS,
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        try:
            async with self._session.post(self.url, json=body, headers=self._headers) as response:
                if response.status == 429:
                    raise NotWritten("rate_limited", "429")
                if response.status != 200:
                    raise NotWritten("http_error", str(response.status))
                if response.content_type == "text/event-stream":
                    return await _streamed(response)
                return _whole(json.loads(await response.read()))
        except aiohttp.ClientError as error:
            raise NotWritten("unreachable", type(error).__name__) from None
        except (ValueError, KeyError, IndexError, TypeError, AttributeError) as error:
            raise NotWritten("malformed", type(error).__name__) from None


async def _streamed(response: aiohttp.ClientResponse) -> Written:
    pieces: list[str] = []
    usage: Any = None
    async for raw in response.content:
        line = raw.decode().strip()
        if not line.startswith("data:"):
            continue  # a blank line between events, or a comment
        data = line.removeprefix("data:").strip()
        if data == "[DONE]":
            return Written("".join(pieces), *_tokens(usage))
        chunk = json.loads(data)
        if "error" in chunk:
            raise NotWritten("http_error", "an error in the stream")
        for choice in chunk.get("choices") or ():
            content = choice["delta"].get("content")
            if content is not None:
                pieces.append(_text(content))
        usage = chunk.get("usage") or usage
    raise NotWritten("malformed", "the stream ended before [DONE]")


def _whole(body: Any) -> Written:
    return Written(_text(body["choices"][0]["message"]["content"]), *_tokens(body.get("usage")))


def _text(content: Any) -> str:
    if not isinstance(content, str):
        raise TypeError("content is no string")
    return content


def _tokens(usage: Any) -> tuple[int, int]:
    """The prompt's and the answer's tokens, as the server counted them (0 if it did not)."""
    if not isinstance(usage, dict):
        return 0, 0
    prompt, completion = usage.get("prompt_tokens"), usage.get("completion_tokens")
    return (
        prompt if isinstance(prompt, int) else 0,
        completion if isinstance(completion, int) else 0,
    )
