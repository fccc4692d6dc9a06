"""The contract between bot-api and integrations-api over NATS: subjects, payloads and
their versions. Every message is JSON with a version field `v`; a consumer refuses a
version it does not know rather than guessing.

Request/reply (synchronous look-ups):

- `parley.bot.stories.lookup.v1`: integrations-api asks bot-api whether a story is the
  account's. Request `{"v": 1, "accountId", "storyId"}`; reply `{"v": 1, "found":
  bool, "name": str or null}`. Answered by one bot-api replica (queue group).
"""

import json
from dataclasses import dataclass
from typing import Any

STORY_LOOKUP = "parley.bot.stories.lookup.v1"
LOOKUP_TIMEOUT_SECONDS = 2.0
VERSION = 1


class UnknownVersion(ValueError):
    pass


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
