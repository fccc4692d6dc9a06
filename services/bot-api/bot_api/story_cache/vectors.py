"""Phrase vectors for the semantic stage: loaded from the database for a compile, and
computed in the background for phrases that have none yet.

A compile never waits for the encoder: phrases without a vector are scored lexically,
and once their vectors are stored the story is told (`landed`), so its next query
takes them in. Each story waiting for vectors has a queue of its own, and the stories
take turns, one chunk each: a story of a few phrases waits for at most one chunk of
every other story queued, however many phrases those hold. Encoding runs in a worker
thread, one chunk at a time, so it never takes more than one core; onnxruntime and the
tokenizer release the interpreter while they work, so the event loop keeps answering
(its delays stay within milliseconds while encoding, docs/matching.md).
"""

import asyncio
import logging
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping, Sequence

from bot_api.background import Drain
from bot_api.engine.semantic import Encoder, Encoders, PhraseVectors, vector_key
from bot_api.metrics import PHRASE_VECTORS_ENCODED, PHRASE_VECTORS_WAITING
from bot_api.story_cache.repository import VectorStore

log = logging.getLogger(__name__)

CHUNK = 32
"""Texts encoded per worker call, and per turn of a story: a phrase of 64 tokens takes
about 26 ms of one core, so a turn (and a shutdown) waits for under a second."""

Landed = Callable[[set[str]], Awaitable[None]]
"""Called with the interactions whose phrase vectors were stored."""


RETRY_SECONDS = 5.0
"""A chunk that failed (the database unreachable or slow) is tried again this much later,
after the other stories have had their turn: vectors are never given up on."""


class _StoryQueue:
    """The phrase texts of one story still to encode, by interaction, oldest first, and
    the encoder the story is read by. An interaction queued again replaces what it had
    queued: at most a story's phrases wait, however often it is edited; a story whose
    encoder changed (its language or `answerAnyLanguage`) drops what it had queued."""

    def __init__(self, encoder: Encoder, landed: Landed) -> None:
        self.encoder = encoder
        self.texts: dict[str, list[str]] = {}
        self.landed = landed

    def add(self, encoder: Encoder, texts: Mapping[str, Sequence[str]], landed: Landed) -> None:
        if encoder.model_id != self.encoder.model_id:
            self.encoder = encoder
            self.texts.clear()
        for interaction_id, interaction_texts in texts.items():
            self.texts.pop(interaction_id, None)
            if interaction_texts:
                self.texts[interaction_id] = list(interaction_texts)
        self.landed = landed

    def next_chunk(self) -> list[tuple[str, list[str], int]]:
        """The first interactions' texts, up to `CHUNK` of them: (interaction, its texts
        queued, how many of them are in the chunk)."""
        chunk = []
        room = CHUNK
        for interaction_id, texts in self.texts.items():
            if room == 0:
                break
            taken = min(room, len(texts))
            chunk.append((interaction_id, texts, taken))
            room -= taken
        return chunk

    def stored(self, chunk: list[tuple[str, list[str], int]]) -> set[str]:
        """Take the chunk's texts out; the interactions it completed. An interaction
        queued again meanwhile keeps its new texts."""
        done = set()
        for interaction_id, texts, taken in chunk:
            if self.texts.get(interaction_id) is not texts:
                continue
            del texts[:taken]
            if not texts:
                del self.texts[interaction_id]
                done.add(interaction_id)
        return done


class PhraseVectorService:
    def __init__(
        self, store: VectorStore, encoders: Encoders, retry_seconds: float = RETRY_SECONDS
    ) -> None:
        self._store = store
        self.encoders = encoders
        self._retry_seconds = retry_seconds
        self._queues: OrderedDict[str, _StoryQueue] = OrderedDict()
        """By story, the one whose turn it is first."""
        self._worker = Drain(self._encode_queued)

    async def load(
        self,
        story_id: str,
        encoder: Encoder,
        texts: Mapping[str, Sequence[str]],
        landed: Landed | None,
    ) -> PhraseVectors:
        """The stored vectors, by this encoder, of these interactions' phrase texts. With
        `landed`, the missing ones are queued for encoding (in place of what these
        interactions had queued), and `landed` is called as each interaction's are
        stored."""
        keys = _keys(encoder, texts)
        vectors = PhraseVectors(encoder.model_id, await self._store.take(story_id, keys.values()))
        if landed is not None:
            missing = vectors.missing(texts)
            self.enqueue(story_id, encoder, {i: missing.get(i, []) for i in texts}, landed)
        return vectors

    def enqueue(
        self,
        story_id: str,
        encoder: Encoder,
        texts: Mapping[str, Sequence[str]],
        landed: Landed,
    ) -> None:
        """Encode these phrase texts (those stored meanwhile are skipped); `landed` is
        called as each interaction's are stored. An interaction given no texts has none
        waiting any more (an edit took its new phrases away, or they are all stored)."""
        queue = self._queues.get(story_id)
        if queue is None:
            if not any(texts.values()):
                return
            queue = self._queues[story_id] = _StoryQueue(encoder, landed)
        queue.add(encoder, texts, landed)
        if not queue.texts:
            del self._queues[story_id]
        self._count_waiting()
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
        another replica counts 0 until it compiles the story (docs/api.md "Stories")."""
        queue = self._queues.get(story_id)
        return 0 if queue is None else sum(len(texts) for texts in queue.texts.values())

    def forget(self, story_id: str) -> None:
        """The story's phrases are not encoded any more (it was deleted, or no model reads
        its language now)."""
        self._queues.pop(story_id, None)
        self._count_waiting()

    async def idle(self) -> None:
        """Wait until everything queued so far is done."""
        await self._worker.idle()

    async def close(self) -> None:
        await self._worker.close()

    async def _encode_queued(self) -> None:
        """One chunk of each story in turn until no story waits."""
        while self._queues:
            story_id, queue = next(iter(self._queues.items()))
            chunk = queue.next_chunk()
            try:
                await self._encode(
                    story_id, queue.encoder, [t for _, texts, taken in chunk for t in texts[:taken]]
                )
            except Exception:
                log.exception(
                    "phrase vectors of story %s could not be computed; tried again in %g s",
                    story_id,
                    self._retry_seconds,
                )
                if self._queues.get(story_id) is queue:
                    self._queues.move_to_end(story_id)
                await asyncio.sleep(self._retry_seconds)
                continue
            done = queue.stored(chunk)
            if self._queues.get(story_id) is not queue:
                continue  # forgotten meanwhile
            if queue.texts:
                self._queues.move_to_end(story_id)
            else:
                del self._queues[story_id]
            self._count_waiting()
            if done:
                await queue.landed(done)

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
        waiting = sum(len(ts) for q in self._queues.values() for ts in q.texts.values())
        PHRASE_VECTORS_WAITING.set(waiting)


def _keys(encoder: Encoder, texts: Mapping[str, Sequence[str]]) -> dict[str, str]:
    """Each distinct text's `vector_key`, worked out once."""
    distinct = dict.fromkeys(t for ts in texts.values() for t in ts)
    return {t: vector_key(encoder.model_id, t) for t in distinct}
