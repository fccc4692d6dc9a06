"""The limits of SPEC.md's field tables, enforced at the HTTP boundary of bot-api.

For every limit on stories, entities and interactions:

- a request holding the maximum is accepted (200), and reading the record back
  returns exactly what was sent;
- a request holding one more is refused with 400 `validation_error`, its `errors`
  tree names the offending field, and nothing was created or changed.

Where SPEC.md's concept rules and its field tables differ, the concept rules hold
(at most 3 buttons, one quickReply block, 20-character quick replies, a 640-character
button-template text, an optional postback that defaults to the button title).
"""

import re
from typing import Any

import pytest

from support.api import Api, Reply

# --------------------------------------------------------------------------- helpers

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
    body = {"type": "card", "title": "Margherita", "subtitle": "Tomato", "imageUrl": "m.png"}
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


@pytest.fixture
async def story_id(api: Api) -> str:
    return await api.create_story("Pizza")


# --------------------------------------------------------------------------- stories

STORY_TEXT_LIMITS = [
    pytest.param("name", "n" * 1024, "n" * 1025, "1024", id="name 1024 chars"),
    pytest.param("description", "d" * 2048, "d" * 2049, "2048", id="description 2048 chars"),
]


@pytest.mark.parametrize(("field", "at_max", "over", "limit"), STORY_TEXT_LIMITS)
async def test_a_story_accepts_the_longest_name_and_description(
    api: Api, field: str, at_max: str, over: str, limit: str
) -> None:
    body = {"name": "Pizza", "description": "Orders", field: at_max}
    story_id = str((await api.ok("POST", "/stories", body))["id"])
    assert (await api.story(story_id))[field] == at_max

    renamed = {**body, field: at_max[:-1] + "x"}
    await api.ok("PUT", f"/stories/{story_id}", renamed)
    assert (await api.story(story_id))[field] == renamed[field]


@pytest.mark.parametrize(("field", "at_max", "over", "limit"), STORY_TEXT_LIMITS)
async def test_a_story_refuses_one_character_more(
    api: Api, field: str, at_max: str, over: str, limit: str
) -> None:
    body = {"name": "Pizza", "description": "Orders"}
    refused(await api.post("/stories", {**body, field: over}), field, limit)
    assert await count(api, "/stories") == 0

    story_id = await api.create_story(**body)
    refused(await api.put(f"/stories/{story_id}", {**body, field: over}), field, limit)
    assert (await api.story(story_id))[field] == body[field]


async def test_a_story_name_is_required_and_not_empty_while_a_description_may_be(
    api: Api,
) -> None:
    refused(await api.post("/stories", {"name": "", "description": ""}), "name", "1")
    refused(await api.post("/stories", {"description": ""}), "name")
    refused(await api.post("/stories", {"name": "Pizza"}), "description")
    assert await count(api, "/stories") == 0

    story_id = await api.create_story("P", description="")
    story = await api.story(story_id)
    assert (story["name"], story["description"]) == ("P", "")


STORY_SETTINGS_ACCEPTED = [
    pytest.param({"confidence": 0}, id="confidence 0"),
    pytest.param({"confidence": 1}, id="confidence 1"),
    pytest.param({"confidence": 0.75}, id="confidence 0.75"),
    pytest.param({"lifespan": 1}, id="lifespan 1"),
    pytest.param({"lifespan": 10}, id="lifespan 10"),
    pytest.param({"fallback": False}, id="fallback false"),
]

STORY_SETTINGS_REFUSED = [
    pytest.param({"confidence": -0.01}, "settings.confidence", id="confidence below 0"),
    pytest.param({"confidence": 1.01}, "settings.confidence", id="confidence above 1"),
    pytest.param({"confidence": "0.5"}, "settings.confidence", id="confidence as a string"),
    pytest.param({"lifespan": 0}, "settings.lifespan", id="lifespan 0"),
    pytest.param({"lifespan": 11}, "settings.lifespan", id="lifespan 11"),
    pytest.param({"lifespan": 2.5}, "settings.lifespan", id="lifespan not an integer"),
    pytest.param({"fallback": "false"}, "settings.fallback", id="fallback as a string"),
]


