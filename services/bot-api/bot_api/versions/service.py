"""A story's versions (docs/versions.md): the story frozen as its document, listed, read,
compared with another version or the draft, and restored into the draft.

A version is what export writes at that moment, with each interaction's draft id and
webhook beside it (versions/repository.py), so publishing it answers with the ids the
draft's conversations hold. Writing and reading documents is CPU work: it runs in the
transfer threads, beside the event loop, shared fairly between accounts and stopped past
its time limit (shared/fair_work.py).
"""

import functools
from collections.abc import Callable, Mapping
from typing import Any, Protocol, TypeVar

from bot_api.changes import ChangeFeed, EntitiesEdited, StoryEdited
from bot_api.domain.errors import Invalid
from bot_api.domain.interactions import Interaction, handoff_connection, prepare
from bot_api.entities.repository import EntityStore
from bot_api.interactions.repository import InteractionStore
from bot_api.quotas import AccountQuotas, check_story_content
from bot_api.stories.repository import StoryFields, StoryRecord, StoryStore
from bot_api.stories.service import load_story, until_written
from bot_api.transfer.service import Exported, StoryTransfer, StoryUpload
from bot_api.versions.diff import StoryDiff, diff
from bot_api.versions.repository import (
    FrozenInteraction,
    NumberTaken,
    StoryVersion,
    VersionStore,
    VersionSummary,
    new_version,
)
from shared.audit import Actor
from shared.errors import BadRequest, Conflict, NotFound
from shared.fair_work import FairWork
from shared.pages import Page

MAX_VERSIONS_PER_STORY = 100
"""Versions a story keeps: each is its whole document (up to 3.3 MB for a 1000 × 99
story), so a story's versions stay within a few hundred MB; delete old ones to make
room."""
DRAFT = "draft"
"""What `diff` compares a version with when not another version."""

T = TypeVar("T")


class KnowledgeVersions(Protocol):
    """What a version needs of the story's documents: frozen with it, so that it answers
    from them once published, and let go with it (knowledge.repository.KnowledgeStore)."""

    async def freeze(self, account_id: str, story_id: str, version_id: str) -> None: ...

    async def thaw(self, account_id: str, story_id: str, version_id: str) -> None: ...


class StoryDocuments(Protocol):
    """The story document's writer and reader (bot_api.transfer.schemas)."""

    def written(self, exported: Exported) -> dict[str, Any]:
        """The document of an export."""

    def read(self, version: StoryVersion) -> StoryUpload:
        """The version's story, with the draft's ids and webhooks it was frozen with."""


