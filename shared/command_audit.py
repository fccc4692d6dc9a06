"""The audit records of the `accounts` command (docs/teams.md "Audit log"): each change
it makes to an account, its tokens, limits, members or member tokens leaves one record
in the same `audit` collection as the API's, written before the change by the same
`recorded` (shared/auditing.py). A record that cannot be written is an
`AuditUnavailable`: the command says so, exits 1 and changes nothing. Reading commands
write nothing.

The actor is the command line, named by the operating-system user who ran it:
`{"kind": "command line", "id": "cli:ana", "name": "ana"}` (the id cannot be a member's,
24 hex digits, nor the developer token's, `developer`).
"""

import getpass
from collections.abc import Awaitable, Callable
from typing import TypeVar

from shared.audit import Actor, AuditLog
from shared.auditing import Entry, recorded
from shared.mongo import Database

T = TypeVar("T")

COMMAND_LINE = "command line"
UNKNOWN_USER = "unknown"
"""The name when no user can be named (a container's user without a password entry)."""


def command_line_actor() -> Actor:
    """The operating-system user running the command: `$LOGNAME`, `$USER`, `$LNAME`,
    `$USERNAME` or the password database, as `getpass.getuser()` finds it."""
    try:
        user = getpass.getuser() or UNKNOWN_USER
    except (OSError, KeyError):  # no variable names one and the uid has no entry
        user = UNKNOWN_USER
    user = user[:60]  # an actor's id is at most 64 characters (GET /audit?member=)
    return Actor(COMMAND_LINE, f"cli:{user}", user)


class CommandAudit:
    """Records one run's change of an account, by whoever runs the command."""

    def __init__(self, database: Database, retention_days: int, actor: Actor) -> None:
        self._log = AuditLog(database, retention_days)
        self._actor = actor

    async def change(
        self,
        account_id: str,
        kind: str,
        target: str,
        summary: str,
        make: Callable[[], Awaitable[T]],
        made_id: Callable[[T], str] | None = None,
    ) -> T:
        """`make()`'s result, recorded before it is made as a change of `kind` to
        `target` (or to the id `made_id` finds in the result: a member, a token)."""
        asked = Entry(kind, None, target, summary)

        def made(result: T) -> Entry:
            return Entry(kind, None, made_id(result) if made_id else target, summary)

        return await recorded(self._log, account_id, self._actor, asked, make, made)