@pytest.mark.parametrize("settings", STORY_SETTINGS_ACCEPTED)
async def test_story_settings_accept_their_bounds(api: Api, settings: dict[str, Any]) -> None:
    story_id = await api.create_story("Pizza", settings=settings)
    stored = (await api.story(story_id))["settings"]
    assert {name: stored[name] for name in settings} == settings


@pytest.mark.parametrize(("settings", "path"), STORY_SETTINGS_REFUSED)
async def test_story_settings_refuse_values_out_of_bounds(
    api: Api, settings: dict[str, Any], path: str
) -> None:
    body = {"name": "Pizza", "description": ""}
    refused(await api.post("/stories", {**body, "settings": settings}), path)
    assert await count(api, "/stories") == 0

    story_id = await api.create_story(**body)
    before = (await api.story(story_id))["settings"]
    refused(await api.put(f"/stories/{story_id}", {**body, "settings": settings}), path)
    assert (await api.story(story_id))["settings"] == before


# --------------------------------------------------------------------------- entities

ENTITY_LIMITS = [
    pytest.param(
        {"name": "e" * 128, "entries": [entry("red")]},
        {"name": "e" * 129, "entries": [entry("red")]},
        "name",
        "128",
        id="name 128 chars",
    ),
    pytest.param(
        {"name": "color", "entries": [entry(f"v{i}") for i in range(2000)]},
        {"name": "color", "entries": [entry(f"v{i}") for i in range(2001)]},
        "entries",
        "2000",
        id="2000 entries",
    ),
    pytest.param(
        {"name": "color", "entries": [entry("v" * 1024)]},
        {"name": "color", "entries": [entry("v" * 1025)]},
        "entries[0].value",
        "1024",
        id="entry value 1024 chars",
    ),
    pytest.param(
        {"name": "color", "entries": [entry("red", *(f"s{i}" for i in range(98)))]},
        {"name": "color", "entries": [entry("red", *(f"s{i}" for i in range(99)))]},
        "entries[0].synonyms",
        "99",
        id="99 synonyms",
    ),
    pytest.param(
        {"name": "color", "entries": [entry("red", "s" * 1024)]},
        {"name": "color", "entries": [entry("red", "s" * 1025)]},
        "entries[0].synonyms[1].value",
        "1024",
        id="synonym 1024 chars",
    ),
]


@pytest.mark.parametrize(("at_max", "over", "path", "limit"), ENTITY_LIMITS)
async def test_an_entity_accepts_each_maximum(
    api: Api, at_max: dict[str, Any], over: dict[str, Any], path: str, limit: str
) -> None:
    entity_id = str((await api.ok("POST", "/entities", at_max))["id"])
    stored = await api.ok("GET", f"/entities/{entity_id}")
    assert (stored["name"], stored["entries"]) == (at_max["name"], at_max["entries"])


@pytest.mark.parametrize(("at_max", "over", "path", "limit"), ENTITY_LIMITS)
async def test_an_entity_refuses_one_more_on_create_and_on_update(
    api: Api, at_max: dict[str, Any], over: dict[str, Any], path: str, limit: str
) -> None:
    refused(await api.post("/entities", over), path, limit)
    assert await count(api, "/entities") == 0

    entity_id = await api.create_entity("color", "red")
    before = await api.ok("GET", f"/entities/{entity_id}")
    refused(await api.put(f"/entities/{entity_id}", over), path, limit)
    assert await api.ok("GET", f"/entities/{entity_id}") == before


ENTITY_REFUSED = [
    pytest.param({"name": "", "entries": [entry("red")]}, "name", id="empty name"),
    pytest.param({"entries": [entry("red")]}, "name", id="missing name"),
    pytest.param({"name": "my color", "entries": [entry("red")]}, "name", id="name with space"),
    pytest.param({"name": "my.color", "entries": [entry("red")]}, "name", id="name with dot"),
    pytest.param({"name": "color\n", "entries": [entry("red")]}, "name", id="name with newline"),
    pytest.param({"name": "color"}, "entries", id="missing entries"),
    pytest.param({"name": "color", "entries": [entry("")]}, "entries[0].value", id="empty value"),
    pytest.param(
        {"name": "color", "entries": [{"value": "red", "synonyms": []}]},
        "entries[0].synonyms",
        id="zero synonyms",
    ),
    pytest.param(
        {"name": "color", "entries": [entry("red", "")]},
        "entries[0].synonyms[1].value",
        id="empty synonym",
    ),
    pytest.param(
        {"name": "color", "entries": [{"value": "red", "synonyms": [{"value": "crimson"}]}]},
        "entries[0].synonyms",
        id="synonyms without the entry's own value",
    ),
    pytest.param(
        {"name": "color", "entries": [entry("red"), entry("blue"), entry("red", "ruby")]},
        "entries[2].value",
        id="an entry value listed twice",
    ),
]


