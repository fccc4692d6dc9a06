"""The inbox's clusterings, shared and bounded: requests for a story share the one in
progress (its turns read once, one clustering, as /metrics counts them), a change of the
story's inbox starts a new one, and stories take turns."""

import asyncio
from datetime import UTC, datetime, timedelta

from prometheus_client import generate_latest

from bot_api.engine.clustering import Cluster, Miss
from bot_api.inbox.clustering import WHOLE_READ_SECONDS, InboxClusterings
from integration.bot_api.inbox.memory import InboxSnapshotsInMemory
from support.metrics import sample
from tests.support.held_jobs import until

T0 = datetime(2026, 11, 25, 9, 0, tzinfo=UTC)
CLUSTERINGS = "parley_inbox_seconds_count"
VERSION = (0.65, None)
"""What a story's misses are read for: its `reviewBelow`, no vectors."""


class Turns:
    """A story's unresolved turns, read only once `arrive` is set; counts its reads."""

    def __init__(self, *texts: str) -> None:
        self.misses = [Miss(f"t{n}", text, T0) for n, text in enumerate(texts)]
        self.reads = 0
        self.arrive = asyncio.Event()

    async def read(self, since: datetime | None) -> list[Miss]:
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
        asyncio.create_task(clusterings.clusters("story-1", VERSION, turns.read)) for _ in range(5)
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
    first = asyncio.create_task(clusterings.clusters("story-1", VERSION, turns.read))
    await asyncio.sleep(0)
    clusterings.changed("story-1")
    after_change = asyncio.create_task(clusterings.clusters("story-1", VERSION, turns.read))
    other_review = asyncio.create_task(clusterings.clusters("story-1", (0.7, None), turns.read))
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
        await clusterings.clusters(story_id, (review_below, None), turns.read)
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


class Recorded:
    """A story's unresolved turns as the repository reads them: all, or those since."""

    def __init__(self, *texts: str) -> None:
        self.misses: list[Miss] = []
        self.reads: list[datetime | None] = []
        self.read_once = asyncio.Event()
        self.record(*texts)

    def record(self, *texts: str) -> None:
        start = len(self.misses)
        self.misses += [
            Miss(f"t{start + n}", text, T0 + timedelta(minutes=start + n))
            for n, text in enumerate(texts)
        ]

    def resolve(self, turn_ids: list[str]) -> None:
        self.misses = [m for m in self.misses if m.turn_id not in turn_ids]

    async def read(self, since: datetime | None) -> list[Miss]:
        self.reads.append(since)
        self.read_once.set()
        found = [m for m in self.misses if since is None or m.at >= since]
        return sorted(found, key=lambda m: m.at, reverse=True)


async def test_the_next_request_reads_only_the_turns_recorded_since_and_clusters_when_new() -> None:
    """Issue 29: every inbox read and action read the story's 12,000 turns again (5.6 s
    and 6.2 s on nx-27017)."""
    now = [0.0]
    clusterings = InboxClusterings(clock=lambda: now[0])
    turns = Recorded("where is my order", "refund please")
    before = clusterings_counted()
    first = await clusterings.clusters("story-1", VERSION, turns.read)
    assert await clusterings.clusters("story-1", VERSION, turns.read) == first
    assert turns.reads == [None, T0 + timedelta(minutes=1)]
    assert clusterings_counted() - before == 1

    turns.record("wher is my order")
    found = await clusterings.clusters("story-1", VERSION, turns.read)
    assert texts(found) == [("wher is my order", "where is my order"), ("refund please",)]
    assert clusterings_counted() - before == 2

    resolved = [m.turn_id for m in found[0].members]
    turns.resolve(resolved)
    clusterings.resolved("story-1", resolved)
    assert texts(await clusterings.clusters("story-1", VERSION, turns.read)) == [("refund please",)]
    assert None not in turns.reads[1:]

    await clusterings.close()


