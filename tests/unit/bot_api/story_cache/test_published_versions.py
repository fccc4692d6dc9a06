"""The story cache and published versions: a version compiles once from its document, an
edit of the draft leaves it be, a publish change drops it, and both share the budget."""

from collections.abc import Iterator
from dataclasses import dataclass, replace

import pytest

from bot_api.changes import ChangeFeed, Handler
from bot_api.domain.responses import Image, Text, TextChoice
from bot_api.engine.conversation import respond
from bot_api.engine.turn import SessionState, Turn
from bot_api.interactions.service import InteractionService
from bot_api.quotas import Quotas
from bot_api.stories.service import StoryService
from bot_api.story_cache.cache import StoryCache
from bot_api.transfer.service import StoryTransfer
from bot_api.versions.schemas import StoryDocuments
from bot_api.versions.service import VersionService
from integration.bot_api.knowledge.memory import KnowledgeInMemory
from integration.bot_api.story_tests.memory import ConversationTestsInMemory
from shared.audit import DEVELOPER_TOKEN, Actor
from shared.config import Config
from shared.fair_work import FairWork
from support.bodies import interaction_changes, new_interaction
from support.memory import Database
from support.story_service import interaction_service, story_service

BY = Actor(DEVELOPER_TOKEN, "developer", "Developer token")

ACCOUNT = "account-1"
QUOTAS = Quotas.from_config(Config(mongodb_url="", nats_url=""))


@dataclass
class Bot:
    database: Database
    cache: StoryCache
    stories: StoryService
    interactions: InteractionService
    versions: VersionService

    async def publish(self, story_id: str, version_id: str | None) -> None:
        await self.stories.update(
            account_id=ACCOUNT,
            story_id=story_id,
            name="Bot",
            description="",
            settings={"published": version_id},
            by=BY,
        )

    async def freeze(self, story_id: str) -> str:
        return (
            await self.versions.create(account_id=ACCOUNT, story_id=story_id, note="", by=BY)
        ).id

    def reads_since(self, mark: int) -> list[str]:
        return [call[0] for call in self.database.journal[mark:]]


@pytest.fixture
def bot() -> Iterator[Bot]:
    database = Database()
    feed = ChangeFeed()
    documents = StoryDocuments()
    cache = StoryCache(
        stories=database.stories,
        interactions=database.interactions,
        entities=database.entities,
        versions=database.versions,
        vectors=None,
        budget_bytes=2**30,
        read_version=documents.read,
    )
    feed.handle(Handler.STORY_CACHE, cache)
    knowledge = KnowledgeInMemory()
    transfer = StoryTransfer(
        stories=database.stories,
        interactions=database.interactions,
        entities=database.entities,
        connections=database.connections,
        changes=feed,
        quotas=QUOTAS,
        tests=ConversationTestsInMemory(),
        knowledge=knowledge,
    )
    work = FairWork(1, "transfer")
    yield Bot(
        database,
        cache,
        story_service(database, feed, QUOTAS),
        interaction_service(database, feed, QUOTAS),
        VersionService(
            stories=database.stories,
            interactions=database.interactions,
            entities=database.entities,
            versions=database.versions,
            changes=feed,
            quotas=QUOTAS,
            transfer=transfer,
            documents=documents,
            work=work,
            knowledge=knowledge,
        ),
    )
    work.close()


async def story_with_greeting(bot: Bot) -> tuple[str, str]:
    story_id = await bot.stories.create(account_id=ACCOUNT, name="Bot", description="")
    greet = await bot.interactions.create(
        account_id=ACCOUNT,
        story_id=story_id,
        interaction=new_interaction({"name": "Greet", "userSays": ["hello there"]}),
    )
    return story_id, greet


async def test_the_published_version_answers_the_public_key_with_the_draft_s_ids(bot: Bot) -> None:
    story_id, greet = await story_with_greeting(bot)
    version_id = await bot.freeze(story_id)
    await bot.interactions.update(
        account_id=ACCOUNT,
        story_id=story_id,
        interaction_id=greet,
        changes=interaction_changes({"userSays": ["good evening"]}),
    )
    await bot.publish(story_id, version_id)

    public = await bot.cache.story(ACCOUNT, story_id, published=True)
    draft = await bot.cache.story(ACCOUNT, story_id)

    assert public is not draft and public.id == draft.id == story_id
    assert public.interactions[greet].user_says == ("hello there",)
    assert draft.interactions[greet].user_says == ("good evening",)
    assert bot.cache.size == public.size_estimate() + draft.size_estimate()


async def test_an_edit_of_the_draft_leaves_the_published_compile_be(bot: Bot) -> None:
    story_id, greet = await story_with_greeting(bot)
    await bot.publish(story_id, await bot.freeze(story_id))
    public = await bot.cache.story(ACCOUNT, story_id, published=True)

    await bot.interactions.update(
        account_id=ACCOUNT,
        story_id=story_id,
        interaction_id=greet,
        changes=interaction_changes({"userSays": ["good evening"]}),
    )
    mark = len(bot.database.journal)

    assert await bot.cache.story(ACCOUNT, story_id, published=True) is public
    assert bot.reads_since(mark) == ["stories.get"]  # which version is published, once
    assert await bot.cache.story(ACCOUNT, story_id, published=True) is public
    assert bot.reads_since(mark) == ["stories.get"]


async def test_a_publish_change_drops_the_version_no_longer_published(bot: Bot) -> None:
    story_id, _ = await story_with_greeting(bot)
    first, second = await bot.freeze(story_id), await bot.freeze(story_id)
    await bot.publish(story_id, first)
    await bot.cache.story(ACCOUNT, story_id, published=True)
    size_of_one = bot.cache.size

    await bot.publish(story_id, second)
    await bot.cache.story(ACCOUNT, story_id, published=True)
    assert bot.cache.size == size_of_one

    await bot.publish(story_id, first)
    mark = len(bot.database.journal)
    await bot.cache.story(ACCOUNT, story_id, published=True)
    assert "versions.get" in bot.reads_since(mark)  # compiled again


async def test_without_a_published_version_the_public_key_gets_the_draft(bot: Bot) -> None:
    story_id, _ = await story_with_greeting(bot)
    await bot.freeze(story_id)

    draft = await bot.cache.story(ACCOUNT, story_id)

    assert await bot.cache.story(ACCOUNT, story_id, published=True) is draft


async def test_a_version_frozen_before_the_address_and_blank_checks_still_compiles(
    bot: Bot,
) -> None:
    """Blocks stored before an address or a blank text was refused: the version freezing
    them compiles, and what they would send wrong is left out as it is sent."""
    story_id, greet = await story_with_greeting(bot)
    stored = await bot.database.interactions.get(story_id, greet)
    assert stored is not None
    blocks = (TextChoice(("  ",)), Image("not a url at all"), TextChoice(("Hi!",)))
    await bot.database.interactions.replace_content(story_id, replace(stored, responses=blocks))
    await bot.publish(story_id, await bot.freeze(story_id))

    public = await bot.cache.story(ACCOUNT, story_id, published=True)

    assert public.interactions[greet].responses == blocks
    _, outcome = respond(public, SessionState(), Turn(query="hello there"))
    assert outcome.fulfillment == (Text("Hi!"),)
