"""InteractionsInMemory, the `interactions` collection in memory, held to
InteractionRepository's contract by test_interaction_repository.py beside it.
"""

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

from bot_api.domain.interactions import Interaction, handoff_block, referenced_entities
from bot_api.domain.responses import Handoff
from bot_api.interactions.repository import InteractionSummary
from support.journal import InMemory, Journal, sorted_ids


@dataclass(frozen=True)
class OwnedInteraction:
    """An interaction and the account and story it belongs to."""

    account_id: str
    story_id: str
    interaction: Interaction
    awaited_connection: str | None = None
    awaited_handoff: str | None = None


class InteractionsInMemory(InMemory):
    def __init__(self, database: Journal) -> None:
        super().__init__(database)
        self.records: dict[str, OwnedInteraction] = {}
        """By id."""

    async def insert_many(
        self, account_id: str, story_id: str, interactions: Sequence[Interaction]
    ) -> None:
        await self._database.record(
            "interactions.insert_many", story_id, sorted_ids(i.id for i in interactions)
        )
        for interaction in interactions:
            self.records[interaction.id] = OwnedInteraction(account_id, story_id, interaction)

    async def with_triggers(self, story_id: str, triggers: list[str]) -> dict[str, list[str]]:
        await self._database.record("interactions.with_triggers", story_id)
        wanted = {t.lower() for t in triggers}
        return {
            i: list(r.interaction.triggers)
            for i, r in self.records.items()
            if r.story_id == story_id and {t.lower() for t in r.interaction.triggers} & wanted
        }

    async def find(self, story_id: str, ids: Iterable[str]) -> dict[str, Interaction]:
        wanted = sorted_ids(ids)
        await self._database.record("interactions.find", story_id, wanted)
        found = {i: self._of_story(story_id, i) for i in wanted}
        return {i: interaction for i, interaction in found.items() if interaction is not None}

    async def summaries(self, story_id: str, ids: Iterable[str]) -> dict[str, InteractionSummary]:
        wanted = sorted_ids(ids)
        await self._database.record("interactions.summaries", story_id, wanted)
        found = {i: self._of_story(story_id, i) for i in wanted}
        return {
            i: InteractionSummary(interaction.name, interaction.webhook)
            for i, interaction in found.items()
            if interaction is not None
        }

    async def count_phrases(self, story_id: str, ids: Iterable[str]) -> int:
        wanted = sorted_ids(ids)
        await self._database.record("interactions.count_phrases", story_id, wanted)
        found = (self._of_story(story_id, i) for i in wanted)
        return sum(interaction.phrase_count for interaction in found if interaction is not None)

    async def get(self, story_id: str, interaction_id: str) -> Interaction | None:
        await self._database.record("interactions.get", story_id, interaction_id)
        return self._of_story(story_id, interaction_id)

    async def replace_content(self, story_id: str, interaction: Interaction) -> None:
        await self._database.record("interactions.replace_content", story_id, interaction.id)
        if self._of_story(story_id, interaction.id) is not None:
            owned = self.records[interaction.id]
            self.records[interaction.id] = replace(owned, interaction=interaction)

    async def await_connections(self, story_id: str, names: Mapping[str, str]) -> None:
        await self._database.record("interactions.await_connections", story_id, sorted_ids(names))
        for interaction_id, name in names.items():
            if self._of_story(story_id, interaction_id) is not None:
                owned = self.records[interaction_id]
                self.records[interaction_id] = replace(owned, awaited_connection=name)

    async def awaited_connections(self, story_id: str) -> dict[str, str]:
        await self._database.record("interactions.awaited_connections", story_id)
        return {
            i: r.awaited_connection
            for i, r in self.records.items()
            if r.story_id == story_id and r.awaited_connection is not None
        }

    async def await_handoffs(self, story_id: str, names: Mapping[str, str]) -> None:
        await self._database.record("interactions.await_handoffs", story_id, sorted_ids(names))
        for interaction_id, name in names.items():
            if self._of_story(story_id, interaction_id) is not None:
                owned = self.records[interaction_id]
                self.records[interaction_id] = replace(owned, awaited_handoff=name)

    async def awaited_handoffs(self, story_id: str) -> dict[str, str]:
        await self._database.record("interactions.awaited_handoffs", story_id)
        return {
            i: r.awaited_handoff
            for i, r in self.records.items()
            if r.story_id == story_id and r.awaited_handoff is not None
        }

    async def connect_awaiting(self, story_id: str, name: str, connection_id: str) -> list[str]:
        await self._database.record("interactions.connect_awaiting", story_id, name)
        connected = set()
        for interaction_id, owned in list(self.records.items()):
            if owned.story_id != story_id:
                continue
            interaction = owned.interaction
            if owned.awaited_connection == name:
                if interaction.webhook == "":
                    interaction = replace(interaction, webhook=connection_id)
                    connected.add(interaction_id)
                owned = replace(owned, awaited_connection=None)
            if owned.awaited_handoff == name:
                if handoff_block(interaction.responses) is None:
                    responses = (*interaction.responses, Handoff(connection_id))
                    interaction = replace(interaction, responses=responses)
                    connected.add(interaction_id)
                owned = replace(owned, awaited_handoff=None)
            self.records[interaction_id] = replace(owned, interaction=interaction)
        return sorted(connected)

    async def delete_many(self, story_id: str, ids: Iterable[str]) -> None:
        wanted = sorted_ids(ids)
        await self._database.record("interactions.delete_many", story_id, wanted)
        for interaction_id in wanted:
            if self._of_story(story_id, interaction_id) is not None:
                del self.records[interaction_id]

    async def delete_for_story(self, story_id: str) -> None:
        await self._database.record("interactions.delete_for_story", story_id)
        for interaction_id, owned in list(self.records.items()):
            if owned.story_id == story_id:
                del self.records[interaction_id]

    async def using_entity(self, account_id: str, entity: str) -> dict[str, str]:
        await self._database.record("interactions.using_entity", entity)
        return {
            i: r.story_id
            for i, r in self.records.items()
            if r.account_id == account_id and entity in referenced_entities(r.interaction)
        }

    def _of_story(self, story_id: str, interaction_id: str) -> Interaction | None:
        owned = self.records.get(interaction_id)
        return None if owned is None or owned.story_id != story_id else owned.interaction
