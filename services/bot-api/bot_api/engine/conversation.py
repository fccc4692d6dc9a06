"""One turn of a conversation: a message, a trigger or a goto in; the bot's answer out.

DESIGN.md "Contexts, tree, order": after an interaction X matches, what may follow X
(its contextOut) becomes an active context with the story's lifespan. Eligible are the
root interactions and what follows any active context; on equal scores, what follows
the newest context wins, then what follows older ones, then roots in story order. A
turn that matches nothing following an active context spends one unit of that
context's lifespan; at zero it is gone, and with none left the conversation is back at
the root level.

Slot filling: a matched interaction whose required parameters (those with prompts)
are still empty asks for the first of them, and reads it from the next messages; after
`lifespan` failed answers the conversation resets to the root level and the message is
matched as any other.
"""

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from bot_api.domain.interactions import STANDARD, is_required
from bot_api.engine.entities import Mention
from bot_api.engine.matching import Scored, slot_word
from bot_api.engine.rendering import Choose, render, text_item
from bot_api.engine.story import StoryModel
from bot_api.engine.text import tokens
from shared.errors import NotFound, ValidationFailed

MAX_ACTIVE_CONTEXTS = 5
DEBUG_CANDIDATES = 5
TIERS = ("current context", "earlier context", "root")
ROOT_TIER = 2


@dataclass(frozen=True)
class ActiveContext:
    id: str
    lifespan: int


@dataclass(frozen=True)
class Pending:
    """A required parameter being asked for."""

    interaction_id: str
    alias: str
    failures: int = 0


@dataclass(frozen=True)
class SessionState:
    contexts: tuple[ActiveContext, ...] = ()
    parameters: Mapping[str, Any] = field(default_factory=dict)
    pending: Pending | None = None

    def to_document(self) -> dict[str, Any]:
        return {
            "contexts": [{"id": c.id, "lifespan": c.lifespan} for c in self.contexts],
            "parameters": dict(self.parameters),
            "pending": None
            if self.pending is None
            else {
                "interactionId": self.pending.interaction_id,
                "alias": self.pending.alias,
                "failures": self.pending.failures,
            },
        }

    @classmethod
    def from_document(cls, document: Mapping[str, Any]) -> "SessionState":
        pending = document.get("pending")
        return cls(
            contexts=tuple(ActiveContext(c["id"], c["lifespan"]) for c in document["contexts"]),
            parameters=dict(document["parameters"]),
            pending=None
            if pending is None
            else Pending(pending["interactionId"], pending["alias"], pending["failures"]),
        )


@dataclass(frozen=True)
class Turn:
    """What the client asked, as validated: exactly one of query, trigger and goto."""

    query: str | None = None
    trigger: str | None = None
    goto: str | None = None
    parameters: Mapping[str, Any] = field(default_factory=dict)
    confidence: float | None = None
    lifespan: int | None = None
    reset: bool = False
    debug: bool = False


@dataclass
class _Answer:
    interaction_id: str | None
    score: float
    fulfillment: list[dict[str, Any]]
    incomplete: bool = False
    debug: dict[str, Any] | None = None


def respond(
    story: StoryModel, state: SessionState, turn: Turn, choose: Choose = random.choice
) -> tuple[SessionState, dict[str, Any]]:
    """The new session state and the query result (SPEC.md "Query result")."""
    return _Conversation(story, state, turn, choose).run()


