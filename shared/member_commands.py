"""`accounts members|tokens`: an account's members and their tokens from the command
line (docs/teams.md "Tokens"), for the first owner and for CI's service members.

    accounts members ACCOUNT [list]
    accounts members ACCOUNT add EMAIL ROLE --name NAME [--stories ID,ID]
    accounts members ACCOUNT remove EMAIL
    accounts tokens ACCOUNT EMAIL [list]
    accounts tokens ACCOUNT EMAIL create TOKEN_NAME [--expires 2027-01-31T00:00:00Z]
    accounts tokens ACCOUNT EMAIL revoke TOKEN_ID

Story ids are checked for their form only here (the stories live in bot-api's
database); the API checks they are the account's. Each change is recorded in the audit
log before it is made, with the kinds of the `/account/members` routes
(shared/command_audit.py); a list records nothing, and no record holds a token.
"""

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from shared.auditing import summary_of
from shared.auth import MEMBER_ROLES, Role
from shared.command_audit import CommandAudit
from shared.errors import BadRequest
from shared.members import IssuedMemberToken, Member, MemberFields, MemberRepository, MemberToken
from shared.timeutil import iso

ROLE_NAMES = ", ".join(role.value for role in MEMBER_ROLES)
USAGE = {
    "members": "members ACCOUNT [list | add EMAIL ROLE --name NAME [--stories IDS] | remove EMAIL]",
    "tokens": "tokens ACCOUNT EMAIL [list | create NAME [--expires WHEN] | revoke TOKEN_ID]",
}


@dataclass(frozen=True)
class MemberOptions:
    name: str | None = None
    stories: str | None = None
    expires: str | None = None


@dataclass(frozen=True)
class Outcome:
    """What a command did: its answer as JSON, its lines for a person, and whether the
    running services must forget the account's cached principals (those of
    `account_id`, which the command line fills in)."""

    data: Any
    lines: tuple[str, ...]
    changed: bool = False
    account_id: str = ""


def _member_json(member: Member) -> dict[str, Any]:
    return {
        "id": member.id,
        "email": member.email,
        "name": member.name,
        "role": member.role.value,
        "stories": None if member.stories is None else list(member.stories),
        "subject": member.subject,
    }


def _member_line(member: Member) -> str:
    stories = "all stories" if member.stories is None else ", ".join(member.stories)
    return f"{member.id}  {member.email:<32} {member.role.value:<10} {member.name} ({stories})"


def _token_json(token: MemberToken) -> dict[str, Any]:
    return {"id": token.id, "name": token.name, "expiresAt": iso(token.expires_at)}


def _role(name: str) -> Role:
    if name not in {role.value for role in MEMBER_ROLES}:
        raise BadRequest(f"{name!r} is no role: one of {ROLE_NAMES}")
    return Role(name)


def _expiry(given: str | None) -> datetime | None:
    if given is None:
        return None
    try:
        moment = datetime.fromisoformat(given)
    except ValueError:
        raise BadRequest(f"--expires {given!r}: write an ISO 8601 time with its zone") from None
    if moment.tzinfo is None:
        raise BadRequest(f"--expires {given!r}: give its zone (Z for UTC)")
    return moment


def _words(words: list[str], count: int, command: str) -> list[str]:
    if len(words) != count:
        raise BadRequest(f"usage: accounts {USAGE[command]}")
    return words


MEMBER_SHOWS = ("email", "name", "role", "stories")
"""What a member's record shows, as `POST /account/members` does."""
TOKEN_SHOWS = ("member", "name", "expiresAt")
"""What a token's record shows: whose it is, as a token's route shows its name and
expiry (never the token)."""


async def members(
    repository: MemberRepository,
    audit: CommandAudit,
    account_id: str,
    words: list[str],
    options: MemberOptions,
) -> Outcome:
    action = words[0] if words else "list"
    if action == "list":
        _words(words[1:], 0, "members")
        listed = await repository.all(account_id)
        lines = tuple(_member_line(m) for m in listed) or ("no members yet",)
        return Outcome([_member_json(m) for m in listed], lines)
    if action == "add":
        email, role = _words(words[1:], 2, "members")
        if not options.name:
            raise BadRequest("accounts members add: give the member's --name")
        stories = None if options.stories is None else tuple(options.stories.split(","))
        fields = MemberFields(email, options.name, _role(role), stories)
        asked: dict[str, Any] = {"email": email, "name": options.name, "role": role}
        if stories is not None:
            asked["stories"] = list(stories)
        member = await audit.change(
            account_id,
            "member.create",
            "",
            summary_of(MEMBER_SHOWS, asked, {}),
            lambda: repository.create(account_id, fields),
            made_id=lambda made: made.id,
        )
        return Outcome(_member_json(member), (f"added {_member_line(member)}",))
    if action == "remove":
        (email,) = _words(words[1:], 1, "members")
        member = await repository.by_email(account_id, email)
        await audit.change(
            account_id,
            "member.delete",
            member.id,
            summary_of(MEMBER_SHOWS, {"email": member.email}, {}),
            lambda: repository.delete(account_id, member.id),
        )
        return Outcome(_member_json(member), (f"removed {member.email} and their tokens",), True)
    raise BadRequest(f"usage: accounts {USAGE['members']}")


async def tokens(
    repository: MemberRepository,
    audit: CommandAudit,
    account_id: str,
    words: list[str],
    options: MemberOptions,
) -> Outcome:
    if not words:
        raise BadRequest(f"usage: accounts {USAGE['tokens']}")
    member = await repository.by_email(account_id, words[0])
    action = words[1] if len(words) > 1 else "list"
    rest = words[2:]
    if action == "list":
        _words(rest, 0, "tokens")
        listed = await repository.tokens(account_id, member.id)
        lines = tuple(f"{t.id}  {t.name}  until {iso(t.expires_at)}" for t in listed)
        return Outcome([_token_json(t) for t in listed], lines or ("no tokens",))
    if action == "create":
        (name,) = _words(rest, 1, "tokens")
        expires_at = _expiry(options.expires)
        asked = {"member": member.email, "name": name}
        if expires_at is not None:
            asked["expiresAt"] = iso(expires_at)
        issued = await audit.change(
            account_id,
            "token.create",
            member.id,
            summary_of(TOKEN_SHOWS, asked, {}),
            lambda: repository.create_token(account_id, member.id, name, expires_at),
            made_id=lambda made: made.id,
        )
        return Outcome(_issued_json(issued), _issued_lines(issued, member))
    if action == "revoke":
        (token_id,) = _words(rest, 1, "tokens")
        await audit.change(
            account_id,
            "token.revoke",
            token_id,
            summary_of(TOKEN_SHOWS, {"member": member.email}, {}),
            lambda: repository.revoke_token(account_id, member.id, token_id),
        )
        return Outcome({"id": token_id, "revoked": True}, (f"revoked {token_id}",), True)
    raise BadRequest(f"usage: accounts {USAGE['tokens']}")


def _issued_json(issued: IssuedMemberToken) -> dict[str, str]:
    return {"id": issued.id, "token": issued.token, "expiresAt": iso(issued.expires_at)}


def _issued_lines(issued: IssuedMemberToken, member: Member) -> tuple[str, ...]:
    return (
        f"token of {member.email} ({member.role.value}): {issued.token}",
        f"id {issued.id}, until {iso(issued.expires_at)}",
        "Keep it now: it is stored only as a hash and cannot be shown again.",
    )


def printed(outcome: Outcome, as_json: bool) -> str:
    return json.dumps(outcome.data) if as_json else "\n".join(outcome.lines)
