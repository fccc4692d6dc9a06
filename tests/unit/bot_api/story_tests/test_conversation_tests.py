"""The conversation tests' use cases over in-memory repositories and a real story cache:
a run after each edit (debounced per story, the tests the edit broke marked), one run per
account at a time, the version seam, and a deleted story's tests gone with it."""

import asyncio
import threading
from collections.abc import AsyncIterator

import pytest
from prometheus_client import REGISTRY

from bot_api.changes import ChangeFeed, Handler
from bot_api.domain.conversation_tests import (
    MAX_TESTS_PER_STORY,
    ConversationTest,
    Difference,
    Expectation,
    ScriptedTurn,
)
from bot_api.domain.interactions import STANDARD, Interaction
from bot_api.domain.settings import Settings
from bot_api.interactions.service import InteractionService
from bot_api.stories.service import StoryService
from bot_api.story_cache.cache import StoryCache
from bot_api.story_tests.service import STARTED_RUNS, ConversationTestService
from integration.bot_api.story_tests.memory import ConversationTestsInMemory
from shared.audit import DEVELOPER_TOKEN, Actor
from shared.errors import Conflict, NotFound, ValidationFailed
from shared.fair_work import FairWork
from support.held_jobs import held, until
from support.memory import Database

BY = Actor(DEVELOPER_TOKEN, "developer", "Developer token")

ACCOUNT = "a" * 24
OTHER = "b" * 24
LARGE_RUN_TESTS = 25
"""Tests of 20 turns in a large run: a run of 100 is 4 times as long and no different."""


def asks(query: str, name: str) -> ConversationTest:
    return ConversationTest(f"{query} → {name}", (ScriptedTurn(Expectation(name), query=query),))


@pytest.fixture
async def tests(
    database: Database, feed: ChangeFeed, work: FairWork, saved_tests: ConversationTestsInMemory
) -> AsyncIterator[tuple[ConversationTestService, ConversationTestsInMemory]]:
    store = saved_tests
    cache = StoryCache(
        stories=database.stories,
        interactions=database.interactions,
        entities=database.entities,
        versions=database.versions,
        vectors=None,
        budget_bytes=2**30,
    )
    feed.handle(Handler.STORY_CACHE, cache)
    service = ConversationTestService(
        story_records=database.stories,
        tests=store,
        stories=cache,
        work=work,
        debounce_seconds=0.05,
    )
    feed.handle(Handler.CONVERSATION_TESTS, service)
    yield service, store
    await service.close()


async def pizza(
    stories: StoryService, interactions: InteractionService, account_id: str = ACCOUNT
) -> tuple[str, str]:
    story_id = await stories.create(account_id=account_id, name="Pizza", description="")
    order = await interactions.create(
        account_id=account_id,
        story_id=story_id,
        interaction=Interaction(
            id="",
            kind=STANDARD,
            name="Order",
            user_says=("i want a pizza", "a pizza please"),
            triggers=("order",),
        ),
    )
    return story_id, order


async def test_an_edit_runs_the_story_s_tests_and_marks_what_it_broke(
    tests: tuple[ConversationTestService, ConversationTestsInMemory],
    stories: StoryService,
    interactions: InteractionService,
) -> None:
    service, _ = tests
    story_id, order = await pizza(stories, interactions)
    passing = await service.create(
        account_id=ACCOUNT, story_id=story_id, test=asks("i want a pizza", "Order")
    )
    await service.idle()
    first = await service.last(account_id=ACCOUNT, story_id=story_id)
    assert [(r.id, r.passed, r.broken) for r in first.results] == [(passing, True, False)]

    await interactions.update(
        account_id=ACCOUNT,
        story_id=story_id,
        interaction_id=order,
        changes={"user_says": ("opening hours",)},
    )
    await service.idle()
    after = await service.last(account_id=ACCOUNT, story_id=story_id)
    assert [(r.passed, r.broken) for r in after.results] == [(False, True)]
    assert after.results[0].difference is not None
    assert after.results[0].difference.got == "Fallback"


