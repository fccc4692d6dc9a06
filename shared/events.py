"""The contract between bot-api and integrations-api over NATS: subjects, payloads and
their versions. Every message is JSON with a version field `v`; a consumer refuses a
version it does not know rather than guessing.

Each payload is a frozen dataclass below; `encode` writes its fields under their
camelCase names (or the `wire` name a field declares) after `"v": 1`, and `decode`
reads them back strictly: bad JSON, a missing field, a value of the wrong type or an
unknown version are all one `UndecodableEvent`, which a consumer drops rather than
retries (shared/messaging.py). A field with a default may be missing (a sender older
than the field): it is read as its default.

Names start with the deployment's namespace (its `DATABASE_PREFIX`, `parley` by
default), so deployments sharing a NATS cluster never hear each other. Each subject, its
payload, who publishes it and who hears it, and what JetStream keeps: docs/events.md,
the one list of them.
"""

import functools
import json
import types
from collections.abc import Callable
from dataclasses import MISSING, dataclass, field, fields
from typing import TYPE_CHECKING, Any, TypeVar, Union, get_args, get_origin, get_type_hints

from shared import fulfillment

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

LOOKUP_TIMEOUT_SECONDS = 2.0
VERSION = 1


class UndecodableEvent(ValueError):
    """A message no version of this code can read: retrying it can never succeed."""


@dataclass(frozen=True)
class Subjects:
    """Every NATS name of one deployment."""

    namespace: str

    @property
    def stream(self) -> str:
        return f"{self.namespace.upper()}_EVENTS"

    @property
    def stream_subjects(self) -> list[str]:
        return [f"{self.namespace}.events.>"]

    @property
    def story_changed(self) -> str:
        return f"{self.namespace}.events.stories.v1"

    @property
    def entities_changed(self) -> str:
        return f"{self.namespace}.events.entities.v1"

    @property
    def conversation_erased(self) -> str:
        return f"{self.namespace}.events.conversations.v1"

    @property
    def knowledge_changed(self) -> str:
        return f"{self.namespace}.events.knowledge.v1"

    @property
    def connection_changed(self) -> str:
        return f"{self.namespace}.events.connections.v1"

    @property
    def delivery_result(self) -> str:
        return f"{self.namespace}.events.deliveries.v1"

    @property
    def story_lookup(self) -> str:
        return f"{self.namespace}.bot.stories.lookup.v1"

    @property
    def tokens_rotated(self) -> str:
        return f"{self.namespace}.events.accounts.v1"

    def replicas(self, service: str) -> str:
        return f"{self.namespace}.replicas.{service}.v1"

    @property
    def handoff_message(self) -> str:
        return f"{self.namespace}.events.handoff.v1"

    @property
    def channel_turn(self) -> str:
        return f"{self.namespace}.bot.turns.v1"

    @property
    def desk(self) -> str:
        return f"{self.namespace}.desk.v1"

    @property
    def connection_lookup(self) -> str:
        return f"{self.namespace}.integrations.connections.lookup.v1"

    def consumer(self, name: str) -> str:
        return f"{self.namespace}-{name}"


@dataclass(frozen=True)
class ReplicaAlive:
    replica: str


@dataclass(frozen=True)
class StoryLookup:
    account_id: str
    story_id: str


@dataclass(frozen=True)
class StoryLookupReply:
    found: bool
    name: str | None = None


@dataclass(frozen=True)
class TokensRotated:
    account_id: str


@dataclass(frozen=True)
class ConnectionLookup:
    account_id: str
    story_id: str
    connection_id: str


@dataclass(frozen=True)
class ConnectionLookupReply:
    found: bool


@dataclass(frozen=True)
class StoryChanged:
    account_id: str
    story_id: str
    interaction_ids: tuple[str, ...] = ()
    deleted: bool = False
    origin: str = ""


@dataclass(frozen=True)
class EntitiesChanged:
    account_id: str
    origin: str = ""


@dataclass(frozen=True)
class ConversationErasedEvent:
    """A conversation's turns were erased (docs/history.md): every replica lets go of the
    copies it keeps of them (the misses inbox's)."""

    account_id: str
    story_id: str
    session_id: str
    origin: str = ""


@dataclass(frozen=True)
class KnowledgeChanged:
    """A story's documents or FAQ pairs changed (docs/knowledge.md): every replica reads
    them anew on the story's next question."""

    account_id: str
    story_id: str
    origin: str = ""


@dataclass(frozen=True)
class ConnectionChanged:
    connection_id: str = field(metadata={"wire": "id"})
    account_id: str
    story_id: str
    name: str
    url: str
    revision: int
    token: str | None = None
    headers: dict[str, str] | None = None
    auth: dict[str, str] | None = None
    deleted: bool = False


