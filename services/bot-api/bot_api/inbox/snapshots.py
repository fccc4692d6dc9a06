"""A story's misses inbox as last read whole, kept in the database, so that the first read
of a story's inbox in a process reads a few documents and the turns recorded since
instead of every turn (issue 29: nx-27017 reads 10,000 turns in 1.2 s on a quiet 2-core
machine and 3.2 s under load, and the goal of a read is 1 s; docs/history.md).

A snapshot is the misses one whole read found (`MAX_INBOX_TURNS` at most) with what they
were read for (`InboxVersion`), encoded as one payload (`encoded`) split in parts of
`PART_BYTES` (`inbox_snapshot_parts`), which the story's head (`inbox_snapshots`, `_id`
the story id) names. It is kept exact by being dropped, never patched: an action on the
inbox, an erasure and the story's deletion, on any replica, add one to the head's
`generation` and drop its snapshot once their own write is done; a whole read writes its
snapshot only if the head's generation is still the one it read before reading the turns,
so a read that began before an action never writes back the turns the action resolved.
"""

import asyncio
import json
import struct
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Protocol

import numpy as np
from pymongo.errors import DuplicateKeyError

from bot_api.engine.clustering import Miss
from bot_api.indexed import Indexed
from shared.mongo import Database

InboxVersion = tuple[float, str | None]
"""What a story's misses were read for: the score below which a match is reviewed, and
the model whose vectors the newest turn of each text carries (None: no vectors)."""

FORMAT = 2
"""The payload's layout (`encoded`): a payload of another layout is not read (its story's
next read is a whole one, which writes this layout). 2: each miss with its language."""
PART_BYTES = 4 * 2**20
"""Bytes of payload a part holds, well under MongoDB's 16 MiB document limit."""
MAX_SNAPSHOT_BYTES = 24 * 2**20
"""A larger snapshot is not written (its story's first read reads every turn, as it did
before snapshots). 10,000 misses of 40 characters with 1,500 vectors of 384 dimensions
take 1.8 MB; only thousands of texts near the 2,048-character limit of a message come near."""


@dataclass(frozen=True)
class InboxSnapshot:
    version: InboxVersion
    misses: list[Miss]
    """Newest first, as the whole read found them."""
    written_at: datetime


def encoded(snapshot: InboxSnapshot) -> bytes:
    """The payload: its header's length (4 bytes), the header (JSON: the version, the time
    written, each miss as [turn id, text, at, expires at, index of its vector or -1,
    language or null], times in epoch milliseconds), then the vectors as little-endian
    float16, as turns store them."""
    vectors = [m.vector for m in snapshot.misses if m.vector is not None]
    rows: list[list[Any]] = []
    index = 0
    for miss in snapshot.misses:
        rows.append(
            [miss.turn_id, miss.text, _ms(miss.at), _ms(miss.expires_at), -1, miss.language]
        )
        if miss.vector is not None:
            rows[-1][4] = index
            index += 1
    header = json.dumps(
        {
            "format": FORMAT,
            "version": list(snapshot.version),
            "writtenAt": _ms(snapshot.written_at),
            "dimensions": len(vectors[0]) if vectors else 0,
            "misses": rows,
        },
        ensure_ascii=False,
        separators=(",", ":"),
    ).encode()
    body = np.asarray(vectors, dtype="<f2").tobytes() if vectors else b""
    return struct.pack("<I", len(header)) + header + body


def decoded(payload: bytes) -> InboxSnapshot | None:
    """The snapshot of a payload `encoded` wrote; None for another layout."""
    (length,) = struct.unpack_from("<I", payload)
    header = json.loads(payload[4 : 4 + length])
    if header.get("format") != FORMAT:
        return None
    rows = header["misses"]
    dimensions = header["dimensions"]
    vectors: list[tuple[float, ...]] = []
    if dimensions:
        matrix = np.frombuffer(payload, dtype="<f2", offset=4 + length).reshape(-1, dimensions)
        vectors = [tuple(row) for row in matrix.tolist()]
    review_below, model_id = header["version"]
    misses = [
        Miss(
            turn_id,
            text,
            _time(at),
            None if vector < 0 else vectors[vector],
            None if expires_at is None else _time(expires_at),
            language,
        )
        for turn_id, text, at, expires_at, vector, language in rows
    ]
    return InboxSnapshot((review_below, model_id), misses, _time(header["writtenAt"]))