@pytest.mark.parametrize(("body", "path"), ENTITY_REFUSED)
async def test_an_entity_refuses_empty_missing_or_malformed_fields(
    api: Api, body: dict[str, Any], path: str
) -> None:
    refused(await api.post("/entities", body), path)
    assert await count(api, "/entities") == 0


async def test_an_entity_name_is_letters_digits_underscore_and_dash(api: Api) -> None:
    body = {"name": "Pizza_Size-2", "entries": []}
    entity_id = str((await api.ok("POST", "/entities", body))["id"])
    assert await api.ok("GET", f"/entities/{entity_id}") == {"id": entity_id, **body}


# --------------------------------------------------------------------------- interactions

ALL_RESPONSE_TYPES = [
    text(),
    quick_reply(),
    {"type": "image", "imageUrl": "a.png"},
    card(),
    button_template(),
]

INTERACTION_LIMITS = [
    pytest.param({"name": "n" * 1024}, {"name": "n" * 1025}, "name", "1024", id="name"),
    pytest.param({"action": "a" * 1024}, {"action": "a" * 1025}, "action", "1024", id="action"),
    pytest.param(
        {"triggers": [f"t{i}" for i in range(1024)]},
        {"triggers": [f"t{i}" for i in range(1025)]},
        "triggers",
        "1024",
        id="1024 triggers",
    ),
    pytest.param(
        {"triggers": ["T" * 50]}, {"triggers": ["T" * 51]}, "triggers[0]", "50", id="trigger length"
    ),
    pytest.param(
        {"userSays": [f"a large pizza {i}" for i in range(99)]},
        {"userSays": [f"a large pizza {i}" for i in range(100)]},
        "userSays",
        "99",
        id="99 userSays",
    ),
    pytest.param(
        {"userSays": ["s" * 2048]},
        {"userSays": ["s" * 2049]},
        "userSays[0]",
        "2048",
        id="userSays length",
    ),
    pytest.param(
        {"parameters": [parameter(f"p{i}") for i in range(99)]},
        {"parameters": [parameter(f"p{i}") for i in range(100)]},
        "parameters",
        "99",
        id="99 parameters",
    ),
    pytest.param(
        {"parameters": [parameter("a" * 128)]},
        {"parameters": [parameter("a" * 129)]},
        "parameters[0].alias",
        "128",
        id="alias length",
    ),
    pytest.param(
        {"parameters": [parameter("color", "e" * 128)]},
        {"parameters": [parameter("color", "e" * 129)]},
        "parameters[0].entity",
        "128",
        id="entity length",
    ),
    pytest.param(
        {"parameters": [parameter("color", "color", *(f"Which {i}?" for i in range(99)))]},
        {"parameters": [parameter("color", "color", *(f"Which {i}?" for i in range(100)))]},
        "parameters[0].prompts",
        "99",
        id="99 prompts",
    ),
    pytest.param(
        {"parameters": [parameter("color", "color", "q" * 1024)]},
        {"parameters": [parameter("color", "color", "q" * 1025)]},
        "parameters[0].prompts[0]",
        "1024",
        id="prompt length",
    ),
    pytest.param(
        {"responses": [text(f"m{i}") for i in range(11)]},
        {"responses": [text(f"m{i}") for i in range(12)]},
        "responses",
        "11",
        id="11 responses",
    ),
    pytest.param(
        {"webhook": url_of_length(1024)},
        {"webhook": url_of_length(1025)},
        "webhook",
        "1024",
        id="webhook length",
    ),
    pytest.param(
        {"responses": [text(*(f"m{i}" for i in range(20)))]},
        {"responses": [text(*(f"m{i}" for i in range(21)))]},
        "responses[0].messages",
        "20",
        id="text: 20 messages",
    ),
    pytest.param(
        {"responses": [text("m" * 2048)]},
        {"responses": [text("m" * 2049)]},
        "responses[0].messages[0]",
        "2048",
        id="text: message length",
    ),
    pytest.param(
        {"responses": [quick_reply("q" * 80)]},
        {"responses": [quick_reply("q" * 81)]},
        "responses[0].title",
        "80",
        id="quickReply: title length",
    ),
    pytest.param(
        {"responses": [quick_reply(replies=[f"r{i}" for i in range(11)])]},
        {"responses": [quick_reply(replies=[f"r{i}" for i in range(12)])]},
        "responses[0].replies",
        "11",
        id="quickReply: 11 replies",
    ),
    pytest.param(
        {"responses": [quick_reply(replies=["r" * 20])]},
        {"responses": [quick_reply(replies=["r" * 21])]},
        "responses[0].replies[0]",
        "20",
        id="quickReply: reply length",
    ),
    pytest.param(
        {"responses": [{"type": "image", "imageUrl": url_of_length(2048)}]},
        {"responses": [{"type": "image", "imageUrl": url_of_length(2049)}]},
        "responses[0].imageUrl",
        "2048",
        id="image: url length",
    ),
    pytest.param(
        {"responses": [card(title="c" * 80)]},
        {"responses": [card(title="c" * 81)]},
        "responses[0].title",
        "80",
        id="card: title length",
    ),
    pytest.param(
        {"responses": [card(subtitle="s" * 80)]},
        {"responses": [card(subtitle="s" * 81)]},
        "responses[0].subtitle",
        "80",
        id="card: subtitle length",
    ),
    pytest.param(
        {"responses": [card(imageUrl=url_of_length(2048))]},
        {"responses": [card(imageUrl=url_of_length(2049))]},
        "responses[0].imageUrl",
        "2048",
        id="card: image url length",
    ),
    pytest.param(
        {"responses": [card(buttons=[button(f"b{i}") for i in range(3)])]},
        {"responses": [card(buttons=[button(f"b{i}") for i in range(4)])]},
        "responses[0].buttons",
        "3",
        id="card: 3 buttons",
    ),
    pytest.param(
        {"responses": [button_template(title="t" * 640)]},
        {"responses": [button_template(title="t" * 641)]},
        "responses[0].title",
        "640",
        id="buttonTemplate: text length",
    ),
    pytest.param(
        {"responses": [button_template(buttons=[button(f"b{i}") for i in range(3)])]},
        {"responses": [button_template(buttons=[button(f"b{i}") for i in range(4)])]},
        "responses[0].buttons",
        "3",
        id="buttonTemplate: 3 buttons",
    ),
    pytest.param(
        {"responses": [card(buttons=[button("b" * 20)])]},
        {"responses": [card(buttons=[button("b" * 21)])]},
        "responses[0].buttons[0].title",
        "20",
        id="button: title length",
    ),
    pytest.param(
        {"responses": [button_template(buttons=[button(postback="p" * 2048)])]},
        {"responses": [button_template(buttons=[button(postback="p" * 2049)])]},
        "responses[0].buttons[0].postback",
        "2048",
        id="button: postback length",
    ),
]