@dataclass(frozen=True)
class DeliveryResult:
    account_id: str
    connection_id: str
    error: str | None
    at_ms: int


TURN_ID_HEADER = "Parley-Turn-Id"
"""The NATS header naming a channel's turn: a hash of the channel id and the platform's
delivery id, the same whichever integrations-api replica asks, so whichever bot-api
replica a repeat reaches answers it with the first's reply (bot_api/query/repeats.py)."""


@dataclass(frozen=True)
class ChannelTurn:
    account_id: str
    story_id: str
    session_id: str
    source: str
    query: str | None
    trigger: str | None
    goto: str | None
    parameters: dict[str, str]
    user_name: str | None = None


@dataclass(frozen=True)
class ChannelTurnReply:
    status: int
    body: str
    answer: tuple[fulfillment.Item, ...] = field(
        default=(), metadata={"codec": (fulfillment.encode, fulfillment.decode)}
    )
    """The items a channel shows; written and read by their own codec (a field may
    name a `codec`: the (encode, decode) of its value, decode raising ValueError)."""


@dataclass(frozen=True)
class HandoffMessage:
    account_id: str
    story_id: str
    session_id: str
    text: str


@dataclass(frozen=True)
class DeskEvent:
    account_id: str
    story_id: str
    session_id: str
    entry_id: str
    at_ms: int
    speaker: str
    text: str
    person_name: str | None
    person_role: str | None
    person_member_id: str | None
    list_changed: bool
    origin: str


Event = TypeVar("Event", bound="DataclassInstance")


def encode(event: "DataclassInstance") -> bytes:
    payload = {
        wire: getattr(event, name) if codec is None else codec[0](getattr(event, name))
        for name, wire, _, codec in _layout(type(event))
    }
    return json.dumps({"v": VERSION, **payload}).encode()


def decode(event_type: type[Event], data: bytes) -> Event:
    """The event `data` holds, or UndecodableEvent; fields it does not know are ignored."""
    try:
        payload = json.loads(data)
    except (ValueError, UnicodeDecodeError):
        raise UndecodableEvent(f"not JSON: {data[:80]!r}") from None
    if not isinstance(payload, dict) or payload.get("v") != VERSION:
        raise UndecodableEvent(f"unknown version of {event_type.__name__}: {data[:80]!r}")
    values: dict[str, Any] = {}
    for name, wire, expected, codec in _layout(event_type):
        if wire not in payload and name in _defaulted(event_type):
            continue
        if wire not in payload:
            raise UndecodableEvent(f"{event_type.__name__} without {wire}: {data[:80]!r}")
        where = f"{event_type.__name__}.{wire}"
        if codec is None:
            values[name] = _typed(payload[wire], expected, where)
            continue
        try:
            values[name] = codec[1](payload[wire])
        except ValueError as error:
            raise UndecodableEvent(f"{where}: {error}") from None
    return event_type(**values)


Codec = tuple[Callable[[Any], Any], Callable[[Any], Any]]


@functools.cache
def _layout(
    event_type: type["DataclassInstance"],
) -> tuple[tuple[str, str, Any, Codec | None], ...]:
    """(attribute, wire name, type, codec or None) of each field, in declaration order."""
    hints = get_type_hints(event_type)
    return tuple(
        (
            f.name,
            f.metadata.get("wire", _camel_case(f.name)),
            hints[f.name],
            f.metadata.get("codec"),
        )
        for f in fields(event_type)
    )


@functools.cache
def _defaulted(event_type: type["DataclassInstance"]) -> frozenset[str]:
    """The fields a payload may leave out: those with a default."""
    return frozenset(
        f.name
        for f in fields(event_type)
        if f.default is not MISSING or f.default_factory is not MISSING
    )


def _camel_case(name: str) -> str:
    first, *rest = name.split("_")
    return first + "".join(part.title() for part in rest)


def _typed(value: Any, expected: Any, where: str) -> Any:
    """`value` as a field of type `expected` holds it (a JSON list becomes a tuple)."""
    origin = get_origin(expected)
    if origin in (Union, types.UnionType):
        if value is None and type(None) in get_args(expected):
            return None
        (inner,) = (arg for arg in get_args(expected) if arg is not type(None))
        return _typed(value, inner, where)
    if origin is tuple and isinstance(value, list):
        item = get_args(expected)[0]
        return tuple(_typed(element, item, where) for element in value)
    if origin is dict and isinstance(value, dict):
        key_type, value_type = get_args(expected)
        return {
            _typed(key, key_type, where): _typed(element, value_type, where)
            for key, element in value.items()
        }
    if origin is None and isinstance(value, expected):
        if expected is int and isinstance(value, bool):
            raise UndecodableEvent(f"{where}: a number, not {value!r}")
        return value
    raise UndecodableEvent(f"{where}: {value!r} is not {expected}")
