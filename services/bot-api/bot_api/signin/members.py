"""Who may sign in: the members of accounts (shared/members.py), as sign-in finds them.

A person is found by the identity provider's subject (`sub`, which never changes), and in
the accounts where no member has it, by the e-mail address the provider says it
verified (one member an account); a member found by e-mail is linked to the subject, so
the address given to someone else later signs nobody in as them.
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
    async def with_subject(self, subject: str) -> list[Member]:
        """The members linked to this subject."""
        ...

    async def unlinked_with_email(self, email: str) -> list[Member]:
        """The members with this address (compared without regard to case) and no subject."""
        ...

    async def link(self, member: Member, subject: str) -> bool:
        """Give the member, who has none, this subject; False if that could not be done."""
        ...
