"""One turn of a conversation: a message, a trigger or a goto in; the bot's answer out.

Contexts (docs/query.md): which interactions an active context makes eligible, and how
a turn spends their lifespan, is engine/contexts.py; on equal scores, what follows the
newest context wins, then what follows older ones, then roots in story order.

Slot filling: a matched interaction whose required parameters (those with prompts)
are still empty asks for the first of them, and reads it from the next messages (any
other empty parameter of it the message names is filled too); a message that matches
it again goes on with it rather than restarting it, so nothing it collected is lost.
After `lifespan` failed answers the conversation resets to the root level and the
message is matched as any other.
"""

import random
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from bot_api.domain.entities import ANY
from bot_api.domain.errors import Invalid, Unknown
from bot_api.domain.history import ScoredCandidate
from bot_api.domain.interactions import Interaction
from bot_api.domain.responses import FulfillmentItem
from bot_api.domain.settings import language_named
from bot_api.engine.builtin_entities import MAX_WORDS, free_text
from bot_api.engine.contexts import ROOT_TIER, follow_up, following_contexts, spent
from bot_api.engine.entities import Mention
from bot_api.engine.explanations import debug_candidates, decision_reason, top_candidates
from bot_api.engine.fulfillment import Choose, asked, fallback_texts, fulfillment
from bot_api.engine.ranking import rank
from bot_api.engine.scoring import SCORING, Scored, Scoring
from bot_api.engine.semantic import Encoder, Vectors
from bot_api.engine.slots import values_for, values_for_pending, with_slot_words
from bot_api.engine.story import CompiledStory
from bot_api.engine.turn import (
    Candidate,
    Debug,
    Outcome,
    OutcomeContext,
    Pending,
    SessionState,
    Turn,
    in_zone,
)
from bot_api.engine.turn_language import answered_in, turn_language

MAX_WORDS_CONSIDERED = MAX_WORDS


@dataclass
class _Answer:
    interaction_id: str | None
    score: float
    fulfillment: list[FulfillmentItem]
    incomplete: bool = False
    debug: Debug | None = None


def respond(
    story: CompiledStory,
    state: SessionState,
    turn: Turn,
    choose: Choose = random.choice,
    encoder: Encoder | None = None,
    scoring: Scoring = SCORING,
) -> tuple[SessionState, Outcome]:
    """The new session state and what the turn answered. With an `encoder` (it may take
    milliseconds: call from a worker thread), the story's semantic stage is used;
    `scoring` is tried in bench/tuning.py, every story answers with the default."""
    return _Conversation(story, state, turn, choose, encoder, scoring).run()


