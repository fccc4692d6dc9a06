"""The inbox's snapshots, against the embedded MongoDB and the in-memory stand-in held to
the same contract: a whole read's misses read back as written, in one part or several; a
change of the inbox drops the story's snapshot and refuses the write of a read begun
before it; each story's own."""

import json
import struct
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import pytest
from bson import ObjectId
from pymongo import AsyncMongoClient

from bot_api.engine.clustering import Miss
from bot_api.inbox.snapshots import (
    MAX_SNAPSHOT_BYTES,
    PART_BYTES,
    InboxSnapshot,
    InboxSnapshotRepository,
    encoded,
)
from integration.bot_api.inbox.memory import InboxSnapshotsInMemory
from shared.config import Config

T0 = datetime(2026, 11, 25, 9, 0, 0, 123000, tzinfo=UTC)
STORY, OTHER = str(ObjectId()), str(ObjectId())
VERSION = (0.65, "model-1")


@pytest.fixture(params=["mongodb", "memory"])
async def snapshots(
    request: pytest.FixtureRequest, config: Config, mongo_client: AsyncMongoClient
) -> AsyncIterator[InboxSnapshotRepository | InboxSnapshotsInMemory]:
    if request.param == "memory":
        yield InboxSnapshotsInMemory()
        return
    repository = InboxSnapshotRepository(mongo_client[config.bot_database])
    await repository.ensure_indexes()
    yield repository


def misses(count: int, text: str = "where is my order", story: str = "a") -> list[Miss]:
    """Newest first; every third with a vector (exact in float16), every other expiring,
    read in German, English or a story's only language in turn."""
    return [
        Miss(
            f"{story}{n}",
            f"{text} {n}",
            T0 - timedelta(minutes=n),
            (0.5, -0.25, float(n % 7)) if n % 3 == 0 else None,
            T0 + timedelta(days=30) if n % 2 else None,
            ("de", "en", None)[n % 3],
        )
        for n in range(count)
    ]


def snapshot(found: list[Miss], version: tuple[float, str | None] = VERSION) -> InboxSnapshot:
    return InboxSnapshot(version, found, T0)


async def test_a_snapshot_reads_back_as_written_and_each_story_has_its_own(
    snapshots: InboxSnapshotRepository | InboxSnapshotsInMemory,
) -> None:
    assert await snapshots.read(STORY) is None
    assert await snapshots.generation(STORY) == 0
    mine, theirs = snapshot(misses(50)), snapshot(misses(3, "refund", "b"), (0.5, None))
    assert await snapshots.write(STORY, 0, encoded(mine))
    assert await snapshots.write(OTHER, 0, encoded(theirs))
    assert await snapshots.read(STORY) == mine
    assert await snapshots.read(OTHER) == theirs


async def test_a_snapshot_of_several_parts_reads_back_whole(
    snapshots: InboxSnapshotRepository | InboxSnapshotsInMemory,
) -> None:
    long = snapshot(misses(2_500, "x" * 2_000))
    payload = encoded(long)
    assert PART_BYTES < len(payload) <= MAX_SNAPSHOT_BYTES
    assert await snapshots.write(STORY, 0, payload)
    assert await snapshots.read(STORY) == long
    shorter = snapshot(misses(2))
    assert await snapshots.write(STORY, 0, encoded(shorter)), "a later read replaces it"
    assert await snapshots.read(STORY) == shorter


async def test_a_change_drops_the_snapshot_and_refuses_a_write_of_a_read_begun_before_it(
    snapshots: InboxSnapshotRepository | InboxSnapshotsInMemory,
) -> None:
    assert await snapshots.write(STORY, 0, encoded(snapshot(misses(5))))
    assert await snapshots.write(OTHER, 0, encoded(snapshot(misses(5))))
    await snapshots.invalidate(STORY)
    assert await snapshots.read(STORY) is None
    assert await snapshots.generation(STORY) == 1
    assert not await snapshots.write(STORY, 0, encoded(snapshot(misses(5))))
    assert await snapshots.read(STORY) is None
    assert await snapshots.write(STORY, 1, encoded(snapshot(misses(4))))
    assert await snapshots.read(STORY) == snapshot(misses(4))
    assert await snapshots.read(OTHER) == snapshot(misses(5)), "another story's stays"

    await snapshots.invalidate(OTHER)
    await snapshots.invalidate(str(ObjectId()))  # a story never read: a change all the same
    assert await snapshots.generation(OTHER) == 1


async def test_a_snapshot_too_large_is_not_written_and_a_deleted_story_has_none(
    snapshots: InboxSnapshotRepository | InboxSnapshotsInMemory,
) -> None:
    assert not await snapshots.write(STORY, 0, b"\0" * (MAX_SNAPSHOT_BYTES + 1))
    assert await snapshots.read(STORY) is None
    assert await snapshots.write(STORY, 0, encoded(snapshot(misses(5))))
    await snapshots.invalidate(OTHER)
    await snapshots.delete_for_story(STORY)
    assert await snapshots.read(STORY) is None
    assert await snapshots.generation(STORY) == 0
    assert await snapshots.generation(OTHER) == 1


async def test_a_snapshot_written_before_misses_kept_their_language_is_not_read(
    snapshots: InboxSnapshotRepository | InboxSnapshotsInMemory,
) -> None:
    """Its misses would come back without their language: the next read is a whole one."""
    header = {"format": 1, "version": list(VERSION), "writtenAt": 0, "dimensions": 0}
    rows = [["a0", "where is my order", 0, None, -1]]
    first_layout = json.dumps({**header, "misses": rows}).encode()
    assert await snapshots.write(STORY, 0, struct.pack("<I", len(first_layout)) + first_layout)
    assert await snapshots.read(STORY) is None
