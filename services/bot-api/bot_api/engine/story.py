"""A story compiled for answering: its interactions, structure, match index and entities.

A compiled story is a value. An edit makes a new one (`edited`) that shares what the
edit did not touch, so a turn that started with the old value finishes with it,
consistent, whatever edits land meanwhile.

A large story may be compiled a chunk at a time (`StoryCompile`), so that the worker
running it can take other work between chunks, and a query that cannot wait for the end
is answered from the part compiled so far.
"""

import threading
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from bot_api.domain.entities import Entity, is_builtin
from bot_api.domain.interactions import FALLBACK, Interaction
from bot_api.domain.settings import Settings
from bot_api.domain.structure import Structure
from bot_api.engine.builtin_entities import BuiltinRecognizer
from bot_api.engine.entities import EntityRecognizer
from bot_api.engine.matching import MatchIndex
from bot_api.engine.segments import Reading
from bot_api.engine.semantic import (
    PhraseRows,
    PhraseVectors,
    SemanticIndex,
    interaction_texts,
    representatives,
    uses_slots,
)
from bot_api.engine.variants import Variant, read_variants


@dataclass(frozen=True)
class CompiledStory:
    id: str
    settings: Settings
    structure: Structure
    interactions: Mapping[str, Interaction]
    account_entities: Mapping[str, Entity]
    entities: EntityRecognizer
    """Recognises the entities the story's interactions use, and no other (an entity of
    the account that the story never asks for must not change what a message means)."""
    index: MatchIndex
    triggers: Mapping[str, str]
    """Trigger name, lower-cased -> the interaction it starts."""
    positions: Mapping[str, int]
    """Each interaction's place in the story (roots in order, each followed by what it
    owns): the last tie-break between equal scores."""
    fallback_id: str
    builtin: BuiltinRecognizer
    """Recognises the built-in entities (`sys.*`) the interactions use, in the story's
    language."""
    semantic: SemanticIndex | None = None
    """The phrase vectors that have landed, when the story has a semantic stage."""
    variants: Mapping[str, Variant] = field(default_factory=dict)
    """Each further language's ISO 639-1 code -> the story read in it."""

    @property
    def entities_used(self) -> set[str]:
        return {p.entity for i in self.interactions.values() for p in i.parameters}

    def size_estimate(self) -> int:
        """Roughly the bytes this story holds apart from what it shares with others:
        what the story cache's memory budget counts."""
        semantic = 0 if self.semantic is None else self.semantic.nbytes
        return self.index.size_estimate() + self.entities.size_estimate() + semantic

    @classmethod
    def compile(
        cls,
        story_id: str,
        settings: Settings,
        structure: Structure,
        interactions: Iterable[Interaction],
        entities: Iterable[Entity],
        vectors: PhraseVectors | None = None,
    ) -> "CompiledStory":
        """`vectors`: the phrase vectors computed so far, for a story with a semantic stage."""
        by_id = {i.id: i for i in interactions if i.id in structure}
        account_entities = {e.name: e for e in entities}
        semantic = None
        if vectors is not None:
            texts = interaction_texts(
                by_id.values(),
                representatives(account_entities.values()),
                settings.multilingual,
            )
            semantic = SemanticIndex.build(
                vectors.model_id, {i: vectors.of(t) for i, t in texts.items()}
            )
        return cls._assemble(
            story_id,
            settings,
            structure,
            by_id,
            account_entities,
            None,
            MatchIndex.build({i.id: i.user_says for i in by_id.values()}, settings.language),
            semantic,
            read_variants(settings, by_id, account_entities),
        )

    def edited(
        self,
        *,
        settings: Settings | None = None,
        structure: Structure | None = None,
        interactions: Iterable[Interaction] = (),
        entities: Iterable[Entity] | None = None,
        vectors: PhraseVectors | None = None,
    ) -> "CompiledStory":
        """The story after an edit: new settings or structure (interactions it no longer
        lists are dropped), changed interactions, or the account's entities anew.
        `vectors` holds those of the phrases `to_encode` names for the same edit."""
        structure = self.structure if structure is None else structure
        entities = None if entities is None else list(entities)
        changed = {i.id: i for i in interactions if i.id in structure}
        gone = [i for i in self.interactions if i not in structure]
        by_id = {i: v for i, v in self.interactions.items() if i in structure} | changed
        settings = self.settings if settings is None else settings
        index = self.index
        if settings.language != index.language:
            index = MatchIndex.build({i: v.user_says for i, v in by_id.items()}, settings.language)
        elif changed or gone:
            index = index.updated({i.id: i.user_says for i in changed.values()}, gone)
        account_entities = self._account_entities(entities)
        semantic = self.semantic
        if vectors is not None:
            texts = self.to_encode(changed.values(), entities)
            put = {i: vectors.of(t) for i, t in texts.items() if i in by_id}
            semantic = self._semantic_with(vectors.model_id, put, gone)
        if settings.spoken() != self.settings.spoken():
            variants = read_variants(settings, by_id, account_entities)
        else:
            used = frozenset(p.entity for i in by_id.values() for p in i.parameters)
            variants = {
                code: variant.edited(
                    code, changed, gone, account_entities, entities is not None, used
                )
                for code, variant in self.variants.items()
            }
        return self._assemble(
            self.id,
            settings,
            structure,
            by_id,
            account_entities,
            self if entities is None else None,
            index,
            semantic,
            variants,
        )

    def with_vectors(
        self, interaction_ids: Iterable[str], vectors: PhraseVectors
    ) -> "CompiledStory":
        """The same story with these interactions' phrase vectors (computed since)."""
        put = {i: vectors.of(t) for i, t in self.phrase_texts(interaction_ids).items()}
        return replace(self, semantic=self._semantic_with(vectors.model_id, put))

    def with_semantic_of(self, earlier: "CompiledStory") -> "CompiledStory":
        """This story with the semantic index of an earlier value of it, less the
        interactions it no longer has (`changed_since` names those to index anew)."""
        if earlier.semantic is None:
            return self
        gone = [i for i in earlier.interactions if i not in self.interactions]
        return replace(self, semantic=earlier.semantic.updated({}, gone))

    def changed_since(self, earlier: "CompiledStory") -> set[str]:
        """The interactions whose phrase texts may differ from an earlier value's: those
        added or edited since and, after an entity edit, every one with a slot."""
        entities_edited = self.account_entities is not earlier.account_entities
        return {
            i
            for i, v in self.interactions.items()
            if earlier.interactions.get(i) is not v or (entities_edited and uses_slots(v))
        }

    def _semantic_with(
        self, model_id: str, put: Mapping[str, Sequence[PhraseRows]], removed: Iterable[str] = ()
    ) -> SemanticIndex:
        """The semantic index with these vectors: built anew if there is none yet, or if
        it holds another model's."""
        if self.semantic is None or self.semantic.model_id != model_id:
            return SemanticIndex.build(model_id, put)
        return self.semantic.updated(put, removed)

    def _account_entities(self, entities: Iterable[Entity] | None) -> Mapping[str, Entity]:
        """The account's entities by name: `entities` anew, or those compiled in."""
        return self.account_entities if entities is None else {e.name: e for e in entities}

    def phrase_texts(self, interaction_ids: Iterable[str]) -> dict[str, list[str]]:
        """These interactions' phrases as the encoder reads them."""
        return interaction_texts(
            (self.interactions[i] for i in interaction_ids if i in self.interactions),
            representatives(self.account_entities.values()),
            self.settings.multilingual,
        )

    def to_encode(
        self, interactions: Iterable[Interaction] = (), entities: Iterable[Entity] | None = None
    ) -> dict[str, list[str]]:
        """The phrase texts an edit (as `edited` takes it) gives new vectors to: those of
        the changed interactions and, after an entity edit, of every phrase with a slot
        (every phrase while the story has no semantic stage yet)."""
        account_entities = self._account_entities(entities)
        touched = {i.id: i for i in interactions}
        if entities is not None or self.semantic is None:
            touched = {
                i: v for i, v in self.interactions.items() if self.semantic is None or uses_slots(v)
            } | touched
        return interaction_texts(
            touched.values(),
            representatives(account_entities.values()),
            self.settings.multilingual,
        )

    @classmethod
    def _assemble(
        cls,
        story_id: str,
        settings: Settings,
        structure: Structure,
        interactions: dict[str, Interaction],
        account_entities: Mapping[str, Entity],
        previous: "CompiledStory | None",
        index: MatchIndex,
        semantic: SemanticIndex | None,
        variants: Mapping[str, Variant],
    ) -> "CompiledStory":
        """`previous`: a story with the same account entities, whose recognizer is kept
        when the entities the interactions use and the language did not change."""
        used = {p.entity for i in interactions.values() for p in i.parameters}
        if (
            previous is not None
            and used == previous.entities_used
            and index.language == previous.index.language
        ):
            recognizer = previous.entities
        else:
            recognizer = EntityRecognizer(
                (e for n, e in account_entities.items() if n in used), index.analyser
            )
        builtin = BuiltinRecognizer({n for n in used if is_builtin(n)}, settings.language)
        triggers = {t.lower(): i.id for i in interactions.values() for t in i.triggers}
        fallback = next(i.id for i in interactions.values() if i.kind == FALLBACK)
        return cls(
            id=story_id,
            settings=settings,
            structure=structure,
            interactions=interactions,
            account_entities=account_entities,
            entities=recognizer,
            index=index,
            triggers=triggers,
            positions={i: n for n, i in enumerate(structure.walk())},
            fallback_id=fallback,
            semantic=semantic,
            builtin=builtin,
            variants=variants,
        )


