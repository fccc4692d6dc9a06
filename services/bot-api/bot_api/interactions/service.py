"""Interactions of a story: content writes checked by the domain rules, and structure
changes stored through `edit_story`.

Writes are ordered so that a reader never sees a broken story: a new interaction's
document is written before the structure lists it, and deleted ones leave the
structure before their documents go.
"""

import uuid
from collections.abc import Mapping
from dataclasses import replace
from typing import Any, Protocol

from bot_api.changes import ChangeFeed, StoryEdited
from bot_api.domain.entities import BUILTIN_ENTITIES, is_builtin
from bot_api.domain.errors import DomainError
from bot_api.domain.interactions import (
    STANDARD,
    Interaction,
    check_unique_triggers,
    handoff_block,
    prepare,
    referenced_entities,
)
from bot_api.domain.structure import ContextChange
from bot_api.entities.repository import EntityStore
from bot_api.interactions.repository import InteractionStore
from bot_api.quotas import AccountQuotas, Quotas
from bot_api.stories.repository import StoryRecord, StoryStore
from bot_api.stories.service import edit_story, load_story, until_written
from shared.errors import ApiError, NotFound, ValidationFailed
from shared.ids import is_object_id
from shared.pages import Page


class ConnectionDirectory(Protocol):
    async def is_story_connection(
        self, account_id: str, story_id: str, connection_id: str
    ) -> bool: ...


