"""Creates a client may retry safely: the `Idempotency-Key` header (docs/reliability.md).

The key decides the id of what the create makes (derived from the account, the path and
the key), so a retry finds the record of an earlier attempt already there and answers it
instead of making a second one, even when that attempt answered 503 but its write
landed. The first answer is remembered for a day with a digest of the body: a retry
with the same key answers it again, the same key with another body is a 409.

A request claims its key before it creates (one insert, which only one of concurrent
requests wins): the others answer the winner's answer once it is stored, and 409 while
it is in flight. Without the claim, concurrent creates under one key raced to insert the
same id, and the losers answered 500 (17 of 28 in the three races of issue 17).
"""

import contextlib
import hashlib
import json
import time
import uuid
from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import Any

from aiohttp import web
from pymongo.errors import DuplicateKeyError, PyMongoError

from shared.auditing import changed_nothing
from shared.errors import BadRequest, Conflict
from shared.expiry import ensure_expiry
from shared.mongo import Database
from shared.timeutil import utcnow

HEADER = "Idempotency-Key"
MAX_KEY_LENGTH = 255
REMEMBERED = timedelta(days=1)

Create = Callable[[str | None], Awaitable[dict[str, Any]]]
"""Makes the record, under the given id when there is one, and returns the answer."""


def object_id_from(digest: bytes) -> str:
    return digest[:12].hex()


def uuid_from(digest: bytes) -> str:
    return str(uuid.UUID(bytes=digest[:16], version=4))


class IdempotencyKeys:
    """The `idempotency_keys` collection of a service: the first answer per key."""

    def __init__(self, database: Database, budget_seconds: float) -> None:
        self.collection = database["idempotency_keys"]
        self._held_ms = int(budget_seconds * 1000)
        """How long a claim holds its key: a request's budget, by when it has answered."""

    async def ensure_indexes(self) -> None:
        await ensure_expiry(self.collection)

    async def once(
        self,
        request: web.Request,
        account_id: str,
        body: Any,
        create: Create,
        id_from: Callable[[bytes], str] = object_id_from,
    ) -> dict[str, Any]:
        """`create`'s answer, made at most once per `Idempotency-Key` of the request."""
        key = request.headers.get(HEADER)
        if key is None:
            return await create(None)
        if not 1 <= len(key) <= MAX_KEY_LENGTH or not (key.isascii() and key.isprintable()):
            raise BadRequest(f"{HEADER} must be 1 to {MAX_KEY_LENGTH} printable ASCII characters")
        digest = hashlib.sha256(f"{account_id}\0{request.path}\0{key}".encode()).digest()
        record_id = digest.hex()
        body_digest = hashlib.sha256(
            json.dumps(body, sort_keys=True, default=str).encode()
        ).hexdigest()
        earlier = await self._claim(record_id, body_digest)
        if earlier is not None:
            changed_nothing(request)  # a replay: the first attempt made (and recorded) it
            return earlier
        try:
            answer = await create(id_from(digest))
        except Exception:
            # Nothing to remember: a retry creates again (under the same id). When the
            # database is what failed, the claim lapses at the end of the budget instead.
            with contextlib.suppress(PyMongoError):
                await self.collection.delete_one({"_id": record_id, "answer": None})
            raise
        await self.collection.update_one({"_id": record_id}, {"$set": {"answer": answer}})
        return answer

    async def _claim(self, record_id: str, body_digest: str) -> dict[str, Any] | None:
        """Hold the key while this request creates: None once it does; the first answer
        when there is one. A 409 when the key came with another body, or while another
        request holds it (its claim lapses after a request's budget, by when that
        request has answered, so a crash cannot hold a key for the day)."""
        # Epoch milliseconds, not a datetime: nx-27017 compares datetimes to the whole
        # second (docs/mongodb-compatibility.md).
        now_ms = time.time_ns() // 1_000_000
        held = {"heldUntilMs": now_ms + self._held_ms}
        with contextlib.suppress(DuplicateKeyError):
            await self.collection.insert_one(
                {"_id": record_id, "body": body_digest, "answer": None, **held,
                 "expiresAt": utcnow() + REMEMBERED}
            )  # fmt: skip
            return None
        earlier = await self.collection.find_one({"_id": record_id})
        if earlier is not None and earlier["body"] != body_digest:
            raise Conflict(f"this {HEADER} was used with another body")
        if earlier is not None and earlier["answer"] is not None:
            return dict(earlier["answer"])
        lapsed = {"_id": record_id, "answer": None, "heldUntilMs": {"$lt": now_ms}}
        if (await self.collection.update_one(lapsed, {"$set": held})).matched_count == 0:
            in_flight = Conflict(f"a create with this {HEADER} is in progress: retry soon")
            in_flight.headers["Retry-After"] = "1"
            raise in_flight
        return None
