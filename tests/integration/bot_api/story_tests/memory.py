"""ConversationTestsInMemory, the conversation tests and their runs in memory, held to
ConversationTestRepository's contract by test_conversation_test_repository.py beside it.
"""

from collections.abc import Sequence
from dataclasses import dataclass

from bson import ObjectId

from bot_api.domain.conversation_tests import ConversationTest, StoredTest, TestRun


@dataclass(frozen=True)
class _OwnedTest:
    account_id: str
    story_id: str
    test: ConversationTest


class ConversationTestsInMemory:
    """Tests by id (in the order they were made) and the last run of each story, as
    `ConversationTestRepository` keeps them."""

    def __init__(self) -> None:
        self.tests: dict[str, _OwnedTest] = {}
        self.runs: dict[str, tuple[str, TestRun]] = {}

    async def ensure_indexes(self) -> None:
        """Nothing to index in memory."""

    async def insert(
        self, account_id: str, story_id: str, test: ConversationTest, test_id: str | None = None
    ) -> str:
        test_id = test_id or str(ObjectId())
        self.tests[test_id] = _OwnedTest(account_id, story_id, test)
        return test_id

    async def insert_many(
        self, account_id: str, story_id: str, tests: Sequence[ConversationTest]
    ) -> None:
        for test in tests:
            await self.insert(account_id, story_id, test)

    async def list(self, account_id: str, story_id: str) -> list[StoredTest]:
        return [
            StoredTest(test_id, owned.test)
            for test_id, owned in sorted(self.tests.items())
            if (owned.account_id, owned.story_id) == (account_id, story_id)
        ]

    async def count(self, account_id: str, story_id: str) -> int:
        return len(await self.list(account_id, story_id))

    async def get(self, account_id: str, story_id: str, test_id: str) -> StoredTest | None:
        owned = self.tests.get(test_id.lower())
        if owned is None or (owned.account_id, owned.story_id) != (account_id, story_id):
            return None
        return StoredTest(test_id.lower(), owned.test)

    async def replace(
        self, account_id: str, story_id: str, test_id: str, test: ConversationTest
    ) -> bool:
        if await self.get(account_id, story_id, test_id) is None:
            return False
        self.tests[test_id.lower()] = _OwnedTest(account_id, story_id, test)
        return True

    async def delete(self, account_id: str, story_id: str, test_id: str) -> bool:
        if await self.get(account_id, story_id, test_id) is None:
            return False
        del self.tests[test_id.lower()]
        return True

    async def save_run(self, account_id: str, story_id: str, run: TestRun) -> None:
        self.runs[story_id] = (account_id, run)

    async def last_run(self, account_id: str, story_id: str) -> TestRun | None:
        owner, run = self.runs.get(story_id, (None, None))
        return run if owner == account_id else None

    async def delete_for_story(self, story_id: str) -> None:
        for test_id in [i for i, owned in self.tests.items() if owned.story_id == story_id]:
            del self.tests[test_id]
        self.runs.pop(story_id, None)
