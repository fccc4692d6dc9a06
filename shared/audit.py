"""The audit log: one record per change made through either service or the `accounts`
command (docs/teams.md "Audit log").

The `audit` collection lives in the accounts database, beside the accounts it belongs
to, so both services write to it and bot-api reads it. A record is written *before* its
change, unconfirmed, and confirmed once the change succeeded (`shared.auditing`): if the
record cannot be written, the change is not made. A confirmed record is never changed
or deleted; an unconfirmed one is confirmed, or withdrawn when its request was refused
before it changed anything (a 4xx), or stays unconfirmed when the outcome is unknown (a
5xx, a process stopped midway). Records expire after `AUDIT_RETENTION_DAYS`.

Times that order and filter records are epoch milliseconds: nx-27017 compares datetimes
to the whole second (docs/mongodb-compatibility.md).
"""

import base64
import binascii
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from bson import ObjectId
from pymongo.errors import PyMongoError

from shared.auth import Principal
from shared.errors import BadRequest, Unavailable
from shared.expiry import ensure_expiry
from shared.mongo import Database, Document
from shared.timeutil import epoch_ms, utcnow

DEVELOPER_TOKEN = "developer token"
MEMBER = "member"
MAX_SUMMARY = 500
"""Characters of a summary: field names and short values, never a whole body."""
PAGE_SIZE = 50
MAX_PAGE_SIZE = 200
EXPORT_LIMIT = 10_000
"""Records one export streams; beyond, its last line names the cursor of the rest."""
EXPORT_BATCH = 500


@dataclass(frozen=True)
class Actor:
    """Who made a change: `kind` is "developer token", "member" or "command line" (the
    `accounts` command, shared/command_audit.py)."""

    kind: str
    id: str
    name: str

    def as_json(self) -> dict[str, str]:
        return {"kind": self.kind, "id": self.id, "name": self.name}

    @classmethod
    def of_json(cls, stored: Mapping[str, Any]) -> "Actor":
        return cls(stored["kind"], stored["id"], stored["name"])


def actor_of(principal: Principal) -> Actor:
    """The one place that names who a principal is in the audit log and on versions: a
    member (through a personal token or a console session) by id and name, else the
    account's developer token (the public key changes nothing)."""
    if principal.member_id is not None:
        return Actor(MEMBER, principal.member_id, principal.member_name or principal.member_id)
    return Actor(DEVELOPER_TOKEN, "developer", "Developer token")


@dataclass(frozen=True)
class AuditRecord:
    id: str
    at: datetime
    actor: Actor
    kind: str
    story_id: str | None
    target: str
    summary: str
    confirmed: bool


@dataclass(frozen=True)
class AuditFilter:
    """What `GET /audit` asks for: each None matches every record."""

    member: str | None = None
    story: str | None = None
    kind: str | None = None
    since: datetime | None = None
    until: datetime | None = None


class AuditUnavailable(Unavailable):
    """The record could not be written, so its change was not made."""


def cursor_of(record: AuditRecord) -> str:
    """An opaque position after `record` in newest-first order."""
    raw = f"{epoch_ms(record.at)}:{record.id}".encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def position_of(cursor: str) -> tuple[int, ObjectId]:
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        at_ms, _, record_id = raw.partition(":")
        return int(at_ms), ObjectId(record_id)
    except (binascii.Error, UnicodeDecodeError, ValueError, TypeError):
        raise BadRequest("cursor: not a cursor this API gave") from None


