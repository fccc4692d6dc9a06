"""A story read in each of its further languages (docs/languages.md "Compiled stories"):
a match index, an entity recogniser and a built-in recogniser per language, updated by
an edit as the default ones are (engine/story.py `CompiledStory.variants`)."""

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from bot_api.domain.entities import Entity, is_builtin
from bot_api.domain.interactions import Interaction
from bot_api.domain.settings import Settings, language_named
from bot_api.engine.builtin_entities import BuiltinRecognizer
from bot_api.engine.entities import EntityRecognizer
from bot_api.engine.matching import MatchIndex


@dataclass(frozen=True)
class Variant:
    """The story read in one of its further languages (docs/languages.md): each
    interaction's phrases of that language (its default ones where it has none), and the
    entities' entries of that language."""

    index: MatchIndex
    entities: EntityRecognizer
    builtin: BuiltinRecognizer
    used: frozenset[str]
    """The entities the interactions use, which the recognizers know."""

    @classmethod
    def read(
        cls,
        code: str,
        interactions: Mapping[str, Interaction],
        entities: Mapping[str, Entity],
        used: frozenset[str],
    ) -> "Variant":
        language = language_named(code) or "english"
        index = MatchIndex.build({i: v.phrases_in(code) for i, v in interactions.items()}, language)
        return cls(index, _recognizer(entities, used, index, code), _builtin(used, language), used)

    def edited(
        self,
        code: str,
        changed: Mapping[str, Interaction],
        gone: Iterable[str],
        entities: Mapping[str, Entity],
        entities_edited: bool,
        used: frozenset[str],
    ) -> "Variant":
        """The variant after an edit of these interactions, or of the account's entities."""
        index = self.index
        if changed or gone:
            index = index.updated({i: v.phrases_in(code) for i, v in changed.items()}, gone)
        recognizer = self.entities
        if entities_edited or used != self.used:
            recognizer = _recognizer(entities, used, index, code)
        builtin = self.builtin if used == self.used else _builtin(used, index.language)
        return Variant(index, recognizer, builtin, used)


def read_variants(
    settings: Settings, interactions: Mapping[str, Interaction], entities: Mapping[str, Entity]
) -> dict[str, Variant]:
    """The story read in each of its further languages."""
    used = frozenset(p.entity for i in interactions.values() for p in i.parameters)
    return {
        code: Variant.read(code, interactions, entities, used) for code in settings.spoken()[1:]
    }


def _recognizer(
    entities: Mapping[str, Entity], used: frozenset[str], index: MatchIndex, code: str
) -> EntityRecognizer:
    said = (Entity(n, e.entries_in(code)) for n, e in entities.items() if n in used)
    return EntityRecognizer(said, index.analyser)


def _builtin(used: frozenset[str], language: str) -> BuiltinRecognizer:
    return BuiltinRecognizer({n for n in used if is_builtin(n)}, language)