@pytest.mark.parametrize(("at_max", "over", "path", "limit"), INTERACTION_LIMITS)
async def test_an_interaction_accepts_each_maximum(
    api: Api, story_id: str, at_max: dict[str, Any], over: dict[str, Any], path: str, limit: str
) -> None:
    await create_entities_for(api, at_max)
    body = {"name": "Order pizza", **at_max}
    interaction_id = await api.create_interaction(story_id, **body)

    stored = await api.ok("GET", f"/stories/{story_id}/interactions/{interaction_id}")
    assert {field: stored[field] for field in body} == as_read(body)


@pytest.mark.parametrize(("at_max", "over", "path", "limit"), INTERACTION_LIMITS)
async def test_an_interaction_refuses_one_more_and_is_not_created(
    api: Api, story_id: str, at_max: dict[str, Any], over: dict[str, Any], path: str, limit: str
) -> None:
    await create_entities_for(api, at_max)
    listed = f"/stories/{story_id}/interactions"
    before = await count(api, listed)

    refused(await api.post(listed, {"name": "Order pizza", **over}), path, limit)
    assert await count(api, listed) == before


@pytest.mark.parametrize(("at_max", "over", "path", "limit"), INTERACTION_LIMITS)
async def test_an_interaction_update_refuses_one_more_and_changes_nothing(
    api: Api, story_id: str, at_max: dict[str, Any], over: dict[str, Any], path: str, limit: str
) -> None:
    await create_entities_for(api, at_max)
    interaction_id = await api.create_interaction(story_id, **{"name": "Order pizza", **at_max})
    path_of_it = f"/stories/{story_id}/interactions/{interaction_id}"
    before = await api.ok("GET", path_of_it)

    refused(await api.put(path_of_it, over), path, limit)
    assert await api.ok("GET", path_of_it) == before


