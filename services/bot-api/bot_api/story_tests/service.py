"""A story's conversation tests (docs/tests.md): kept, run on demand, and run again after
every edit of the story, the last such run kept so any replica answers `/tests/last`.

A run replays the tests against a compiled story (`engine.replay`) off the event loop,
one test a job (shared/fair_work.py), one run per account at a time: between two tests
of a large run, another account's job takes the thread, so a 1-test run of another story
never waits for a run of 100 × 20 turns. A run asked for while its account runs one
answers 409; a run after an edit (debounced per story) and the check of a publish wait
their turn.
"""

import asyncio
import functools
import logging
from collections.abc import Sequence
from contextvars import ContextVar
from typing import Any, Protocol

from bot_api.changes import Change, StoryCreated, StoryDeleted, StoryEdited
from bot_api.domain.conversation_tests import (
    MAX_TESTS_PER_STORY,
    ConversationTest,
    StoredTest,
    TestRun,
    unspoken,
)
from bot_api.domain.settings import Settings
from bot_api.engine.remembering import RememberingEncoder
from bot_api.engine.replay import replay
from bot_api.engine.semantic import Encoders
from bot_api.engine.story import CompiledStory
from bot_api.metrics import TEST_RUNS_AFTER_EDITS
from bot_api.stories.repository import StoryStore
from bot_api.stories.service import load_story
from bot_api.story_tests.repository import ConversationTestStore
from shared.budget import beyond_request
from shared.errors import Conflict, NotFound, ValidationFailed
from shared.fair_work import FairWork
from shared.timeutil import utcnow

log = logging.getLogger(__name__)

EDIT_DEBOUNCE_SECONDS = 0.5
"""How long after a story's last edit its tests run. One gesture in the console is a
burst of writes (an interaction saved, then the story's order; a test saved from the
chat) landing within about 100 ms of each other: half a second runs the tests once per
gesture, and the result is there before a person has turned to the Tests page."""

RUN_BUDGET_SECONDS = 60.0
"""How long `POST …/tests/run` may take, beyond the request budget (10 s): the largest run
a story may hold (100 tests × 20 turns) took 6.3 s at the defaults the first time, its
messages encoded one by one (docs/benchmarks.md "Conversation tests"), and two to three
times that on a loaded 2-core machine, where it answered 503 at 10 s (issue 29). A run
is one per account at a time and shares its thread fairly, so the wait costs others
nothing."""
CLOSE_WAIT_SECONDS = 5.0
"""How long a shutdown waits for the runs under way: the most a story may hold (2,000
turns) runs in under 1 s."""

STARTED_RUNS: ContextVar[set[str] | None] = ContextVar("started_runs", default=None)
"""Set by the HTTP layer for each request: the stories whose tests an edit made in it
will run, so its answer can link to the result."""


def refuse_unspoken(test: ConversationTest, settings: Settings) -> None:
    """A 400 naming each turn's `language` and `expect.answeredIn` the story does not
    speak (docs/tests.md)."""
    tree: dict[str, Any] = {}
    for place, message in unspoken(test, settings.spoken()):
        node = tree
        for part in place[:-1]:
            node = node.setdefault(str(part), {})
        node[str(place[-1])] = [message]
    if tree:
        raise ValidationFailed.of_tree(tree)


class CompiledStories(Protocol):
    """The story cache (story_cache/cache.py): a story's draft, compiled and current,
    and its frozen versions (docs/versions.md)."""

    async def story(self, account_id: str, story_id: str | None) -> CompiledStory: ...

    async def version(self, account_id: str, story_id: str, version_id: str) -> CompiledStory:
        """NotFound when the story has no such version."""


