"""One /query turn: the compiled story, the session read, the engine's turn, the webhook
if the matched interaction has one, the session saved. While a person has the
conversation (engine/handoff.py) the engine does not run: the session is saved and the
user's message delivered to the handoff connection. A turn asked again under its key is
answered from the session (query/repeats.py)."""

import asyncio
import functools
import os
import random
import time
from concurrent.futures import Executor, ThreadPoolExecutor
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from bot_api.changes import ChangeFeed, DeskLinesAdded
from bot_api.domain.desk import entries_of
from bot_api.domain.history import TurnRecord
from bot_api.engine.conversation import respond
from bot_api.engine.handoff import after_answer, kept_for, open_handoff, silent_turn
from bot_api.engine.semantic import Encoders
from bot_api.engine.story import CompiledStory
from bot_api.engine.turn import Outcome, SessionState, Turn, outcome_kind
from bot_api.history.recorder import TurnRecorder, fulfillment_summary
from bot_api.knowledge.cache import KnowledgeCache, asks_documents
from bot_api.knowledge.completions import ChatCompletions
from bot_api.knowledge.generation import generated_outcome
from bot_api.metrics import TURNS_ANSWERED_AGAIN, record_query
from bot_api.query.answer_body import query_body
from bot_api.query.repeats import TurnKey
from bot_api.query.repository import SessionStore, over_bounds
from bot_api.query.webhooks.delivery import Answers, Deliveries
from bot_api.story_cache.cache import StoryCache
from shared.errors import Conflict, ValidationFailed
from shared.ids import new_object_id

MAX_SAVE_ATTEMPTS = 100


def turn_threads() -> ThreadPoolExecutor:
    """The threads that run turns a sentence encoder reads, one per core this process
    may use. Encoding holds one core and leaves the interpreter free, the rest of a turn
    holds the interpreter: more threads only wait for it. Under wrk (16 connections, 2
    cores, bench/semantic_load.py), one per core kept 62 % of the lexical throughput,
    asyncio's default pool of 6 threads 56 %, a single thread 54 %."""
    usable = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else None
    cores = len(usable) if usable else os.cpu_count() or 1
    return ThreadPoolExecutor(cores, thread_name_prefix="turn")


