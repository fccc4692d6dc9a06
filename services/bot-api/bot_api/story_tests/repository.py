"""The conversation tests of each story (`conversation_tests`, one document per test, read
by story in the order they were made) and the last run of each story's tests
(`conversation_test_runs`, one document per story, replaced by each run), so any replica
answers `/tests/last`.

A test is stored in the shape the API and the story document write it
(`written_test`), which the export reuses.
"""

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from bot_api.domain.conversation_tests import (
    ConversationTest,
    Difference,
    Expectation,
    ScriptedTurn,
    StoredTest,
    TestResult,
    TestRun,
)
from bot_api.indexed import Indexed
from shared.ids import new_object_id, object_id
from shared.mongo import Database

EXPECTATION_FIELDS = (
    ("interaction", "interaction"),
    ("fallback", "fallback"),
    ("parameters", "parameters"),
    ("incomplete", "incomplete"),
    ("contexts", "contexts"),
    ("text", "text"),
    ("text_contains", "textContains"),
    ("answered_in", "answeredIn"),
)
"""Each field of an `Expectation` and its name in a document, in the order they are
checked."""


def written_test(test: ConversationTest) -> dict[str, Any]:
    """A test as the API and the story document write it."""
    return {"name": test.name, "turns": [_turn_document(turn) for turn in test.turns]}


def _turn_document(turn: ScriptedTurn) -> dict[str, Any]:
    written: dict[str, Any] = (
        {"query": turn.query} if turn.query is not None else {"trigger": turn.trigger}
    )
    if turn.language is not None:
        written["language"] = turn.language
    if turn.parameters:
        written["parameters"] = dict(turn.parameters)
    expect = {}
    for attribute, name in EXPECTATION_FIELDS:
        value = getattr(turn.expect, attribute)
        if value is not None:
            expect[name] = list(value) if name == "contexts" else value
    written["expect"] = expect
    return written


def conversation_test(document: Mapping[str, Any]) -> ConversationTest:
    """A test from what `written_test` wrote (or the API's schema loaded)."""
    return ConversationTest(
        name=document["name"], turns=tuple(_scripted_turn(t) for t in document["turns"])
    )


def _scripted_turn(document: Mapping[str, Any]) -> ScriptedTurn:
    expect = document.get("expect", {})
    values = {a: expect[n] for a, n in EXPECTATION_FIELDS if expect.get(n) is not None}
    if "contexts" in values:
        values["contexts"] = tuple(values["contexts"])
    return ScriptedTurn(
        expect=Expectation(**values),
        query=document.get("query"),
        trigger=document.get("trigger"),
        parameters=dict(document.get("parameters", {})),
        language=document.get("language"),
    )


def run_document(account_id: str, story_id: str, run: TestRun) -> dict[str, Any]:
    return {
        "_id": story_id,
        "accountId": account_id,
        "ranAt": run.ran_at,
        "turns": run.turns,
        "results": [result_document(r) for r in run.results],
    }


def result_document(result: TestResult) -> dict[str, Any]:
    """A test's result as a run stores it, and as the API shows it but for `difference`
    (`schemas.ResultSchema`): the one place a result is written."""
    written: dict[str, Any] = {
        "id": result.id,
        "name": result.name,
        "passed": result.passed,
        "broken": result.broken,
    }
    if result.turn is not None:
        written["turn"] = result.turn
    if result.difference is not None:
        written["difference"] = {
            "field": result.difference.field,
            "expected": result.difference.expected,
            "got": result.difference.got,
        }
    return written


def stored_run(document: Mapping[str, Any]) -> TestRun:
    return TestRun(
        results=tuple(_result(r) for r in document["results"]),
        turns=document["turns"],
        ran_at=document["ranAt"],
    )


def _result(document: Mapping[str, Any]) -> TestResult:
    difference = document.get("difference")
    return TestResult(
        id=document["id"],
        name=document["name"],
        passed=document["passed"],
        turn=document.get("turn"),
        difference=None if difference is None else Difference(**difference),
        broken=bool(document.get("broken")),
    )