async def test_a_burst_of_edits_runs_the_tests_once(
    tests: tuple[ConversationTestService, ConversationTestsInMemory],
    stories: StoryService,
    interactions: InteractionService,
) -> None:
    service, store = tests
    story_id, _ = await pizza(stories, interactions)
    await service.idle()
    runs: list[str] = []
    saving = store.save_run

    async def counted(account_id: str, story: str, run: object) -> None:
        runs.append(story)
        await saving(account_id, story, run)  # type: ignore[arg-type]

    store.save_run = counted  # type: ignore[method-assign]
    counted_before = REGISTRY.get_sample_value("parley_test_runs_after_edits_total")
    await service.create(
        account_id=ACCOUNT, story_id=story_id, test=asks("a pizza please", "Order")
    )
    for name in ("Pizza 2", "Pizza 3", "Pizza 4"):
        await stories.update(
            account_id=ACCOUNT, story_id=story_id, name=name, description="", by=BY
        )
    await service.idle()
    assert runs == [story_id]
    counted_after = REGISTRY.get_sample_value("parley_test_runs_after_edits_total")
    assert counted_after == counted_before + 1  # type: ignore[operator]


async def test_an_edit_in_a_request_names_the_story_whose_tests_it_runs(
    tests: tuple[ConversationTestService, ConversationTestsInMemory],
    stories: StoryService,
    interactions: InteractionService,
) -> None:
    del tests  # listening to the feed is all it does here
    story_id, _ = await pizza(stories, interactions)
    started: set[str] = set()
    token = STARTED_RUNS.set(started)
    try:
        await stories.update(
            account_id=ACCOUNT, story_id=story_id, name="Pizzeria", description="", by=BY
        )
    finally:
        STARTED_RUNS.reset(token)
    assert started == {story_id}


async def test_a_run_asked_for_while_the_account_runs_one_is_refused(
    tests: tuple[ConversationTestService, ConversationTestsInMemory],
    stories: StoryService,
    interactions: InteractionService,
) -> None:
    service, _ = tests
    story_id, _ = await pizza(stories, interactions)
    await service.create(
        account_id=ACCOUNT, story_id=story_id, test=asks("a pizza please", "Order")
    )
    first = asyncio.create_task(service.run(account_id=ACCOUNT, story_id=story_id))
    await asyncio.sleep(0)
    with pytest.raises(Conflict):
        await service.run(account_id=ACCOUNT, story_id=story_id)
    assert (await first).passed == 1
    assert await service.failing_tests(ACCOUNT, story_id, None) == 0


async def test_a_version_the_story_does_not_have_is_not_found(
    tests: tuple[ConversationTestService, ConversationTestsInMemory],
    stories: StoryService,
    interactions: InteractionService,
) -> None:
    service, _ = tests
    story_id, _ = await pizza(stories, interactions)
    await service.create(account_id=ACCOUNT, story_id=story_id, test=asks("hi", "Welcome"))
    with pytest.raises(NotFound):
        await service.run(account_id=ACCOUNT, story_id=story_id, version_id="c" * 24)


async def test_tests_are_the_story_s_own_and_bounded(
    tests: tuple[ConversationTestService, ConversationTestsInMemory],
    stories: StoryService,
    interactions: InteractionService,
) -> None:
    service, store = tests
    story_id, _ = await pizza(stories, interactions)
    with pytest.raises(NotFound):
        await service.create(account_id=OTHER, story_id=story_id, test=asks("hi", "Welcome"))
    for _ in range(MAX_TESTS_PER_STORY):
        await store.insert(ACCOUNT, story_id, asks("hi", "Welcome"))
    with pytest.raises(Conflict):
        await service.create(account_id=ACCOUNT, story_id=story_id, test=asks("hi", "Welcome"))


async def test_a_deleted_story_takes_its_tests_and_last_run_along(
    tests: tuple[ConversationTestService, ConversationTestsInMemory],
    stories: StoryService,
    interactions: InteractionService,
) -> None:
    service, store = tests
    story_id, _ = await pizza(stories, interactions)
    await service.create(
        account_id=ACCOUNT, story_id=story_id, test=asks("a pizza please", "Order")
    )
    await service.idle()
    assert await store.last_run(ACCOUNT, story_id) is not None
    await stories.delete(account_id=ACCOUNT, story_id=story_id)
    assert store.tests == {} and store.runs == {}


