"""A listener that keeps what a change feed announced, for tests to read."""

from bot_api.changes import Change


class Announced(list[Change]):
    async def changed(self, change: Change) -> None:
        self.append(change)