@dataclass(frozen=True)
class ConversationService:
    stories: StoryCache
    sessions: SessionStore
    deliveries: Deliveries
    idle_timeout: timedelta
    handoff_idle: timedelta
    """A handoff without a message for this long is given back (`HANDOFF_IDLE_SECONDS`)."""
    turns: Executor
    """Where the turns an encoder reads run (`turn_threads`)."""
    encoders: Encoders | None = None
    """The semantic stage's encoders: a turn of a story one of them reads runs in one of
    the `turns` threads, since encoding a message takes milliseconds of CPU."""

    recorder: TurnRecorder | None = None
    """Where each answered turn goes when its story keeps a history."""

    knowledge: KnowledgeCache | None = None
    """The story's documents, which answer a turn no interaction answered."""

    llm: ChatCompletions | None = None
    """The deployment's LLM, which writes the knowledge answers of the stories asking
    for it (`generateKnowledgeAnswers`)."""

    changes: ChangeFeed | None = None
    """Where a turn of a handed-over conversation is announced, for the agent desk
    (`DeskLinesAdded`)."""

    async def answer(
        self,
        *,
        account_id: str,
        story_id: str | None,
        session_id: str,
        turn: Turn,
        published: bool = False,
        channel: str | None = None,
        key: TurnKey | None = None,
    ) -> dict[str, Any]:
        """/query's answer to the turn; on a concurrent save of the same session, the turn
        is taken again from what that save left (optimistic concurrency). `published`: the
        story's published version answers, if it has one (the public key's /query and
        channels; else the developer token's); `channel`: the id of the channel that
        carried the turn, for the history; `key`: the turn's, when it may be asked again
        (query/repeats.py)."""
        started = time.perf_counter()
        story = await self.stories.story(account_id, story_id, published, hurried=True)
        answers: Answers = {}
        for attempt in range(MAX_SAVE_ATTEMPTS):
            stored = await self.sessions.load(story.id, session_id)
            answered = None if key is None else key.answered(stored.replies)
            if answered is not None:
                TURNS_ANSWERED_AGAIN.inc()
                return answered
            handoff = open_handoff(stored.state, turn.now, self.handoff_idle)
            if handoff is None:
                state, outcome = await self._respond(story, stored.state, turn)
                if self.knowledge is not None and asks_documents(turn, outcome):
                    version = (
                        await self.stories.published_version(account_id, story.id)
                        if published
                        else None
                    )
                    outcome = await self.knowledge.answered(
                        account_id, story, turn, outcome, version
                    )
                    if self.llm is not None:
                        outcome = await generated_outcome(
                            self.llm, self.knowledge, account_id, story, turn, outcome, version
                        )
                outcome = await self.deliveries.deliver(
                    account_id=account_id,
                    session_id=session_id,
                    turn=turn,
                    outcome=outcome,
                    answers=answers,
                    key=key,
                )
                state = state.with_parameters(outcome.parameters)
                state, outcome = after_answer(state, outcome, turn)
            else:
                state, outcome = silent_turn(story, stored.state, turn, handoff)
            refusal = over_bounds(state)
            if refusal is not None:
                raise ValidationFailed.at(("parameters",), refusal)
            body = query_body(session_id, turn, outcome)
            replies = stored.replies if key is None else key.remembered(stored.replies, body)
            if await self.sessions.save(
                story.id,
                session_id,
                stored.version,
                state,
                kept_for(state, self.idle_timeout, self.handoff_idle),
                replies,
            ):
                turn_id = new_object_id()
                if outcome.handoff is not None and self.changes is not None:
                    lines = DeskLines(account_id, story.id, session_id, turn_id)
                    await self.changes.announce(lines.of(turn, outcome, opened=handoff is None))
                if handoff is not None:
                    await self.deliveries.hand_over(
                        account_id=account_id,
                        session_id=session_id,
                        turn=turn,
                        outcome=outcome,
                        handoff=handoff,
                    )
                record_query(turn, outcome)
                if self.recorder is not None:
                    self.recorder.answered(
                        account_id=account_id,
                        session_id=session_id,
                        settings=story.settings,
                        turn=turn,
                        outcome=outcome,
                        webhook=webhook_outcome(outcome, answers),
                        started=started,
                        developer=not published,
                        channel=channel,
                        turn_id=turn_id,
                    )
                return body
            await asyncio.sleep(random.uniform(0, 0.002 * min(attempt + 1, 10)))
        raise Conflict("the session is being changed by too many messages at once; try again")

    async def _respond(
        self, story: CompiledStory, state: SessionState, turn: Turn
    ) -> tuple[SessionState, Outcome]:
        encoder = None if self.encoders is None else self.encoders.for_story(story.settings)
        if encoder is None:
            return respond(story, state, turn)
        return await asyncio.get_running_loop().run_in_executor(
            self.turns, functools.partial(respond, story, state, turn, encoder=encoder)
        )


@dataclass(frozen=True)
class DeskLines:
    """The transcript lines of a turn of a handed-over conversation (the one that handed
    it over included), under the id its record has in the history."""

    account_id: str
    story_id: str
    session_id: str
    turn_id: str

    def of(self, turn: Turn, outcome: Outcome, *, opened: bool) -> DeskLinesAdded:
        """The turn's lines: the user's message, and the answer that handed over;
        `opened`: this turn handed the conversation over."""
        record = TurnRecord(
            account_id=self.account_id,
            story_id=self.story_id,
            session_id=self.session_id,
            at=turn.now,
            outcome=outcome_kind(turn, outcome),
            query=turn.query,
            trigger=turn.trigger,
            goto=turn.goto,
            fulfillment=fulfillment_summary(outcome.fulfillment),
        )
        lines = tuple(entries_of(self.turn_id, record))
        return DeskLinesAdded(
            self.account_id, self.story_id, self.session_id, lines, list_changed=opened
        )


def webhook_outcome(outcome: Outcome, answers: Answers) -> str | None:
    """None when the answering interaction called no webhook, else `ok` or `failed`."""
    interaction = outcome.interaction
    if interaction is None or interaction.id not in answers:
        return None
    return "failed" if answers[interaction.id] is None else "ok"
