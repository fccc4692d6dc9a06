"""How a change leaves its audit record (docs/teams.md "Audit log"): an endpoint's here,
the `accounts` command's through the same `recorded` (shared/command_audit.py).

An endpoint declares `audit=Audited(kind, shows=...)`; `run_audited` (called by the
`@endpoint` wrapper) writes the record before the handler runs and confirms it after, so
no change is made without its record: a record that cannot be written is a 503 and the
handler never runs. A refusal (a 4xx) withdraws the record; an unexpected failure leaves
it unconfirmed, its outcome unknown.

The summary names the body's fields; only those the declaration `shows` carry a short
value, so a secret (a token, channel credentials, connection headers) is never written
by value: a field is hidden unless a route says it may show.
"""

import dataclasses
import json
import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from aiohttp import web
from pymongo.errors import PyMongoError

from shared.audit import Actor, AuditLog, actor_of
from shared.auth import Principal
from shared.errors import ApiError

log = logging.getLogger(__name__)

T = TypeVar("T")

SHORT_TEXT = 40
"""Characters of a text value a summary shows; longer ones end in an ellipsis."""


@dataclass(frozen=True)
class Audited:
    """An endpoint changes state: its records' `kind` and the body fields whose values
    a summary may show (a nested field as `parent.child`; every other field is named
    without its value). `story_created`: the id the change makes is a story's."""

    kind: str
    shows: tuple[str, ...] = ()
    story_created: bool = False


@dataclass
class AuditNote:
    """What a handler adds to its request's record (mutable: filled while it runs): the
    id it made, a kind more precise than the declared one, the values before (by the
    summary's field names), values to show of a body it read itself (an upload: never a
    secret), or that the request changed nothing after all (an idempotent replay, a dry
    run)."""

    target: str | None = None
    story_id: str | None = None
    kind: str | None = None
    before: dict[str, Any] = field(default_factory=dict)
    shown: dict[str, Any] = field(default_factory=dict)
    unchanged: bool = False


@dataclass(frozen=True)
class Entry:
    """What a record says of its change: asked before it is made, or made."""

    kind: str
    story_id: str | None
    target: str
    summary: str


AUDIT_NOTE = web.RequestKey("audit_note", AuditNote)
AUDIT_LOG = web.AppKey("audit_log", AuditLog)


def note_of(request: web.Request) -> AuditNote | None:
    """The request's audit note; None on an endpoint that changes nothing."""
    return request.get(AUDIT_NOTE)


def note_story(request: web.Request, story_id: str) -> None:
    """The story the change was of, when neither its path nor its body names it."""
    note = note_of(request)
    if note is not None:
        note.story_id = story_id


def changed_nothing(request: web.Request) -> None:
    """The request made no change (its record is withdrawn)."""
    note = note_of(request)
    if note is not None:
        note.unchanged = True


async def run_audited(
    request: web.Request,
    audited: Audited,
    principal: Principal,
    body: Any,
    handle: Callable[[], Awaitable[Any]],
) -> Any:
    """`handle()`'s result, the change it makes recorded before it is made."""
    note = AuditNote()
    request[AUDIT_NOTE] = note
    path = request.match_info
    target = _last_parameter(path) or ""
    story_id = path.get("story") or _story_in(body)
    asked = Entry(audited.kind, story_id, target, summary_of(audited.shows, body, {}))

    def made(result: Any) -> Entry | None:
        if note.unchanged:
            return None
        made_id = note.target or _made_id(result) or target
        summary = summary_of(audited.shows, body, note.before)
        return Entry(
            kind=note.kind or audited.kind,
            story_id=note.story_id or (made_id if audited.story_created else story_id),
            target=made_id,
            summary=summary or summary_of(tuple(note.shown), note.shown, {}),
        )

    audit = request.app[AUDIT_LOG]
    return await recorded(audit, principal.account_id, actor_of(principal), asked, handle, made)


