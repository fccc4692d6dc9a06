"""Compiles shared between accounts: a small story's compile ends while a large one of
another account is under way, an account reads one story's interactions at a time and
compiles nothing meanwhile, and
a query that cannot wait for a cold compile is answered from the part compiled so far,
the next one by the whole story.

The compiles run in a one-thread `FairWork` of the test's, held by a job of a third
account where the test needs the compile to stop between two chunks; a chunk is one
phrase, so a story of a few interactions is compiled in a few chunks."""

import asyncio
import threading
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from bot_api.changes import ChangeFeed, Handler
from bot_api.interactions.service import InteractionService
from bot_api.quotas import Quotas
from bot_api.stories.service import StoryService
from bot_api.story_cache import compiler
from bot_api.story_cache.cache import StoryCache
from shared.config import Config
from shared.fair_work import FairWork
from support.bodies import new_interaction
from support.memory import Database
from support.story_service import interaction_service, story_service
from tests.support.held_jobs import WAIT, held, until

LARGE, SMALL, OTHER = "account-large", "account-small", "account-other"
QUOTAS = Quotas.from_config(Config(mongodb_url="", nats_url=""))


@dataclass
class Bot:
    database: Database
    fair: FairWork
    cache: StoryCache
    stories: StoryService
    interactions: InteractionService

    async def story(self, account_id: str, *phrases: str) -> str:
        """A story with an interaction for each phrase."""
        story_id = await self.stories.create(account_id=account_id, name="Bot", description="")
        for n, said in enumerate(phrases):
            await self.interactions.create(
                account_id=account_id,
                story_id=story_id,
                interaction=new_interaction({"name": f"I{n}", "userSays": [said]}),
            )
        return story_id

    def a_slow_read(self) -> tuple[asyncio.Event, asyncio.Event]:
        """The next read of interactions waits: set once it began, and to let it go on."""
        reading, release = asyncio.Event(), asyncio.Event()

        async def slow() -> None:
            reading.set()
            await release.wait()

        self.database.meanwhile("interactions.find", slow)
        return reading, release


@pytest.fixture
def bot(monkeypatch: pytest.MonkeyPatch) -> Iterator[Bot]:
    monkeypatch.setattr(compiler, "CHUNK_PHRASES", 1)
    database = Database()
    feed = ChangeFeed()
    fair = FairWork(1, "test-compile")
    cache = StoryCache(
        stories=database.stories,
        interactions=database.interactions,
        entities=database.entities,
        versions=database.versions,
        vectors=None,
        budget_bytes=2**30,
        request_budget=0.0,
        work=fair,
    )
    feed.handle(Handler.STORY_CACHE, cache)
    yield Bot(
        database,
        fair,
        cache,
        story_service(database, feed, QUOTAS),
        interaction_service(database, feed, QUOTAS),
    )
    fair.close()


async def test_a_small_storys_compile_ends_while_a_large_one_of_another_account_goes_on(
    bot: Bot,
) -> None:
    large = await bot.story(LARGE, *(f"large phrase number {n}" for n in range(20)))
    small = await bot.story(SMALL, "hello there")
    started: list[str] = []
    release = threading.Event()
    holding = asyncio.create_task(bot.fair.run(OTHER, held(started, "other", release)))
    await until(lambda: started == ["other"])
    large_compile = asyncio.create_task(bot.cache.story(LARGE, large))
    await until(lambda: bot.fair.waiting() == 1)
    small_compile = asyncio.create_task(bot.cache.story(SMALL, small))
    await until(lambda: bot.fair.waiting() == 2)

    release.set()
    small_story = await asyncio.wait_for(small_compile, WAIT)

    assert not large_compile.done()
    assert "hello" in small_story.index.known_words()
    large_story = await asyncio.wait_for(large_compile, WAIT)
    assert {f"{n}" for n in range(20)} <= set(large_story.index.known_words())
    await holding


