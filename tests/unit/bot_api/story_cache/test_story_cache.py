"""The story cache: a cached story costs no read, an edit costs reading only what it
touched, and a story is never served older than the last change announced for it."""

import asyncio
import gc
import tracemalloc
from dataclasses import dataclass

import pytest
from bson import ObjectId

from bot_api.changes import ChangeFeed, Handler, StoryEdited
from bot_api.engine.story import CompiledStory
from bot_api.entities.service import EntityService
from bot_api.interactions.service import InteractionService
from bot_api.quotas import Quotas
from bot_api.stories.service import StoryService
from bot_api.story_cache.cache import StoryCache
from shared.config import Config
from shared.errors import NotFound
from support.bodies import entity as entity_body
from support.bodies import interaction_changes, new_interaction
from support.memory import Database
from support.story_service import interaction_service, story_service

ACCOUNT = "account-1"
QUOTAS = Quotas.from_config(Config(mongodb_url="", nats_url=""))
BUDGET = 2**30
OTHER_ACCOUNT = "account-2"


@dataclass
class Bot:
    """A story cache listening to the management services that write to its database."""

    database: Database
    cache: StoryCache
    stories: StoryService
    interactions: InteractionService
    entities: EntityService

    async def new_story(self, account_id: str = ACCOUNT, name: str = "Bot") -> str:
        return await self.stories.create(account_id=account_id, name=name, description="")

    async def new_story_with_phrases(self) -> str:
        story_id = await self.new_story()
        await self.new_interaction(story_id, "hello there", "good morning to you")
        return story_id

    async def new_interaction(self, story_id: str, *user_says: str) -> str:
        return await self.interactions.create(
            account_id=ACCOUNT,
            story_id=story_id,
            interaction=new_interaction({"name": "Greet", "userSays": list(user_says)}),
        )


@pytest.fixture
def bot() -> Bot:
    return new_bot(BUDGET)


def new_bot(budget_bytes: int) -> Bot:
    database = Database()
    feed = ChangeFeed()
    cache = StoryCache(
        stories=database.stories,
        interactions=database.interactions,
        entities=database.entities,
        versions=database.versions,
        vectors=None,
        budget_bytes=budget_bytes,
    )
    feed.handle(Handler.STORY_CACHE, cache)
    return Bot(
        database,
        cache,
        story_service(database, feed, QUOTAS),
        interaction_service(database, feed, QUOTAS),
        EntityService(
            stories=database.stories,
            interactions=database.interactions,
            entities=database.entities,
            changes=feed,
            quotas=QUOTAS,
        ),
    )


async def test_a_cached_story_is_served_without_reading_the_database(bot: Bot) -> None:
    story_id = await bot.new_story()
    first = await bot.cache.story(ACCOUNT, story_id)
    bot.database.journal.clear()

    again = await bot.cache.story(ACCOUNT, story_id)

    assert again is first
    assert bot.database.journal == []


async def test_an_edit_rereads_only_the_story_document_and_the_interactions_it_named(
    bot: Bot,
) -> None:
    story_id = await bot.new_story()
    greet = await bot.new_interaction(story_id, "hello there")
    await bot.new_interaction(story_id, "goodbye now")
    await bot.cache.story(ACCOUNT, story_id)
    await bot.interactions.update(
        account_id=ACCOUNT,
        story_id=story_id,
        interaction_id=greet,
        changes=interaction_changes({"userSays": ["hi"]}),
    )
    bot.database.journal.clear()

    edited = await bot.cache.story(ACCOUNT, story_id)

    assert bot.database.journal == [
        ("stories.get", story_id),
        ("interactions.find", story_id, (greet,)),
    ]
    assert edited.interactions[greet].user_says == ("hi",)


async def test_a_new_interaction_is_served_after_its_create(bot: Bot) -> None:
    story_id = await bot.new_story()
    await bot.cache.story(ACCOUNT, story_id)

    greet = await bot.new_interaction(story_id, "hello there")

    assert greet in (await bot.cache.story(ACCOUNT, story_id)).interactions


