"""The misses inbox's clusterings, bounded and shared: long CPU work that any inbox read
or action starts (0.05 to 0.6 s for 10,000 turns, docs/benchmarks.md).

- Shared: requests for a story share the clustering in progress for it (its turns read
  once, clustered once), unless this process changed the story's inbox since that one
  started (an action resolved or reopened turns): then the next request starts anew.
- Read whole once a minute at most, and only the first time on a request's path: a
  story's unresolved turns as last read are kept (with their clusters), and the next
  request reads only the turns recorded since, and clusters again only when there are
  any. Reading 10,000 turns from nx-27017 took 5 to 8 s on the 2-core machine under load
  (issue 29: the inbox of 12,000 misses answered in 5.6 s, ignoring a cluster in 6.2 s),
  the turns recorded since a read 0.4 s. What this process resolves leaves the kept turns
  at once; another replica's actions are seen at the next whole read, which a request
  starts once the turns kept were read whole `WHOLE_READ_SECONDS` ago, and is answered
  from the kept turns meanwhile (the whole read replaces them when it lands). The turns
  kept are bounded (`MAX_KEPT_TURNS`, the stories read the longest ago let go first).
- Kept in the database between processes: each whole read's turns are written as the
  story's snapshot (inbox/snapshots.py), beyond the request, so that the first
  read of the story in another process (or after a restart) reads the snapshot and the
  turns recorded since rather than every turn: 12,000 misses first read in 1.5 s quiet
  and 3.4 s under load before, in 0.35 s and 0.6 s with it (docs/benchmarks.md "The misses
  inbox read again and acted on"). The snapshot is taken for turns read whole as long ago
  as it was written: one older than `WHOLE_READ_SECONDS` starts a whole read beyond the
  request, as kept turns do. A snapshot's misses past their turn's expiry are left out.
- Bounded and fair: clusterings run one at a time, in one thread of their own (so at
  most one core of the process), and the stories waiting take turns, one clustering each
  (as phrase vectors are encoded, story_cache/vectors.py): a story asked for again and
  again waits behind the others, however often it is asked for.
"""

import asyncio
import logging
import time
from collections import OrderedDict, deque
from collections.abc import Awaitable, Callable, Collection
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from datetime import datetime

from bot_api.background import Drain
from bot_api.engine.clustering import Cluster, Miss, clusters
from bot_api.inbox.repository import MAX_INBOX_TURNS
from bot_api.inbox.snapshots import InboxSnapshot, InboxSnapshotStore, InboxVersion, encoded
from bot_api.metrics import INBOX_SECONDS
from shared.budget import beyond_request
from shared.timeutil import utcnow

log = logging.getLogger(__name__)

Read = Callable[[datetime | None], Awaitable[list[Miss]]]
"""Reads the story's unresolved turns, newest first: those recorded at or after the time
given, or (None) all of them."""

WHOLE_READ_SECONDS = 60.0
"""How long a story's turns as read whole are kept and brought up to date with the turns
recorded since: another replica's actions are seen within this."""

MAX_KEPT_TURNS = 3 * MAX_INBOX_TURNS
"""Turns kept for all stories together: three stories' inboxes at their bound (a turn
holds its vector, some 12 KB, when it is its text's newest)."""


_Waiting = tuple[list[Miss], "asyncio.Future[list[Cluster]]"]
"""Turns read, to be clustered into the future."""


@dataclass(frozen=True)
class _Kept:
    """A story's unresolved turns as read, newest first, and their clusters."""

    version: InboxVersion
    misses: list[Miss]
    clusters: list[Cluster] | None
    """None when turns left since they were clustered."""
    whole_read_at: float


@dataclass(frozen=True)
class _Shared:
    version: InboxVersion
    """What the request asked for (the story's `reviewBelow`): another version is not shared."""
    task: "asyncio.Task[list[Cluster]]"


