"""Who is at the agent desk, and which conversations they see (docs/teams.md "The agent
desk").

`person_of` names the caller as the history and the transcript show them: a member by
name and role, the account's developer token as the account's owner. `desk_covers` says
whether the caller's role covers a story's conversations: a member narrowed to some
stories sees those only (shared/roles.py says which roles reach the desk at all).
"""

from bot_api.domain.history import Person
from shared.auth import Principal

ACCOUNT_OWNER = Person(name="Account owner", role="owner")
"""The person behind the account's developer token."""


def person_of(principal: Principal) -> Person:
    """The caller as the desk names them."""
    if principal.member_id is None:
        return ACCOUNT_OWNER
    name = principal.member_name or principal.member_id
    return Person(name=name, role=principal.role.value, member_id=principal.member_id)


def desk_covers(principal: Principal, story_id: str) -> bool:
    """Whether the caller sees the story's handed-over conversations on the desk (its
    list, transcripts and stream, and answering them); the story is known to be the
    account's (the use cases load it first)."""
    return principal.covers(story_id)
