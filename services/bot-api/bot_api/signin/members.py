"""Who may sign in: the members of accounts (shared/members.py), as sign-in finds them.

A person is found by the e-mail address the identity provider says it verified: every
member with that address, one an account.
"""

from dataclasses import dataclass
from typing import Protocol

from shared.members import Member


@dataclass(frozen=True)
class MemberRef:
    """A member a person may sign in as."""

    account_id: str
    member_id: str
    name: str

    @classmethod
    def of(cls, member: Member) -> "MemberRef":
        return cls(member.account_id, member.id, member.name)


class MemberDirectory(Protocol):
    async def with_email(self, email: str) -> list[Member]:
        """The members with this address (compared without regard to case)."""
        ...