async def test_a_child_interaction_obeys_the_same_limits(api: Api, story_id: str) -> None:
    parent_id = await api.create_interaction(story_id, "Order pizza")
    children = f"/stories/{story_id}/interactions/{parent_id}"
    too_many = {"name": "Pick a size", "userSays": [f"size {i}" for i in range(100)]}

    refused(await api.post(children, too_many), "userSays", "99")
    assert (await api.story(story_id))["interactions"][parent_id]["contextOut"] == []

    at_max = {**too_many, "userSays": too_many["userSays"][:99]}
    child_id = str((await api.ok("POST", children, at_max))["id"])
    stored = await api.ok("GET", f"/stories/{story_id}/interactions/{child_id}")
    assert stored["userSays"] == at_max["userSays"]


INTERACTION_REFUSED = [
    pytest.param({"name": ""}, "name", id="empty name"),
    pytest.param({"name": None}, "name", id="null name"),
    pytest.param({"triggers": [""]}, "triggers[0]", id="empty trigger"),
    pytest.param({"triggers": ["ab-c"]}, "triggers[0]", id="trigger with dash"),
    pytest.param({"triggers": ["ab_c"]}, "triggers[0]", id="trigger with underscore"),
    pytest.param({"triggers": ["ab c"]}, "triggers[0]", id="trigger with space"),
    pytest.param({"triggers": ["order\n"]}, "triggers[0]", id="trigger with newline"),
    pytest.param({"userSays": [""]}, "userSays[0]", id="empty userSays phrase"),
    pytest.param({"parameters": [parameter("")]}, "parameters[0].alias", id="empty alias"),
    pytest.param({"parameters": [parameter("my color")]}, "parameters[0].alias", id="alias space"),
    pytest.param({"parameters": [parameter("color\n")]}, "parameters[0].alias", id="alias newline"),
    pytest.param(
        {"parameters": [parameter("color", "")]}, "parameters[0].entity", id="empty entity"
    ),
    pytest.param(
        {"parameters": [parameter("color", "my.color")]},
        "parameters[0].entity",
        id="entity with dot",
    ),
    pytest.param(
        {"parameters": [parameter("color", "color", "")]},
        "parameters[0].prompts[0]",
        id="empty prompt",
    ),
    pytest.param(
        {"responses": [{"type": "text", "messages": []}]},
        "responses[0].messages",
        id="text: no messages",
    ),
    pytest.param({"responses": [text("")]}, "responses[0].messages[0]", id="text: empty message"),
    pytest.param(
        {"responses": [quick_reply("")]}, "responses[0].title", id="quickReply: empty title"
    ),
    pytest.param(
        {"responses": [{"type": "quickReply", "title": "Size?", "replies": []}]},
        "responses[0].replies",
        id="quickReply: no replies",
    ),
    pytest.param(
        {"responses": [quick_reply(replies=[""])]},
        "responses[0].replies[0]",
        id="quickReply: empty reply",
    ),
    pytest.param(
        {"responses": [{"type": "image", "imageUrl": ""}]},
        "responses[0].imageUrl",
        id="image: empty url",
    ),
    pytest.param({"responses": [card(title="")]}, "responses[0].title", id="card: empty title"),
    pytest.param(
        {"responses": [{"type": "card", "subtitle": "Tomato"}]},
        "responses[0].title",
        id="card: missing title",
    ),
    pytest.param(
        {"responses": [button_template(title="")]},
        "responses[0].title",
        id="buttonTemplate: empty text",
    ),
    pytest.param(
        {"responses": [{"type": "buttonTemplate", "title": "What next?"}]},
        "responses[0].buttons",
        id="buttonTemplate: missing buttons",
    ),
    pytest.param(
        {"responses": [card(buttons=[button("")])]},
        "responses[0].buttons[0].title",
        id="button: empty title",
    ),
    pytest.param(
        {"responses": [card(buttons=[{"postback": "ORDER"}])]},
        "responses[0].buttons[0].title",
        id="button: missing title",
    ),
    pytest.param(
        {"responses": [{"type": "video", "url": "v.mp4"}]},
        "responses[0].type",
        id="unknown response type",
    ),
    pytest.param({"webhook": "ftp://hooks.example.com/x"}, "webhook", id="webhook not http"),
    pytest.param({"webhook": "not a url"}, "webhook", id="webhook not a url"),
    pytest.param({"webhook": CONNECTION_ID[:23]}, "webhook", id="webhook 23-hex id"),
    pytest.param({"webhook": CONNECTION_ID + "\n"}, "webhook", id="webhook id with newline"),
]