class InboxClusterings:
    def __init__(
        self,
        snapshots: InboxSnapshotStore | None = None,
        clock: Callable[[], float] = time.monotonic,
        now: Callable[[], datetime] = utcnow,
    ) -> None:
        self._snapshots = snapshots
        self._clock = clock
        self._now = now
        self._writing: set[asyncio.Task[bool]] = set()
        """Snapshots being written, beyond the requests that read their turns."""
        self._kept: OrderedDict[str, _Kept] = OrderedDict()
        """By story, the one kept the longest ago first (let go first)."""
        self._changes: dict[str, int] = {}
        """By story, how often this process changed its inbox: a read that started before
        a change is not kept."""
        self._shared: dict[str, _Shared] = {}
        self._reading_whole: dict[str, asyncio.Task[_Kept]] = {}
        """By story, a whole read started in the background, while it runs."""
        self._waiting: OrderedDict[str, deque[_Waiting]] = OrderedDict()
        """By story, the one whose turn it is first."""
        self._thread = ThreadPoolExecutor(1, thread_name_prefix="inbox-clustering")
        self._worker = Drain(self._cluster_waiting)

    async def clusters(self, story_id: str, version: InboxVersion, read: Read) -> list[Cluster]:
        """The story's clusters: those of the clustering in progress for the story (of the
        same `version`), or of a new one of the turns `read` gives."""
        shared = self._shared.get(story_id)
        if shared is None or shared.version != version:
            reading = self._read_and_cluster(story_id, version, read)
            shared = _Shared(version, beyond_request(reading))
            self._shared[story_id] = shared
            shared.task.add_done_callback(lambda _: self._done(story_id, shared))
        return await asyncio.shield(shared.task)

    def shown(self, story_id: str, version: InboxVersion, cluster_id: str) -> Cluster | None:
        """The cluster of this id as the story's inbox was last read here, if nothing left
        it since: what an action names is what its person saw, found without reading the
        turns recorded since (0.67 s of the 1.27 s an ignore took on 12,000 misses)."""
        kept = self._kept.get(story_id)
        if kept is None or kept.version != version or kept.clusters is None:
            return None
        return next((c for c in kept.clusters if c.id == cluster_id), None)

    def changed(self, story_id: str) -> None:
        """The story's inbox changed (turns came back to it, or it was deleted): the
        clustering in progress is not shared any more, and its turns are read whole again."""
        self._shared.pop(story_id, None)
        self._kept.pop(story_id, None)
        self._changes[story_id] = self._changes.get(story_id, 0) + 1

    def resolved(self, story_id: str, turn_ids: Collection[str]) -> None:
        """These turns of the story left its inbox: not in its next clustering."""
        kept = self._kept.get(story_id)
        self.changed(story_id)
        if kept is not None:
            gone = set(turn_ids)
            misses = [m for m in kept.misses if m.turn_id not in gone]
            self._kept[story_id] = _Kept(kept.version, misses, None, kept.whole_read_at)

    async def close(self) -> None:
        await self._worker.close()
        for task in [*(s.task for s in self._shared.values()), *self._reading_whole.values()]:
            task.cancel()
        for writing in list(self._writing):
            writing.cancel()
        self._thread.shutdown(cancel_futures=True)

    def _done(self, story_id: str, shared: _Shared) -> None:
        if self._shared.get(story_id) is shared:
            del self._shared[story_id]

    async def read_ahead(self, story_id: str, version: InboxVersion, read: Read) -> None:
        """The story's turns read and kept (its snapshot written when they are read whole)
        but not clustered: a read ahead wants them at hand, and the person who opens the
        inbox clusters them with the turns recorded since (a busy story's read ahead, every
        2,000 misses, clustered 10,000 in some 0.65 s of the clustering thread for nobody).
        While a person's read of the story is under way, it is that read."""
        shared = self._shared.get(story_id)
        if shared is not None and shared.version == version:
            await asyncio.shield(shared.task)
            return
        await self._fresh(story_id, version, read, cluster_whole=False)

    async def _read_and_cluster(
        self, story_id: str, version: InboxVersion, read: Read
    ) -> list[Cluster]:
        kept = await self._fresh(story_id, version, read, cluster_whole=True)
        if kept.clusters is not None:
            return kept.clusters
        result = await self._clustered(story_id, kept.misses)
        if self._kept.get(story_id) is kept:
            self._keep(story_id, replace(kept, clusters=result))
        return result

    async def _fresh(
        self, story_id: str, version: InboxVersion, read: Read, cluster_whole: bool
    ) -> _Kept:
        """The story's kept turns joined by those recorded since (read whole, or from its
        snapshot, when none are kept here), kept unless the story's inbox changed here
        meanwhile; a whole read due is started beyond the request (`cluster_whole`: it
        clusters what it reads, for the next person's read)."""
        kept = self._kept.get(story_id)
        if kept is None or kept.version != version:
            kept = await self._stored(story_id, version)
            if kept is None:
                return await self._read_whole(story_id, version, read, cluster=False)
        if self._clock() - kept.whole_read_at >= WHOLE_READ_SECONDS:
            self._start_whole_read(story_id, version, read, cluster_whole)
        changes = self._changes.get(story_id, 0)
        with INBOX_SECONDS.labels("read").time():
            misses = _newer(await read(kept.misses[0].at if kept.misses else None), kept)
        if misses is kept.misses:
            return kept
        fresh = _Kept(version, misses, None, kept.whole_read_at)
        if self._changes.get(story_id, 0) == changes and self._kept.get(story_id) is kept:
            self._keep(story_id, fresh)
        return fresh

    async def _stored(self, story_id: str, version: InboxVersion) -> _Kept | None:
        """The story's snapshot as its kept turns (read whole when it was written), if it
        has one for `version` and this process did not change the story's inbox while it
        was read."""
        if self._snapshots is None:
            return None
        changes = self._changes.get(story_id, 0)
        with INBOX_SECONDS.labels("snapshot").time():
            snapshot = await self._snapshots.read(story_id)
        if snapshot is None or snapshot.version != version:
            return None
        if self._changes.get(story_id, 0) != changes or story_id in self._kept:
            return None
        now = self._now()
        misses = [m for m in snapshot.misses if m.expires_at is None or m.expires_at > now]
        age = max((now - snapshot.written_at).total_seconds(), 0.0)
        kept = _Kept(version, misses, None, self._clock() - age)
        self._keep(story_id, kept)
        return kept

    async def _read_whole(
        self, story_id: str, version: InboxVersion, read: Read, cluster: bool
    ) -> _Kept:
        """The story's turns read whole (and clustered, if `cluster`), kept (and written
        as its snapshot) unless the story's inbox changed here meanwhile. The snapshot's
        generation is read before the turns: should an action change the inbox while they
        are read, on any replica, the snapshot is not written."""
        changes = self._changes.get(story_id, 0)
        whole_read_at, read_at = self._clock(), self._now()
        generation = None
        if self._snapshots is not None:
            generation = await self._snapshots.generation(story_id)
        with INBOX_SECONDS.labels("read").time():
            misses = await read(None)
        clustered = await self._clustered(story_id, misses) if cluster else None
        kept = _Kept(version, misses, clustered, whole_read_at)
        if self._changes.get(story_id, 0) == changes:
            self._keep(story_id, kept)
            if self._snapshots is not None and generation is not None:
                snapshot = InboxSnapshot(version, misses, read_at)
                self._write(self._snapshots, story_id, generation, snapshot)
        return kept

    def _write(
        self,
        snapshots: InboxSnapshotStore,
        story_id: str,
        generation: int,
        snapshot: InboxSnapshot,
    ) -> None:
        """Write the snapshot beyond the request (encoded in a worker thread: 10,000 misses
        take some 40 ms of CPU)."""

        async def write() -> bool:
            payload = await asyncio.to_thread(encoded, snapshot)
            return await snapshots.write(story_id, generation, payload)

        writing = beyond_request(write())
        self._writing.add(writing)
        writing.add_done_callback(lambda _: self._written(story_id, writing))

    def _written(self, story_id: str, writing: "asyncio.Task[bool]") -> None:
        self._writing.discard(writing)
        if not writing.cancelled() and writing.exception() is not None:
            log.warning(
                "the inbox snapshot of story %s was not written",
                story_id,
                exc_info=writing.exception(),
            )

    def _start_whole_read(
        self, story_id: str, version: InboxVersion, read: Read, cluster: bool
    ) -> None:
        """Read the story's turns whole beyond the request, unless that is under way."""
        if story_id in self._reading_whole:
            return
        reading = beyond_request(self._read_whole(story_id, version, read, cluster))
        self._reading_whole[story_id] = reading
        reading.add_done_callback(lambda _: self._whole_read_done(story_id, reading))

    def _whole_read_done(self, story_id: str, reading: "asyncio.Task[_Kept]") -> None:
        if self._reading_whole.get(story_id) is reading:
            del self._reading_whole[story_id]
        if not reading.cancelled() and reading.exception() is not None:
            log.warning(
                "the inbox of story %s was not read whole", story_id, exc_info=reading.exception()
            )

    async def _clustered(self, story_id: str, misses: list[Miss]) -> list[Cluster]:
        """The turns clustered when their story's turn comes (`_cluster_waiting`)."""
        found: asyncio.Future[list[Cluster]] = asyncio.get_running_loop().create_future()
        self._waiting.setdefault(story_id, deque()).append((misses, found))
        self._worker.wake()
        return await found

    def _keep(self, story_id: str, kept: _Kept) -> None:
        self._kept[story_id] = kept
        while sum(len(k.misses) for k in self._kept.values()) > MAX_KEPT_TURNS:
            self._kept.popitem(last=False)

    async def _cluster_waiting(self) -> None:
        """One clustering of each story in turn until none waits."""
        loop = asyncio.get_running_loop()
        while self._waiting:
            story_id, queue = next(iter(self._waiting.items()))
            misses, found = queue.popleft()
            if queue:
                self._waiting.move_to_end(story_id)
            else:
                del self._waiting[story_id]
            if found.done():  # its request was cancelled
                continue
            try:
                with INBOX_SECONDS.labels("clustering").time():
                    result = await loop.run_in_executor(self._thread, clusters, misses)
            except Exception as error:
                found.set_exception(error)
                continue
            if not found.done():
                found.set_result(result)


def _newer(read: list[Miss], kept: _Kept) -> list[Miss]:
    """The turns `read` since the newest kept one joined to the kept ones, newest first, at
    most `MAX_INBOX_TURNS`; the kept list itself when none is new."""
    known = {m.turn_id for m in kept.misses}
    new = [m for m in read if m.turn_id not in known]
    if not new:
        return kept.misses
    misses = sorted([*new, *kept.misses], key=lambda m: m.at, reverse=True)
    return misses[:MAX_INBOX_TURNS]
