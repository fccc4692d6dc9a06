"""Phrase vectors for the semantic stage: loaded from the database for a compile, and
computed in the background for phrases that have none yet.

A compile never waits for the encoder: phrases without a vector are scored lexically,
and once their vectors are stored the story is told (`landed`), so its next query
takes them in. The queues (story_cache/queues.py) say what is encoded next: a chunk of
the story whose turn it is, the stories taking turns, so a story of a few phrases waits
for at most one chunk of every other story queued; phrases another replica wrote are
awaited, looked up in the store until they land, and encoded here only if they do not.
Encoding runs in a worker thread, one chunk at a time, so it never takes more than one
core; onnxruntime and the tokenizer release the interpreter while they work, so the
event loop keeps answering (its delays stay within milliseconds while encoding,
docs/matching.md).
"""

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Mapping, Sequence

from bot_api.background import Drain
from bot_api.engine.semantic import Encoder, Encoders, PhraseVectors, vector_key
from bot_api.metrics import PHRASE_VECTORS_ENCODED, PHRASE_VECTORS_WAITING
from bot_api.story_cache.queues import (
    LOOK_SECONDS,
    WAIT_SECONDS,
    Landed,
    Look,
    Turn,
    VectorQueues,
)
from bot_api.story_cache.repository import VectorStore

log = logging.getLogger(__name__)

RETRY_SECONDS = 5.0
"""A chunk that failed (the database unreachable or slow) is tried again this much later,
after the other stories have had their turn: vectors are never given up on. A look for
awaited texts that failed is made again this much later too."""