class ConversationTestRepository:
    def __init__(self, database: Database) -> None:
        self.tests = database["conversation_tests"]
        self.runs = database["conversation_test_runs"]

    async def ensure_indexes(self) -> None:
        """A story's tests, read in the order they were made (ids grow with time; sorted
        after the read: nx-27017 refuses writes under an index naming `_id`, see
        docs/mongodb-compatibility.md, and a story holds at most MAX_TESTS_PER_STORY)."""
        await self.tests.create_index("storyId")

    async def insert(
        self, account_id: str, story_id: str, test: ConversationTest, test_id: str | None = None
    ) -> str:
        test_id = test_id or new_object_id()
        await self.tests.insert_one(
            {"_id": object_id(test_id), "accountId": account_id, "storyId": story_id}
            | written_test(test)
        )
        return test_id

    async def insert_many(
        self, account_id: str, story_id: str, tests: Sequence[ConversationTest]
    ) -> None:
        if tests:
            await self.tests.insert_many(
                [
                    {"_id": object_id(new_object_id()), "accountId": account_id}
                    | {"storyId": story_id}
                    | written_test(test)
                    for test in tests
                ]
            )

    async def list(self, account_id: str, story_id: str) -> list[StoredTest]:
        cursor = self.tests.find({"storyId": story_id, "accountId": account_id}).sort("_id", 1)
        return [_stored(document) async for document in cursor]

    async def count(self, account_id: str, story_id: str) -> int:
        return await self.tests.count_documents({"storyId": story_id, "accountId": account_id})

    async def get(self, account_id: str, story_id: str, test_id: str) -> StoredTest | None:
        oid = object_id(test_id)
        if oid is None:
            return None
        document = await self.tests.find_one(
            {"_id": oid, "storyId": story_id, "accountId": account_id}
        )
        return None if document is None else _stored(document)

    async def replace(
        self, account_id: str, story_id: str, test_id: str, test: ConversationTest
    ) -> bool:
        oid = object_id(test_id)
        if oid is None:
            return False
        result = await self.tests.replace_one(
            {"_id": oid, "storyId": story_id, "accountId": account_id},
            {"accountId": account_id, "storyId": story_id} | written_test(test),
        )
        return result.matched_count == 1

    async def delete(self, account_id: str, story_id: str, test_id: str) -> bool:
        oid = object_id(test_id)
        if oid is None:
            return False
        result = await self.tests.delete_one(
            {"_id": oid, "storyId": story_id, "accountId": account_id}
        )
        return result.deleted_count == 1

    async def save_run(self, account_id: str, story_id: str, run: TestRun) -> None:
        await self.runs.replace_one(
            {"_id": story_id}, run_document(account_id, story_id, run), upsert=True
        )

    async def last_run(self, account_id: str, story_id: str) -> TestRun | None:
        document = await self.runs.find_one({"_id": story_id, "accountId": account_id})
        return None if document is None else stored_run(document)

    async def delete_for_story(self, story_id: str) -> None:
        await self.tests.delete_many({"storyId": story_id})
        await self.runs.delete_one({"_id": story_id})


def _stored(document: Mapping[str, Any]) -> StoredTest:
    return StoredTest(str(document["_id"]), conversation_test(document))


class ConversationTestStore(Indexed, Protocol):
    """A story's conversation tests and their last run (story_tests/repository.py);
    every read and write names the account and the story."""

    async def insert(
        self, account_id: str, story_id: str, test: ConversationTest, test_id: str | None = None
    ) -> str:
        """The new test's id (`test_id` when given)."""

    async def insert_many(
        self, account_id: str, story_id: str, tests: Sequence[ConversationTest]
    ) -> None: ...

    async def list(self, account_id: str, story_id: str) -> list[StoredTest]:
        """The story's tests in the order they were made."""

    async def count(self, account_id: str, story_id: str) -> int: ...

    async def get(self, account_id: str, story_id: str, test_id: str) -> StoredTest | None: ...

    async def replace(
        self, account_id: str, story_id: str, test_id: str, test: ConversationTest
    ) -> bool:
        """False: the story has no such test."""

    async def delete(self, account_id: str, story_id: str, test_id: str) -> bool: ...

    async def save_run(self, account_id: str, story_id: str, run: TestRun) -> None:
        """Keep `run` as the story's last, in place of the one before."""

    async def last_run(self, account_id: str, story_id: str) -> TestRun | None: ...

    async def delete_for_story(self, story_id: str) -> None: ...
