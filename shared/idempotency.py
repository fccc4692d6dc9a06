"""Creates a client may retry safely: the `Idempotency-Key` header (docs/reliability.md).

The key decides the id of what the create makes (derived from the account, the path and
the key), so a retry finds the record of an earlier attempt already there and answers it
instead of making a second one, even when that attempt answered 503 but its write
landed. The first answer is remembered for a day with a digest of the body: a retry
with the same key answers it again, the same key with another body is a 409.
"""

import contextlib
import hashlib
import json
import uuid
from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import Any

from aiohttp import web
from pymongo.errors import DuplicateKeyError

from shared.errors import BadRequest, Conflict
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

    def __init__(self, database: Database) -> None:
        self.collection = database["idempotency_keys"]

    async def ensure_indexes(self) -> None:
        await self.collection.create_index("expiresAt", expireAfterSeconds=0)

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
        earlier = await self.collection.find_one({"_id": record_id})
        if earlier is not None:
            if earlier["body"] != body_digest:
                raise Conflict(f"this {HEADER} was used with another body")
            return dict(earlier["answer"])
        answer = await create(id_from(digest))
        record = {
            "_id": record_id,
            "body": body_digest,
            "answer": answer,
            "expiresAt": utcnow() + REMEMBERED,
        }
        with contextlib.suppress(DuplicateKeyError):  # a concurrent attempt made it first
            await self.collection.insert_one(record)
        return answer
