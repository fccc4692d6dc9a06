"""The misses inbox read ahead: the first turn of a story that may be a miss, once
stored by this process, has its inbox's turns read and kept in the background (not
clustered: `InboxClusterings.read_ahead`), and so does every
`READ_AGAIN_AFTER`th after it, so that its snapshot (inbox/snapshots.py) is
written before anybody opens it and stays close behind its turns: the first time a
person opens it, it is answered from the snapshot and the few turns recorded since
instead of by reading every turn (issue 29: a story of 12,000 misses read whole in 1.9
to 3.4 s on nx-27017, from its snapshot in 0.4 to 0.6 s; docs/benchmarks.md). A read
ahead that finds the story's turns kept for over a minute starts their whole read, which
writes the new snapshot (inbox/clustering.py).

Bounded: one story read at a time;
a story read again only after `READ_AGAIN_AFTER` more of its misses, or at its next miss
once this process changed its inbox (an action or an erasure drops its snapshot); at most
`MAX_WAITING` stories waiting (past that, a story's next miss asks again) and `MAX_READ`
counted (the one read the longest ago forgotten first).
"""

import logging
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Sequence

from bot_api.background import Drain
from bot_api.domain.history import TurnRecord
from bot_api.domain.settings import REVIEW_MARGIN
from bot_api.inbox.repository import PROMPT_CONTINUED
from shared.errors import NotFound

log = logging.getLogger(__name__)

MAX_WAITING = 1_000
MAX_READ = 10_000
READ_AGAIN_AFTER = 2_000
"""Misses after which a story's inbox is read ahead again: its snapshot is then at most
about this many turns behind, which a first read takes in some 0.4 s (10,000 in 1.9 s).
Each read ahead again reads the story's turns whole (about 1.5 s of the process's CPU for
10,000 on nx-27017), which a busy story pays once per this many misses."""

Read = Callable[[str, str], Awaitable[object]]
"""Reads a story's inbox, by account and story id."""


def may_be_missed(turn: TurnRecord) -> bool:
    """Whether the turn is in its story's inbox at the default `reviewBelow` (its
    confidence threshold plus `REVIEW_MARGIN`); a story that sets its own is read ahead at
    its first fallback all the same."""
    if turn.test or turn.query is None:
        return False
    review_below = min(turn.threshold + REVIEW_MARGIN, PROMPT_CONTINUED)
    if turn.outcome == "knowledge":
        return False
    return turn.outcome == "fallback" or turn.score < review_below


class InboxWarming:
    """A `TurnListener` of the history recorder."""

    def __init__(self, read: Read) -> None:
        self._read = read
        self._waiting: OrderedDict[str, str] = OrderedDict()
        """Story id → account id, the one waiting the longest first."""
        self._since_read: OrderedDict[str, int] = OrderedDict()
        """Story id → its misses recorded since it was read ahead, the one read the longest
        ago first."""
        self._worker = Drain(self._read_waiting)

    async def turns_written(self, turns: Sequence[TurnRecord]) -> None:
        for turn in turns:
            story_id = turn.story_id
            if story_id in self._waiting or not may_be_missed(turn):
                continue
            since_read = self._since_read.get(story_id)
            if since_read is not None and since_read + 1 < READ_AGAIN_AFTER:
                self._since_read[story_id] = since_read + 1
            elif len(self._waiting) < MAX_WAITING:
                self._waiting[story_id] = turn.account_id
        if self._waiting:
            self._worker.wake()

    def changed(self, story_id: str) -> None:
        """The story's inbox changed here: its next miss reads it again."""
        self._since_read.pop(story_id, None)

    async def close(self) -> None:
        await self._worker.close()

    async def _read_waiting(self) -> None:
        while self._waiting:
            story_id, account_id = self._waiting.popitem(last=False)
            self._since_read[story_id] = 0
            self._since_read.move_to_end(story_id)
            while len(self._since_read) > MAX_READ:
                self._since_read.popitem(last=False)
            try:
                await self._read(account_id, story_id)
            except NotFound:  # deleted since its turns were recorded
                continue
            except Exception:  # the database away: its next read reads it
                log.warning("the inbox of story %s was not read ahead", story_id, exc_info=True)
