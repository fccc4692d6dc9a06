"""Phrase vectors for the semantic stage: loaded from the database for a compile, and
computed in the background for phrases that have none yet.

A compile never waits for the encoder: phrases without a vector are scored lexically,
and once their vectors are stored the story is told (`landed`), so its next query
takes them in. Encoding runs in a worker thread, one batch at a time, so it never
blocks the event loop and never takes more than one core.
"""

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence

from bot_api.engine.semantic import Encoder, PhraseVectors, vector_key
from bot_api.storage.protocols import VectorStore
from shared.budget import beyond_request

log = logging.getLogger(__name__)

CHUNK = 256
"""Texts encoded per worker call: a shutdown waits for at most one chunk (under a
second on one core)."""

Landed = Callable[[set[str]], Awaitable[None]]
"""Called with the interactions whose phrase vectors were stored."""


RETRY_SECONDS = 5.0
"""A batch that failed (the database unreachable or slow) is tried again this much later,
after the batches queued behind it: vectors are never given up on."""


class PhraseVectorService:
    def __init__(
        self, store: VectorStore, encoder: Encoder, retry_seconds: float = RETRY_SECONDS
    ) -> None:
        self._store = store
        self.encoder = encoder
        self._retry_seconds = retry_seconds
        self._queue: asyncio.Queue[tuple[str, dict[str, list[str]], Landed]] = asyncio.Queue()
        self._worker: asyncio.Task[None] | None = None

    async def load(
        self, story_id: str, texts: Mapping[str, Sequence[str]], landed: Landed | None
    ) -> PhraseVectors:
        """The stored vectors of these interactions' phrase texts. With `landed`, the
        missing ones are queued for encoding, and `landed` is called once they are
        stored."""
        keys = self._keys(texts)
        by_key = await self._store.find(keys.values())
        missing = {i: [t for t in ts if keys[t] not in by_key] for i, ts in texts.items()}
        missing = {i: ts for i, ts in missing.items() if ts}
        if missing and landed is not None:
            self._queue.put_nowait((story_id, missing, landed))
            if self._worker is None or self._worker.done():
                self._worker = beyond_request(self._encode_queued())
        return PhraseVectors(self.encoder.model_id, by_key)

    async def idle(self) -> None:
        """Wait until everything queued so far is encoded and stored."""
        while self._worker is not None and not self._worker.done():
            await asyncio.wait([self._worker])

    async def close(self) -> None:
        if self._worker is not None:
            self._worker.cancel()
            await asyncio.gather(self._worker, return_exceptions=True)

    async def _encode_queued(self) -> None:
        while not self._queue.empty():
            queued = self._queue.get_nowait()
            story_id, texts, landed = queued
            try:
                await self._encode(texts)
                await landed(set(texts))
            except Exception:
                log.exception(
                    "phrase vectors of story %s could not be computed; tried again in %g s",
                    story_id,
                    self._retry_seconds,
                )
                await asyncio.sleep(self._retry_seconds)
                self._queue.put_nowait(queued)

    async def _encode(self, texts: Mapping[str, Sequence[str]]) -> None:
        keys = self._keys(texts)
        known = await self._store.find(keys.values())
        wanted = [t for t, key in keys.items() if key not in known]
        for start in range(0, len(wanted), CHUNK):
            chunk = wanted[start : start + CHUNK]
            vectors = await asyncio.to_thread(self.encoder, chunk)
            await self._store.put(
                self.encoder.model_id, {keys[t]: v for t, v in zip(chunk, vectors, strict=True)}
            )

    def _keys(self, texts: Mapping[str, Sequence[str]]) -> dict[str, str]:
        """Each distinct text's `vector_key`, worked out once."""
        model = self.encoder.model_id
        distinct = dict.fromkeys(t for ts in texts.values() for t in ts)
        return {t: vector_key(model, t) for t in distinct}
