"""Stories, and the one way to change a story's structure safely under concurrency."""

import uuid
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import asdict, replace
from typing import Any, Protocol, TypeVar

from bot_api.changes import ChangeFeed, StoryCreated, StoryDeleted, StoryEdited
from bot_api.conversations.analytics import AnalyticsStore
from bot_api.conversations.sweep import LIMIT as SWEEP_LIMIT
from bot_api.domain.interactions import default_interactions
from bot_api.domain.settings import Settings
from bot_api.domain.structure import Structure
from bot_api.management.quotas import AccountQuotas
from bot_api.storage import Stores, new_object_id
from bot_api.storage.protocols import (
    ConversationTestStore,
    InboxSnapshotStore,
    InboxStore,
    VectorStore,
)
from bot_api.storage.stories import StoryFields, StoryRecord
from shared.errors import Conflict, NotFound
from shared.pages import Page

MAX_CONCURRENT_RETRIES = 20
DEFAULT_SETTINGS = Settings()

T = TypeVar("T")


async def load_story(stores: Stores, account_id: str, story_id: str) -> StoryRecord:
    story = await stores.stories.get(account_id, story_id)
    if story is None:
        raise NotFound(f"no story {story_id}")
    return story


Edit = Callable[[StoryRecord], tuple[Structure, StoryFields | None]]


async def edit_story(
    stores: Stores, account_id: str, story_id: str, edit: Edit
) -> tuple[StoryRecord, Structure]:
    """Apply `edit` to the newest story and store its result in one conditional write.

    `edit` returns the new structure and the story fields to set (None: they stay); a
    concurrent writer makes the write miss, and the edit is applied again to what that
    writer left.
    Returns the story the stored edit started from and the structure it stored.
    """

    async def attempt(story: StoryRecord) -> tuple[StoryRecord, Structure] | None:
        structure, fields = edit(story)
        return (story, structure) if await stores.stories.update(story, fields, structure) else None

    return await until_written(stores, account_id, story_id, attempt)


async def until_written(
    stores: Stores,
    account_id: str,
    story_id: str,
    attempt: Callable[[StoryRecord], Awaitable[T | None]],
    story: StoryRecord | None = None,
) -> T:
    """`attempt` on `story` (if given) or a fresh read of it, until its conditional write
    lands (it returns what to return) or MAX_CONCURRENT_RETRIES writes have missed."""
    for _ in range(MAX_CONCURRENT_RETRIES):
        story = story or await load_story(stores, account_id, story_id)
        written = await attempt(story)
        if written is not None:
            return written
        story = None
    raise Conflict("the story is being changed by others; try again")


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
        stores: Stores,
        tests: ConversationTestStore,
        inbox: InboxStore,
        inbox_snapshots: InboxSnapshotStore,
        analytics: AnalyticsStore,
        vectors: VectorStore,
        changes: ChangeFeed,
        quotas: AccountQuotas,
        publish_check: PublishCheck | None = None,
        awaiting_meaning: Callable[[str], int] | None = None,
    ) -> None:
        """`tests`, `inbox`, `inbox_snapshots`, `analytics`, `vectors`: the rest of what a
        story owns, which
        its deletion takes with it; `awaiting_meaning`: how many of a story's phrases wait
        for their sentence vector (`PhraseVectorService.waiting`; none without the
        semantic stage)."""
        self._stores = stores
        self._tests = tests
        self._inbox = inbox
        self._inbox_snapshots = inbox_snapshots
        self._analytics = analytics
        self._vectors = vectors
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
        if new_id is not None and await self._stores.stories.get(account_id, new_id):
            return new_id
        quotas = await self._quotas.of(account_id)
        quotas.check_stories(await self._stores.stories.count(account_id) + 1)
        defaults = [
            replace(default, id=str(uuid.uuid4()))
            for default in default_interactions(settings.language)
        ]
        structure = Structure.for_new_story(i.id for i in defaults)
        # Interactions first: they are invisible until the story that lists them exists.
        story_id = new_id or new_object_id()
        await self._stores.interactions.insert_many(account_id, story_id, defaults)
        await self._stores.stories.insert(
            story_id,
            account_id,
            name,
            description,
            settings,
            structure,
            phrases=sum(len(default.user_says) for default in defaults),
        )
        await self._changes.announce(StoryCreated(account_id, story_id))
        return story_id

    async def list_stories(
        self, *, account_id: str, page: Page
    ) -> tuple[list[dict[str, Any]], int]:
        """A page of the account's stories and their total."""
        stories = self._stores.stories
        return await stories.list(account_id, page), await stories.count(account_id)

    async def read(self, *, account_id: str, story_id: str) -> dict[str, Any]:
        story = await load_story(self._stores, account_id, story_id)
        structure = story.structure
        summaries = await self._stores.interactions.summaries(story.id, structure.contexts)
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
    ) -> None:
        """`settings`: those to change, by their names in `Settings` (the others keep
        their values), and `published`: the version the public key answers from (None:
        the draft); `order`: the root interactions in a new order (None: it stays).
        Publishing a version whose tests fail needs `force`."""
        changes = dict(settings or {})
        published = changes.pop("published", UNCHANGED)
        if published is not UNCHANGED:
            await self._check_publishable(account_id, story_id, published, force)

        def edit(story: StoryRecord) -> tuple[Structure, StoryFields]:
            structure = story.structure if order is None else story.structure.reorder(order)
            changed = replace(story.settings, **changes)
            kept = story.published if published is UNCHANGED else published
            return structure, StoryFields(name, description, changed, kept)

        story, _ = await edit_story(self._stores, account_id, story_id, edit)
        language_changed = not story.settings.reads_like(replace(story.settings, **changes))
        await self._changes.announce(
            StoryEdited(account_id, story.id, language_changed=language_changed)
        )

    async def _check_publishable(
        self, account_id: str, story_id: str, version_id: Any, force: bool
    ) -> None:
        """A version of this story, whose tests pass (or `force`); None unpublishes."""
        if version_id is None:
            return
        story = await load_story(self._stores, account_id, story_id)
        if await self._stores.versions.get(account_id, story.id, version_id) is None:
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
        story = await load_story(self._stores, account_id, story_id)
        stores = self._stores
        await self._tests.delete_for_story(story.id)
        await self._inbox.delete_for_story(story.id)
        await self._inbox_snapshots.delete_for_story(story.id)
        await self._analytics.delete_for_story(story.id)
        await stores.turns.delete_for_story(story.id)
        await stores.sessions.delete_for_story(story.id)
        await stores.connections.delete_for_story(account_id, story.id)
        while await self._vectors.sweep(story.id, set(), SWEEP_LIMIT) == SWEEP_LIMIT:
            pass
        await stores.versions.delete_for_story(account_id, story.id)
        await stores.interactions.delete_for_story(story.id)
        if not await stores.stories.delete(account_id, story.id):
            raise NotFound(f"no story {story_id}")
        await self._changes.announce(StoryDeleted(account_id, story.id))
