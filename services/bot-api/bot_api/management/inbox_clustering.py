"""The misses inbox's clusterings, bounded and shared: long CPU work that any inbox read
or action starts (0.05 to 0.6 s for 10,000 turns, docs/benchmarks.md).

- Shared: requests for a story share the clustering in progress for it (its turns read
  once, clustered once), unless this process changed the story's inbox since that one
  started (an action resolved or reopened turns): then the next request starts anew.
- Bounded and fair: clusterings run one at a time, in one thread of their own (so at
  most one core of the process), and the stories waiting take turns, one clustering each
  (as phrase vectors are encoded, conversations/vectors.py): a story asked for again and
  again waits behind the others, however often it is asked for.
"""

import asyncio
from collections import OrderedDict, deque
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from bot_api.conversations.background import Drain
from bot_api.engine.clustering import Cluster, Miss, clusters
from bot_api.metrics import INBOX_SECONDS
from shared.budget import beyond_request

Read = Callable[[], Awaitable[list[Miss]]]
"""Reads the story's unresolved turns."""


_Waiting = tuple[list[Miss], "asyncio.Future[list[Cluster]]"]
"""Turns read, to be clustered into the future."""


@dataclass(frozen=True)
class _Shared:
    version: object
    """What the request asked for (the story's `reviewBelow`): another version is not shared."""
    task: "asyncio.Task[list[Cluster]]"


class InboxClusterings:
    def __init__(self) -> None:
        self._shared: dict[str, _Shared] = {}
        self._waiting: OrderedDict[str, deque[_Waiting]] = OrderedDict()
        """By story, the one whose turn it is first."""
        self._thread = ThreadPoolExecutor(1, thread_name_prefix="inbox-clustering")
        self._worker = Drain(self._cluster_waiting)

    async def clusters(self, story_id: str, version: object, read: Read) -> list[Cluster]:
        """The story's clusters: those of the clustering in progress for the story (of the
        same `version`), or of a new one of the turns `read` gives."""
        shared = self._shared.get(story_id)
        if shared is None or shared.version != version:
            shared = _Shared(version, beyond_request(self._read_and_cluster(story_id, read)))
            self._shared[story_id] = shared
            shared.task.add_done_callback(lambda _: self._done(story_id, shared))
        return await asyncio.shield(shared.task)

    def changed(self, story_id: str) -> None:
        """The story's inbox changed: the clustering in progress is not shared any more."""
        self._shared.pop(story_id, None)

    async def close(self) -> None:
        await self._worker.close()
        for shared in list(self._shared.values()):
            shared.task.cancel()
        self._thread.shutdown(cancel_futures=True)

    def _done(self, story_id: str, shared: _Shared) -> None:
        if self._shared.get(story_id) is shared:
            del self._shared[story_id]

    async def _read_and_cluster(self, story_id: str, read: Read) -> list[Cluster]:
        with INBOX_SECONDS.labels("read").time():
            misses = await read()
        found: asyncio.Future[list[Cluster]] = asyncio.get_running_loop().create_future()
        self._waiting.setdefault(story_id, deque()).append((misses, found))
        self._worker.wake()
        return await found

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
