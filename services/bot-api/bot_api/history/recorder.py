"""Recording /query turns (docs/history.md): each answered turn becomes a `TurnRecord`
(redacted when its story says so) and is written off the request path, in batches.

Redaction runs with the batch's write, in a thread: libphonenumber's matcher is plain
Python and took up to 0.56 s for a hostile message of 2,048 characters (`0044 0044 …`),
time that on the event loop every other request would wait for.

A turn is queued in memory and /query goes on; one background task writes what is
queued, as many turns a batch as have come in meanwhile (up to `BATCH`), so the writes
per second fall as the load rises. When MongoDB is slow or away, the batch waits and is
tried again every `RETRY_SECONDS`; past `MAX_BACKLOG` turns queued, the oldest are
dropped and counted (`parley_history_turns_dropped_total`). After each stored batch the
listeners (the analytics counters) are told.
"""

import asyncio
import contextlib
import dataclasses
import logging
import time
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from bot_api.background import Drain
from bot_api.domain.history import (
    AnsweredBy,
    KnowledgeSource,
    Person,
    TurnListener,
    TurnRecord,
    is_test_chat,
)
from bot_api.domain.knowledge import Generation
from bot_api.domain.redaction import phone_region, redact, redact_value
from bot_api.domain.responses import FulfillmentItem, Text
from bot_api.domain.settings import Settings
from bot_api.engine.turn import Outcome, Turn, outcome_kind
from bot_api.history.repository import StoredTurn, TurnStore
from bot_api.metrics import HISTORY_BACKLOG, HISTORY_TURNS_DROPPED, HISTORY_WRITE_FAILURES
from shared.ids import new_object_id
from shared.timeutil import utcnow

log = logging.getLogger(__name__)

BATCH = 500
"""Turns per write at most: a batch of 500 is about 2 MB with sentence vectors (4 KB a
turn), well under MongoDB's 48 MB message."""
MAX_BACKLOG = 10_000
"""Turns kept while MongoDB is away, older ones dropped first: about 20 s of one process
at full load (docs/benchmarks.md), held in memory as Python values: about 30 MB, 150 MB
when each holds a sentence vector (384 floats as a tuple)."""
RETRY_SECONDS = 2.0
GATHER_SECONDS = 2.0
"""How long the first turn queued waits for others to join its batch (unless `idle` or
`close` asks for it now): a batch costs the database about 14 ms of CPU in the analytics
counters and the summaries' lookup whatever its size (nx-27017, measured), so at 230
/query a second 0.5 s batches of ~115 turns paid 0.13 ms a turn for it and 2 s batches
of ~460 pay 0.03 ms (docs/benchmarks.md)."""
FLUSH_SECONDS = 5.0
"""At shutdown, how long what is queued may take to be written before it is given up."""
SUMMARY_CHARACTERS = 500


@dataclass(frozen=True)
class _Queued:
    """A turn waiting to be written, and the settings it is to be redacted by (None:
    stored as it is)."""

    stored: StoredTurn
    redact_by: Settings | None = None