@pytest.mark.parametrize(("fields", "path"), INTERACTION_REFUSED)
async def test_an_interaction_refuses_empty_missing_or_malformed_fields(
    api: Api, story_id: str, fields: dict[str, Any], path: str
) -> None:
    await api.create_entity("color")
    listed = f"/stories/{story_id}/interactions"
    before = await count(api, listed)

    refused(await api.post(listed, {"name": "Order pizza", **fields}), path)
    assert await count(api, listed) == before


INTERACTION_ACCEPTED = [
    pytest.param({"action": ""}, id="empty action"),
    pytest.param({"triggers": ["Order2Go"]}, id="trigger of letters and digits"),
    pytest.param({"webhook": ""}, id="no webhook"),
    pytest.param({"webhook": "http://localhost:9000/hook"}, id="webhook http url"),
    pytest.param({"webhook": CONNECTION_ID}, id="webhook connection id"),
    pytest.param({"parameters": [parameter("Pizza_size-2", "color")]}, id="alias letters _ -"),
    pytest.param({"responses": [card(buttons=[])]}, id="card without buttons"),
    pytest.param(
        {"responses": [button_template(buttons=[])]}, id="buttonTemplate with empty buttons"
    ),
    pytest.param({"responses": ALL_RESPONSE_TYPES}, id="one block of each type"),
]


@pytest.mark.parametrize("fields", INTERACTION_ACCEPTED)
async def test_an_interaction_accepts_empty_optional_fields_and_well_formed_values(
    api: Api, story_id: str, fields: dict[str, Any]
) -> None:
    await api.create_entity("color")
    interaction_id = await api.create_interaction(story_id, "Order pizza", **fields)
    stored = await api.ok("GET", f"/stories/{story_id}/interactions/{interaction_id}")
    assert {field: stored[field] for field in fields} == as_read(fields)


async def test_a_card_needs_only_a_title(api: Api, story_id: str) -> None:
    """Subtitle, image and buttons of a card are optional and stored empty."""
    interaction_id = await api.create_interaction(
        story_id, "Menu", responses=[{"type": "card", "title": "Margherita"}]
    )
    stored = await api.ok("GET", f"/stories/{story_id}/interactions/{interaction_id}")
    assert stored["responses"] == [
        {"type": "card", "title": "Margherita", "subtitle": "", "imageUrl": "", "buttons": []}
    ]


async def test_a_button_without_a_postback_posts_back_its_title(api: Api, story_id: str) -> None:
    """An empty or missing postback is stored as the button's title."""
    buttons = [{"title": "Order"}, {"title": "Menu", "postback": ""}, button("Call", "tel")]
    interaction_id = await api.create_interaction(
        story_id,
        "Menu",
        responses=[card(buttons=buttons), button_template(buttons=buttons)],
    )
    stored = await api.ok("GET", f"/stories/{story_id}/interactions/{interaction_id}")
    expected = [button("Order", "Order"), button("Menu", "Menu"), button("Call", "tel")]
    assert [r["buttons"] for r in stored["responses"]] == [expected, expected]


# ------------------------------------------------ rules that need the whole interaction

