"""Stories, and the one way to change a story's structure safely under concurrency."""

import uuid
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, replace
from typing import Any, Protocol, TypeVar

from bot_api.changes import ChangeFeed, StoryCreated, StoryDeleted, StoryEdited
from bot_api.domain.interactions import Interaction, default_interactions
from bot_api.domain.settings import Settings
from bot_api.domain.structure import Structure
from bot_api.quotas import AccountQuotas, QuotaExceeded
from bot_api.stories.repository import StoryFields, StoryRecord, StoryStore
from shared.audit import Actor
from shared.errors import Conflict, Forbidden, NotFound
from shared.ids import new_object_id
from shared.pages import Page

MAX_CONCURRENT_RETRIES = 20
DEFAULT_SETTINGS = Settings()

T = TypeVar("T")


async def load_story(stories: StoryStore, account_id: str, story_id: str) -> StoryRecord:
    story = await stories.get(account_id, story_id)
    if story is None:
        raise NotFound(f"no story {story_id}")
    return story


Edit = Callable[[StoryRecord], tuple[Structure, StoryFields | None]]


async def edit_story(
    stories: StoryStore, account_id: str, story_id: str, edit: Edit
) -> tuple[StoryRecord, Structure]:
    """Apply `edit` to the newest story and store its result in one conditional write.

    `edit` returns the new structure and the story fields to set (None: they stay); a
    concurrent writer makes the write miss, and the edit is applied again to what that
    writer left.
    Returns the story the stored edit started from and the structure it stored.
    """

    async def attempt(story: StoryRecord) -> tuple[StoryRecord, Structure] | None:
        structure, fields = edit(story)
        return (story, structure) if await stories.update(story, fields, structure) else None

    return await until_written(stories, account_id, story_id, attempt)


async def until_written(
    stories: StoryStore,
    account_id: str,
    story_id: str,
    attempt: Callable[[StoryRecord], Awaitable[T | None]],
    story: StoryRecord | None = None,
) -> T:
    """`attempt` on `story` (if given) or a fresh read of it, until its conditional write
    lands (it returns what to return) or MAX_CONCURRENT_RETRIES writes have missed."""
    for _ in range(MAX_CONCURRENT_RETRIES):
        story = story or await load_story(stories, account_id, story_id)
        written = await attempt(story)
        if written is not None:
            return written
        story = None
    raise Conflict("the story is being changed by others; try again")


async def keep_within_quota(
    stories: StoryStore, quotas: AccountQuotas, account_id: str, story_id: str
) -> None:
    """The stories quota counted again once the new story is stored. Creates racing (on
    several replicas, or in one) each pass the check made before any of them wrote, so
    each counts after its insert, and one that finds the account past its quota deletes
    its story (the caller deletes what it wrote before) and is refused. Racing creates
    may all be refused, each counting the others' stories before they are taken back
    (a retry then finds room), but no more than the quota stay: the last of those kept
    to count saw every other kept."""
    quota = await quotas.of(account_id)
    stored = await stories.count(account_id)
    if stored > quota.stories:
        await stories.delete(account_id, story_id)
        quota.check_stories(stored)


class StoryPart(Protocol):
    """A collection holding a part of each story, emptied when the story is deleted."""

    async def delete_for_story(self, story_id: str) -> None: ...


class Summary(Protocol):
    """What a story's read shows of each of its interactions."""

    @property
    def name(self) -> str: ...

    @property
    def webhook(self) -> str: ...


class StoryInteractions(StoryPart, Protocol):
    """What a story needs of its interactions: the two it starts with, their names and
    webhooks, and their deletion with it (interactions.repository.InteractionStore)."""

    async def insert_many(
        self, account_id: str, story_id: str, interactions: Sequence[Interaction]
    ) -> None: ...

    async def summaries(self, story_id: str, ids: Iterable[str]) -> Mapping[str, Summary]: ...


class AccountStoryPart(Protocol):
    """A collection holding a part of each story by account, emptied when the story is
    deleted."""

    async def delete_for_story(self, account_id: str, story_id: str) -> None: ...