class TurnRecorder:
    def __init__(
        self,
        store: TurnStore,
        listeners: Sequence[TurnListener] = (),
        max_backlog: int = MAX_BACKLOG,
        retry_seconds: float = RETRY_SECONDS,
        gather_seconds: float = GATHER_SECONDS,
    ) -> None:
        self._store = store
        self._listeners = tuple(listeners)
        self._max_backlog = max_backlog
        self._retry_seconds = retry_seconds
        self._gather_seconds = gather_seconds
        self._queue: deque[_Queued] = deque()
        self._now = asyncio.Event()
        """Set by `idle` and `close`: what is queued is written without gathering more."""
        self._drain = Drain(self._write_queued)

    def answered(
        self,
        *,
        account_id: str,
        session_id: str,
        settings: Settings,
        turn: Turn,
        outcome: Outcome,
        webhook: str | None,
        started: float,
        developer: bool = False,
        channel: str | None = None,
        person: Person | None = None,
        given_back: bool = False,
        taken_over: bool = False,
        turn_id: str | None = None,
    ) -> str | None:
        """Record a turn /query answered, if its story keeps a history; never waits, and
        never fails the answer already given (a turn that cannot be recorded is counted
        as dropped). `developer`: it came with the developer token; `channel`: the id of
        the channel that carried it; `person`, `given_back`, `taken_over`: a turn of the
        agent desk's; `turn_id`: the id to store it under (the desk named its lines by it
        already), else a new one. The id the turn is stored under, None when it is not
        recorded."""
        if not settings.history:
            return None
        try:
            stored = turn_record(
                account_id=account_id,
                session_id=session_id,
                settings=settings,
                turn=turn,
                outcome=outcome,
                webhook=webhook,
                started=started,
                at=utcnow(),
                developer=developer,
                channel=channel,
                person=person,
                given_back=given_back,
                taken_over=taken_over,
                turn_id=turn_id,
            )
        except Exception:
            HISTORY_TURNS_DROPPED.inc()
            log.exception("history: a turn of story %s could not be recorded", outcome.story_id)
            return None
        self._queue_turn(_Queued(stored, settings if settings.redact else None))
        return stored.id

    async def queued(self, story_id: str, session_id: str) -> list[StoredTurn]:
        """The session's turns not written yet, oldest first, as they will be written
        (redacted, in a thread, when their story redacts): the desk's transcript reads
        them beside those stored, so a turn of the last two seconds is not missing."""
        waiting = [
            queued
            for queued in self._queue
            if (queued.stored.turn.story_id, queued.stored.turn.session_id)
            == (story_id, session_id)
        ]
        return await asyncio.to_thread(_as_stored, waiting) if waiting else []

    def record(self, turn: StoredTurn) -> None:
        """Queue the turn as it is; never waits."""
        self._queue_turn(_Queued(turn))

    def _queue_turn(self, queued: _Queued) -> None:
        self._queue.append(queued)
        self._trim()
        self._drain.wake()

    def forget(self, story_id: str, session_id: str) -> int:
        """Drop the session's turns still queued (an erasure, docs/history.md), so none is
        written after it; how many were dropped. A batch already being written is not
        recalled: it lands within milliseconds, before or after the erasure's delete."""
        kept = [
            queued
            for queued in self._queue
            if (queued.stored.turn.story_id, queued.stored.turn.session_id)
            != (story_id, session_id)
        ]
        dropped = len(self._queue) - len(kept)
        self._queue.clear()
        self._queue.extend(kept)
        HISTORY_BACKLOG.set(len(self._queue))
        return dropped

    @property
    def backlog(self) -> int:
        return len(self._queue)

    async def idle(self) -> None:
        """Wait until every turn queued so far is stored (or dropped), without waiting for
        more turns to join the batch."""
        self._now.set()
        await self._drain.idle()

    async def close(self) -> None:
        """Give what is queued `FLUSH_SECONDS` to be stored."""
        try:
            async with asyncio.timeout(FLUSH_SECONDS):
                await self.idle()
        except TimeoutError:
            log.warning("history: %d turns not stored at shutdown", len(self._queue))
        await self._drain.close()

    async def _write_queued(self) -> None:
        while self._queue:
            if len(self._queue) < BATCH:
                await self._gather()
            queued = [self._queue.popleft() for _ in range(min(BATCH, len(self._queue)))]
            HISTORY_BACKLOG.set(len(self._queue))
            batch = await asyncio.to_thread(_as_stored, queued)
            try:
                await self._store.insert_many(batch)
            except Exception:
                HISTORY_WRITE_FAILURES.inc()
                log.exception("history: %d turns not stored; tried again", len(batch))
                self._queue.extendleft(_Queued(stored) for stored in reversed(batch))
                self._trim()
                await asyncio.sleep(self._retry_seconds)
                continue
            await self._tell([stored.turn for stored in batch])
        self._now.clear()

    async def _gather(self) -> None:
        """Let more turns join the batch, for `gather_seconds` or until asked to write."""
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(self._gather_seconds):
                await self._now.wait()

    async def _tell(self, turns: list[TurnRecord]) -> None:
        for listener in self._listeners:
            try:
                await listener.turns_written(turns)
            except Exception:
                log.exception("history: a listener failed on %d turns", len(turns))

    def _trim(self) -> None:
        while len(self._queue) > self._max_backlog:
            self._queue.popleft()
            HISTORY_TURNS_DROPPED.inc()
        HISTORY_BACKLOG.set(len(self._queue))