async def test_a_minute_after_a_whole_read_one_starts_beyond_the_request_that_sees_it_due() -> None:
    """The first read of 12,000 misses took 2.9 s on nx-27017, the reads after it 0.7 s:
    the whole read due once a minute (another replica's actions are seen) is not waited
    for, the request is answered from the turns kept and those recorded since."""
    now = [0.0]
    clusterings = InboxClusterings(clock=lambda: now[0])
    turns = Recorded("where is my order", "refund please")
    await clusterings.clusters("story-1", VERSION, turns.read)
    turns.resolve(["t1"])  # by another replica: this one still keeps the turn
    now[0] = WHOLE_READ_SECONDS

    answered = await clusterings.clusters("story-1", VERSION, turns.read)
    assert sorted(texts(answered)) == [("refund please",), ("where is my order",)]
    assert turns.reads[:2] == [None, T0 + timedelta(minutes=1)]

    await until(lambda: turns.reads[2:] == [None])
    refund = next(c for c in answered if c.texts == ("refund please",))
    await until(lambda: clusterings.shown("story-1", VERSION, refund.id) is None)
    assert texts(await clusterings.clusters("story-1", VERSION, turns.read)) == [
        ("where is my order",)
    ]
    assert turns.reads[3:] == [T0], "read whole once a minute"
    await clusterings.close()


async def test_turns_resolved_while_they_were_clustered_are_read_whole_again() -> None:
    clusterings = InboxClusterings()
    turns = Recorded("where is my order")
    clustering = asyncio.create_task(clusterings.clusters("story-1", VERSION, turns.read))
    await turns.read_once.wait()  # read, and now being clustered
    turns.resolve(["t0"])
    clusterings.resolved("story-1", ["t0"])
    assert texts(await clustering) == [("where is my order",)]
    assert await clusterings.clusters("story-1", VERSION, turns.read) == []
    assert turns.reads == [None, None]  # what the first read found was not kept
    await clusterings.close()


async def test_a_cluster_shown_is_found_for_its_action_without_a_read_until_turns_leave() -> None:
    clusterings = InboxClusterings()
    turns = Turns("where is my order", "wher is my order", "refund please")
    turns.arrive.set()
    assert clusterings.shown("story-1", VERSION, "any") is None
    shown = await clusterings.clusters("story-1", VERSION, turns.read)
    order = shown[0]
    assert clusterings.shown("story-1", VERSION, order.id) == order
    assert turns.reads == 1
    assert clusterings.shown("story-1", (0.5, None), order.id) is None, "another review score"
    assert clusterings.shown("story-1", VERSION, "no such cluster") is None
    clusterings.resolved("story-1", [m.turn_id for m in order.members])
    assert clusterings.shown("story-1", VERSION, shown[1].id) is None
    await clusterings.close()


class Wall:
    """A wall clock the test moves, beside the monotonic one."""

    def __init__(self) -> None:
        self.seconds = 0.0

    def monotonic(self) -> float:
        return self.seconds

    def now(self) -> datetime:
        return T0 + timedelta(days=1, seconds=self.seconds)


def process(snapshots: InboxSnapshotsInMemory, wall: Wall) -> InboxClusterings:
    """The clusterings of one bot-api process, over the database's snapshots."""
    return InboxClusterings(snapshots, clock=wall.monotonic, now=wall.now)


async def test_another_process_answers_from_the_snapshot_and_the_turns_recorded_since() -> None:
    """Issue 29: the first read of a story's 12,000 misses in a process read every turn
    (3.2 s on nx-27017, the goal 1 s); a whole read's turns are now its snapshot."""
    snapshots, wall = InboxSnapshotsInMemory(), Wall()
    first, second = process(snapshots, wall), process(snapshots, wall)
    turns = Recorded("where is my order", "wher is my order", "refund please")
    read_whole = await first.clusters("story-1", VERSION, turns.read)
    await until(lambda: "story-1" in snapshots.payloads)
    turns.reads.clear()

    assert await second.clusters("story-1", VERSION, turns.read) == read_whole
    assert turns.reads == [T0 + timedelta(minutes=2)], "only the turns since the newest"
    turns.record("refund pls")
    found = await second.clusters("story-1", VERSION, turns.read)
    assert sorted(sorted(c.texts) for c in found) == [
        ["refund please", "refund pls"],
        ["wher is my order", "where is my order"],
    ]
    assert None not in turns.reads
    await first.close()
    await second.close()