class InboxSnapshotRepository:
    def __init__(self, database: Database) -> None:
        self.heads = database["inbox_snapshots"]
        self.parts = database["inbox_snapshot_parts"]

    async def ensure_indexes(self) -> None:
        await self.parts.create_index([("storyId", 1), ("snapshot", 1), ("index", 1)])

    async def generation(self, story_id: str) -> int:
        """The story's count of changes to its inbox so far (0 before the first)."""
        head = await self.heads.find_one({"_id": story_id}, ["generation"])
        return 0 if head is None else int(head.get("generation", 0))

    async def read(self, story_id: str) -> InboxSnapshot | None:
        """The story's snapshot, decoded in a worker thread; None if it has none (or it was
        dropped while read)."""
        head = await self.heads.find_one({"_id": story_id})
        named = None if head is None else head.get("snapshot")
        if named is None:
            return None
        cursor = self.parts.find({"storyId": story_id, "snapshot": named["id"]}, ["index", "data"])
        parts = sorted(await cursor.to_list(), key=lambda p: p["index"])
        if [p["index"] for p in parts] != list(range(named["parts"])):
            return None
        payload = b"".join(bytes(p["data"]) for p in parts)
        return await asyncio.to_thread(decoded, payload)  # 10,000 misses: some 30 ms of CPU

    async def write(self, story_id: str, generation: int, payload: bytes) -> bool:
        """Make `payload` (`encoded`) the story's snapshot if its generation is still
        `generation`; whether it was. The parts are written first and the head names them
        last, so a reader finds a whole snapshot or none; the parts of the snapshot it
        replaces are removed after."""
        if len(payload) > MAX_SNAPSHOT_BYTES:
            return False
        snapshot_id = uuid.uuid4().hex
        chunks = [payload[i : i + PART_BYTES] for i in range(0, len(payload), PART_BYTES)]
        await self.parts.insert_many(
            [
                {"storyId": story_id, "snapshot": snapshot_id, "index": n, "data": chunk}
                for n, chunk in enumerate(chunks)
            ]
        )
        named = {"id": snapshot_id, "parts": len(chunks)}
        try:
            result = await self.heads.update_one(
                {"_id": story_id, "generation": generation},
                {"$set": {"snapshot": named}},
                upsert=generation == 0,
            )
            taken = result.matched_count == 1 or result.upserted_id is not None
        except DuplicateKeyError:  # a change made the head meanwhile: generation 1
            taken = False
        await self.parts.delete_many(
            {"storyId": story_id, "snapshot": {"$ne": snapshot_id} if taken else snapshot_id}
        )
        return taken

    async def invalidate(self, story_id: str) -> None:
        """The story's inbox changed: its snapshot is dropped, and a whole read that began
        before this writes none."""
        await self.heads.update_one(
            {"_id": story_id}, {"$inc": {"generation": 1}, "$set": {"snapshot": None}}, upsert=True
        )
        await self.parts.delete_many({"storyId": story_id})

    async def delete_for_story(self, story_id: str) -> None:
        await self.heads.delete_many({"_id": story_id})
        await self.parts.delete_many({"storyId": story_id})


def _ms(at: datetime | None) -> int | None:
    return None if at is None else round(at.timestamp() * 1000)


def _time(ms: int) -> datetime:
    return datetime.fromtimestamp(ms / 1000, UTC)


class InboxSnapshotStore(Indexed, Protocol):
    """Each story's inbox as last read whole."""

    async def generation(self, story_id: str) -> int:
        """How often the story's inbox changed so far."""

    async def read(self, story_id: str) -> InboxSnapshot | None: ...

    async def write(self, story_id: str, generation: int, payload: bytes) -> bool:
        """Make the payload the story's snapshot if its generation is still `generation`;
        whether it was."""

    async def invalidate(self, story_id: str) -> None:
        """Drop the story's snapshot, and count a change (writes of an older generation fail)."""

    async def delete_for_story(self, story_id: str) -> None: ...
