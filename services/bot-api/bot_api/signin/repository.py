"""Sign-ins under way, in bot-api's `console_sign_ins` collection: each kept for minutes,
read once (taken, so a replayed state or choice finds nothing), and only by the browser
that began it (the hash of the random value of its sign-in cookie must match).

Two kinds: an attempt (the state sent to the provider, with the PKCE verifier and the
nonce) and, for a person who is a member of several accounts, the choice offered.
"""

import hmac
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, Protocol

from bot_api.signin.members import MemberRef
from shared.auth import hash_token
from shared.console_sessions import is_opaque_value
from shared.expiry import ensure_expiry
from shared.mongo import Database
from shared.timeutil import utcnow


@dataclass(frozen=True)
class Attempt:
    nonce: str
    verifier: str


@dataclass(frozen=True)
class Choice:
    """The members a person may sign in as, one an account."""

    members: tuple[MemberRef, ...]


class SignInStore(Protocol):
    async def keep_attempt(
        self, state: str, browser: str, attempt: Attempt, lifetime: timedelta
    ) -> None: ...

    async def take_attempt(self, state: str, browser: str) -> Attempt | None: ...

    async def keep_choice(
        self, choice_id: str, browser: str, choice: Choice, lifetime: timedelta
    ) -> None: ...

    async def take_choice(self, choice_id: str, browser: str) -> Choice | None: ...


class SignInRepository:
    def __init__(self, database: Database) -> None:
        self.collection = database["console_sign_ins"]

    async def ensure_indexes(self) -> None:
        await ensure_expiry(self.collection)

    async def keep_attempt(
        self, state: str, browser: str, attempt: Attempt, lifetime: timedelta
    ) -> None:
        fields = {"nonce": attempt.nonce, "verifier": attempt.verifier}
        await self._keep("attempt", state, browser, fields, lifetime)

    async def take_attempt(self, state: str, browser: str) -> Attempt | None:
        document = await self._take("attempt", state, browser)
        return None if document is None else Attempt(document["nonce"], document["verifier"])

    async def keep_choice(
        self, choice_id: str, browser: str, choice: Choice, lifetime: timedelta
    ) -> None:
        members = [
            {"accountId": m.account_id, "memberId": m.member_id, "name": m.name}
            for m in choice.members
        ]
        await self._keep("choice", choice_id, browser, {"members": members}, lifetime)

    async def take_choice(self, choice_id: str, browser: str) -> Choice | None:
        document = await self._take("choice", choice_id, browser)
        if document is None:
            return None
        members = document["members"]
        return Choice(tuple(MemberRef(m["accountId"], m["memberId"], m["name"]) for m in members))

    async def _keep(
        self, kind: str, key: str, browser: str, fields: dict[str, Any], lifetime: timedelta
    ) -> None:
        await self.collection.insert_one(
            {
                "_id": hash_token(key),
                "kind": kind,
                "browser": hash_token(browser),
                "expiresAt": utcnow() + lifetime,
                **fields,
            }
        )

    async def _take(self, kind: str, key: str, browser: str) -> dict[str, Any] | None:
        """The record, deleted as it is read; None when unknown, expired, of another
        kind or begun by another browser."""
        if not (is_opaque_value(key) and is_opaque_value(browser)):
            return None
        document = await self.collection.find_one_and_delete(
            {"_id": hash_token(key), "kind": kind, "expiresAt": {"$gt": utcnow()}}
        )
        if document is None or not hmac.compare_digest(document["browser"], hash_token(browser)):
            return None
        return document