async def recorded(
    audit: AuditLog,
    account_id: str,
    actor: Actor,
    asked: Entry,
    make: Callable[[], Awaitable[T]],
    made: Callable[[T], Entry | None],
) -> T:
    """`make()`'s result, its change recorded as `asked` before it is made and confirmed
    as `made(result)` says once it was (None: it changed nothing after all, so no record).
    The one way both an endpoint and the `accounts` command (shared/command_audit.py)
    record a change: a record that cannot be written is an `AuditUnavailable` and `make`
    never runs; a refusal (a 4xx) withdraws it; an unexpected failure leaves it
    unconfirmed, its outcome unknown."""
    record_id = await audit.begin(
        account_id=account_id,
        actor=actor,
        kind=asked.kind,
        story_id=asked.story_id,
        target=asked.target,
        summary=asked.summary,
    )
    try:
        result = await make()
    except ApiError as refused:
        if refused.status < 500:
            await _withdraw(audit, record_id)
        raise
    entry = made(result)
    if entry is None:
        await _withdraw(audit, record_id)
        return result
    try:
        await audit.confirm(
            record_id,
            kind=entry.kind,
            target=entry.target,
            story_id=entry.story_id,
            summary=entry.summary,
        )
    except PyMongoError as error:  # made and recorded; the record stays unconfirmed
        log.warning("audit record %s left unconfirmed: %s", record_id, error)
    return result


async def _withdraw(audit: AuditLog, record_id: str) -> None:
    try:
        await audit.withdraw(record_id)
    except PyMongoError as error:  # it stays, unconfirmed: nothing was changed
        log.warning("audit record %s of a refused change left unconfirmed: %s", record_id, error)


def _last_parameter(path: Mapping[str, str]) -> str | None:
    """What the path names last (`/stories/{story}/tests/{test}`: the test)."""
    values = list(path.values())
    return values[-1] if values else None


def _story_in(body: Any) -> str | None:
    story = body.get("storyId") if isinstance(body, Mapping) else None
    return story if isinstance(story, str) else None


def _made_id(result: Any) -> str | None:
    made = result.get("id") if isinstance(result, Mapping) else None
    return made if isinstance(made, str) else None


def summary_of(shows: tuple[str, ...], body: Any, before: Mapping[str, Any]) -> str:
    """`name: "Pizza" -> "Pasta"; settings.language: "de"; credentials.botToken`: each
    field of the body (nested objects one level deep), with its short value when
    `shows` names it (or its parent as `settings.*`), and its value before when the
    handler noted one."""
    if not isinstance(body, Mapping):
        return ""
    parts = []
    for name, value in _fields(body):
        if name not in shows and not ("." in name and f"{name.partition('.')[0]}.*" in shows):
            parts.append(name)
        elif name in before:
            parts.append(f"{name}: {short(before[name])} -> {short(value)}")
        else:
            parts.append(f"{name}: {short(value)}")
    return "; ".join(parts)


def _fields(body: Mapping[str, Any]) -> list[tuple[str, Any]]:
    found: list[tuple[str, Any]] = []
    for name, value in body.items():
        if isinstance(value, Mapping) and value:
            found.extend((f"{name}.{inner}", item) for inner, item in value.items())
        else:
            found.append((str(name), value))
    return found


def short(value: Any) -> str:
    """A value as a summary shows it: texts cut short, lists and objects counted."""
    if isinstance(value, str):
        cut = value if len(value) <= SHORT_TEXT else value[:SHORT_TEXT] + "…"
        return json.dumps(cut, ensure_ascii=False)
    if isinstance(value, list | tuple):
        return f"[{len(value)} items]"
    if isinstance(value, Mapping):
        return f"{{{len(value)} fields}}"
    if dataclasses.is_dataclass(value):
        return f"{{{len(dataclasses.fields(value))} fields}}"
    return json.dumps(value, default=str)