class ConversationTestService:
    def __init__(
        self,
        *,
        story_records: StoryStore,
        tests: ConversationTestStore,
        stories: CompiledStories,
        work: FairWork,
        encoders: Encoders | None = None,
        debounce_seconds: float = EDIT_DEBOUNCE_SECONDS,
        limit: float | None = None,
    ) -> None:
        self._story_records = story_records
        self._tests = tests
        self._stories = stories
        self._work = work
        self._limit = limit
        """Seconds one test's replay may take."""
        self._encoders = encoders
        self._remembering: dict[str, RememberingEncoder] = {}
        """By model id: what the runs encode, remembered for the next run."""
        self._debounce = debounce_seconds
        self._runs: dict[str, asyncio.Lock] = {}
        """Held by each account's run under way (one small lock per account that ran)."""
        self._due: dict[tuple[str, str], asyncio.Task[None]] = {}
        """The run after the last edit of each story, waiting or running."""
        self._waiting: set[asyncio.Task[None]] = set()
        """Those of them still waiting out the debounce: only these are cancelled (by a
        newer edit, or at shutdown). One that has begun is let finish: it is under a
        second's work, its replay would go on in the worker thread anyway, and the newer
        run waits for that thread behind it."""

    async def close(self) -> None:
        """Abandon the runs after edits still waiting; give those under way a few
        seconds to end (a run takes well under one), then abandon them too."""
        tasks = list(self._due.values())
        for task in self._waiting:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks, timeout=CLOSE_WAIT_SECONDS)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    async def idle(self) -> None:
        """Wait until the runs after edits are done."""
        while self._due:
            await asyncio.gather(*list(self._due.values()), return_exceptions=True)

    async def list_tests(self, *, account_id: str, story_id: str) -> list[StoredTest]:
        await load_story(self._story_records, account_id, story_id)
        return await self._tests.list(account_id, story_id)

    async def create(
        self,
        *,
        account_id: str,
        story_id: str,
        test: ConversationTest,
        new_id: str | None = None,
    ) -> str:
        story = await load_story(self._story_records, account_id, story_id)
        refuse_unspoken(test, story.settings)
        if await self._tests.count(account_id, story_id) >= MAX_TESTS_PER_STORY:
            raise Conflict(f"a story holds at most {MAX_TESTS_PER_STORY} tests")
        test_id = await self._tests.insert(account_id, story_id, test, new_id)
        self.edited(account_id, story_id)
        return test_id

    async def read(self, *, account_id: str, story_id: str, test_id: str) -> StoredTest:
        stored = await self._tests.get(account_id, story_id, test_id)
        if stored is None:
            raise NotFound(f"no test {test_id} in story {story_id}")
        return stored

    async def replace(
        self, *, account_id: str, story_id: str, test_id: str, test: ConversationTest
    ) -> None:
        story = await load_story(self._story_records, account_id, story_id)
        refuse_unspoken(test, story.settings)
        if not await self._tests.replace(account_id, story_id, test_id, test):
            raise NotFound(f"no test {test_id} in story {story_id}")
        self.edited(account_id, story_id)

    async def delete(self, *, account_id: str, story_id: str, test_id: str) -> None:
        if not await self._tests.delete(account_id, story_id, test_id):
            raise NotFound(f"no test {test_id} in story {story_id}")
        self.edited(account_id, story_id)

    async def run(
        self, *, account_id: str, story_id: str, version_id: str | None = None
    ) -> TestRun:
        """The story's tests run against its draft, or against one of its versions; a
        409 while the account runs tests already."""
        if self._lock(account_id).locked():
            raise Conflict("a test run of this account is under way; run again when it ends")
        return await self._run(account_id, story_id, version_id)

    async def failing_tests(self, account_id: str, story_id: str, version_id: str | None) -> int:
        """How many of the story's tests fail against the version (None: the draft): what
        publishing a version checks."""
        return (await self._run(account_id, story_id, version_id)).failed

    async def last(self, *, account_id: str, story_id: str) -> TestRun:
        await load_story(self._story_records, account_id, story_id)
        run = await self._tests.last_run(account_id, story_id)
        if run is None:
            raise NotFound(f"the tests of story {story_id} have not run after an edit yet")
        return run

    async def changed(self, change: Change) -> None:
        """A story was made or edited here: its tests run a little later; deleted: its
        pending run is called off (its tests went with it, `StoryService.delete`). (An
        entity's edit runs no test: it may touch every story of the account, and their
        next edit runs them.)"""
        match change:
            case StoryCreated() | StoryEdited():
                self.edited(change.account_id, change.story_id)
            case StoryDeleted():
                task = self._due.pop((change.account_id, change.story_id), None)
                if task is not None:
                    task.cancel()

    def edited(self, account_id: str, story_id: str) -> None:
        """Run the story's tests once no edit has come for `EDIT_DEBOUNCE_SECONDS`."""
        started = STARTED_RUNS.get()
        if started is not None:
            started.add(story_id)
        key = (account_id, story_id)
        earlier = self._due.pop(key, None)
        if earlier in self._waiting:
            earlier.cancel()
        task = beyond_request(self._after_edit(account_id, story_id))
        self._waiting.add(task)
        self._due[key] = task
        task.add_done_callback(lambda done: self._forget(key, done))

    def _forget(self, key: tuple[str, str], task: "asyncio.Task[None]") -> None:
        self._waiting.discard(task)
        if self._due.get(key) is task:
            del self._due[key]

    async def _after_edit(self, account_id: str, story_id: str) -> None:
        await asyncio.sleep(self._debounce)
        current = asyncio.current_task()
        if current is not None:
            self._waiting.discard(current)
        try:
            tests = await self._tests.list(account_id, story_id)
            previous = await self._tests.last_run(account_id, story_id)
            if not tests and previous is None:
                return
            TEST_RUNS_AFTER_EDITS.inc()
            run = await self._run(account_id, story_id, None, tests)
            await self._tests.save_run(account_id, story_id, run.after(previous))
        except NotFound:
            return  # the story was deleted meanwhile
        except Exception:
            log.exception("the tests of story %s could not run after its edit", story_id)

    async def _run(
        self,
        account_id: str,
        story_id: str,
        version_id: str | None,
        tests: Sequence[StoredTest] | None = None,
    ) -> TestRun:
        async with self._lock(account_id):
            if version_id is None:
                story = await self._stories.story(account_id, story_id)
            else:
                await load_story(self._story_records, account_id, story_id)
                story = await self._stories.version(account_id, story_id, version_id)
            if tests is None:
                tests = await self._tests.list(account_id, story_id)
            now, encoder = utcnow(), self._encoder_for(story)
            runs = [
                await self._work.run(
                    account_id,
                    functools.partial(replay, story, [test], now, encoder),
                    limit=self._limit,
                )
                for test in tests
            ]
            return TestRun.joined(runs, now)

    def _encoder_for(self, story: CompiledStory) -> RememberingEncoder | None:
        encoder = None if self._encoders is None else self._encoders.for_story(story.settings)
        if encoder is None:
            return None
        return self._remembering.setdefault(encoder.model_id, RememberingEncoder(encoder))

    def _lock(self, account_id: str) -> asyncio.Lock:
        return self._runs.setdefault(account_id, asyncio.Lock())