class _Conversation:
    def __init__(
        self,
        story: CompiledStory,
        state: SessionState,
        turn: Turn,
        choose: Choose,
        encoder: Encoder | None,
        scoring: Scoring,
    ):
        self.story = story
        self.scoring = scoring
        covered = encoder is not None and story.settings.language in encoder.languages
        self.encoder = encoder if covered else None
        self.cross_lingual = self.encoder is not None and self.encoder.cross_lingual
        self.turn = turn
        self.choose = choose
        self.threshold = story.settings.confidence if turn.confidence is None else turn.confidence
        self.lifespan = story.settings.lifespan if turn.lifespan is None else turn.lifespan
        start = SessionState() if turn.reset else state
        self.contexts = [c for c in start.contexts if c.id in story.interactions]
        self.parameters = {**start.parameters, **turn.parameters}
        language = turn_language(
            story.settings,
            start.parameters,
            turn,
            encoded=self.encoder is not None,
            cross_lingual=self.cross_lingual,
        )
        self.written, self.language = language.written, language.language
        if language.noted is not None:
            self.parameters["default_language"] = language.noted
        if language.by_meaning_alone:
            self.scoring = replace(self.scoring, lexical_share=0.0)
        self.variant = story.variants.get(self.language)
        self.index = story.index if self.variant is None else self.variant.index
        self.collected_by = {
            alias: interaction_id
            for alias, interaction_id in start.collected_by.items()
            if alias not in turn.parameters
        }
        self.top: tuple[ScoredCandidate, ...] = ()
        self.vector: Vectors | None = None
        pending = start.pending
        self.pending = pending if pending and pending.interaction_id in story.interactions else None

    def _in_language(self) -> bool:
        """Whether the message is surely written in the language it is read in, by a
        cross-lingual encoder: a sure lexical match then stays the answer."""
        return self.cross_lingual and self.written == self.language

    def run(self) -> tuple[SessionState, Outcome]:
        if self.turn.trigger is not None:
            answer = self._enter(self._triggered(self.turn.trigger), 1.0, [], None)
        elif self.turn.goto is not None:
            if self.turn.goto not in self.story.interactions:
                raise Unknown(f"goto: no interaction {self.turn.goto} in this story")
            answer = self._enter(self.turn.goto, 1.0, [], None)
        else:
            answer = self._said(self.turn.query or "")
        state = SessionState(tuple(self.contexts), self.parameters, self.pending, self.collected_by)
        return state, self._outcome(answer)

    def _triggered(self, trigger: str) -> str:
        interaction_id = self.story.triggers.get(trigger.lower())
        if interaction_id is None:
            raise Invalid.at(("trigger",), f"no interaction has the trigger {trigger!r}")
        return interaction_id

    def _said(self, text: str) -> _Answer:
        words = self.index.analyser.words(text)[:MAX_WORDS_CONSIDERED]
        entities = self.story.entities if self.variant is None else self.variant.entities
        mentions = [
            *entities.find(words, self.index.known_words()),
            *self._builtin_mentions(text, words),
        ]
        if self.pending is not None:
            answered = self._answer_pending(self.pending, words, mentions)
            if answered is not None:
                return answered
        ranked, candidates = self._ranked(words, mentions)
        if ranked and ranked[0].score >= self.threshold:
            best = ranked[0]
            why = decision_reason(best, candidates)
            answering = follow_up(self.story, self.contexts, best.interaction_id)
            if answering != best.interaction_id:
                name = self.story.interactions[answering].name
                why += f"; answered by its follow-up {name!r} in the active context"
            debug = self._debug(words, mentions, candidates, why)
            return self._enter(answering, best.score, mentions, best, debug)
        self.contexts = spent(self.story, self.contexts, None, self.lifespan)
        score = ranked[0].score if ranked else 0.0
        debug = self._debug(
            words,
            mentions,
            candidates,
            f"best score {score:.3f} is below the confidence {self.threshold}: fallback",
        )
        if not self.story.settings.fallback:
            return _Answer(None, score, [], debug=debug)
        fallback = self.story.interactions[self.story.fallback_id]
        return _Answer(
            self.story.fallback_id,
            score,
            fulfillment(fallback.responses_in(self.language), self.parameters, self.choose),
            debug=debug,
        )

    def _builtin_mentions(self, text: str, words: Sequence[str]) -> list[Mention]:
        """Built-in values said (none when the story uses no built-in entity), and the
        whole message for a `sys.any` parameter being asked for."""
        builtin = self.story.builtin if self.variant is None else self.variant.builtin
        mentions = builtin.find(text, self._now()) if builtin.used else []
        pending = self.pending
        if pending is not None:
            asked = self.story.interactions[pending.interaction_id].parameter(pending.alias)
            if asked.entity == ANY and text.strip():
                mentions.append(free_text(text, len(words)))
        return mentions

    def _now(self) -> datetime:
        """The turn's moment in the conversation's `default_timezone`, or else the
        story's timezone (a name that is no IANA timezone is not one)."""
        zones = (self.parameters.get("default_timezone"), self.story.settings.timezone)
        return in_zone(self.turn.now, *zones)

    def _ranked(
        self, words: Sequence[str], mentions: Sequence[Mention]
    ) -> tuple[list[Scored], tuple[Candidate, ...]]:
        """The eligible interactions scored against the message, best first, and the
        candidates `debug` shows."""
        variants = [*with_slot_words(words, mentions), list(words)]
        following = following_contexts(self.story, self.contexts)
        roots = self.story.structure.contexts

        def tier(interaction_id: str) -> int:
            return following.get(interaction_id, ROOT_TIER)

        def eligible(interaction_id: str) -> bool:
            if interaction_id in following:
                return True
            context = roots.get(interaction_id)
            return context is not None and context.root

        ranked, self.vector = rank(
            self.index,
            self.story.semantic,
            self.encoder,
            variants,
            eligible,
            every_candidate=self.turn.debug,
            scoring=self.scoring,
            query=self.vector,
            in_language=self._in_language(),
        )
        positions = self.story.positions
        ranked.sort(
            key=lambda s: (
                -round(s.score, 6),
                tier(s.interaction_id),
                positions.get(s.interaction_id, 0),
            )
        )
        self.top = top_candidates(self.story, ranked)
        return ranked, debug_candidates(self.story, ranked, tier) if self.turn.debug else ()

    def _answer_pending(
        self, pending: Pending, words: Sequence[str], mentions: Sequence[Mention]
    ) -> _Answer | None:
        """The interaction asking for a parameter goes on while the message is about it:
        every empty parameter of it the message names is filled (the one asked for
        first), and a message that matches it again asks again without restarting it.
        Anything else is a failed answer; after `lifespan` of them: None, the
        conversation is back at the root level and the message is matched anew. None
        too for a message said exactly as another interaction's phrase (what a button click
        sends, a reply of the prompt's own included) when it fills no parameter, or when
        free text is asked: it is matched anew, the prompt left."""
        interaction = self.story.interactions[pending.interaction_id]
        values = values_for_pending(interaction, pending.alias, self.parameters, mentions)
        free_text = interaction.parameter(pending.alias).entity == ANY
        if (free_text or not values) and self._said_elsewhere(
            words, mentions, pending.interaction_id
        ):
            self.pending = None
            return None
        if values:
            self._collect(pending.interaction_id, values)
            self.pending = None
            return self._complete_or_ask(pending.interaction_id, 1.0, None)
        ranked, candidates = self._ranked(words, mentions)
        if ranked and ranked[0].score >= self.threshold:
            best = ranked[0]
            if best.interaction_id == pending.interaction_id:
                why = decision_reason(best, candidates)
                asking = f"{why}: the interaction asking for {pending.alias!r} goes on"
                debug = self._debug(words, mentions, candidates, asking)
                answer = self._ask(pending.interaction_id, pending, debug)
                answer.score = best.score
                return answer
        failures = pending.failures + 1
        if failures >= self.lifespan:
            self.pending = None
            self.contexts = []
            return None
        self.pending = replace(pending, failures=failures)
        return self._ask(pending.interaction_id, self.pending, None)

    def _said_elsewhere(
        self, words: Sequence[str], mentions: Sequence[Mention], asking: str
    ) -> bool:
        """A message that is exactly a phrase of another interaction (what a quick reply
        or a postback button sends) answers as that interaction, even while a free-text
        (`sys.any`) parameter, which any message would fill, is asked for."""
        ranked, _ = self._ranked(words, mentions)
        return bool(ranked) and ranked[0].score >= 1.0 and ranked[0].interaction_id != asking

    def _enter(
        self,
        interaction_id: str,
        score: float,
        mentions: Sequence[Mention],
        scored: Scored | None,
        debug: Debug | None = None,
    ) -> _Answer:
        self.pending = None
        interaction = self.story.interactions[interaction_id]
        self._forget_own_required(interaction)
        self._collect(interaction_id, values_for(interaction, mentions, scored))
        return self._complete_or_ask(interaction_id, score, debug)

    def _forget_own_required(self, interaction: Interaction) -> None:
        """Matched afresh, an interaction asks again for what it collected itself last
        time (a second order gets its own size); what a parent collected, or the client
        or a webhook supplied, stays."""
        for parameter in interaction.parameters:
            if parameter.required and self.collected_by.get(parameter.alias) == interaction.id:
                del self.collected_by[parameter.alias]
                self.parameters.pop(parameter.alias, None)

    def _collect(self, interaction_id: str, values: dict[str, Any]) -> None:
        self.parameters.update(values)
        self.collected_by.update(dict.fromkeys(values, interaction_id))

    def _complete_or_ask(self, interaction_id: str, score: float, debug: Debug | None) -> _Answer:
        interaction = self.story.interactions[interaction_id]
        missing = next(
            (
                p
                for p in interaction.parameters
                if p.required and self.parameters.get(p.alias) in (None, "")
            ),
            None,
        )
        if missing is not None:
            self.pending = Pending(interaction_id, missing.alias)
            answer = self._ask(interaction_id, self.pending, debug)
            answer.score = score
            return answer
        self.contexts = spent(self.story, self.contexts, interaction_id, self.lifespan)
        items = fulfillment(interaction.responses_in(self.language), self.parameters, self.choose)
        return _Answer(interaction_id, score, items, debug=debug)

    def _ask(self, interaction_id: str, pending: Pending, debug: Debug | None) -> _Answer:
        interaction = self.story.interactions[interaction_id]
        parameter = interaction.parameter(pending.alias)
        prompts = interaction.prompts_in(pending.alias, self.language)
        prompt = prompts[pending.failures % len(prompts)]
        items = asked(prompt, parameter.prompt_replies, self.parameters)
        return _Answer(interaction_id, 1.0, items, incomplete=True, debug=debug)

    def _debug(
        self,
        words: Sequence[str],
        mentions: Sequence[Mention],
        candidates: tuple[Candidate, ...],
        decision: str,
    ) -> Debug | None:
        if not self.turn.debug:
            return None
        return Debug(tuple(words), tuple(mentions), self.threshold, candidates, decision)

    def _outcome(self, answer: _Answer) -> Outcome:
        if self.pending is not None:
            lifespan = self.lifespan - self.pending.failures
        else:
            lifespan = self.contexts[0].lifespan if self.contexts else 0
        interactions = self.story.interactions
        matched = answer.interaction_id
        encoded_by = self.encoder.model_id if self.encoder and self.vector is not None else None
        said: tuple[FulfillmentItem, ...] = tuple(answer.fulfillment)
        silence: tuple[FulfillmentItem, ...] = ()
        if matched is not None and not said:
            fallback = interactions[self.story.fallback_id]
            language = language_named(self.language) or self.story.settings.language
            responses = fallback.responses_in(self.language)
            fallback_text = tuple(fallback_texts(responses, language, self.parameters, self.choose))
            defer = bool(interactions[matched].webhook) and not answer.incomplete
            said, silence = ((), fallback_text) if defer else (fallback_text, ())
        several = self.story.settings.multilingual
        answered = answered_in(
            self.story.settings,
            None if matched is None else interactions[matched],
            self.language,
            answer.incomplete,
        )
        return Outcome(
            story_id=self.story.id,
            interaction=None if matched is None else interactions[matched],
            score=round(answer.score, 4),
            threshold=self.threshold,
            lifespan=lifespan,
            incomplete=answer.incomplete,
            parameters=dict(self.parameters),
            contexts=tuple(
                OutcomeContext(c.id, interactions[c.id].name, c.lifespan) for c in self.contexts
            ),
            fulfillment=said,
            silence=silence,
            debug=answer.debug,
            top=self.top,
            vector=self.vector,
            vector_model=encoded_by,
            language=self.language if several else "",
            answered_in=answered if several else "",
        )
