"""The agent desk's values (docs/teams.md "The agent desk"): the person who has a
conversation, the lines of its transcript, and the label a user goes by.

A transcript line (`DeskEntry`) is made the same way from a turn the history stored
(`entries_of`) and from a turn just answered, so the page that read the transcript and
then hears the turn live sees one line, by its id, not two.
"""

import hashlib
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from bot_api.domain.history import Person, TurnRecord

Speaker = Literal["user", "bot", "person", "note"]
"""Who a line is of: the user, the bot (its turns before the handoff, and the story's
message when the conversation goes back to it), the person at the desk, or a note of
the desk's (taken over, given back)."""

CHANNEL_TITLES = {
    "telegram": "Telegram",
    "slack": "Slack",
    "messenger": "Messenger",
    "whatsapp": "WhatsApp",
    "widget": "Widget",
    "console": "Console",
}
"""How the desk names a session's `default_source`; another source is shown as it is."""


@dataclass(frozen=True)
class DeskEntry:
    """One line of a conversation's transcript on the desk."""

    id: str
    """Stable for the line: `<turn id>:<n>` for the lines of a recorded turn."""
    at: datetime
    speaker: Speaker
    text: str
    person: Person | None = None
    """For a person's line and a note: who wrote or acted."""


def channel_title(source: str | None) -> str:
    """The channel a session came through, as the desk shows it ("Telegram")."""
    if not source:
        return CHANNEL_TITLES["widget"]
    return CHANNEL_TITLES.get(source, source)


def user_label(session_id: str, user_name: str | None, source: str | None) -> str:
    """The user as the desk names them: the name the channel gave (Telegram's first and
    last name or @username, WhatsApp's profile name), else a short label that stays the
    same for the session ("Telegram user 77" for a channel's, whose session id ends with
    the platform's user id; "Visitor 3f9a" for the widget's or /query's)."""
    if user_name:
        return user_name
    parts = session_id.split(":")
    if len(parts) == 3 and source in CHANNEL_TITLES and parts[2]:
        return f"{channel_title(source)} user {parts[2][-12:]}"
    return f"Visitor {hashlib.sha256(session_id.encode()).hexdigest()[:4]}"


def entries_of(turn_id: str, turn: TurnRecord) -> list[DeskEntry]:
    """The transcript lines of a recorded turn: what the user said (a trigger or a
    button's jump says nothing), then the answer; a person's message is theirs; a
    conversation taken over is a note; one given back is a note, then the story's
    message to the user."""
    lines: list[tuple[Speaker, str, Person | None]] = []
    if turn.query is not None:
        lines.append(("user", turn.query, None))
    person_wrote = turn.outcome == "handoff" and turn.query is None and turn.trigger is None
    who = turn.person.name if turn.person is not None else "The desk"
    if turn.taken_over:
        lines.append(("note", f"{who} took the conversation over", turn.person))
    elif turn.given_back:
        lines.append(("note", f"{who} gave the conversation back to the bot", turn.person))
        if turn.fulfillment:
            lines.append(("bot", turn.fulfillment, None))
    elif turn.fulfillment:
        speaker: Speaker = "person" if person_wrote else "bot"
        lines.append((speaker, turn.fulfillment, turn.person if person_wrote else None))
    return [
        DeskEntry(f"{turn_id}:{n}", turn.at, speaker, text, person)
        for n, (speaker, text, person) in enumerate(lines)
    ]
