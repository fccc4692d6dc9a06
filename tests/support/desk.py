"""The agent desk's stream read as a browser's EventSource reads it (the WHATWG
"server-sent events" parsing: lines up to a blank one make an event; `:` starts a
comment), through a real HTTP client."""

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import aiohttp

HEARTBEAT = "heartbeat"


@dataclass
class DeskReader:
    response: aiohttp.ClientResponse
    retry_ms: int | None = None
    comments: list[str] = field(default_factory=list)

    async def event(self, seconds: float = 10.0) -> dict[str, Any] | str | None:
        """The next event's data (a `desk` event's, parsed), HEARTBEAT for a comment, or
        None once the stream ended."""
        async with asyncio.timeout(seconds):
            name, data = "message", []
            while True:
                line = (await self.response.content.readline()).decode()
                if not line:
                    return None
                line = line.rstrip("\n")
                if line.startswith(":"):
                    self.comments.append(line[1:].strip())
                    return HEARTBEAT
                if line.startswith("retry:"):
                    self.retry_ms = int(line.split(":", 1)[1])
                elif line.startswith("event:"):
                    name = line.split(":", 1)[1].strip()
                elif line.startswith("data:"):
                    data.append(line.split(":", 1)[1].strip())
                elif not line and data:
                    assert name == "desk", name
                    parsed: dict[str, Any] = json.loads("\n".join(data))
                    return parsed

    async def lines(self, count: int, seconds: float = 10.0) -> list[dict[str, Any]]:
        """The next `count` desk events, heartbeats skipped."""
        found: list[dict[str, Any]] = []
        while len(found) < count:
            got = await self.event(seconds)
            assert got is not None, f"the stream ended after {found}"
            if isinstance(got, dict):
                found.append(got)
        return found


@asynccontextmanager
async def desk_stream(
    base_url: str, token: str, story_id: str, client: str | None = None
) -> AsyncIterator[DeskReader]:
    """The story's desk stream, open (its status checked) until the block ends; `client`:
    the address a trusted proxy says it is for (X-Forwarded-For)."""
    headers = {"Authorization": f"Bearer {token}", "Accept": "text/event-stream"}
    if client is not None:
        headers["X-Forwarded-For"] = client
    url = f"{base_url.rstrip('/')}/stories/{story_id}/handoffs/events"
    async with (
        aiohttp.ClientSession() as session,
        session.get(url, headers=headers, timeout=aiohttp.ClientTimeout(total=None)) as response,
    ):
        assert response.status == 200, await response.text()
        assert response.headers["Content-Type"] == "text/event-stream"
        yield DeskReader(response)
