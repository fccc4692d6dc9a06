"""The inbox's clusterings, shared and bounded: requests for a story share the one in
progress (its turns read once, one clustering, as /metrics counts them), a change of the
story's inbox starts a new one, and stories take turns."""

import asyncio
from datetime import UTC, datetime

from prometheus_client import generate_latest

from bot_api.engine.clustering import Cluster, Miss
from bot_api.management.inbox_clustering import InboxClusterings
from support.metrics import sample

T0 = datetime(2026, 11, 25, 9, 0, tzinfo=UTC)
CLUSTERINGS = "parley_inbox_seconds_count"


class Turns:
    """A story's unresolved turns, read only once `arrive` is set; counts its reads."""

    def __init__(self, *texts: str) -> None:
        self.misses = [Miss(f"t{n}", text, T0) for n, text in enumerate(texts)]
        self.reads = 0
        self.arrive = asyncio.Event()

    async def read(self) -> list[Miss]:
        self.reads += 1
        await self.arrive.wait()
        return self.misses


def clusterings_counted() -> float:
    return sample(generate_latest().decode(), CLUSTERINGS, part="clustering")


def texts(found: list[Cluster]) -> list[tuple[str, ...]]:
    return [c.texts for c in found]


async def test_concurrent_requests_for_a_story_share_one_read_and_one_clustering() -> None:
    clusterings = InboxClusterings()
    turns = Turns("where is my order", "wher is my order", "refund please")
    before = clusterings_counted()
    requests = [
        asyncio.create_task(clusterings.clusters("story-1", 0.65, turns.read)) for _ in range(5)
    ]
    await asyncio.sleep(0)
    turns.arrive.set()
    answers = await asyncio.gather(*requests)
    assert turns.reads == 1
    assert clusterings_counted() - before == 1
    assert texts(answers[0]) == [("wher is my order", "where is my order"), ("refund please",)]
    assert all(a == answers[0] for a in answers)
    await clusterings.close()


async def test_a_change_of_the_inbox_or_of_review_below_starts_a_new_clustering() -> None:
    clusterings = InboxClusterings()
    turns = Turns("where is my order")
    first = asyncio.create_task(clusterings.clusters("story-1", 0.65, turns.read))
    await asyncio.sleep(0)
    clusterings.changed("story-1")
    after_change = asyncio.create_task(clusterings.clusters("story-1", 0.65, turns.read))
    other_review = asyncio.create_task(clusterings.clusters("story-1", 0.7, turns.read))
    await asyncio.sleep(0)
    turns.arrive.set()
    await asyncio.gather(first, after_change, other_review)
    assert turns.reads == 3
    await clusterings.close()


async def test_stories_take_turns_and_every_request_finishes() -> None:
    clusterings = InboxClusterings()
    busy, quiet = Turns("where is my order"), Turns("refund please")
    finished: list[str] = []

    async def ask(story_id: str, turns: Turns, review_below: float) -> None:
        await clusterings.clusters(story_id, review_below, turns.read)
        finished.append(story_id)

    requests = [asyncio.create_task(ask("busy", busy, 0.5 + n / 100)) for n in range(4)]
    requests.append(asyncio.create_task(ask("quiet", quiet, 0.65)))
    await asyncio.sleep(0)
    busy.arrive.set()
    quiet.arrive.set()
    await asyncio.gather(*requests)
    assert busy.reads == 4 and quiet.reads == 1
    assert "quiet" in finished[:2]
    await clusterings.close()