async def test_a_snapshot_is_not_taken_for_another_version_and_leaves_out_expired_turns() -> None:
    snapshots, wall = InboxSnapshotsInMemory(), Wall()
    first = process(snapshots, wall)
    turns = Recorded("where is my order")
    turns.misses.append(
        Miss(
            "t-old",
            "refund please",
            T0 - timedelta(minutes=1),
            expires_at=wall.now() + timedelta(seconds=30),
        )
    )
    await first.clusters("story-1", VERSION, turns.read)
    await until(lambda: "story-1" in snapshots.payloads)
    await first.close()

    wall.seconds = 40.0
    turns.reads.clear()
    later = process(snapshots, wall)
    assert texts(await later.clusters("story-1", VERSION, turns.read)) == [("where is my order",)]
    assert None not in turns.reads
    other = process(snapshots, wall)
    await other.clusters("story-1", (0.7, None), turns.read)
    assert turns.reads[-1] is None, "another review score reads whole"
    await later.close()
    await other.close()


async def test_a_change_of_the_inbox_while_its_turns_are_read_whole_writes_no_snapshot() -> None:
    """An action on another replica while this one reads: what it read may hold turns the
    action resolved, so it must not become the snapshot."""
    snapshots, wall = InboxSnapshotsInMemory(), Wall()
    first = process(snapshots, wall)
    turns = Turns("where is my order")
    reading = asyncio.create_task(first.clusters("story-1", VERSION, turns.read))
    await until(lambda: turns.reads == 1)
    await snapshots.invalidate("story-1")
    turns.arrive.set()
    await reading
    await first.close()  # its snapshot's write ended
    assert "story-1" not in snapshots.payloads

    await process(snapshots, wall).clusters("story-1", VERSION, turns.read)
    assert turns.reads == 2, "read whole again"
    await until(lambda: "story-1" in snapshots.payloads)


async def test_a_snapshot_older_than_a_minute_answers_and_a_whole_read_starts_beyond() -> None:
    snapshots, wall = InboxSnapshotsInMemory(), Wall()
    first = process(snapshots, wall)
    turns = Recorded("where is my order", "refund please")
    await first.clusters("story-1", VERSION, turns.read)
    await until(lambda: "story-1" in snapshots.payloads)
    await first.close()
    turns.resolve(["t1"])  # after the snapshot, without telling it (it is one minute old)
    turns.reads.clear()

    wall.seconds = WHOLE_READ_SECONDS
    later = process(snapshots, wall)
    answered = await later.clusters("story-1", VERSION, turns.read)
    assert len(answered) == 2, "answered from the snapshot"
    await until(lambda: None in turns.reads)
    refund = next(c for c in answered if c.texts == ("refund please",))
    await until(lambda: later.shown("story-1", VERSION, refund.id) is None)
    assert texts(await later.clusters("story-1", VERSION, turns.read)) == [("where is my order",)]
    await later.close()


async def test_a_read_ahead_keeps_the_turns_and_writes_the_snapshot_without_clustering() -> None:
    """A busy story's read ahead, every 2,000 misses, clustered its turns (10,000 in about
    0.65 s of the clustering thread) for nobody: the next person's read clusters them with
    the turns recorded since anyway."""
    snapshots, wall = InboxSnapshotsInMemory(), Wall()
    clusterings = process(snapshots, wall)
    turns = Recorded("where is my order", "refund please")
    before = clusterings_counted()
    await clusterings.read_ahead("story-1", VERSION, turns.read)
    await until(lambda: "story-1" in snapshots.payloads)
    turns.record("wher is my order")
    await clusterings.read_ahead("story-1", VERSION, turns.read)  # the turns since, kept
    assert turns.reads == [None, T0 + timedelta(minutes=1)]
    assert clusterings_counted() == before

    found = await clusterings.clusters("story-1", VERSION, turns.read)
    assert sorted(sorted(c.texts) for c in found) == [
        ["refund please"],
        ["wher is my order", "where is my order"],
    ]
    assert turns.reads[2:] == [T0 + timedelta(minutes=2)], "no whole read: the kept turns"
    assert clusterings_counted() - before == 1
    assert await clusterings.clusters("story-1", VERSION, turns.read) == found
    assert clusterings_counted() - before == 1, "kept with its clusters"
    await clusterings.close()
