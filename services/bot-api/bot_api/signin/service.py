"""Sign-in's use cases: the authorization code flow with PKCE (RFC 7636, S256), state and
nonce (OpenID Connect Core §3.1), ending in a console session for a member.

The browser that begins a sign-in gets a random value in a cookie; the state, the PKCE
verifier and the nonce are kept server-side under it for `ATTEMPT_LIFETIME` and taken
once, so neither a replayed callback nor a callback begun in another browser (a sign-in
forced on someone) signs anyone in.
"""

import base64
import hashlib
import secrets
from dataclasses import dataclass
from datetime import timedelta
from urllib.parse import urlencode

from bot_api.signin.members import MemberDirectory, MemberRef
from bot_api.signin.provider import CodeRefused, Provider, ProviderUnavailable
from bot_api.signin.repository import Attempt, Choice, SignInStore
from bot_api.signin.verifier import Identity, IdTokenVerifier, TokenRefused
from shared.audit import MEMBER, Actor, AuditLog
from shared.auditing import Entry, recorded
from shared.auth import AccountRepository
from shared.config import Config
from shared.console_sessions import ConsoleSessionRepository, IssuedSession
from shared.members import Member
from shared.rates import Buckets, Rate

ATTEMPT_LIFETIME = timedelta(minutes=10)
STARTS = Rate(1.0, 20)
"""Sign-ins one client address may begin (each process): each keeps a record for minutes."""
CALLBACK_PATH = "/console/sign-in/callback"
SIGNED_OUT_PATH = "/console/"
"""Where the provider sends the browser back after signing out (its sign-in page)."""
LINKED = "member.link"
"""The audit kind of a member linked to their identity provider subject."""


class SignInRefused(Exception):
    """Nobody is signed in; `status` and the message say why, for the page."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass(frozen=True)
class Started:
    authorization_url: str
    browser: str
    """The value of the browser's sign-in cookie."""


@dataclass(frozen=True)
class Offered:
    """A person who is a member of several accounts chooses one."""

    choice_id: str
    person: str
    accounts: tuple[tuple[MemberRef, str], ...]
    """Each member with its account's name."""


