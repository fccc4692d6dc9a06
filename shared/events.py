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

    def encode(self) -> bytes:
        return _encode(
            {
                "accountId": self.account_id,
                "storyId": self.story_id,
                "interactionIds": list(self.interaction_ids),
                "deleted": self.deleted,
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
        )


@dataclass(frozen=True)
class EntitiesChanged:
    account_id: str

    def encode(self) -> bytes:
        return _encode({"accountId": self.account_id})

    @classmethod
    def decode(cls, data: bytes) -> "EntitiesChanged":
        return cls(str(_decode(data)["accountId"]))