class _Conversation:
    def __init__(self, story: StoryModel, state: SessionState, turn: Turn, choose: Choose):
        self.story = story
        self.turn = turn
        self.choose = choose
        self.threshold = story.settings.confidence if turn.confidence is None else turn.confidence
        self.lifespan = story.settings.lifespan if turn.lifespan is None else turn.lifespan
        start = SessionState() if turn.reset else state
        self.contexts = [c for c in start.contexts if c.id in story.interactions]
        self.parameters = {**start.parameters, **turn.parameters}
        pending = start.pending
        self.pending = pending if pending and pending.interaction_id in story.interactions else None

    def run(self) -> tuple[SessionState, dict[str, Any]]:
        if self.turn.trigger is not None:
            answer = self._enter(self._triggered(self.turn.trigger), 1.0, [], None)
        elif self.turn.goto is not None:
            if self.turn.goto not in self.story.interactions:
                raise NotFound(f"goto: no interaction {self.turn.goto} in this story")
            answer = self._enter(self.turn.goto, 1.0, [], None)
        else:
            answer = self._said(self.turn.query or "")
        state = SessionState(tuple(self.contexts), self.parameters, self.pending)
        return state, self._result(answer)

    def _triggered(self, trigger: str) -> str:
        interaction_id = self.story.triggers.get(trigger.lower())
        if interaction_id is None:
            raise ValidationFailed.at(("trigger",), f"no interaction has the trigger {trigger!r}")
        return interaction_id

    def _said(self, text: str) -> _Answer:
        words = tokens(text)
        mentions = self.story.entities.find(words, self.story.index.known_words())
        if self.pending is not None:
            answered = self._answer_pending(self.pending, mentions)
            if answered is not None:
                return answered
        variants = [words]
        if mentions:
            variants.insert(0, _with_slot_words(words, mentions))
        following = self._following()
        roots = self.story.structure.contexts

        def tier(interaction_id: str) -> int:
            return following.get(interaction_id, ROOT_TIER)

        def eligible(interaction_id: str) -> bool:
            if interaction_id in following:
                return True
            context = roots.get(interaction_id)
            return context is not None and context.root

        ranked = self.story.index.search(variants, eligible, every_candidate=self.turn.debug)
        positions = self.story.positions
        ranked.sort(
            key=lambda s: (
                -round(s.score, 6),
                tier(s.interaction_id),
                positions.get(s.interaction_id, 0),
            )
        )
        debug = self._debug(words, mentions, ranked, tier) if self.turn.debug else None
        if ranked and ranked[0].score >= self.threshold:
            best = ranked[0]
            return self._enter(best.interaction_id, best.score, mentions, best, debug)
        self._spend_lifespan(hit=None)
        score = ranked[0].score if ranked else 0.0
        if debug is not None:
            debug["decision"] = (
                f"best score {score:.3f} is below the confidence {self.threshold}: fallback"
            )
        if not self.story.settings.fallback:
            return _Answer(None, score, [], debug=debug)
        fallback = self.story.interactions[self.story.fallback_id]
        return _Answer(
            self.story.fallback_id,
            score,
            render(fallback["responses"], self.parameters, self.choose),
            debug=debug,
        )

    def _following(self) -> dict[str, int]:
        """What may follow an active context, with its tier: 0 after the newest context,
        1 after an older one."""
        tiers: dict[str, int] = {}
        for position, active in enumerate(self.contexts):
            context = self.story.structure.contexts.get(active.id)
            for child in context.context_out if context else ():
                if child in self.story.interactions:
                    tiers[child] = min(tiers.get(child, ROOT_TIER), 0 if position == 0 else 1)
        return tiers

    def _answer_pending(self, pending: Pending, mentions: Sequence[Mention]) -> _Answer | None:
        interaction = self.story.interactions[pending.interaction_id]
        entity = next(p["entity"] for p in interaction["parameters"] if p["alias"] == pending.alias)
        value = next((m.value for m in mentions if m.entity == entity), None)
        if value is not None:
            self.parameters[pending.alias] = value
            self.pending = None
            return self._complete_or_ask(pending.interaction_id, 1.0, None)
        failures = pending.failures + 1
        if failures >= self.lifespan:
            self.pending = None
            self.contexts = []
            return None
        self.pending = replace(pending, failures=failures)
        return self._ask(pending.interaction_id, self.pending, None)

    def _enter(
        self,
        interaction_id: str,
        score: float,
        mentions: Sequence[Mention],
        scored: Scored | None,
        debug: dict[str, Any] | None = None,
    ) -> _Answer:
        self.pending = None
        interaction = self.story.interactions[interaction_id]
        self.parameters.update(_values_for(interaction, mentions, scored))
        if debug is not None and scored is not None:
            debug["decision"] = _why(scored, debug)
        return self._complete_or_ask(interaction_id, score, debug)

    def _complete_or_ask(
        self, interaction_id: str, score: float, debug: dict[str, Any] | None
    ) -> _Answer:
        interaction = self.story.interactions[interaction_id]
        missing = next(
            (
                p
                for p in interaction["parameters"]
                if is_required(p) and self.parameters.get(p["alias"]) in (None, "")
            ),
            None,
        )
        if missing is not None:
            self.pending = Pending(interaction_id, missing["alias"])
            answer = self._ask(interaction_id, self.pending, debug)
            answer.score = score
            return answer
        self._spend_lifespan(hit=interaction_id)
        fulfillment = render(interaction["responses"], self.parameters, self.choose)
        return _Answer(interaction_id, score, fulfillment, debug=debug)

    def _ask(self, interaction_id: str, pending: Pending, debug: dict[str, Any] | None) -> _Answer:
        interaction = self.story.interactions[interaction_id]
        prompts = next(
            p["prompts"] for p in interaction["parameters"] if p["alias"] == pending.alias
        )
        prompt = prompts[pending.failures % len(prompts)]
        return _Answer(interaction_id, 1.0, [text_item(prompt)], incomplete=True, debug=debug)

    def _spend_lifespan(self, hit: str | None) -> None:
        """A matched interaction becomes the newest context; contexts it did not follow
        from spend one unit of lifespan."""
        kept: list[ActiveContext] = []
        for active in self.contexts:
            context = self.story.structure.contexts.get(active.id)
            followed = hit is not None and context is not None and hit in context.context_out
            remaining = active.lifespan if followed else active.lifespan - 1
            if remaining > 0 and active.id != hit:
                kept.append(replace(active, lifespan=remaining))
        context = self.story.structure.contexts.get(hit) if hit else None
        if hit is not None and context is not None and context.context_out:
            kept.insert(0, ActiveContext(hit, self.lifespan))
        self.contexts = kept[:MAX_ACTIVE_CONTEXTS]

    def _debug(
        self,
        words: Sequence[str],
        mentions: Sequence[Mention],
        ranked: Sequence[Scored],
        tier: Callable[[str], int],
    ) -> dict[str, Any]:
        return {
            "words": list(words),
            "entities": [{"entity": m.entity, "value": m.value, "text": m.text} for m in mentions],
            "confidence": self.threshold,
            "candidates": [
                {
                    "id": s.interaction_id,
                    "name": self.story.interactions[s.interaction_id]["name"],
                    "score": round(s.score, 4),
                    "centroid": round(s.centroid, 4),
                    "closestPhrase": round(s.closest, 4),
                    "phrase": s.phrase.source,
                    "tier": TIERS[tier(s.interaction_id)],
                }
                for s in ranked[:DEBUG_CANDIDATES]
            ],
        }

    def _result(self, answer: _Answer) -> dict[str, Any]:
        interaction = (
            None
            if answer.interaction_id is None
            else self.story.interactions[answer.interaction_id]
        )
        if self.pending is not None:
            lifespan = self.lifespan - self.pending.failures
        else:
            lifespan = self.contexts[0].lifespan if self.contexts else 0
        result: dict[str, Any] = {
            "source": "agent",
            "resolvedQuery": self.turn.query or "",
            "trigger": self.turn.trigger or "",
            "confidence": self.threshold,
            "score": round(answer.score, 4),
            "lifespan": lifespan,
            "incomplete": answer.incomplete,
            "storyId": self.story.id,
            "interaction": None
            if interaction is None
            else {
                "id": answer.interaction_id,
                "name": interaction["name"],
                "action": interaction["action"],
                "type": interaction.get("type", STANDARD),
            },
            "parameters": dict(self.parameters),
            "contexts": [
                {
                    "id": c.id,
                    "name": self.story.interactions[c.id]["name"],
                    "lifespan": c.lifespan,
                }
                for c in self.contexts
            ],
            "fulfillment": answer.fulfillment,
        }
        if answer.debug is not None:
            result["debug"] = answer.debug
        return result


