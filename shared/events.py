"""The contract between bot-api and integrations-api over NATS: subjects, payloads and
their versions. Every message is JSON with a version field `v`; a consumer refuses a
version it does not know rather than guessing.

Names start with the deployment's namespace (its `DATABASE_PREFIX`, `parley` by
default), so deployments sharing a NATS cluster never hear each other.

JetStream (stream `<NS>_EVENTS`, subjects `<ns>.events.>`, at-least-once):

- `<ns>.events.stories.v1`: a story's content, structure or fields changed, or it was
  deleted. `{"v": 1, "accountId", "storyId", "interactionIds": [...], "deleted": bool}`.
  Published by bot-api after the write; every bot-api replica drops what it cached of
  the story, integrations-api refreshes its connections' story name (asking bot-api) or
  deletes them.
- `<ns>.events.entities.v1`: an account's entities changed. `{"v": 1, "accountId"}`.
  Every bot-api replica refreshes the entity recognisers of the account's stories.
  Both carry `origin`, the publishing process: it applied the change already, and
  skips its own events.
- `<ns>.events.connections.v1`: a webhook connection was written or deleted, with its
  url and credentials and a `revision` that grows with each write. Published by
  integrations-api; bot-api keeps its view for deliveries (an older revision never
  overwrites a newer one; a deletion stays as a tombstone).
- `<ns>.events.deliveries.v1`: how a call through a connection went. `{"v": 1,
  "accountId", "connectionId", "error": str or null, "atMs": epoch milliseconds}`. Published by
  bot-api; integrations-api sets or clears the connection's `error`, never going back
  to an older result.

Request/reply (synchronous look-ups):

- `<ns>.bot.stories.lookup.v1`: integrations-api asks bot-api whether a story is the
  account's. Request `{"v": 1, "accountId", "storyId"}`; reply `{"v": 1, "found":
  bool, "name": str or null}`. Answered by one bot-api replica (queue group).
"""

import json
from dataclasses import dataclass
from typing import Any

LOOKUP_TIMEOUT_SECONDS = 2.0
VERSION = 1


class UnknownVersion(ValueError):
    pass


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
    def connection_changed(self) -> str:
        return f"{self.namespace}.events.connections.v1"

    @property
    def delivery_result(self) -> str:
        return f"{self.namespace}.events.deliveries.v1"

    @property
    def story_lookup(self) -> str:
        return f"{self.namespace}.bot.stories.lookup.v1"

    def consumer(self, name: str) -> str:
        return f"{self.namespace}-{name}"


def _encode(fields: dict[str, Any]) -> bytes:
    return json.dumps({"v": VERSION, **fields}).encode()


def _decode(data: bytes) -> dict[str, Any]:
    payload = json.loads(data)
    if not isinstance(payload, dict) or payload.get("v") != VERSION:
        raise UnknownVersion(f"unknown message version: {str(data)[:80]}")
    return payload


@dataclass(frozen=True)
class StoryLookup:
    account_id: str
    story_id: str

    def encode(self) -> bytes:
        return _encode({"accountId": self.account_id, "storyId": self.story_id})

    @classmethod
    def decode(cls, data: bytes) -> "StoryLookup":
        payload = _decode(data)
        return cls(str(payload["accountId"]), str(payload["storyId"]))


@dataclass(frozen=True)
class StoryLookupReply:
    found: bool
    name: str | None = None

    def encode(self) -> bytes:
        return _encode({"found": self.found, "name": self.name})

    @classmethod
    def decode(cls, data: bytes) -> "StoryLookupReply":
        payload = _decode(data)
        return cls(bool(payload["found"]), payload.get("name"))


@dataclass(frozen=True)
class StoryChanged:
    account_id: str
    story_id: str
    interaction_ids: tuple[str, ...] = ()
    deleted: bool = False
    origin: str = ""

    def encode(self) -> bytes:
        return _encode(
            {
                "accountId": self.account_id,
                "storyId": self.story_id,
                "interactionIds": list(self.interaction_ids),
                "deleted": self.deleted,
                "origin": self.origin,
            }
        )

    @classmethod
    def decode(cls, data: bytes) -> "StoryChanged":
        payload = _decode(data)
        return cls(
            str(payload["accountId"]),
            str(payload["storyId"]),
            tuple(str(i) for i in payload["interactionIds"]),
            bool(payload["deleted"]),
            str(payload.get("origin", "")),
        )


@dataclass(frozen=True)
class EntitiesChanged:
    account_id: str
    origin: str = ""

    def encode(self) -> bytes:
        return _encode({"accountId": self.account_id, "origin": self.origin})

    @classmethod
    def decode(cls, data: bytes) -> "EntitiesChanged":
        payload = _decode(data)
        return cls(str(payload["accountId"]), str(payload.get("origin", "")))


@dataclass(frozen=True)
class ConnectionChanged:
    connection_id: str
    account_id: str
    story_id: str
    name: str
    url: str
    revision: int
    token: str | None = None
    headers: dict[str, str] | None = None
    auth: dict[str, str] | None = None
    deleted: bool = False

    def encode(self) -> bytes:
        return _encode(
            {
                "id": self.connection_id,
                "accountId": self.account_id,
                "storyId": self.story_id,
                "name": self.name,
                "url": self.url,
                "revision": self.revision,
                "token": self.token,
                "headers": self.headers,
                "auth": self.auth,
                "deleted": self.deleted,
            }
        )

    @classmethod
    def decode(cls, data: bytes) -> "ConnectionChanged":
        p = _decode(data)
        return cls(
            str(p["id"]), str(p["accountId"]), str(p["storyId"]), str(p["name"]), str(p["url"]),
            int(p["revision"]), p.get("token"), p.get("headers"), p.get("auth"),
            bool(p["deleted"]),
        )  # fmt: skip


@dataclass(frozen=True)
class DeliveryResult:
    account_id: str
    connection_id: str
    error: str | None
    at_ms: int

    def encode(self) -> bytes:
        return _encode(
            {
                "accountId": self.account_id,
                "connectionId": self.connection_id,
                "error": self.error,
                "atMs": self.at_ms,
            }
        )

    @classmethod
    def decode(cls, data: bytes) -> "DeliveryResult":
        p = _decode(data)
        return cls(str(p["accountId"]), str(p["connectionId"]), p.get("error"), int(p["atMs"]))