async def test_an_entity_change_refreshes_the_entities_of_that_accounts_stories_only(
    bot: Bot,
) -> None:
    size = {"name": "size", "entries": [{"value": "large", "synonyms": [{"value": "large"}]}]}
    size_id = await bot.entities.create(account_id=ACCOUNT, entity=entity_body(size))
    ours = await bot.new_story()
    await bot.new_interaction(ours, "a {{size:size}} pizza")
    theirs = await bot.new_story(OTHER_ACCOUNT)
    await bot.cache.story(ACCOUNT, ours)
    await bot.cache.story(OTHER_ACCOUNT, theirs)
    size["entries"] = [{"value": "large", "synonyms": [{"value": "large"}, {"value": "big"}]}]
    await bot.entities.update(account_id=ACCOUNT, entity_id=size_id, entity=entity_body(size))
    bot.database.journal.clear()

    refreshed = await bot.cache.story(ACCOUNT, ours)
    await bot.cache.story(OTHER_ACCOUNT, theirs)

    assert bot.database.journal == [("entities.list", ACCOUNT)]
    assert [m.value for m in refreshed.entities.find(["a", "big", "one"])] == ["large"]


async def test_a_deleted_story_is_no_longer_served(bot: Bot) -> None:
    story_id = await bot.new_story()
    await bot.cache.story(ACCOUNT, story_id)

    await bot.stories.delete(account_id=ACCOUNT, story_id=story_id)

    with pytest.raises(NotFound):
        await bot.cache.story(ACCOUNT, story_id)


async def test_a_change_during_a_compile_makes_the_compile_start_again(bot: Bot) -> None:
    story_id = await bot.new_story()
    added: list[str] = []

    async def an_interaction_is_added_meanwhile() -> None:
        added.append(await bot.new_interaction(story_id, "hello there"))

    bot.database.meanwhile("interactions.find", an_interaction_is_added_meanwhile)
    bot.database.journal.clear()

    compiled = await bot.cache.story(ACCOUNT, story_id)

    assert added[0] in compiled.interactions
    assert bot.database.operations().count("entities.list") == 2


async def test_without_a_story_id_the_accounts_oldest_story_answers(bot: Bot) -> None:
    with pytest.raises(NotFound):
        await bot.cache.story(ACCOUNT, None)

    oldest = await bot.new_story(name="first")
    assert (await bot.cache.story(ACCOUNT, None)).id == oldest

    newer = await bot.new_story(name="second")
    assert (await bot.cache.story(ACCOUNT, None)).id == oldest

    await bot.stories.delete(account_id=ACCOUNT, story_id=oldest)
    assert (await bot.cache.story(ACCOUNT, None)).id == newer


async def test_the_default_story_is_looked_up_once_until_a_story_changes(bot: Bot) -> None:
    await bot.new_story()
    await bot.cache.story(ACCOUNT, None)
    bot.database.journal.clear()

    await bot.cache.story(ACCOUNT, None)

    assert bot.database.journal == []


async def test_another_accounts_story_is_not_found_cached_or_not(bot: Bot) -> None:
    story_id = await bot.new_story()

    with pytest.raises(NotFound):
        await bot.cache.story(OTHER_ACCOUNT, story_id)
    await bot.cache.story(ACCOUNT, story_id)
    with pytest.raises(NotFound):
        await bot.cache.story(OTHER_ACCOUNT, story_id)


async def test_a_turn_holding_the_old_story_keeps_it_whole_while_an_edit_lands(
    bot: Bot,
) -> None:
    story_id = await bot.new_story()
    greet = await bot.new_interaction(story_id, "hello there")
    held = await bot.cache.story(ACCOUNT, story_id)

    await bot.interactions.delete(account_id=ACCOUNT, story_id=story_id, interaction_ids=[greet])
    current = await bot.cache.story(ACCOUNT, story_id)

    assert greet not in current.interactions
    assert greet not in current.structure
    assert greet in held.interactions
    assert greet in held.structure
    assert greet in held.positions


async def test_another_accounts_cached_story_is_looked_up_like_a_missing_one(bot: Bot) -> None:
    story_id = await bot.new_story()
    await bot.cache.story(ACCOUNT, story_id)
    reads: list[list[str]] = []

    for asked in (story_id, str(ObjectId())):
        bot.database.journal.clear()
        with pytest.raises(NotFound):
            await bot.cache.story(OTHER_ACCOUNT, asked)
        reads.append(bot.database.operations())

    assert reads == [["stories.get"], ["stories.get"]]


def traced_growth(before: int) -> int:
    gc.collect()
    return tracemalloc.get_traced_memory()[0] - before


