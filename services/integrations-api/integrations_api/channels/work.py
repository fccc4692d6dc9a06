"""The channels' background work: a platform is answered at once, and the turn and its
answer happen here, bounded so that no channel and no account can make the service
hold more than a few hundred of them.

Work waiting or running is counted per channel and per account; past CHANNEL_BACKLOG
or ACCOUNT_BACKLOG a new message is dropped, with a log line and a metric, rather than
held. Each channel answers at most CHANNEL_RUNNING messages at a time, each account asks
bot-api for at most ACCOUNT_RUNNING turns at a time (the job holds that slot only while
it asks), and one conversation's messages are answered one after the other, in the order
they came. A platform that hangs therefore holds its own channel's slots, never another
channel's: when a job held one of the account's slots for its sends too, a hanging
platform took all eight, and the same account's healthy channel answered after 92.8 s
(docs/reliability.md).

A job runs in a context of its own (`beyond_request`): started within the platform's
call, it would otherwise inherit that request's database deadline and fail to record
anything once the request's budget had passed.
"""

import asyncio
import logging
from collections import Counter
from collections.abc import Awaitable, Callable

from prometheus_client import Counter as Metric

from shared.budget import beyond_request

log = logging.getLogger(__name__)

CHANNEL_BACKLOG = 100
ACCOUNT_BACKLOG = 300
"""Not measured yet: a channel's turns are answered one conversation at a time and 8
at once per account, so 100 waiting are a burst no person types into one bot, and the
account's 300 let three such channels be busy together; past them the service would
only be holding work the per-visitor /query limits refuse anyway."""
ACCOUNT_RUNNING = 8
"""Turns of one account asked of bot-api at once, so one account cannot take all of
bot-api's turn tasks (32 a replica: bot_api/messaging.py)."""
CHANNEL_RUNNING = 8
"""Messages of one channel answered at once, their sends to the platform included: as
many as the account's turns, so a healthy channel is as fast alone as before."""

DROPPED = Metric(
    "parley_channel_messages_dropped", "Channel messages dropped: too many waiting", ["type"]
)

Job = Callable[[asyncio.Semaphore], Awaitable[None]]
"""A message's work, given the account's turn slot to hold while it asks bot-api."""


class Work:
    def __init__(self) -> None:
        self._channels: Counter[str] = Counter()
        self._accounts: Counter[str] = Counter()
        self._waiting: Counter[str] = Counter()
        """Jobs of each conversation (`<channel>:<conversation>`)."""
        self._running: dict[str, asyncio.Semaphore] = {}
        """Each channel's slots."""
        self._turns: dict[str, asyncio.Semaphore] = {}
        """Each account's turn slots."""
        self._conversations: dict[str, asyncio.Lock] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    def submit(
        self, account_id: str, channel_id: str, channel_type: str, conversation: str, job: Job
    ) -> bool:
        """Whether the job was taken (it runs in the background)."""
        if (
            self._channels[channel_id] >= CHANNEL_BACKLOG
            or self._accounts[account_id] >= ACCOUNT_BACKLOG
        ):
            DROPPED.labels(channel_type).inc()
            log.warning("channel %s: too many messages waiting, one dropped", channel_id)
            return False
        key = f"{channel_id}:{conversation}"
        self._channels[channel_id] += 1
        self._accounts[account_id] += 1
        self._waiting[key] += 1
        running = self._running.setdefault(channel_id, asyncio.Semaphore(CHANNEL_RUNNING))
        turns = self._turns.setdefault(account_id, asyncio.Semaphore(ACCOUNT_RUNNING))
        in_order = self._conversations.setdefault(key, asyncio.Lock())
        task = beyond_request(
            self._run(account_id, channel_id, key, running, in_order, lambda: job(turns))
        )
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return True

    async def _run(
        self,
        account_id: str,
        channel_id: str,
        key: str,
        running: asyncio.Semaphore,
        in_order: asyncio.Lock,
        job: Callable[[], Awaitable[None]],
    ) -> None:
        try:
            async with in_order, running:
                await job()
        except Exception:
            log.exception("channel %s: a message could not be answered", channel_id)
        finally:
            self._done(account_id, channel_id, key)

    def _done(self, account_id: str, channel_id: str, key: str) -> None:
        """Forget what no waiting job uses any more, so memory follows the work."""
        self._channels[channel_id] -= 1
        self._accounts[account_id] -= 1
        self._waiting[key] -= 1
        if not self._channels[channel_id]:
            del self._channels[channel_id]
            del self._running[channel_id]
        if not self._accounts[account_id]:
            del self._accounts[account_id]
            del self._turns[account_id]
        if not self._waiting[key]:
            del self._waiting[key]
            del self._conversations[key]

    async def close(self) -> None:
        """Cancel what is left (at shutdown: the platform was answered long ago)."""
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