def _with_slot_words(words: Sequence[str], mentions: Sequence[Mention]) -> list[str]:
    result: list[str] = []
    position = 0
    for mention in mentions:
        result.extend(words[position : mention.start])
        result.append(slot_word(mention.entity))
        position = mention.end
    result.extend(words[position:])
    return result


def _values_for(
    interaction: Mapping[str, Any], mentions: Sequence[Mention], scored: Scored | None
) -> dict[str, Any]:
    """Parameter values said in the message: the matched phrase's slots in order, then
    any other parameter of the interaction whose entity was mentioned."""
    unused = list(mentions)
    values: dict[str, Any] = {}

    def take(alias: str, entity: str) -> None:
        mention = next((m for m in unused if m.entity == entity), None)
        if mention is not None and alias not in values:
            values[alias] = mention.value
            unused.remove(mention)

    for entity, alias in scored.phrase.slots if scored else ():
        take(alias, entity)
    for parameter in interaction["parameters"]:
        take(parameter["alias"], parameter["entity"])
    return values


def _why(winner: Scored, debug: Mapping[str, Any]) -> str:
    candidates = debug["candidates"]
    reason = f"best score {winner.score:.3f} (closest phrase {winner.phrase.source!r})"
    if len(candidates) > 1 and candidates[1]["score"] == round(winner.score, 4):
        reason += f"; tied with {candidates[1]['name']!r}, preferred as {candidates[0]['tier']}"
    return reason
