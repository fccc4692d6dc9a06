"""Console sessions: what a member who signed in with OpenID Connect holds instead of a
token (docs/teams.md "Sign-in").

The browser keeps an opaque random session id in an HttpOnly cookie; the `console_sessions`
collection of the accounts database (read by both services, like the tokens) keeps only
its SHA-256 hash, with the member, the account, the session's CSRF token and its expiry.
A call the cookie authenticates that changes anything must carry the CSRF token in
`X-CSRF-Token`, which a page of another site cannot read nor send.
"""

import hmac
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

from pymongo import DESCENDING

from shared.auth import AccountRepository, Principal, hash_token
from shared.errors import Forbidden, Unauthorized
from shared.expiry import ensure_expiry
from shared.mongo import Database
from shared.timeutil import utcnow

SESSION_COOKIE = "parley_session"
SECURE_SESSION_COOKIE = "__Host-parley_session"
"""The name over https: the `__Host-` prefix makes browsers keep it only when Secure, for
`/` and this host alone, so no sibling subdomain can plant or widen it."""
CSRF_HEADER = "X-CSRF-Token"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
SESSIONS_PER_MEMBER = 10
"""Sessions one member may hold at once (browsers, devices); a new one ends the oldest."""


@dataclass(frozen=True)
class ConsoleSession:
    account_id: str
    member_id: str
    member_name: str
    csrf_token: str
    expires_at: datetime


@dataclass(frozen=True)
class IssuedSession:
    """A session just begun: its id goes in the cookie and nowhere else."""

    session_id: str
    session: ConsoleSession


class ConsoleSessionRepository:
    def __init__(self, database: Database) -> None:
        self.collection = database["console_sessions"]

    async def ensure_indexes(self) -> None:
        await self.collection.create_index([("memberId", 1), ("createdAt", DESCENDING)])
        await ensure_expiry(self.collection)

    async def begin(
        self, account_id: str, member_id: str, member_name: str, lifetime: timedelta
    ) -> IssuedSession:
        """A new session of the member; past `SESSIONS_PER_MEMBER`, its oldest end."""
        session_id = secrets.token_urlsafe(32)
        now = utcnow()
        session = ConsoleSession(
            account_id, member_id, member_name, secrets.token_urlsafe(32), now + lifetime
        )
        await self.collection.insert_one(
            {
                "_id": hash_token(session_id),
                "accountId": account_id,
                "memberId": member_id,
                "memberName": member_name,
                "csrfToken": session.csrf_token,
                "createdAt": now,
                "expiresAt": session.expires_at,
            }
        )
        older = self.collection.find(
            {"memberId": member_id}, ["_id"], sort=[("createdAt", DESCENDING)]
        ).skip(SESSIONS_PER_MEMBER)
        ended = [document["_id"] async for document in older]
        if ended:
            await self.collection.delete_many({"_id": {"$in": ended}})
        return IssuedSession(session_id, session)

    async def find(self, session_id: str) -> ConsoleSession | None:
        """The session, unless it ended or expired (or the cookie is none of ours)."""
        if not is_opaque_value(session_id):
            return None
        document = await self.collection.find_one(
            {"_id": hash_token(session_id), "expiresAt": {"$gt": utcnow()}}
        )
        if document is None:
            return None
        return ConsoleSession(
            account_id=document["accountId"],
            member_id=document["memberId"],
            member_name=document["memberName"],
            csrf_token=document["csrfToken"],
            expires_at=document["expiresAt"],
        )

    async def end(self, session_id: str) -> None:
        await self.collection.delete_one({"_id": hash_token(session_id)})


async def cookie_principal(
    sessions: ConsoleSessionRepository,
    accounts: AccountRepository,
    session_id: str,
    method: str,
    csrf_token: str | None,
) -> Principal:
    """The member a console session cookie names, with their role and stories as they
    are now, as a token of theirs would be; a state-changing `method` must carry the
    session's CSRF token."""
    session = await sessions.find(session_id)
    if session is None:
        raise Unauthorized("the console session has ended: sign in again")
    if method not in SAFE_METHODS and not csrf_matches(csrf_token, session):
        raise Forbidden(f"a change made with the console's session must carry {CSRF_HEADER}")
    try:
        return await accounts.member_principal(session.account_id, session.member_id)
    except Unauthorized:
        raise Unauthorized("the member of the console session was removed") from None


def csrf_matches(sent: str | None, session: ConsoleSession) -> bool:
    """Whether a request carries the session's CSRF token (compared in constant time)."""
    return is_opaque_value(sent or "") and hmac.compare_digest(
        (sent or "").encode(), session.csrf_token.encode()
    )


def is_opaque_value(value: str) -> bool:
    """Whether a cookie or header value may be one of the random values given out
    (printable ASCII; bytes that are not UTF-8 arrive as surrogates, and name nothing)."""
    return value.isascii() and value.isprintable()


def session_cookie_name(console_url: str) -> str:
    """`SECURE_SESSION_COOKIE` over https; `SESSION_COOKIE`, not Secure, over plain http,
    which the settings allow on loopback alone (`make run`, the tests)."""
    return SECURE_SESSION_COOKIE if console_url.startswith("https://") else SESSION_COOKIE
