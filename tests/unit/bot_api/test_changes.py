"""The change feed: every listener hears every change once, in the order announced."""

from bot_api.changes import (
    Change,
    ChangeFeed,
    EntitiesEdited,
    StoryCreated,
    StoryDeleted,
    StoryEdited,
)


class Listener:
    def __init__(self, name: str, heard: list[tuple[str, Change]]) -> None:
        self._name = name
        self._heard = heard

    async def changed(self, change: Change) -> None:
        self._heard.append((self._name, change))


async def test_every_listener_hears_each_change_once_in_order() -> None:
    heard: list[tuple[str, Change]] = []
    feed = ChangeFeed()
    feed.listen(Listener("cache", heard))
    feed.listen(Listener("publisher", heard))
    changes: list[Change] = [
        StoryCreated("account-1", "story-1"),
        StoryEdited("account-1", "story-1", frozenset({"greet"})),
        EntitiesEdited("account-1"),
        StoryDeleted("account-1", "story-1"),
    ]

    for change in changes:
        await feed.announce(change)

    assert heard == [(name, c) for c in changes for name in ("cache", "publisher")]


async def test_a_listener_hears_only_what_is_announced_after_it_joined() -> None:
    feed = ChangeFeed()
    heard: list[tuple[str, Change]] = []

    await feed.announce(EntitiesEdited("account-1"))
    feed.listen(Listener("late", heard))
    await feed.announce(EntitiesEdited("account-2"))

    assert heard == [("late", EntitiesEdited("account-2"))]