ONE_QUICK_REPLY = {"responses": [quick_reply(), text(), quick_reply("Crust?", ["thin"])]}
WELCOME_TRIGGER = {"triggers": ["order", "welcome"]}


def ninety_nine_parameters_and_one_in_user_says() -> dict[str, Any]:
    return {
        "parameters": [parameter(f"p{i}") for i in range(99)],
        "userSays": ["a {{color:topping}} pizza"],
    }


WHOLE_INTERACTION_RULES = [
    pytest.param(ONE_QUICK_REPLY, "responses[2]", ("responses", "2"), id="two quickReply blocks"),
    pytest.param(WELCOME_TRIGGER, "triggers[1]", ("triggers", "1"), id="trigger welcome reserved"),
    pytest.param(
        {"triggers": ["WELCOME"]}, "triggers[0]", ("triggers", "0"), id="trigger WELCOME reserved"
    ),
    pytest.param(
        ninety_nine_parameters_and_one_in_user_says(),
        "parameters",
        ("parameters",),
        id="100 parameters counting userSays",
    ),
]


@pytest.mark.parametrize(("fields", "details_start", "errors_path"), WHOLE_INTERACTION_RULES)
async def test_an_interaction_breaking_a_whole_interaction_rule_is_refused(
    api: Api, story_id: str, fields: dict[str, Any], details_start: str, errors_path: Any
) -> None:
    await api.create_entity("color")
    listed = f"/stories/{story_id}/interactions"
    before = await count(api, listed)

    refused_by_rule(await api.post(listed, {"name": "Order pizza", **fields}), details_start)
    assert await count(api, listed) == before


@pytest.mark.parametrize(("fields", "details_start", "errors_path"), WHOLE_INTERACTION_RULES)
async def test_a_whole_interaction_rule_error_names_the_field_in_the_errors_tree(
    api: Api, story_id: str, fields: dict[str, Any], details_start: str, errors_path: Any
) -> None:
    """Like every validation error, the envelope carries `status.errors` for the console."""
    await api.create_entity("color")
    reply = await api.post(f"/stories/{story_id}/interactions", {"name": "Order pizza", **fields})
    refused(reply, ".".join(errors_path))


async def test_an_interaction_holds_one_quick_reply_block_among_others(
    api: Api, story_id: str
) -> None:
    responses = [text(), quick_reply(), card(), {"type": "image", "imageUrl": "a.png"}]
    interaction_id = await api.create_interaction(story_id, "Order pizza", responses=responses)
    stored = await api.ok("GET", f"/stories/{story_id}/interactions/{interaction_id}")
    assert stored["responses"] == responses

    path = f"/stories/{story_id}/interactions/{interaction_id}"
    refused_by_rule(await api.put(path, {"responses": [*responses, quick_reply()]}), "responses[4]")
    assert (await api.ok("GET", path))["responses"] == responses


async def test_parameters_added_from_user_says_count_toward_the_99(api: Api, story_id: str) -> None:
    await api.create_entity("color")
    fields = {
        "parameters": [parameter(f"p{i}") for i in range(98)],
        "userSays": ["a {{color:topping}} pizza"],
    }
    interaction_id = await api.create_interaction(story_id, "Order pizza", **fields)
    path = f"/stories/{story_id}/interactions/{interaction_id}"
    stored = await api.ok("GET", path)
    assert len(stored["parameters"]) == 99
    assert (
        stored["parameters"][-1]
        == as_read({"parameters": [parameter("topping", "color")]})["parameters"][0]
    )

    refused_by_rule(
        await api.put(path, {"userSays": [*fields["userSays"], "a {{color:crust}} crust"]}),
        "parameters",
    )
    assert await api.ok("GET", path) == stored


async def test_an_alias_added_from_user_says_obeys_the_128_character_limit(
    api: Api, story_id: str
) -> None:
    """`{{entity:alias}}` in a phrase adds a parameter: its alias is still at most 128."""
    await api.create_entity("color")
    listed = f"/stories/{story_id}/interactions"
    at_max = "a" * 128
    interaction_id = await api.create_interaction(
        story_id, "Order pizza", userSays=[f"a {{{{color:{at_max}}}}} pizza"]
    )
    stored = await api.ok("GET", f"{listed}/{interaction_id}")
    assert (
        stored["parameters"] == as_read({"parameters": [parameter(at_max, "color")]})["parameters"]
    )
    before = await count(api, listed)

    over = "a" * 129
    reply = await api.post(listed, {"name": "Too long", "userSays": [f"a {{{{color:{over}}}}}"]})
    if reply.status == 200:
        stored = await api.ok("GET", f"{listed}/{reply.body['id']}")
        pytest.fail(f"accepted; stored aliases {[len(p['alias']) for p in stored['parameters']]}")
    assert reply.error == (400, "validation_error"), (reply.status, reply.body)
    assert "128" in reply.details, reply.details
    assert await count(api, listed) == before