async def test_unknown_story_ids_and_changes_of_stories_never_asked_for_leave_nothing_behind(
    bot: Bot,
) -> None:
    await bot.cache.story(ACCOUNT, await bot.new_story())
    asked = [str(ObjectId()) for _ in range(3000)]
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for story_id in asked:
            bot.database.journal.clear()
            with pytest.raises(NotFound):
                await bot.cache.story(ACCOUNT, story_id)
            await bot.cache.changed(StoryEdited(ACCOUNT, story_id))
        bot.database.journal.clear()
        growth = traced_growth(before)
    finally:
        tracemalloc.stop()

    assert growth < 64 * 1024


async def test_the_event_loop_runs_other_tasks_while_a_story_compiles(bot: Bot) -> None:
    story_id = await bot.new_story()
    await bot.new_interaction(story_id, "hello there", "good morning")
    ticks = 0
    compiled = False

    async def tick_until_compiled() -> None:
        nonlocal ticks
        while not compiled:
            ticks += 1
            await asyncio.sleep(0)

    ticker = asyncio.create_task(tick_until_compiled())
    await asyncio.sleep(0)
    started_at = ticks
    story = await bot.cache.story(ACCOUNT, story_id)
    ticks_while_compiling = ticks - started_at
    compiled = True
    await ticker

    assert ticks_while_compiling > 0
    assert len(story.interactions) == 3


async def test_past_the_memory_budget_the_least_recently_used_story_is_dropped() -> None:
    sizing = new_bot(BUDGET)
    await sizing.cache.story(ACCOUNT, await sizing.new_story_with_phrases())
    one_story = sizing.cache.size
    bot = new_bot(2 * one_story)
    first, second, third = [await bot.new_story_with_phrases() for _ in range(3)]
    await bot.cache.story(ACCOUNT, first)
    await bot.cache.story(ACCOUNT, second)
    await bot.cache.story(ACCOUNT, first)

    await bot.cache.story(ACCOUNT, third)

    assert one_story > 0
    assert bot.cache.size == 2 * one_story
    bot.database.journal.clear()
    await bot.cache.story(ACCOUNT, first)
    assert bot.database.journal == []
    await bot.cache.story(ACCOUNT, second)
    assert bot.database.operations()[0] == "stories.get"


async def test_a_story_alone_larger_than_the_budget_is_served_and_then_given_back() -> None:
    bot = new_bot(0)
    first, second = await bot.new_story_with_phrases(), await bot.new_story_with_phrases()

    assert (await bot.cache.story(ACCOUNT, first)).id == first
    assert (await bot.cache.story(ACCOUNT, second)).id == second

    assert 0 < bot.cache.size == (await bot.cache.story(ACCOUNT, second)).size_estimate()
    bot.database.journal.clear()
    await bot.cache.story(ACCOUNT, first)
    assert bot.database.operations()[0] == "stories.get"


async def test_an_edit_whose_refresh_fails_is_taken_in_by_the_next_query(bot: Bot) -> None:
    story_id = await bot.new_story()
    greet = await bot.new_interaction(story_id, "hello there")
    await bot.cache.story(ACCOUNT, story_id)
    await bot.interactions.update(
        account_id=ACCOUNT,
        story_id=story_id,
        interaction_id=greet,
        changes=interaction_changes({"userSays": ["hi"]}),
    )

    async def database_away() -> None:
        raise TimeoutError("the database did not answer in time")

    bot.database.meanwhile("interactions.find", database_away)
    with pytest.raises(TimeoutError):
        await bot.cache.story(ACCOUNT, story_id)

    edited = await bot.cache.story(ACCOUNT, story_id)
    assert edited.interactions[greet].user_says == ("hi",)


async def test_a_query_during_another_querys_refresh_waits_for_it_and_sees_the_edit(
    bot: Bot,
) -> None:
    """Two queries after an edit: the first takes the edit in; the second, arriving while
    the first still reads what the edit touched, must not be answered by the story from
    before the edit (seen as a new interaction intermittently answered by the fallback)."""
    story_id = await bot.new_story()
    await bot.cache.story(ACCOUNT, story_id)
    greet = await bot.new_interaction(story_id, "hello there")
    reading = asyncio.Event()
    second: list[asyncio.Task[CompiledStory]] = []

    async def another_query_arrives_meanwhile() -> None:
        second.append(asyncio.create_task(bot.cache.story(ACCOUNT, story_id)))
        await asyncio.sleep(0)
        reading.set()

    bot.database.meanwhile("interactions.find", another_query_arrives_meanwhile)

    first = await bot.cache.story(ACCOUNT, story_id)

    assert reading.is_set()
    assert greet in first.interactions
    assert greet in (await second[0]).interactions