class PhraseVectorService:
    def __init__(
        self,
        store: VectorStore,
        encoders: Encoders,
        retry_seconds: float = RETRY_SECONDS,
        *,
        live_replicas: Callable[[], int] = lambda: 1,
        wait_seconds: float = WAIT_SECONDS,
        look_seconds: float = LOOK_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        """`live_replicas`: how many bot-api replicas are alive, this one included
        (shared/replicas.py); with one, nothing is awaited. `wait_seconds`: how long
        awaited texts may go without landing before they are encoded here;
        `look_seconds`: how often the store is read for them (story_cache/queues.py)."""
        self._store = store
        self.encoders = encoders
        self._retry_seconds = retry_seconds
        self._live_replicas = live_replicas
        self._clock = clock
        self._queues = VectorQueues(wait_seconds, look_seconds)
        self._news = asyncio.Event()
        """Set as texts are queued: a worker waiting for awaited texts looks again."""
        self._worker = Drain(self._encode_queued)

    async def load(
        self,
        story_id: str,
        encoder: Encoder,
        texts: Mapping[str, Sequence[str]],
        landed: Landed | None,
        *,
        written_here: bool = False,
    ) -> PhraseVectors:
        """The stored vectors, by this encoder, of these interactions' phrase texts. With
        `landed`, the missing ones are queued (`enqueue`, in place of what these
        interactions had queued), and `landed` is called as each interaction's are
        stored."""
        keys = _keys(encoder, texts)
        vectors = PhraseVectors(encoder.model_id, await self._store.take(story_id, keys.values()))
        if landed is not None:
            missing = vectors.missing(texts)
            queued = {i: missing.get(i, []) for i in texts}
            self.enqueue(story_id, encoder, queued, landed, written_here=written_here)
        return vectors

    def enqueue(
        self,
        story_id: str,
        encoder: Encoder,
        texts: Mapping[str, Sequence[str]],
        landed: Landed,
        *,
        written_here: bool = False,
    ) -> None:
        """Have these phrase texts' vectors stored (those stored meanwhile are skipped);
        `landed` is called as each interaction's are. `written_here`: this replica took
        the write that gave them, and encodes them at once; otherwise they are awaited
        from the replica that did while another is alive (story_cache/queues.py). An
        interaction given no texts has none waiting any more (an edit took its new
        phrases away, or they are all stored)."""
        self._queues.add(story_id, encoder, texts, landed, written_here, self._clock())
        self._count_waiting()
        self._news.set()
        self._worker.wake()

    def waiting(self, story_id: str) -> int:
        """How many of the story's phrase texts are queued here for their vector: what a
        story's read shows as `phrasesAwaitingMeaning`.

        The queue is where a story's missing vectors are known without a scan: a compile
        (the story's first query in this process, then each edit) reads the vectors of
        its phrases anyway and queues those the store lacks, so counting them again on a
        read would read and hash every phrase of the story for each read. The count is a
        dictionary look-up and a sum over the interactions queued. It is this process's:
        the one that took a write queues its phrases at once (story_cache/written.py),
        another replica counts 0 until it compiles the story (docs/api.md "Stories"),
        then those it awaits until they land."""
        return self._queues.waiting(story_id)

    def forget(self, story_id: str) -> None:
        """The story's phrases are not encoded any more (it was deleted, or no model reads
        its language now)."""
        self._queues.forget(story_id)
        self._count_waiting()

    async def idle(self) -> None:
        """Wait until everything queued so far is done."""
        await self._worker.idle()

    async def close(self) -> None:
        await self._worker.close()

    async def _encode_queued(self) -> None:
        """A chunk of each story in turn while any has texts to encode now; otherwise the
        awaited texts looked up when due, and a wait until the next look, the end of a
        story's wait or new texts queued; until nothing is queued."""
        while self._queues:
            self._news.clear()
            turn = self._queues.next_turn(self._clock(), alone=self._live_replicas() <= 1)
            if turn is not None:
                await self._take_turn(turn)
                continue
            for look in self._queues.looks(self._clock()):
                await self._look(look)
            pause = self._queues.pause(self._clock())
            if pause is not None:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._news.wait(), pause)

    async def _take_turn(self, turn: Turn) -> None:
        try:
            await self._encode(turn.story_id, turn.queue.encoder, turn.texts)
        except Exception:
            log.exception(
                "phrase vectors of story %s could not be computed; tried again in %g s",
                turn.story_id,
                self._retry_seconds,
            )
            self._queues.failed(turn)
            await asyncio.sleep(self._retry_seconds)
            return
        done = self._queues.encoded(turn)
        self._count_waiting()
        if done:
            await turn.queue.landed(done)

    async def _look(self, look: Look) -> None:
        """The awaited texts another replica stored meanwhile, taken out; the story told
        of the interactions complete."""
        keys = _keys(look.queue.encoder, {"": look.texts})
        try:
            stored = await self._store.stored(keys.values())
        except Exception:
            log.exception(
                "awaited phrase vectors of story %s could not be looked up; again in %g s",
                look.story_id,
                self._retry_seconds,
            )
            self._queues.look_again(look, self._clock() + self._retry_seconds)
            return
        landed = {text for text, key in keys.items() if key in stored}
        done = self._queues.found(look, landed, self._clock())
        self._count_waiting()
        if done:
            await look.queue.landed(done)

    async def _encode(self, story_id: str, encoder: Encoder, texts: Sequence[str]) -> None:
        keys = _keys(encoder, {"": texts})
        known = await self._store.take(story_id, keys.values())
        wanted = [t for t, key in keys.items() if key not in known]
        if wanted:
            vectors = await asyncio.to_thread(encoder, wanted)
            PHRASE_VECTORS_ENCODED.inc(len(wanted))
            await self._store.put(
                encoder.model_id,
                story_id,
                {keys[t]: v for t, v in zip(wanted, vectors, strict=True)},
            )

    def _count_waiting(self) -> None:
        PHRASE_VECTORS_WAITING.set(self._queues.waiting())


def _keys(encoder: Encoder, texts: Mapping[str, Sequence[str]]) -> dict[str, str]:
    """Each distinct text's `vector_key`, worked out once."""
    distinct = dict.fromkeys(t for ts in texts.values() for t in ts)
    return {t: vector_key(encoder.model_id, t) for t in distinct}
