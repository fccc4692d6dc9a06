"""Who may sign in: the members of accounts, as sign-in needs to find them.

Members (an account's people and their roles) are their own feature; sign-in asks only
which members a person is, by the subject the identity provider names them with or by
their verified e-mail address, through `MemberDirectory`.
"""

from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True)
class MemberRef:
    account_id: str
    member_id: str
    name: str


class MemberDirectory(Protocol):
    async def members_by_subject(self, issuer: str, subject: str) -> list[MemberRef]:
        """The members the provider `issuer` knows as `subject`."""
        ...

    async def members_by_email(self, email: str) -> list[MemberRef]:
        """The members with this e-mail address (compared without regard to case)."""
        ...


@dataclass(frozen=True)
class KnownMember:
    member: MemberRef
    email: str
    subject: tuple[str, str] | None = None
    """(issuer, subject), once known."""


class InMemoryMembers:
    """A `MemberDirectory` of a fixed list, held to the directory's contract tests: the
    one a deployment has until the members' repository answers for it (app.py)."""

    def __init__(self, members: tuple[KnownMember, ...] = ()) -> None:
        self._members = list(members)

    def add(self, known: KnownMember) -> None:
        self._members.append(known)

    async def members_by_subject(self, issuer: str, subject: str) -> list[MemberRef]:
        return [k.member for k in self._members if k.subject == (issuer, subject)]

    async def members_by_email(self, email: str) -> list[MemberRef]:
        wanted = email.casefold()
        return [k.member for k in self._members if k.email.casefold() == wanted]
