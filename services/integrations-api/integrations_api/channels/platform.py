"""What a messaging platform is to a channel (docs/channels.md): how its webhook calls
are authenticated and read, and how an answer is written in its own messages.

Each platform (`telegram.py`, `slack.py`, `messenger.py`, `whatsapp.py`) is a pure
module: it reads bytes and writes `Call` values, and never does I/O itself. The
channel's use cases (`channels/service.py`) do the I/O: they acknowledge the platform,
ask bot-api for the turn over NATS and send the calls (`channels/sender.py`, with its
retries).
"""

import dataclasses
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from shared import json_body
from shared.errors import BadRequest
from shared.fulfillment import Item

if TYPE_CHECKING:
    from integrations_api.channels.answers import Shows

Credentials = Mapping[str, str]
"""A channel's secrets by their API names (`botToken`, `signingSecret`, ...), plus
`webhookSecret`, which Parley makes for Telegram's secret token."""

WELCOME = "welcome"
"""The trigger of a story's welcome interaction (SPEC: reserved)."""

Answer = Sequence[Item]
"""A turn's answer: its items, as bot-api's channel reply carries them
(shared/fulfillment.py)."""


@dataclass(frozen=True)
class Profile:
    """What the platform tells of the user, for the `default_*` parameters."""

    name: str | None = None
    language: str | None = None
    timezone: str | None = None
    avatar: str | None = None
    handle: str | None = None
    """The user's handle on the platform (Telegram's username, without the @): the agent
    desk names the user by it when the platform gave no name."""

    def display_name(self) -> str | None:
        """How the agent desk names the user: the name, else @handle, else None."""
        if self.name:
            return self.name
        return f"@{self.handle}" if self.handle else None


def profile_of(value: Any) -> Profile:
    """A profile as `shared.events.encode` wrote it within a kept message
    (channels/accepted.py): an object of strings and nulls; a field it does not know is
    ignored, anything else is a ValueError."""
    if not isinstance(value, dict):
        raise ValueError(f"a profile is an object, not {str(value)[:80]}")
    known = {f.name: value.get(f.name) for f in dataclasses.fields(Profile)}
    if not all(v is None or isinstance(v, str) for v in known.values()):
        raise ValueError(f"a profile holds strings and nulls: {str(value)[:80]}")
    return Profile(**known)


@dataclass(frozen=True)
class Incoming:
    """One message or button click a platform delivered, in Parley's terms."""

    delivery_id: str
    """The platform's id of the event (Telegram update_id, Slack event_id, Meta's
    message id): a redelivery carries the same one, and is processed once."""
    conversation: str
    """Where the answer goes: Telegram chat id, Slack channel, Messenger PSID, WhatsApp
    number."""
    user: str
    query: str | None = None
    goto: str | None = None
    """A clicked button that jumps to an interaction (its id)."""
    trigger: str | None = None
    """A platform's own start of a conversation (Telegram's /start): the `welcome`
    trigger, as the web widget sends when it opens."""
    profile: Profile = field(
        default_factory=Profile, metadata={"codec": (dataclasses.asdict, profile_of)}
    )
    """Kept with the message by its own codec (a message taken over from a replica that
    died: channels/accepted.py)."""
    callback: str | None = None
    """Telegram's callback_query id, which must be answered (answerCallbackQuery)."""


@dataclass(frozen=True)
class Request:
    """A webhook call as it reached `/v2/channels/:id`."""

    method: str
    headers: Mapping[str, str]
    """Header names in lower case."""
    query: Mapping[str, str]
    body: bytes


@dataclass(frozen=True)
class Reply:
    """What to answer the platform at once, when it is not a plain 200 (Slack's
    url_verification, Meta's hub.challenge)."""

    status: int
    text: str
    content_type: str = "text/plain"


@dataclass(frozen=True)
class Call:
    """One HTTP call to the platform's API; `path` is joined to its base address
    (TELEGRAM_API_URL, SLACK_API_URL or META_GRAPH_URL)."""

    path: str
    json: Mapping[str, Any]
    headers: Mapping[str, str] = field(default_factory=dict)
    method: str = "POST"


@dataclass(frozen=True)
class Pause:
    """A `delay` between two parts of an answer, in seconds."""

    seconds: float


@dataclass(frozen=True)
class Skipped:
    """Something left out so that the rest goes through: an event of a platform's call
    that cannot be read (the call's other events are still answered, and the platform
    gets its 200), or a part of an answer the platform would refuse (an image whose
    address is no web address, a blank label). Counted by its `reason`, one of a few
    fixed words (the metric's label)."""

    reason: str


Outgoing = Call | Pause | Skipped


class Platform(Protocol):
    """One messaging platform; a module-level instance per platform."""

    type: str
    """`telegram`, `slack`, `messenger` or `whatsapp`: the channel's type and the turn's
    `default_source`."""
    credential_names: tuple[str, ...]
    """The credentials a channel of this type must be given."""

    def authenticate(self, credentials: Credentials, request: Request, now: float) -> bool:
        """Whether the call comes from the platform, checked its own documented way."""
        ...

    def challenge(self, credentials: Credentials, request: Request) -> Reply | None:
        """The answer to a verification call (Slack url_verification, Meta's GET
        hub.challenge), or None for an ordinary call."""
        ...

    def read(self, credentials: Credentials, body: bytes) -> Sequence[Incoming | Skipped]:
        """The messages and clicks a call carries for this channel (none for events
        Parley ignores, or addressed to another of the app's numbers), and a `Skipped`
        for each event of it that cannot be read; raises ValueError on a body the
        platform would never send."""
        ...

    @property
    def shows(self) -> "Shows[Any]":
        """What it shows of each kind of answer item (channels/answers.py)."""
        ...

    def render(
        self, credentials: Credentials, incoming: Incoming, answer: Answer
    ) -> list[Outgoing]:
        """The calls that show an answer to the user, in order, with its delays (and
        answering a Telegram click), and what was left out of it (channels/answers.py)."""
        ...

    def text(self, credentials: Credentials, conversation: str, text: str) -> list[Call]:
        """A plain text to a conversation (a person's, during a handoff), in as many
        messages as the platform's length needs, cut between words."""
        ...


@contextmanager
def shape_errors_as_value_error() -> Iterator[None]:
    """Around a platform's `read`: a body with a field missing or of another type (the
    KeyError, TypeError or AttributeError of reading it) is the ValueError `read`
    raises, which the channel answers 400, not a 500."""
    try:
        yield
    except (KeyError, TypeError, AttributeError) as error:
        raise ValueError(f"a field is missing or of another type ({error!r})") from error


def read_json(body: str | bytes) -> Any:
    """A platform's JSON (a body, or a form field holding JSON), held to the shape every
    JSON body of the API is (`shared.json_body`: nesting, members, arrays and objects);
    a ValueError for one beyond it, which the channel answers 400. A signed body nested
    100,000 deep had the decoder's RecursionError answer 500 on every platform."""
    try:
        return json_body.parse(body.encode() if isinstance(body, str) else body)
    except BadRequest as error:
        raise ValueError(error.details) from None
