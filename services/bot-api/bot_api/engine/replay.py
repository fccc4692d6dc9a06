"""Conversation tests replayed against a compiled story (docs/tests.md).

Each test starts from an empty session that nothing else sees and takes its turns
through `engine.conversation.respond`, exactly as /query would, minus webhooks (a test
checks the story, not a server it calls) and the session store. A text block's first
message is taken rather than a random one, so a run answers the same every time.

CPU work: call it from a worker thread.
"""

from collections.abc import Sequence
from datetime import datetime

from bot_api.domain.conversation_tests import (
    Answer,
    Difference,
    ScriptedTurn,
    StoredTest,
    TestResult,
    TestRun,
    first_difference,
    unspoken_turn,
)
from bot_api.domain.interactions import FALLBACK
from bot_api.domain.responses import Text
from bot_api.engine.conversation import respond
from bot_api.engine.semantic import Encoder
from bot_api.engine.story import CompiledStory
from bot_api.engine.turn import Outcome, SessionState, Turn


def first_message(messages: Sequence[str]) -> str:
    return messages[0]


def replay(
    story: CompiledStory,
    tests: Sequence[StoredTest],
    now: datetime,
    encoder: Encoder | None = None,
) -> TestRun:
    """Every test run in its own fresh session; each stops at its first failing turn.
    `now` is the time every turn says it arrived at (what "tomorrow" means)."""
    results = []
    turns = 0
    for stored in tests:
        state = SessionState()
        result = TestResult(stored.id, stored.test.name, passed=True)
        for index, scripted in enumerate(stored.test.turns):
            turns += 1
            difference = _lost_input(story, scripted)
            if difference is None:
                state, outcome = respond(
                    story, state, _turn(scripted, now), choose=first_message, encoder=encoder
                )
                state = state.with_parameters(outcome.parameters)
                answer = answer_of(outcome, story.settings.default_code)
                difference = first_difference(scripted.expect, answer)
            if difference is not None:
                result = TestResult(stored.id, stored.test.name, False, index, difference)
                break
        results.append(result)
    return TestRun(tuple(results), turns, now)


def _lost_input(story: CompiledStory, scripted: ScriptedTurn) -> Difference | None:
    """A turn sending a trigger no interaction has any more, or said in a language the
    story no longer speaks (an edit removed it), fails there, so the run after that edit
    says so (where /query would answer 400, or read it in the default language)."""
    if scripted.trigger is not None and scripted.trigger.lower() not in story.triggers:
        return Difference("trigger", scripted.trigger, None)
    return unspoken_turn(scripted, story.settings.spoken())


def _turn(scripted: ScriptedTurn, now: datetime) -> Turn:
    return Turn(
        query=scripted.query,
        trigger=scripted.trigger,
        parameters=scripted.sent_parameters(),
        now=now,
    )


def answer_of(outcome: Outcome, default_code: str) -> Answer:
    """`default_code`: the story's default language, which a story of one language
    answers in without saying so."""
    interaction = outcome.interaction
    return Answer(
        interaction=None if interaction is None else interaction.name,
        fallback=interaction is None or interaction.kind == FALLBACK,
        parameters=outcome.parameters,
        incomplete=outcome.incomplete,
        contexts=tuple(context.name for context in outcome.contexts),
        text="\n".join(item.message for item in outcome.fulfillment if isinstance(item, Text)),
        answered_in=outcome.answered_in or default_code,
    )