class StoryCompile:
    """A story compiled a chunk of phrases at a time (`step`), then made whole (`story`).

    Reading the phrases (words, stems, pieces, term ids) is nearly all of a compile's
    time: 10.6 of 10.9 s for a story at the limits (5,000 interactions, 97,736 phrases,
    profiled). The chunks read into one `Reading` and the index is made from it once, so
    a story compiled in chunks costs what it costs whole (bench/first_query.py measures
    both), and one made `story` before the end (a partial story) costs making an index
    of the part read, no more.

    A partial story has all the story's interactions, structure, triggers and entities:
    only its match index holds fewer phrases, those of the interactions read so far,
    roots first in the story's order. A message that an interaction not yet read would
    match is answered by the best of those read (or the fallback), and its terms are
    weighed by the part read: the scores differ a little from the whole story's. A
    conversation's contexts and pending questions are kept, as every interaction is
    there. `step` and `story` may be called from different threads.
    """

    def __init__(
        self,
        story_id: str,
        settings: Settings,
        structure: Structure,
        interactions: Iterable[Interaction],
        entities: Iterable[Entity],
    ) -> None:
        self._id = story_id
        self._settings = settings
        self._structure = structure
        self._interactions = {i.id: i for i in interactions if i.id in structure}
        self._entities = {e.name: e for e in entities}
        walked = [i for i in structure.walk() if i in self._interactions]
        self._order = [*walked, *(self._interactions.keys() - set(walked))]
        self._reader = MatchIndex(settings.language)
        self._reading = Reading()
        self._read = 0
        self._lock = threading.Lock()
        self._last: CompiledStory | None = None
        self._variants: Mapping[str, Variant] | None = None
        """Read once the whole story is: a partial story answers in its default language."""

    @property
    def read(self) -> int:
        """Interactions read so far."""
        return self._read

    @property
    def total(self) -> int:
        """The story's interactions."""
        return len(self._order)

    @property
    def done(self) -> bool:
        return self._read == len(self._order)

    def step(self, phrases: int) -> None:
        """Read the next interactions, about `phrases` phrases of them (at least one
        interaction, whatever its number of phrases)."""
        with self._lock:
            chunk: dict[str, Sequence[str]] = {}
            count = 0
            while self._read < len(self._order) and (not chunk or count < phrases):
                interaction = self._interactions[self._order[self._read]]
                chunk[interaction.id] = interaction.user_says
                count += len(interaction.user_says)
                self._read += 1
            self._reader.read(chunk, self._reading)

    def story(self) -> CompiledStory:
        """The story with the interactions read so far in its index: whole once `done`."""
        with self._lock:
            index = self._reader.with_reading(self._reading)
            if self.done and self._variants is None:
                self._variants = read_variants(self._settings, self._interactions, self._entities)
            variants = self._variants or {}
        story = CompiledStory._assemble(
            self._id,
            self._settings,
            self._structure,
            self._interactions,
            self._entities,
            self._last,
            index,
            None,
            variants,
        )
        self._last = story
        return story