def redacted(stored: StoredTurn, settings: Settings) -> StoredTurn:
    """The turn with what the user and the bot said, and its parameters, redacted."""
    region = phone_region(settings.language)
    record = stored.turn
    return dataclasses.replace(
        stored,
        turn=dataclasses.replace(
            record,
            query=None if record.query is None else redact(record.query, region),
            parameters=redact_value(dict(record.parameters), region),
            fulfillment=redact(record.fulfillment, region),
        ),
    )


def turn_record(
    *,
    account_id: str,
    session_id: str,
    settings: Settings,
    turn: Turn,
    outcome: Outcome,
    webhook: str | None,
    started: float,
    at: datetime,
    developer: bool = False,
    channel: str | None = None,
    person: Person | None = None,
    given_back: bool = False,
    taken_over: bool = False,
    turn_id: str | None = None,
) -> StoredTurn:
    """The turn as the history keeps it, before `redacted` cleans it (when its story
    redacts); `started` is the `time.perf_counter()` at which the turn began, `webhook`
    None (no call), `ok` or `failed`."""
    parameters = dict(outcome.parameters)
    answered = outcome.interaction
    source = _text_or_none(parameters.get("default_source"))
    record = TurnRecord(
        account_id=account_id,
        story_id=outcome.story_id,
        session_id=session_id,
        at=at,
        outcome=outcome_kind(turn, outcome),
        query=turn.query,
        trigger=turn.trigger,
        goto=turn.goto,
        interaction=None
        if answered is None
        else AnsweredBy(answered.id, answered.name, answered.kind),
        score=outcome.score,
        threshold=outcome.threshold,
        candidates=outcome.top,
        parameters=parameters,
        contexts=tuple(c.name for c in outcome.contexts),
        fulfillment=fulfillment_summary(outcome.fulfillment),
        webhook=webhook,
        latency_ms=round((time.perf_counter() - started) * 1000, 3),
        default_source=source,
        default_language=_text_or_none(parameters.get("default_language")),
        language=outcome.language or None,
        answered_in=outcome.answered_in or None,
        vector=None if outcome.vector is None else tuple(outcome.vector.tolist()),
        vector_model=outcome.vector_model,
        truncated=turn.truncated,
        channel=channel,
        knowledge=knowledge_source(outcome),
        test=is_test_chat(developer=developer, default_source=source),
        generation=_generation(outcome),
        person=person,
        given_back=given_back,
        taken_over=taken_over,
    )
    expires_at = at + timedelta(days=settings.history_days)
    return StoredTurn(turn_id or new_object_id(), record, expires_at)


def _generation(outcome: Outcome) -> Generation | None:
    known = outcome.knowledge
    return None if known is None or known.answer is None else known.answer.generation


def _as_stored(queued: list[_Queued]) -> list[StoredTurn]:
    """The turns as they are written: each redacted when its story says so."""
    return [q.stored if q.redact_by is None else redacted(q.stored, q.redact_by) for q in queued]


def fulfillment_summary(items: Sequence[FulfillmentItem]) -> str:
    """What the bot said: its texts joined, other items by their type, cut short."""
    parts = [
        item.message if isinstance(item, Text) else f"[{type(item).__name__.lower()}]"
        for item in items
    ]
    summary = " | ".join(parts)
    return (
        summary if len(summary) <= SUMMARY_CHARACTERS else summary[: SUMMARY_CHARACTERS - 1] + "…"
    )


def _text_or_none(value: object) -> str | None:
    return value if isinstance(value, str) else None


def knowledge_source(outcome: Outcome) -> KnowledgeSource | None:
    known = outcome.knowledge
    if known is None or known.answer is None:
        return None
    answer = known.answer
    return KnowledgeSource(
        answer.citation.document_id, answer.citation.title, answer.passage_id, answer.score
    )
