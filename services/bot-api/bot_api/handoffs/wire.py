"""The agent desk's lines on NATS (shared/events.py `DeskEvent`, core NATS): how a line
one replica heard reaches the desk streams open on the others (messaging.py)."""

from datetime import UTC, datetime
from typing import cast, get_args

from bot_api.changes import DeskLinesAdded
from bot_api.domain.desk import DeskEntry, Speaker
from bot_api.domain.history import Person
from bot_api.handoffs.live import DeskNews, news_of
from shared.events import DeskEvent
from shared.timeutil import epoch_ms

SPEAKERS = frozenset(get_args(Speaker))


def desk_events_of(change: DeskLinesAdded, origin: str) -> list[DeskEvent]:
    """One event a line (one without a line when only the list changed)."""
    return [_event(change, news, origin) for news in news_of(change)]


def _event(change: DeskLinesAdded, news: DeskNews, origin: str) -> DeskEvent:
    entry = news.entry
    person = None if entry is None else entry.person
    return DeskEvent(
        change.account_id,
        change.story_id,
        news.session_id,
        entry_id="" if entry is None else entry.id,
        at_ms=0 if entry is None else epoch_ms(entry.at),
        speaker="" if entry is None else entry.speaker,
        text="" if entry is None else entry.text,
        person_name=None if person is None else person.name,
        person_role=None if person is None else person.role,
        person_member_id=None if person is None else person.member_id,
        list_changed=news.list_changed,
        origin=origin,
    )


def news_of_event(event: DeskEvent) -> DeskNews:
    """The line another replica heard, as this one's streams hear it."""
    entry = None
    if event.entry_id:
        person = None
        if event.person_name is not None and event.person_role is not None:
            person = Person(event.person_name, event.person_role, event.person_member_id)
        speaker = event.speaker if event.speaker in SPEAKERS else "note"
        at = datetime.fromtimestamp(event.at_ms / 1000, UTC)
        entry = DeskEntry(event.entry_id, at, cast(Speaker, speaker), event.text, person)
    return DeskNews(event.session_id, entry, event.list_changed)
