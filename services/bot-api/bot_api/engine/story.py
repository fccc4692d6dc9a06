"""A story compiled for answering: its interactions, structure, match index and entities.

Built once per story and kept in memory; `update` applies an edit to the one
interaction it touched.
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from bot_api.domain.interactions import FALLBACK
from bot_api.domain.structure import Structure
from bot_api.engine.entities import EntityRecognizer
from bot_api.engine.matching import MatchIndex


@dataclass(frozen=True)
class Settings:
    confidence: float
    fallback: bool
    lifespan: int


@dataclass
class StoryModel:
    id: str
    settings: Settings
    structure: Structure
    interactions: dict[str, Mapping[str, Any]]
    entities: EntityRecognizer
    index: MatchIndex = field(default_factory=MatchIndex)
    triggers: dict[str, str] = field(default_factory=dict)
    _positions: dict[str, int] | None = field(default=None, init=False, repr=False)
    _fallback_id: str | None = field(default=None, init=False, repr=False)

    def restructure(self, structure: Structure) -> None:
        self.structure = structure
        self._positions = None

    @property
    def positions(self) -> dict[str, int]:
        """Each interaction's place in the story (roots in order, each followed by what it
        owns): the last tie-break between equal scores."""
        if self._positions is None:
            self._positions = {i: n for n, i in enumerate(self.structure.walk())}
        return self._positions

    @classmethod
    def build(
        cls,
        story_id: str,
        settings: Mapping[str, Any],
        structure: Structure,
        interactions: Sequence[Mapping[str, Any]],
        entities: Mapping[str, Sequence[Mapping[str, Any]]],
    ) -> "StoryModel":
        model = cls(
            id=story_id,
            settings=Settings(
                float(settings["confidence"]), bool(settings["fallback"]), int(settings["lifespan"])
            ),
            structure=structure,
            interactions={},
            entities=EntityRecognizer(entities),
        )
        for interaction in interactions:
            model.put(interaction)
        return model

    def use_entities(self, entities: Mapping[str, Sequence[Mapping[str, Any]]]) -> None:
        self.entities = EntityRecognizer(entities)

    def put(self, interaction: Mapping[str, Any]) -> None:
        interaction_id = interaction["id"]
        self.drop(interaction_id)
        self.interactions[interaction_id] = interaction
        if interaction["type"] == FALLBACK:
            self._fallback_id = interaction_id
        self.index.put(interaction_id, interaction["userSays"])
        for trigger in interaction["triggers"]:
            self.triggers[trigger.lower()] = interaction_id

    def drop(self, interaction_id: str) -> None:
        previous = self.interactions.pop(interaction_id, None)
        if previous is None:
            return
        self.index.remove(interaction_id)
        for trigger in previous["triggers"]:
            if self.triggers.get(trigger.lower()) == interaction_id:
                del self.triggers[trigger.lower()]

    @property
    def fallback_id(self) -> str:
        assert self._fallback_id is not None, "every story has a fallback interaction"
        return self._fallback_id
