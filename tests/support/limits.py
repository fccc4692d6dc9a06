"""Requests at and beyond the limits of bot-api's fields, and the checks every limit
test makes: a refusal is 400 `validation_error` whose `errors` tree names the field, and
a refused request creates or changes nothing."""

import re
from typing import Any

from support.api import Api, Reply

_PATH_TOKEN = re.compile(r"\[(\d+)\]|([^.\[\]]+)")


def _keys(path: str) -> list[str]:
    """`responses[0].messages[3]` -> ["responses", "0", "messages", "3"]."""
    return [index or name for index, name in _PATH_TOKEN.findall(path)]


def _messages(node: Any) -> list[str]:
    if isinstance(node, str):
        return [node]
    if isinstance(node, list):
        return [m for item in node for m in _messages(item)]
    if isinstance(node, dict):
        return [m for item in node.values() for m in _messages(item)]
    return []


def refused(reply: Reply, path: str, mentions: str | None = None) -> list[str]:
    """Insist on 400 `validation_error` whose `errors` tree holds messages at `path`.

    `path` is written as in `errorDetails` (`userSays[3]`, `responses[0].title`,
    `[0].contextOut`); `mentions` is a text (usually the limit) a message must contain.
    Returns the messages found there.
    """
    assert reply.error == (400, "validation_error"), (reply.status, reply.body)
    status = reply.body["status"]
    assert status.get("errorDetails"), status
    node = status.get("errors")
    assert isinstance(node, dict), f"no errors tree in {status}"
    for key in _keys(path):
        assert isinstance(node, dict) and key in node, f"{path!r} not in errors {status['errors']}"
        node = node[key]
    messages = _messages(node)
    assert messages, f"no message at {path!r}: {status['errors']}"
    if mentions is not None:
        assert any(mentions in m for m in messages), (mentions, messages)
    head = _keys(path)[0]
    assert head in status["errorDetails"], status
    return messages


def refused_by_rule(reply: Reply, details_start: str) -> str:
    """Insist on 400 `validation_error` whose `errorDetails` starts with the field path."""
    assert reply.error == (400, "validation_error"), (reply.status, reply.body)
    details = reply.details
    assert details.startswith(details_start), details
    return details


def entry(value: str, *synonyms: str) -> dict[str, Any]:
    """An entity entry; its synonyms are its own value followed by `synonyms`."""
    return {"value": value, "synonyms": [{"value": s} for s in (value, *synonyms)]}


def text(*messages: str) -> dict[str, Any]:
    return {"type": "text", "messages": list(messages) or ["Hi"]}


def quick_reply(title: str = "Size?", replies: list[str] | None = None) -> dict[str, Any]:
    replies = ["S", "M", "L"] if replies is None else replies
    return {"type": "quickReply", "title": title, "replies": replies}


def button(title: str = "Order", postback: str = "ORDER") -> dict[str, Any]:
    return {"title": title, "postback": postback}


def card(**fields: Any) -> dict[str, Any]:
    body = {
        "type": "card",
        "title": "Margherita",
        "subtitle": "Tomato",
        "imageUrl": "https://img.example.com/m.png",
    }
    return {**body, "buttons": [button()], **fields}


def button_template(**fields: Any) -> dict[str, Any]:
    return {"type": "buttonTemplate", "title": "What next?", "buttons": [button()], **fields}


def parameter(alias: str = "color", entity: str = "color", *prompts: str) -> dict[str, Any]:
    return {"alias": alias, "entity": entity, "prompts": list(prompts)}


def as_read(body: dict[str, Any]) -> dict[str, Any]:
    """What a read returns for a sent body: each parameter also says if it is required."""
    if "parameters" not in body:
        return body
    return {
        **body,
        "parameters": [{**p, "required": bool(p["prompts"])} for p in body["parameters"]],
    }


def url_of_length(length: int) -> str:
    base = "https://hooks.example.com/"
    return base + "p" * (length - len(base))


CONNECTION_ID = "0123456789abcdef01234567"


async def count(api: Api, path: str) -> int:
    return len(await api.ok("GET", path))


async def create_entities_for(api: Api, fields: dict[str, Any]) -> None:
    """Parameters name entities by name; the account must hold them first."""
    for name in sorted({p["entity"] for p in fields.get("parameters", [])}):
        await api.create_entity(name)


async def interaction_accepts(api: Api, story_id: str, fields: dict[str, Any]) -> None:
    """An interaction holding `fields` is created and read back exactly as sent."""
    await create_entities_for(api, fields)
    body = {"name": "Order pizza", **fields}
    interaction_id = await api.create_interaction(story_id, **body)

    stored = await api.ok("GET", f"/stories/{story_id}/interactions/{interaction_id}")
    assert {field: stored[field] for field in body} == as_read(body)


async def interaction_create_refuses(
    api: Api, story_id: str, fields: dict[str, Any], path: str, mentions: str | None = None
) -> None:
    """Creating an interaction holding `fields` is refused at `path` and creates nothing."""
    listed = f"/stories/{story_id}/interactions"
    before = await count(api, listed)

    refused(await api.post(listed, {"name": "Order pizza", **fields}), path, mentions)
    assert await count(api, listed) == before


async def interaction_update_refuses(
    api: Api, story_id: str, at_max: dict[str, Any], over: dict[str, Any], path: str, limit: str
) -> None:
    """An interaction holding `at_max` refuses an update to `over` and keeps what it held."""
    await create_entities_for(api, at_max)
    interaction_id = await api.create_interaction(story_id, **{"name": "Order pizza", **at_max})
    path_of_it = f"/stories/{story_id}/interactions/{interaction_id}"
    before = await api.ok("GET", path_of_it)

    refused(await api.put(path_of_it, over), path, limit)
    assert await api.ok("GET", path_of_it) == before
