"""The `sessions` collection: conversation state per (story, session)."""

from pymongo.asynchronous.database import AsyncDatabase


class SessionRepository:
    def __init__(self, database: AsyncDatabase) -> None:
        self.collection = database["sessions"]

    async def ensure_indexes(self) -> None:
        await self.collection.create_index([("storyId", 1), ("sessionId", 1)], unique=True)

    async def delete_for_story(self, story_id: str) -> None:
        await self.collection.delete_many({"storyId": story_id})
