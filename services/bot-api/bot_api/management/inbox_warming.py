"""The misses inbox read ahead: the first turns of a story that may be misses, once
stored by this process, have its inbox read in the background, so that its snapshot
(storage/inbox_snapshots.py) is written before anybody opens it, and the first time a
person does, it is answered from the snapshot and the turns recorded since instead of
by reading every turn (issue 29: a story of 12,000 misses read whole in 1.9 to 3.4 s on
nx-27017, from its snapshot in 0.4 to 0.6 s; docs/benchmarks.md).

Bounded: one story read at a time (its clustering then waits its turn with the others',
management/inbox_clustering.py); each story once per process, until this process changes
its inbox (an action or an erasure drops its snapshot, so its next miss reads it again);
at most `MAX_WAITING` stories waiting (past that, a story's next miss asks again) and
`MAX_READ` remembered as read (the one read the longest ago forgotten first).
"""

import logging
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Sequence

from bot_api.conversations.background import Drain
from bot_api.domain.history import TurnRecord
from bot_api.storage.inbox import PROMPT_CONTINUED
from shared.errors import NotFound

log = logging.getLogger(__name__)

MAX_WAITING = 1_000
MAX_READ = 10_000

Read = Callable[[str, str], Awaitable[object]]
"""Reads a story's inbox, by account and story id."""


def may_be_missed(turn: TurnRecord) -> bool:
    """Whether the turn may be in its story's inbox, whatever the story's `reviewBelow`."""
    if turn.test or turn.query is None:
        return False
    return turn.outcome == "fallback" or turn.score < PROMPT_CONTINUED


class InboxWarming:
    """A `TurnListener` of the history recorder."""

    def __init__(self, read: Read) -> None:
        self._read = read
        self._waiting: OrderedDict[str, str] = OrderedDict()
        """Story id → account id, the one waiting the longest first."""
        self._done: OrderedDict[str, None] = OrderedDict()
        self._worker = Drain(self._read_waiting)

    async def turns_written(self, turns: Sequence[TurnRecord]) -> None:
        for turn in turns:
            story_id = turn.story_id
            if story_id in self._done or story_id in self._waiting or not may_be_missed(turn):
                continue
            if len(self._waiting) < MAX_WAITING:
                self._waiting[story_id] = turn.account_id
        if self._waiting:
            self._worker.wake()

    def changed(self, story_id: str) -> None:
        """The story's inbox changed here: its next miss reads it again."""
        self._done.pop(story_id, None)

    async def close(self) -> None:
        await self._worker.close()

    async def _read_waiting(self) -> None:
        while self._waiting:
            story_id, account_id = self._waiting.popitem(last=False)
            self._done[story_id] = None
            while len(self._done) > MAX_READ:
                self._done.popitem(last=False)
            try:
                await self._read(account_id, story_id)
            except NotFound:  # deleted since its turns were recorded
                continue
            except Exception:  # the database away: its next read reads it
                log.warning("the inbox of story %s was not read ahead", story_id, exc_info=True)
