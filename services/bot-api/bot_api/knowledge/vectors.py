"""Passage vectors, computed in the background: an upload answers lexically at once and by
meaning once its passages' vectors land (docs/knowledge.md "Answers by meaning").

A stored document's passages are queued (`enqueue`), each account's documents in a
queue of their own; the accounts take turns, one `CHUNK` each, so an account uploading
a long PDF delays another's small document by at most one chunk. One chunk is encoded at
a time, in a worker thread (the encoder holds one core, and lets go of the interpreter
while it works). Each chunk's vectors are stored in their passages' records and the
document's `vectorsPending` lowered; once a document's are all in, the story is told
(`landed`: its index is read anew, with the vectors). A document replaced or deleted
drops what it had queued (a chunk under way is stored against the revision it was of,
which nothing reads any more). On start-up every passage still without a vector is
queued again (`resume`): a restart loses nothing.
"""

import asyncio
import logging
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field

from bot_api.background import Drain
from bot_api.knowledge.meaning import PassageEncoder, encoded_text
from bot_api.knowledge.passages import Passage
from bot_api.knowledge.records import PendingPassage
from bot_api.knowledge.repository import KnowledgeStore

log = logging.getLogger(__name__)

CHUNK = 8
"""Passages encoded per turn of an account: a 60-word passage takes some 127 ms of one
core, a 101-word one 411 ms (bench/knowledge.py), so a turn lasts one to three seconds,
and a shutdown waits for at most that."""
RETRY_SECONDS = 5.0
"""A chunk that failed (the database unreachable) is tried again this much later, after
the other accounts have had their turn."""

Landed = Callable[[str, str], Awaitable[None]]
"""Called with (account, story) once a document's vectors are all stored."""


@dataclass
class _Document:
    account_id: str
    story_id: str
    document_id: str
    revision: int
    waiting: list[tuple[Passage, str]] = field(default_factory=list)
    """Each passage still to encode, with the text its vector is of."""


class PassageVectors:
    def __init__(
        self,
        store: KnowledgeStore,
        encoder: PassageEncoder,
        landed: Landed,
        retry_seconds: float = RETRY_SECONDS,
    ) -> None:
        self._store = store
        self.encoder = encoder
        self._landed = landed
        self._retry_seconds = retry_seconds
        self._accounts: OrderedDict[str, OrderedDict[str, _Document]] = OrderedDict()
        """By account (the one whose turn it is first), its documents in upload order."""
        self._worker = Drain(self._encode_queued)

    def enqueue(
        self,
        account_id: str,
        story_id: str,
        document_id: str,
        revision: int,
        title: str,
        passages: Sequence[Passage],
    ) -> None:
        """Encode these passages of a document's revision, in place of what the document
        had queued."""
        self.forget_document(document_id)
        if not passages:
            return
        document = _Document(account_id, story_id, document_id, revision)
        document.waiting = [(p, encoded_text(p, title)) for p in passages]
        self._accounts.setdefault(account_id, OrderedDict())[document_id] = document
        self._worker.wake()

    def forget_document(self, document_id: str) -> None:
        for account_id, documents in list(self._accounts.items()):
            if documents.pop(document_id, None) is not None and not documents:
                del self._accounts[account_id]

    def forget_story(self, story_id: str) -> None:
        for account_id, documents in list(self._accounts.items()):
            for document_id in [d for d, q in documents.items() if q.story_id == story_id]:
                del documents[document_id]
            if not documents:
                del self._accounts[account_id]

    def waiting(self) -> int:
        """Passages queued in this process."""
        return sum(len(d.waiting) for ds in self._accounts.values() for d in ds.values())

    async def resume(self) -> None:
        """Queue every stored passage still without a vector (after a restart)."""
        by_document: dict[str, list[Passage]] = {}
        first: dict[str, PendingPassage] = {}
        for pending in await self._store.pending():
            by_document.setdefault(pending.passage.document_id, []).append(pending.passage)
            first.setdefault(pending.passage.document_id, pending)
        for document_id, passages in by_document.items():
            p = first[document_id]
            self.enqueue(p.account_id, p.story_id, document_id, p.revision, p.title, passages)

    async def idle(self) -> None:
        await self._worker.idle()

    async def close(self) -> None:
        await self._worker.close()

    async def _encode_queued(self) -> None:
        """One chunk of each account in turn until none waits."""
        while self._accounts:
            account_id, documents = next(iter(self._accounts.items()))
            document = next(iter(documents.values()))
            chunk = document.waiting[:CHUNK]
            try:
                vectors = await asyncio.to_thread(self.encoder.passages, [t for _, t in chunk])
                await self._store.put_vectors(
                    document.document_id,
                    document.revision,
                    self.encoder.model_id,
                    {p.id: v for (p, _), v in zip(chunk, vectors, strict=True)},
                )
            except Exception:
                log.exception(
                    "passage vectors of document %s could not be computed; tried again in %g s",
                    document.document_id,
                    self._retry_seconds,
                )
                if self._accounts.get(account_id) is documents:
                    self._accounts.move_to_end(account_id)
                await asyncio.sleep(self._retry_seconds)
                continue
            if documents.get(document.document_id) is not document:
                continue  # replaced or deleted meanwhile
            del document.waiting[: len(chunk)]
            if not document.waiting:
                del documents[document.document_id]
                if not documents:
                    del self._accounts[account_id]
            if account_id in self._accounts:
                self._accounts.move_to_end(account_id)
            if not document.waiting:
                await self._landed(document.account_id, document.story_id)