async def test_another_account_s_small_run_goes_between_the_tests_of_a_large_run(
    tests: tuple[ConversationTestService, ConversationTestsInMemory],
    work: FairWork,
    stories: StoryService,
    interactions: InteractionService,
) -> None:
    service, store = tests
    large, _ = await pizza(stories, interactions)
    long_test = ConversationTest(
        "twenty turns",
        tuple(ScriptedTurn(Expectation("Order"), query="a pizza please") for _ in range(20)),
    )
    for _ in range(LARGE_RUN_TESTS):
        await store.insert(ACCOUNT, large, long_test)
    small, _ = await pizza(stories, interactions, OTHER)
    await service.create(account_id=OTHER, story_id=small, test=asks("a pizza please", "Order"))
    await service.idle()

    # The account's job on the thread, held, stands for a test of the large run under way:
    # on a quiet machine the run ended before a poll saw it under way (5 failures in 6).
    started: list[str] = []
    release = threading.Event()
    holding = asyncio.create_task(work.run(ACCOUNT, held(started, "held", release)))
    await until(lambda: started == ["held"])
    running = asyncio.create_task(service.run(account_id=ACCOUNT, story_id=large))
    await until(lambda: work.waiting() == 1)
    other = asyncio.create_task(service.run(account_id=OTHER, story_id=small))
    await until(lambda: work.waiting() == 2)
    release.set()
    assert (await other).passed == 1
    assert not running.done()
    await holding
    run = await running
    assert (run.passed, run.turns) == (LARGE_RUN_TESTS, LARGE_RUN_TESTS * 20)


async def test_an_edit_that_removes_a_trigger_a_test_sends_fails_that_test_in_the_last_run(
    tests: tuple[ConversationTestService, ConversationTestsInMemory],
    stories: StoryService,
    interactions: InteractionService,
) -> None:
    service, _ = tests
    story_id, order = await pizza(stories, interactions)
    triggered = ConversationTest(
        "order by trigger", (ScriptedTurn(Expectation("Order"), trigger="order"),)
    )
    await service.create(account_id=ACCOUNT, story_id=story_id, test=triggered)
    await service.idle()
    assert (await service.last(account_id=ACCOUNT, story_id=story_id)).passed == 1

    await interactions.update(
        account_id=ACCOUNT, story_id=story_id, interaction_id=order, changes={"triggers": ()}
    )
    await service.idle()
    last = await service.last(account_id=ACCOUNT, story_id=story_id)
    assert [(r.passed, r.broken, r.turn) for r in last.results] == [(False, True, 0)]
    assert last.results[0].difference == Difference("trigger", "order", None)
    ran = await service.run(account_id=ACCOUNT, story_id=story_id)
    assert [(r.passed, r.difference) for r in ran.results] == [(False, last.results[0].difference)]


async def test_a_test_names_only_the_languages_its_story_speaks_and_loses_one_it_drops(
    tests: tuple[ConversationTestService, ConversationTestsInMemory],
    stories: StoryService,
    interactions: InteractionService,
) -> None:
    """A turn's language and an answer's must be the story's, when the test is saved or
    replaced (a 400 naming each place, nothing stored); a story edit that drops one fails
    the tests saying it, in the run after the edit."""
    service, store = tests
    story_id = await stories.create(
        account_id=ACCOUNT,
        name="Pizza",
        description="",
        settings=Settings(languages=("de",)),
    )
    german = ConversationTest(
        "german",
        (
            ScriptedTurn(
                Expectation(fallback=True, answered_in="en"), query="eine Pizza", language="de"
            ),
        ),
    )
    test_id = await service.create(account_id=ACCOUNT, story_id=story_id, test=german)
    await service.idle()
    assert (await service.last(account_id=ACCOUNT, story_id=story_id)).passed == 1

    italian = ConversationTest(
        "italian",
        (
            ScriptedTurn(Expectation(answered_in="fr"), query="una pizza", language="it"),
            ScriptedTurn(Expectation(answered_in="de"), query="eine Pizza"),
        ),
    )
    for write in (
        service.create(account_id=ACCOUNT, story_id=story_id, test=italian),
        service.replace(account_id=ACCOUNT, story_id=story_id, test_id=test_id, test=italian),
    ):
        with pytest.raises(ValidationFailed) as refused:
            await write
        assert refused.value.errors == {
            "turns": {
                "0": {
                    "language": ["'it' is not a language of this story: it speaks en, de."],
                    "expect": {
                        "answeredIn": ["'fr' is not a language of this story: it speaks en, de."]
                    },
                }
            }
        }
    assert [t.test for t in await store.list(ACCOUNT, story_id)] == [german]

    await stories.update(
        account_id=ACCOUNT,
        story_id=story_id,
        name="Pizza",
        description="",
        settings={"languages": ()},
        by=BY,
    )
    await service.idle()
    last = await service.last(account_id=ACCOUNT, story_id=story_id)
    assert [(r.passed, r.broken, r.difference) for r in last.results] == [
        (False, True, Difference("language", "de", "en"))
    ]
