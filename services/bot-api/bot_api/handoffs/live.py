"""The agent desk's live streams (docs/teams.md "The agent desk"): each desk page open on
a story holds one, and hears every new line of the story's handed-over conversations.

Bounded: at most `per_account` streams open for an account and `per_client` from one
client address (a 429 beyond), each holding at most `CAPACITY` lines not yet sent (a
reader that slow is ended: its page reads the transcript again when it reconnects), and
every stream ends when the process shuts down (`close`). The lines reach this process
through the change feed (`DeskLinesAdded`, from its own turns and desk calls) and from
the other replicas over NATS (messaging.py).
"""

import asyncio
import contextlib
from collections import Counter, deque
from dataclasses import dataclass

from bot_api.changes import Change, DeskLinesAdded
from bot_api.domain.desk import DeskEntry
from shared.rates import RateLimited

CAPACITY = 256
"""Lines a stream holds for a reader that has not taken them yet: a desk hears a few a
second at most."""
RETRY_AFTER_SECONDS = 5.0


@dataclass(frozen=True)
class DeskNews:
    """What one stream hears: a line of a session (None: none, only the list changed),
    and whether the story's open handoffs changed."""

    session_id: str
    entry: DeskEntry | None
    list_changed: bool = False


class DeskStream:
    """One open desk page's stream: what it has not sent yet."""

    def __init__(self, streams: "DeskStreams", account_id: str, story_id: str, client: str):
        self.account_id = account_id
        self.story_id = story_id
        self.client = client
        self._streams = streams
        self._waiting: deque[DeskNews] = deque()
        self._wake = asyncio.Event()
        self.ended = False
        """Ended by the process shutting down, a reader too slow, or `close`."""

    def put(self, news: DeskNews) -> None:
        if self.ended:
            return
        if len(self._waiting) >= CAPACITY:
            self.end()
            return
        self._waiting.append(news)
        self._wake.set()

    def end(self) -> None:
        self.ended = True
        self._wake.set()

    async def next(self, seconds: float) -> list[DeskNews]:
        """What waits, at once, else what arrives within `seconds` (empty: nothing did,
        a heartbeat is due); `ended` says whether to go on."""
        if not self._waiting and not self.ended:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(seconds):
                    await self._wake.wait()
        self._wake.clear()
        news = list(self._waiting)
        self._waiting.clear()
        return news

    def close(self) -> None:
        """The reader is gone: the stream leaves the open ones."""
        self.end()
        self._streams.release(self)


class DeskStreams:
    """The open desk streams of this process; the change listener of `Handler.DESK`."""

    def __init__(self, *, per_account: int, per_client: int) -> None:
        self._per_account = per_account
        self._per_client = per_client
        self._open: set[DeskStream] = set()
        self._of_account: Counter[str] = Counter()
        self._of_client: Counter[str] = Counter()
        self._closing = False

    def open(self, account_id: str, story_id: str, client: str) -> DeskStream:
        """A stream of the story's lines; RateLimited (429) beyond the bounds, or while
        the process shuts down."""
        if self._closing:
            raise RateLimited(RETRY_AFTER_SECONDS, "(this replica is shutting down)")
        if self._of_account[account_id] >= self._per_account:
            what = f"(the account has {self._per_account} desk streams open already)"
            raise RateLimited(RETRY_AFTER_SECONDS, what)
        if self._of_client[client] >= self._per_client:
            what = f"(this client has {self._per_client} desk streams open already)"
            raise RateLimited(RETRY_AFTER_SECONDS, what)
        stream = DeskStream(self, account_id, story_id, client)
        self._open.add(stream)
        self._of_account[account_id] += 1
        self._of_client[client] += 1
        return stream

    def release(self, stream: DeskStream) -> None:
        if stream not in self._open:
            return
        self._open.discard(stream)
        for counts, key in (
            (self._of_account, stream.account_id),
            (self._of_client, stream.client),
        ):
            counts[key] -= 1
            if counts[key] <= 0:
                del counts[key]

    @property
    def count(self) -> int:
        return len(self._open)

    def tell(self, account_id: str, story_id: str, news: list[DeskNews]) -> None:
        """Hand the lines to the streams open on the story."""
        for stream in self._open:
            if (stream.account_id, stream.story_id) == (account_id, story_id):
                for one in news:
                    stream.put(one)

    async def changed(self, change: Change) -> None:
        if isinstance(change, DeskLinesAdded):
            self.tell(change.account_id, change.story_id, news_of(change))

    async def close(self) -> None:
        """End every stream and open no more (aiohttp's on_shutdown: the server then
        waits for the requests still running, which these would otherwise be)."""
        self._closing = True
        for stream in list(self._open):
            stream.end()


def news_of(change: DeskLinesAdded) -> list[DeskNews]:
    """What the streams hear of a change: each line, the list's change with the last."""
    if not change.entries:
        return [DeskNews(change.session_id, None, change.list_changed)]
    last = len(change.entries) - 1
    return [
        DeskNews(change.session_id, entry, change.list_changed and n == last)
        for n, entry in enumerate(change.entries)
    ]
