"""The limits of an interaction's own fields (name, action, triggers, userSays, parameters,
webhook), enforced at the HTTP boundary of bot-api: the maximum is accepted and read back
as sent; one more is refused with 400 `validation_error` naming the field, and nothing is
created or changed. Rules that need the whole interaction (reserved triggers, parameters
added from userSays) are checked here too; the response blocks have their own module."""

from typing import Any

import pytest

from support.api import Api
from support.limits import (
    CONNECTION_ID,
    as_read,
    count,
    create_entities_for,
    interaction_accepts,
    interaction_create_refuses,
    interaction_update_refuses,
    parameter,
    quick_reply,
    refused,
    refused_by_rule,
    text,
    url_of_length,
)

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
        {"webhook": url_of_length(1024)},
        {"webhook": url_of_length(1025)},
        "webhook",
        "1024",
        id="webhook length",
    ),
]


@pytest.mark.parametrize(("at_max", "over", "path", "limit"), INTERACTION_LIMITS)
async def test_an_interaction_accepts_each_maximum(
    api: Api, story_id: str, at_max: dict[str, Any], over: dict[str, Any], path: str, limit: str
) -> None:
    await interaction_accepts(api, story_id, at_max)


@pytest.mark.parametrize(("at_max", "over", "path", "limit"), INTERACTION_LIMITS)
async def test_an_interaction_refuses_one_more_and_is_not_created(
    api: Api, story_id: str, at_max: dict[str, Any], over: dict[str, Any], path: str, limit: str
) -> None:
    await create_entities_for(api, at_max)
    await interaction_create_refuses(api, story_id, over, path, limit)


@pytest.mark.parametrize(("at_max", "over", "path", "limit"), INTERACTION_LIMITS)
async def test_an_interaction_update_refuses_one_more_and_changes_nothing(
    api: Api, story_id: str, at_max: dict[str, Any], over: dict[str, Any], path: str, limit: str
) -> None:
    await interaction_update_refuses(api, story_id, at_max, over, path, limit)


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
    await interaction_create_refuses(api, story_id, fields, path)


INTERACTION_ACCEPTED = [
    pytest.param({"action": ""}, id="empty action"),
    pytest.param({"triggers": ["Order2Go"]}, id="trigger of letters and digits"),
    pytest.param({"webhook": ""}, id="no webhook"),
    pytest.param({"webhook": "http://localhost:9000/hook"}, id="webhook http url"),
    pytest.param({"parameters": [parameter("Pizza_size-2", "color")]}, id="alias letters _ -"),
]


@pytest.mark.parametrize("fields", INTERACTION_ACCEPTED)
async def test_an_interaction_accepts_empty_optional_fields_and_well_formed_values(
    api: Api, story_id: str, fields: dict[str, Any]
) -> None:
    await interaction_accepts(api, story_id, fields)


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