class SignInService:
    def __init__(
        self,
        config: Config,
        provider: Provider,
        verifier: IdTokenVerifier,
        store: SignInStore,
        members: MemberDirectory,
        sessions: ConsoleSessionRepository,
        accounts: AccountRepository,
        audit: AuditLog,
    ) -> None:
        self._client_id = config.oidc_client_id
        self._scopes = " ".join(config.oidc_scopes)
        self._redirect_uri = config.console_url + CALLBACK_PATH
        self._signed_out_uri = config.console_url + SIGNED_OUT_PATH
        self._session_lifetime = timedelta(hours=config.console_session_hours)
        self._provider = provider
        self._verifier = verifier
        self._store = store
        self._members = members
        self._sessions = sessions
        self._accounts = accounts
        self._audit = audit
        self._starts = Buckets("beginning sign-ins from this address")

    async def begin(self, browser: str | None, client: str) -> Started:
        """Where to send the browser to sign in; its sign-in cookie's value is kept when
        it has one, so two tabs signing in at once both succeed. A 429 past `STARTS`."""
        self._starts.take(client, STARTS)
        metadata = await self._provider.metadata()
        browser = browser or secrets.token_urlsafe(32)
        state, nonce, verifier = (secrets.token_urlsafe(32) for _ in range(3))
        await self._store.keep_attempt(state, browser, Attempt(nonce, verifier), ATTEMPT_LIFETIME)
        challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest())
        query = urlencode(
            {
                "response_type": "code",
                "client_id": self._client_id,
                "redirect_uri": self._redirect_uri,
                "scope": self._scopes,
                "state": state,
                "nonce": nonce,
                "code_challenge": challenge.rstrip(b"=").decode(),
                "code_challenge_method": "S256",
            }
        )
        endpoint = metadata.authorization_endpoint
        return Started(f"{endpoint}{'&' if '?' in endpoint else '?'}{query}", browser)

    async def finish(self, state: str, code: str, browser: str) -> IssuedSession | Offered:
        """The session of the member the provider's answer names, or the accounts to
        choose from."""
        attempt = await self._store.take_attempt(state, browser)
        if attempt is None:
            raise SignInRefused(
                400, "This sign-in has expired, was already used or began in another browser."
            )
        try:
            id_token = await self._provider.exchange(code, attempt.verifier, self._redirect_uri)
            identity = await self._verifier.verify(id_token, attempt.nonce)
        except CodeRefused as refused:
            raise SignInRefused(
                400, f"The identity provider refused the sign-in: {refused}."
            ) from refused
        except TokenRefused as refused:
            raise SignInRefused(
                401, f"The identity provider's answer was refused: {refused}."
            ) from refused
        members = await self._members_of(identity)
        if not members:
            raise SignInRefused(403, f"{identity.name} is not a member of any account here.")
        if len(members) == 1:
            return await self._begin_session(members[0])
        names = await self._accounts.names([m.account_id for m in members])
        accounts = tuple((m, names.get(m.account_id, m.account_id)) for m in members)
        choice_id = secrets.token_urlsafe(32)
        await self._store.keep_choice(choice_id, browser, Choice(members), ATTEMPT_LIFETIME)
        return Offered(choice_id, identity.name, accounts)

    async def choose(self, choice_id: str, browser: str, member_id: str) -> IssuedSession:
        choice = await self._store.take_choice(choice_id, browser)
        if choice is None:
            raise SignInRefused(400, "This choice has expired or was already made: sign in again.")
        chosen = [m for m in choice.members if m.member_id == member_id]
        if not chosen:
            raise SignInRefused(400, "That account was not offered: sign in again.")
        return await self._begin_session(chosen[0])

    async def sign_out(self, session_id: str) -> str | None:
        """Ends the console session; where the browser signs out of the provider too, when
        it has an end-session endpoint (with `client_id`, not `id_token_hint`: no ID token
        is kept), coming back to the console's sign-in page."""
        await self._sessions.end(session_id)
        try:
            endpoint = (await self._provider.metadata()).end_session_endpoint
        except ProviderUnavailable:
            return None
        if endpoint is None:
            return None
        query = urlencode(
            {"client_id": self._client_id, "post_logout_redirect_uri": self._signed_out_uri}
        )
        return f"{endpoint}{'&' if '?' in endpoint else '?'}{query}"

    async def _members_of(self, identity: Identity) -> tuple[MemberRef, ...]:
        """The members the person is: those linked to their subject, then, in the other
        accounts, those of the e-mail address the provider verified, each linked to the
        subject now (an audit record of theirs; a member another sign-in linked meanwhile
        is left out)."""
        found = await self._members.with_subject(identity.subject)
        linked_in = {member.account_id for member in found}
        if identity.email:
            for member in await self._members.unlinked_with_email(identity.email):
                if member.account_id not in linked_in and await self._link(member, identity):
                    found.append(member)
        found.sort(key=lambda member: member.id)
        return tuple(MemberRef.of(member) for member in found)

    async def _link(self, member: Member, identity: Identity) -> bool:
        """Link the member to the subject, with its audit record (none when another
        sign-in linked them first)."""
        entry = Entry(LINKED, None, member.id, f"subject: linked at sign-in by {identity.email}")
        return await recorded(
            self._audit,
            member.account_id,
            Actor(MEMBER, member.id, member.name),
            entry,
            lambda: self._members.link(member, identity.subject),
            lambda linked: entry if linked else None,
        )

    async def _begin_session(self, member: MemberRef) -> IssuedSession:
        return await self._sessions.begin(
            member.account_id, member.member_id, member.name, self._session_lifetime
        )
