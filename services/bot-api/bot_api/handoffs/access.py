"""Who is at the agent desk, and which conversations they see (docs/teams.md "The agent
desk").

Two points the account's members and roles plug into: `person_of` names the caller as
the history and the transcript show them, `desk_covers` says whether the caller's role
covers a story's conversations. Today every caller of these routes holds the account's
developer token: the account's owner, who sees every story of the account.
"""

from bot_api.domain.history import Person
from shared.auth import Principal

ACCOUNT_OWNER = Person(name="Account owner", role="owner")
"""The person behind the account's developer token."""


def person_of(principal: Principal) -> Person:
    """The caller as the desk names them: the member's name and role once tokens name a
    member; the account's developer token is the account's owner."""
    return ACCOUNT_OWNER


def desk_covers(principal: Principal, story_id: str) -> bool:
    """Whether the caller sees the story's handed-over conversations on the desk (its
    list, transcripts and stream, and answering them): a role narrowed to some stories
    covers those only. Every story of the caller's account, today; the story is known
    to be the account's (the use cases load it first)."""
    return True
