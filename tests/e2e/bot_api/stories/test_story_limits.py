"""The limits of a story's fields, enforced at the HTTP boundary of bot-api: the maximum is
accepted and read back as sent; one more is refused with 400 `validation_error` naming the
field, and nothing is created or changed."""

from typing import Any

import pytest

from support.api import Api
from support.limits import (
    count,
    refused,
)

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