async def test_a_query_during_a_cold_compile_is_answered_from_the_part_compiled(
    bot: Bot,
) -> None:
    story_id = await bot.story(LARGE, "hello there", "order a pizza")
    started: list[str] = []
    first, second = threading.Event(), threading.Event()
    holding = asyncio.create_task(bot.fair.run(OTHER, held(started, "first", first)))
    await until(lambda: started == ["first"])
    whole = asyncio.create_task(bot.cache.story(LARGE, story_id))
    await until(lambda: bot.fair.waiting() == 1)
    holding_again = asyncio.create_task(bot.fair.run(OTHER, held(started, "second", second)))
    await until(lambda: bot.fair.waiting() == 2)
    first.set()  # the first chunk (Welcome) is compiled, then the thread is held again
    await until(lambda: started == ["first", "second"] and bot.fair.waiting() == 1)

    hurried = asyncio.create_task(bot.cache.story(LARGE, story_id, hurried=True))
    await until(lambda: bot.fair.waiting() == 2)
    second.set()  # the second chunk (Fallback and "hello there"), then the partial story
    partial = await asyncio.wait_for(hurried, WAIT)

    assert "hello" in partial.index.known_words()
    assert "pizza" not in partial.index.known_words()
    assert len(partial.interactions) == 4, "every interaction is there, fewer are indexed"
    assert not whole.done()
    compiled = await asyncio.wait_for(whole, WAIT)
    assert "pizza" in compiled.index.known_words()
    later = await bot.cache.story(LARGE, story_id, hurried=True)
    assert later is compiled
    await asyncio.gather(holding, holding_again)


async def test_an_account_reads_one_storys_interactions_at_a_time_and_others_never_wait(
    bot: Bot,
) -> None:
    first, second = await bot.story(LARGE, "hello there"), await bot.story(LARGE, "good day")
    small = await bot.story(SMALL, "hello there")
    reading, release = bot.a_slow_read()
    first_compile = asyncio.create_task(bot.cache.story(LARGE, first))
    await asyncio.wait_for(reading.wait(), WAIT)
    second_compile = asyncio.create_task(bot.cache.story(LARGE, second))
    bot.database.journal.clear()

    await asyncio.wait_for(bot.cache.story(SMALL, small), WAIT)

    read = [call[1] for call in bot.database.journal if call[0] == "interactions.find"]
    assert read == [small], "the large account's second story waits for its first read"
    assert not second_compile.done()
    release.set()
    await asyncio.wait_for(asyncio.gather(first_compile, second_compile), WAIT)


async def test_an_accounts_compiles_wait_while_it_reads_another_story_and_others_never_wait(
    bot: Bot,
) -> None:
    """Compiling holds the interpreter and slowed the account's reads threefold (1 s a
    story at the limits alone, 2.3 s beside a compile): its reads go first, so each of
    its cold stories is read, and can answer from a part, within a query's budget."""
    compiled_first = await bot.story(LARGE, *(f"large phrase number {n}" for n in range(20)))
    read_later = await bot.story(LARGE, "good day")
    small = await bot.story(SMALL, "hello there")
    started: list[str] = []
    release = threading.Event()
    holding = asyncio.create_task(bot.fair.run(OTHER, held(started, "other", release)))
    await until(lambda: started == ["other"])
    first_compile = asyncio.create_task(bot.cache.story(LARGE, compiled_first))
    await until(lambda: bot.fair.waiting() == 1)
    reading, read = bot.a_slow_read()
    second_compile = asyncio.create_task(bot.cache.story(LARGE, read_later))
    await asyncio.wait_for(reading.wait(), WAIT)
    release.set()
    await asyncio.wait_for(bot.cache.story(SMALL, small), WAIT)
    await until(lambda: not bot.fair.running() and not bot.fair.waiting())
    before = await bot.cache.story(LARGE, compiled_first, hurried=True)
    await bot.fair.run(OTHER, lambda: None)
    after = await bot.cache.story(LARGE, compiled_first, hurried=True)

    assert not first_compile.done()
    assert len(before.index.known_words()) == len(after.index.known_words()) < 20
    read.set()
    compiled = await asyncio.wait_for(first_compile, WAIT)
    assert {f"{n}" for n in range(20)} <= set(compiled.index.known_words())
    await asyncio.wait_for(second_compile, WAIT)
    await holding