async def test_a_parameter_must_name_an_entity_of_the_account(api: Api, story_id: str) -> None:
    listed = f"/stories/{story_id}/interactions"
    before = await count(api, listed)

    reply = await api.post(listed, {"name": "Order pizza", "parameters": [parameter()]})
    refused(reply, "parameters.entity")
    assert "color" in reply.details
    assert await count(api, listed) == before


async def test_the_welcome_interaction_holds_at_most_1024_triggers_welcome_included(
    api: Api, story_id: str
) -> None:
    """The welcome interaction always keeps `welcome`, and that trigger counts too."""
    story = await api.story(story_id)
    welcome_id = story["order"][0]
    path = f"/stories/{story_id}/interactions/{welcome_id}"
    at_max = ["welcome", *(f"t{i}" for i in range(1023))]
    await api.ok("PUT", path, {"triggers": at_max})
    assert (await api.ok("GET", path))["triggers"] == at_max

    reply = await api.put(path, {"triggers": [f"t{i}" for i in range(1024)]})
    if reply.status == 200:
        stored = (await api.ok("GET", path))["triggers"]
        pytest.fail(f"accepted; the welcome interaction now stores {len(stored)} triggers")
    assert reply.error == (400, "validation_error"), (reply.status, reply.body)
    assert "triggers" in reply.details
    assert (await api.ok("GET", path))["triggers"] == at_max


# --------------------------------------------------------------------------- contexts


async def roots(api: Api, story_id: str, how_many: int) -> list[str]:
    return [await api.create_interaction(story_id, f"Step {i}") for i in range(how_many)]


def context(interaction_id: str, listed: list[str]) -> dict[str, Any]:
    return {"id": interaction_id, "root": True, "contextOut": listed, "references": listed}


async def test_an_interaction_may_lead_to_50_others(api: Api, story_id: str) -> None:
    hub, *others = await roots(api, story_id, 51)
    await api.ok("PUT", f"/stories/{story_id}/contexts", [context(hub, others)])

    summary = (await api.story(story_id))["interactions"][hub]
    assert (summary["contextOut"], summary["references"]) == (others, others)


@pytest.mark.parametrize(
    ("out", "refs", "paths"),
    [
        pytest.param(51, 51, ["[0].contextOut", "[0].references"], id="both lists 51"),
        pytest.param(51, 50, ["[0].contextOut"], id="contextOut 51"),
        pytest.param(50, 51, ["[0].references"], id="references 51"),
    ],
)
async def test_an_interaction_may_not_lead_to_51_others(
    api: Api, story_id: str, out: int, refs: int, paths: list[str]
) -> None:
    hub, *others = await roots(api, story_id, 52)
    before = await api.story(story_id)
    item = {"id": hub, "root": True, "contextOut": others[:out], "references": others[:refs]}

    reply = await api.put(f"/stories/{story_id}/contexts", [item])
    for path in paths:
        refused(reply, path, "50")
    assert await api.story(story_id) == before


async def test_an_interaction_may_own_at_most_50_children(api: Api, story_id: str) -> None:
    parent_id = await api.create_interaction(story_id, "Order pizza")
    children = f"/stories/{story_id}/interactions/{parent_id}"
    for i in range(50):
        await api.ok("POST", children, {"name": f"Child {i}"})
    before = await api.story(story_id)
    assert len(before["interactions"][parent_id]["contextOut"]) == 50
    listed = await count(api, f"/stories/{story_id}/interactions")

    refused_by_rule(await api.post(children, {"name": "Child 50"}), parent_id + ".contextOut")
    assert await api.story(story_id) == before
    assert await count(api, f"/stories/{story_id}/interactions") == listed