class StoryVersions(AccountStoryPart, Protocol):
    """What a story needs of its versions: whether one exists, to publish it, and their
    deletion with it (versions.repository.VersionStore)."""

    async def get(self, account_id: str, story_id: str, version_id: str) -> object | None: ...

    async def mark_published(
        self, account_id: str, story_id: str, version_id: str, by: Actor
    ) -> None: ...


class PublishCheck(Protocol):
    """What a publish asks first (the story's conversation tests, docs/tests.md)."""

    async def failing_tests(self, account_id: str, story_id: str, version_id: str) -> int:
        """How many of the story's tests the version fails."""


UNCHANGED = object()
"""`published` not given: the story keeps its published version."""


class StoryService:
    def __init__(
        self,
        *,
        stories: StoryStore,
        interactions: StoryInteractions,
        sessions: StoryPart,
        turns: StoryPart,
        versions: StoryVersions,
        tests: StoryPart,
        inbox: StoryPart,
        inbox_snapshots: StoryPart,
        analytics: StoryPart,
        vectors: StoryPart,
        knowledge: StoryPart,
        connections: AccountStoryPart,
        changes: ChangeFeed,
        quotas: AccountQuotas,
        publish_check: PublishCheck | None = None,
        awaiting_meaning: Callable[[str], int] | None = None,
    ) -> None:
        """`tests` (and their runs), `inbox` (its ignored texts), `inbox_snapshots`,
        `analytics`, `vectors` (the phrase vectors it marks), `knowledge` (its documents and
        their passages), `connections` (the view of
        its webhook connections): with the others, what a story owns, which its deletion
        takes with it; `awaiting_meaning`: how many of a story's phrases wait for their
        sentence vector (`PhraseVectorService.waiting`; none without the semantic stage)."""
        self._stories = stories
        self._interactions = interactions
        self._sessions = sessions
        self._turns = turns
        self._versions = versions
        self._owned = (tests, inbox, inbox_snapshots, analytics, turns, knowledge)
        """What only looks back at a story, deleted first, in this order."""
        self._vectors = vectors
        self._connections = connections
        self._changes = changes
        self._quotas = quotas
        self._publish_check = publish_check
        self._awaiting_meaning = awaiting_meaning

    async def create(
        self,
        *,
        account_id: str,
        name: str,
        description: str,
        settings: Settings = DEFAULT_SETTINGS,
        new_id: str | None = None,
    ) -> str:
        """Under `new_id` when given (a retried create), which may exist already."""
        if new_id is not None and await self._stories.get(account_id, new_id):
            return new_id
        quotas = await self._quotas.of(account_id)
        quotas.check_stories(await self._stories.count(account_id) + 1)
        defaults = [
            replace(default, id=str(uuid.uuid4()))
            for default in default_interactions(settings.language)
        ]
        structure = Structure.for_new_story(i.id for i in defaults)
        # Interactions first: they are invisible until the story that lists them exists.
        story_id = new_id or new_object_id()
        await self._interactions.insert_many(account_id, story_id, defaults)
        await self._stories.insert(
            story_id,
            account_id,
            name,
            description,
            settings,
            structure,
            phrases=sum(default.phrase_count for default in defaults),
        )
        try:
            await keep_within_quota(self._stories, self._quotas, account_id, story_id)
        except QuotaExceeded:
            await self._interactions.delete_for_story(story_id)
            raise
        await self._changes.announce(StoryCreated(account_id, story_id))
        return story_id

    async def list_stories(
        self, *, account_id: str, page: Page, only: frozenset[str] | None = None
    ) -> tuple[list[dict[str, Any]], int]:
        """A page of the account's stories (of those in `only`, a member's) and their
        total."""
        stories = self._stories
        return await stories.list(account_id, page, only), await stories.count(account_id, only)

    async def read(self, *, account_id: str, story_id: str) -> dict[str, Any]:
        story = await load_story(self._stories, account_id, story_id)
        structure = story.structure
        summaries = await self._interactions.summaries(story.id, structure.contexts)
        return {
            "id": story.id,
            "name": story.name,
            "description": story.description,
            "settings": {**asdict(story.settings), "published": story.published},
            "order": list(structure.order),
            "story": structure.tree(),
            "interactions": {
                interaction_id: {
                    "id": interaction_id,
                    "name": summaries[interaction_id].name,
                    "root": context.root,
                    "references": list(context.references),
                    "contextOut": list(context.context_out),
                    "webhook": summaries[interaction_id].webhook,
                }
                for interaction_id, context in structure.contexts.items()
            },
            "phrasesAwaitingMeaning": (
                0 if self._awaiting_meaning is None else self._awaiting_meaning(story.id)
            ),
        }

    async def update(
        self,
        *,
        account_id: str,
        story_id: str,
        name: str,
        description: str,
        settings: Mapping[str, Any] | None = None,
        order: list[str] | None = None,
        force: bool = False,
        may_publish: bool = True,
        by: Actor,
    ) -> StoryRecord:
        """`settings`: those to change, by their names in `Settings` (the others keep
        their values), and `published`: the version the public key answers from (None:
        the draft); `order`: the root interactions in a new order (None: it stays).
        Publishing a version whose tests fail needs `force`; the version then names
        `by` as who published it; a caller who may not publish (an editor) may send the
        published version back unchanged. The story as it was before the update."""
        changes = dict(settings or {})
        published = changes.pop("published", UNCHANGED)
        if published is not UNCHANGED and not may_publish:
            current = await load_story(self._stories, account_id, story_id)
            if published != current.published:
                raise Forbidden("publishing a version needs the publisher or owner role")
        if published is not UNCHANGED:
            await self._check_publishable(account_id, story_id, published, force)

        def edit(story: StoryRecord) -> tuple[Structure, StoryFields]:
            structure = story.structure if order is None else story.structure.reorder(order)
            changed = replace(story.settings, **changes)
            kept = story.published if published is UNCHANGED else published
            return structure, StoryFields(name, description, changed, kept)

        story, _ = await edit_story(self._stories, account_id, story_id, edit)
        if isinstance(published, str) and published != story.published:
            await self._versions.mark_published(account_id, story.id, published, by)
        language_changed = not story.settings.reads_like(replace(story.settings, **changes))
        await self._changes.announce(
            StoryEdited(account_id, story.id, language_changed=language_changed)
        )
        return story

    async def _check_publishable(
        self, account_id: str, story_id: str, version_id: Any, force: bool
    ) -> None:
        """A version of this story, whose tests pass (or `force`); None unpublishes."""
        if version_id is None:
            return
        story = await load_story(self._stories, account_id, story_id)
        if await self._versions.get(account_id, story.id, version_id) is None:
            raise NotFound(f"no version {version_id} of this story to publish")
        if force or self._publish_check is None or story.published == version_id:
            return
        failing = await self._publish_check.failing_tests(account_id, story.id, version_id)
        if failing:
            raise Conflict(
                f"{failing} of the story's tests fail on this version: "
                'send "force": true to publish it anyway'
            )

    async def delete(self, *, account_id: str, story_id: str) -> None:
        """The story and everything it owns, the story document last (docs/architecture.md
        "Deleting a story").

        Each step deletes what is left of the story in one collection, so a failure
        midway (a 5xx) leaves the story in place and deleting it again finishes the job.
        The order keeps the story whole as long as it can: first what only looks back at
        it, then what answering reads but can do without, then its interactions. Only a
        finished deletion is announced: its event in the outbox first, then this
        process's handlers, which hold nothing stored (`changes.HEARD_BY`)."""
        story = await load_story(self._stories, account_id, story_id)
        for owned in self._owned:
            await owned.delete_for_story(story.id)
        await self._sessions.delete_for_story(story.id)
        await self._connections.delete_for_story(account_id, story.id)
        await self._vectors.delete_for_story(story.id)
        await self._versions.delete_for_story(account_id, story.id)
        await self._interactions.delete_for_story(story.id)
        if not await self._stories.delete(account_id, story.id):
            raise NotFound(f"no story {story_id}")
        await self._changes.announce(StoryDeleted(account_id, story.id))