class AuditLog:
    """The `audit` collection: records are appended, confirmed or withdrawn, read by
    account, and expire after the retention."""

    def __init__(self, database: Database, retention_days: int) -> None:
        self.collection = database["audit"]
        self._retention = timedelta(days=retention_days)

    async def ensure_indexes(self) -> None:
        await self.collection.create_index([("accountId", 1), ("atMs", -1)])
        await ensure_expiry(self.collection)

    async def begin(
        self,
        *,
        account_id: str,
        actor: Actor,
        kind: str,
        story_id: str | None,
        target: str,
        summary: str,
    ) -> str:
        """The record of a change about to be made, unconfirmed; its id. Any failure to
        write it is an `AuditUnavailable`: the caller must not make the change."""
        record_id, at = ObjectId(), utcnow()
        document = {
            "_id": record_id,
            "accountId": account_id,
            "at": at,
            "atMs": epoch_ms(at),
            "actor": actor.as_json(),
            "actorId": actor.id,
            "kind": kind,
            "storyId": story_id,
            "target": target,
            "summary": summary[:MAX_SUMMARY],
            "confirmed": False,
            "expiresAt": at + self._retention,
        }
        try:
            await self.collection.insert_one(document)
        except PyMongoError as error:
            raise AuditUnavailable(
                f"the audit log could not record this change, so it was not made ({error})"
            ) from None
        return str(record_id)

    async def confirm(
        self, record_id: str, *, kind: str, target: str, story_id: str | None, summary: str
    ) -> None:
        """The change was made: its record takes what only the change knew (the id made,
        the values before)."""
        await self.collection.update_one(
            {"_id": ObjectId(record_id), "confirmed": False},
            {
                "$set": {
                    "confirmed": True,
                    "kind": kind,
                    "target": target,
                    "storyId": story_id,
                    "summary": summary[:MAX_SUMMARY],
                }
            },
        )

    async def withdraw(self, record_id: str) -> None:
        """The change was refused before it changed anything: no record."""
        await self.collection.delete_one({"_id": ObjectId(record_id), "confirmed": False})

    async def page(
        self, account_id: str, wanted: AuditFilter, cursor: str | None, size: int = PAGE_SIZE
    ) -> tuple[list[AuditRecord], str | None]:
        """Up to `size` records, newest first, after `cursor`; the cursor of the next
        page, None after the last."""
        found = self.collection.find(_query(account_id, wanted, cursor))
        found = found.sort([("atMs", -1), ("_id", -1)]).limit(size + 1)
        records = [_record(document) async for document in found]
        if len(records) > size:
            return records[:size], cursor_of(records[size - 1])
        return records, None

    async def export(
        self, account_id: str, wanted: AuditFilter, cursor: str | None
    ) -> AsyncIterator[AuditRecord | str]:
        """Up to `EXPORT_LIMIT` records, newest first, `EXPORT_BATCH` a read; then the
        cursor of the rest (a str) when some are left."""
        sent = 0
        while sent < EXPORT_LIMIT:
            batch, cursor = await self.page(
                account_id, wanted, cursor, min(EXPORT_BATCH, EXPORT_LIMIT - sent)
            )
            for record in batch:
                yield record
            sent += len(batch)
            if cursor is None:
                return
        if cursor is not None:
            yield cursor


def _query(account_id: str, wanted: AuditFilter, cursor: str | None) -> Document:
    conditions: list[Document] = [{"accountId": account_id}]
    if wanted.member is not None:
        conditions.append({"actorId": wanted.member})
    if wanted.story is not None:
        conditions.append({"storyId": wanted.story})
    if wanted.kind is not None:
        conditions.append({"kind": wanted.kind})
    if wanted.since is not None:
        conditions.append({"atMs": {"$gte": epoch_ms(wanted.since)}})
    if wanted.until is not None:
        conditions.append({"atMs": {"$lt": epoch_ms(wanted.until)}})
    if cursor is not None:
        at_ms, record_id = position_of(cursor)
        conditions.append(
            {"$or": [{"atMs": {"$lt": at_ms}}, {"atMs": at_ms, "_id": {"$lt": record_id}}]}
        )
    return {"$and": conditions}


def _record(document: Document) -> AuditRecord:
    return AuditRecord(
        id=str(document["_id"]),
        at=datetime.fromtimestamp(document["atMs"] / 1000, UTC),
        actor=Actor.of_json(document["actor"]),
        kind=document["kind"],
        story_id=document.get("storyId"),
        target=document["target"],
        summary=document["summary"],
        confirmed=bool(document["confirmed"]),
    )