class VersionService:
    def __init__(
        self,
        *,
        stories: StoryStore,
        interactions: InteractionStore,
        entities: EntityStore,
        versions: VersionStore,
        changes: ChangeFeed,
        quotas: AccountQuotas,
        transfer: StoryTransfer,
        documents: StoryDocuments,
        work: FairWork,
        knowledge: KnowledgeVersions,
        limit: float | None = None,
    ) -> None:
        self._stories = stories
        self._interactions = interactions
        self._entities = entities
        self._versions = versions
        self._changes = changes
        self._quotas = quotas
        self._transfer = transfer
        self._documents = documents
        self._work = work
        self._knowledge = knowledge
        self._limit = limit
        """Seconds a document's work may take (the request's budget)."""

    async def create(
        self, *, account_id: str, story_id: str, note: str, by: Actor
    ) -> VersionSummary:
        """The story as export writes it now, frozen under its next number by `by`."""
        versions = self._versions
        if await versions.count(account_id, story_id) >= MAX_VERSIONS_PER_STORY:
            raise Conflict(
                f"a story keeps at most {MAX_VERSIONS_PER_STORY} versions: delete one first"
            )
        exported = await self._transfer.export(account_id=account_id, story_id=story_id)
        document = await self._in_worker(
            account_id, functools.partial(self._documents.written, exported)
        )
        frozen = [
            FrozenInteraction(
                written["key"],
                interaction_id,
                exported.interactions[interaction_id].webhook,
                handoff_connection(exported.interactions[interaction_id]),
            )
            for interaction_id, written in zip(
                exported.structure.walk(), document["interactions"], strict=True
            )
        ]
        try:
            stored = await versions.add(
                new_version(account_id, story_id, note, document, frozen, by)
            )
        except NumberTaken:
            raise Conflict("the story is being versioned by others; try again") from None
        await self._knowledge.freeze(account_id, story_id, stored.id)
        return stored.summary()

    async def list_versions(
        self, *, account_id: str, story_id: str, page: Page
    ) -> tuple[list[VersionSummary], int, str | None]:
        """A page of the story's versions (newest first), their total, and the published
        one's id."""
        story = await load_story(self._stories, account_id, story_id)
        versions = self._versions
        listed = await versions.list(account_id, story.id, page)
        return listed, await versions.count(account_id, story.id), story.published

    async def published(self, *, account_id: str, story_id: str) -> str | None:
        """The id of the story's published version, if any."""
        return (await load_story(self._stories, account_id, story_id)).published

    async def read(self, *, account_id: str, story_id: str, version_id: str) -> StoryVersion:
        return await self._version(account_id, story_id, version_id)

    async def diff(self, *, account_id: str, story_id: str, version_id: str, to: str) -> StoryDiff:
        """From the version to `to`: another version's id, or `DRAFT`."""
        before = await self._version(account_id, story_id, version_id)
        if to == DRAFT:
            exported = await self._transfer.export(account_id=account_id, story_id=story_id)
            after = await self._in_worker(
                account_id, functools.partial(self._documents.written, exported)
            )
        else:
            after = dict((await self._version(account_id, story_id, to)).document)
        return await self._in_worker(account_id, functools.partial(diff, before.document, after))

    async def delete(self, *, account_id: str, story_id: str, version_id: str) -> None:
        story = await load_story(self._stories, account_id, story_id)
        if story.published == version_id:
            raise Conflict("this version is published: publish another or none first")
        if not await self._versions.delete(account_id, story.id, version_id):
            raise NotFound(f"no version {version_id} of this story")
        await self._knowledge.thaw(account_id, story.id, version_id)

    async def restore(self, *, account_id: str, story_id: str, version_id: str) -> None:
        """The draft's settings, interactions and structure become the version's (its name,
        description and published version stay). Interactions keep their ids, so the
        draft's conversations carry on. The entities the version brings that the account
        lacks are created; those it has are used as they are. A failure on the way puts
        back what was written."""
        version = await self._version(account_id, story_id, version_id)
        upload = await self._in_worker(account_id, functools.partial(self._documents.read, version))
        story = await load_story(self._stories, account_id, story_id)
        restored = _prepared(upload.interactions)
        phrases = sum(i.phrase_count for i in restored.values())
        held = {
            e.entity.name
            for e in await self._entities.with_names(account_id, [e.name for e in upload.entities])
        }
        missing = [e for e in upload.entities if e.name not in held]
        await check_story_content(
            await self._quotas.of(account_id),
            self._entities,
            account_id,
            interactions=len(restored),
            phrases=phrases,
            new_entities=missing,
        )

        current = await self._interactions.find(story.id, story.structure.contexts)
        added = [i for i in restored.values() if i.id not in current]
        replaced = [i for i in restored.values() if i.id in current and current[i.id] != i]
        created: list[str] = []
        try:
            for entity in missing:
                created.append(await self._entities.insert(account_id, entity))
            if added:
                await self._interactions.insert_many(account_id, story.id, added)
            for interaction in replaced:
                await self._interactions.replace_content(story.id, interaction)

            async def attempt(record: StoryRecord) -> bool | None:
                fields = StoryFields(
                    record.name, record.description, upload.settings, record.published
                )
                counted = 0 if record.phrases is None else phrases - record.phrases
                written = await self._stories.update(record, fields, upload.structure, counted)
                return True if written else None

            await until_written(self._stories, account_id, story.id, attempt)
        except BaseException:
            for interaction in replaced:
                await self._interactions.replace_content(story.id, current[interaction.id])
            await self._interactions.delete_many(story.id, [i.id for i in added])
            for entity_id in created:
                await self._entities.delete(account_id, entity_id)
            raise
        dropped = [i for i in current if i not in restored]
        await self._interactions.delete_many(story.id, dropped)
        if created:
            await self._changes.announce(EntitiesEdited(account_id))
        touched = frozenset([*(i.id for i in added), *(i.id for i in replaced), *dropped])
        language_changed = not story.settings.reads_like(upload.settings)
        await self._changes.announce(StoryEdited(account_id, story.id, touched, language_changed))

    async def _version(self, account_id: str, story_id: str, version_id: str) -> StoryVersion:
        story = await load_story(self._stories, account_id, story_id)
        version = await self._versions.get(account_id, story.id, version_id)
        if version is None:
            raise NotFound(f"no version {version_id} of this story")
        return version

    async def _in_worker(self, account_id: str, make: Callable[[], T]) -> T:
        return await self._work.run(account_id, make, limit=self._limit)


def _prepared(interactions: Mapping[str, Interaction]) -> dict[str, Interaction]:
    """The version's interactions as the draft stores them. A version was a valid story
    when frozen; a rule made stricter since answers 400 naming the interaction."""
    prepared = {}
    for interaction_id, interaction in interactions.items():
        try:
            prepared[interaction_id] = prepare(interaction)
        except Invalid as error:
            raise BadRequest(
                f"interaction {interaction.name!r} of the version breaks a rule: {error.message}"
            ) from None
    return prepared