class InteractionService:
    def __init__(
        self,
        *,
        stories: StoryStore,
        interactions: InteractionStore,
        entities: EntityStore,
        changes: ChangeFeed,
        connections: ConnectionDirectory,
        quotas: AccountQuotas,
    ) -> None:
        self._stories = stories
        self._interactions = interactions
        self._entities = entities
        self._changes = changes
        self._connections = connections
        self._quotas = quotas

    async def list_interactions(
        self, *, account_id: str, story_id: str, page: Page
    ) -> tuple[list[Interaction], int]:
        """A page of the story's interactions in tree order, and their total."""
        story = await load_story(self._stories, account_id, story_id)
        order = list(story.structure.walk())
        wanted = page.of(order)
        found = await self._interactions.find(story.id, wanted)
        return [found[i] for i in wanted], len(order)

    async def read(self, *, account_id: str, story_id: str, interaction_id: str) -> Interaction:
        story = await load_story(self._stories, account_id, story_id)
        return await _load_interaction(self._interactions, story, interaction_id)

    async def create(
        self,
        *,
        account_id: str,
        story_id: str,
        interaction: Interaction,
        parent_id: str | None = None,
        new_id: str | None = None,
    ) -> str:
        """`interaction` as a new standard one (its id and kind are not read): a root, or
        a child owned by `parent_id`; under `new_id` when given (a retried create), which
        the story may list already.

        The story is read once and the add written as a change of it (not the whole
        structure again), so the cost does not grow with the story; only a write that a
        concurrent writer made miss reads the story again."""
        quotas = await self._quotas.of(account_id)
        story = await self._counted(await load_story(self._stories, account_id, story_id))
        if new_id is not None and new_id in story.structure:
            return new_id
        retried = new_id is not None and await self._interactions.get(story.id, new_id)
        new_id = new_id or str(uuid.uuid4())
        content = prepare(replace(interaction, id=new_id, kind=STANDARD))
        phrases = content.phrase_count

        async def check(story: StoryRecord) -> None:
            if parent_id is None:
                story.structure.add_root(new_id)
            else:
                story.structure.add_child(parent_id, new_id)
            quotas.check_interactions(len(story.structure.contexts) + 1)
            await self._check_phrases(story, phrases, quotas)

        async def attempt(read: StoryRecord) -> bool | None:
            if new_id in read.structure:
                return True  # listed by a concurrent retry of this create
            if read is not story:
                await check(read)
            return await self._stories.add_interaction(read, new_id, parent_id, phrases) or None

        await check(story)
        await self._check_references(account_id, story, None, content)
        if not retried:
            await self._interactions.insert_many(account_id, story.id, [content])
        try:
            await until_written(self._stories, account_id, story_id, attempt, story)
        except (ApiError, DomainError):
            await self._interactions.delete_many(story.id, [new_id])
            raise
        await self._changes.announce(StoryEdited(account_id, story.id, frozenset({new_id})))
        return new_id

    async def update(
        self,
        *,
        account_id: str,
        story_id: str,
        interaction_id: str,
        changes: Mapping[str, Any],
    ) -> None:
        """`changes`: the fields to change, by their names in `Interaction`; the others
        keep their stored values."""
        story = await self._counted(await load_story(self._stories, account_id, story_id))
        current = await _load_interaction(self._interactions, story, interaction_id)
        content = prepare(replace(current, **changes), previous=current)
        added = content.phrase_count - current.phrase_count
        await self._check_phrases(story, added, await self._quotas.of(account_id))
        await self._check_references(account_id, story, interaction_id, content, current)
        await self._interactions.replace_content(story.id, content)
        if added:
            await self._stories.add_phrases(story, added)
        await self._changes.announce(StoryEdited(account_id, story.id, frozenset({interaction_id})))

    async def update_contexts(
        self, *, account_id: str, story_id: str, changes: list[ContextChange]
    ) -> None:
        story, _ = await edit_story(
            self._stories, account_id, story_id, lambda s: (s.structure.apply(changes), None)
        )
        await self._changes.announce(StoryEdited(account_id, story.id))

    async def delete(self, *, account_id: str, story_id: str, interaction_ids: list[str]) -> None:
        """The interactions with the subtrees they own, all or nothing."""

        async def attempt(story: StoryRecord) -> tuple[StoryRecord, set[str]] | None:
            structure, removed = story.structure.remove(interaction_ids)
            phrases = 0
            if story.phrases is not None:
                phrases = await self._interactions.count_phrases(story.id, removed)
            if await self._stories.update(story, None, structure, added_phrases=-phrases):
                return story, removed
            return None

        story, removed = await until_written(self._stories, account_id, story_id, attempt)
        await self._interactions.delete_many(story.id, removed)
        await self._changes.announce(StoryEdited(account_id, story.id))

    async def _counted(self, story: StoryRecord) -> StoryRecord:
        """`story` with its phrase counter: a story stored before the counter existed is
        counted once, and the count stored."""

        async def attempt(story: StoryRecord) -> StoryRecord | None:
            if story.phrases is not None:
                return story
            phrases = await self._interactions.count_phrases(story.id, story.structure.contexts)
            if await self._stories.set_phrases(story, phrases):
                return replace(story, phrases=phrases, revision=story.revision + 1)
            return None

        return await until_written(self._stories, story.account_id, story.id, attempt, story)

    async def _check_phrases(self, story: StoryRecord, added: int, quotas: Quotas) -> None:
        """By the story's counter; one that would refuse is checked against a count of the
        interactions, and corrected, so a counter that drifted never refuses wrongly."""
        if added <= 0 or story.phrases is None or story.phrases + added <= quotas.phrases_per_story:
            return
        phrases = await self._interactions.count_phrases(story.id, story.structure.contexts)
        if phrases != story.phrases:
            await self._stories.set_phrases(story, phrases)
        quotas.check_phrases(phrases + added)

    async def _check_references(
        self,
        account_id: str,
        story: StoryRecord,
        interaction_id: str | None,
        content: Interaction,
        stored: Interaction | None = None,
    ) -> None:
        """The entities the parameters name exist, the triggers are the story's own, and a
        new webhook or handoff naming a connection names one of this story's."""
        wanted = referenced_entities(content)
        unknown_builtin = sorted(n for n in wanted if is_builtin(n) and n not in BUILTIN_ENTITIES)
        if unknown_builtin:
            raise ValidationFailed(
                f"parameters: no built-in entity {', '.join(repr(n) for n in unknown_builtin)}",
                {
                    "parameters": {
                        "entity": [f"Unknown built-in entity {n!r}." for n in unknown_builtin]
                    }
                },
            )
        wanted = {n for n in wanted if not is_builtin(n)}
        missing = sorted(wanted - await self._entities.existing_names(account_id, wanted))
        if missing:
            raise ValidationFailed(
                f"parameters: unknown entity {', '.join(repr(m) for m in missing)}",
                {"parameters": {"entity": [f"Unknown entity {m!r}." for m in missing]}},
            )
        if content.triggers:
            # Only the interactions sharing a trigger: the cost stays the same as the story grows.
            sharing = await self._interactions.with_triggers(story.id, list(content.triggers))
            check_unique_triggers(
                interaction_id,
                content.triggers,
                {i: t for i, t in sharing.items() if i in story.structure},
            )
        webhook = content.webhook
        if webhook != (stored.webhook if stored else "") and is_object_id(webhook):
            await self._check_connection(account_id, story.id, ("webhook",), webhook)
        handoff = handoff_block(content.responses)
        stored_handoff = handoff_block(stored.responses) if stored else None
        if handoff is not None and (stored_handoff is None or stored_handoff[1] != handoff[1]):
            index, block = handoff
            place = ("responses", index, "connection")
            await self._check_connection(account_id, story.id, place, block.connection)

    async def _check_connection(
        self, account_id: str, story_id: str, place: tuple[str | int, ...], connection_id: str
    ) -> None:
        if not await self._connections.is_story_connection(account_id, story_id, connection_id):
            raise ValidationFailed.at(
                place, f"no webhook connection {connection_id} belongs to this story"
            )


async def _load_interaction(
    interactions: InteractionStore, story: StoryRecord, interaction_id: str
) -> Interaction:
    interaction = None
    if interaction_id in story.structure:
        interaction = await interactions.get(story.id, interaction_id)
    if interaction is None:
        raise NotFound(f"no interaction {interaction_id} in this story")
    return interaction
