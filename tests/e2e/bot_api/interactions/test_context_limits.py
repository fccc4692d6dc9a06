"""The limits of a story's contexts, enforced at the HTTP boundary of bot-api: an
interaction leads to at most 50 others and owns at most 50 children; a request beyond
that is refused with 400 `validation_error` and the story is unchanged."""

from typing import Any

import pytest

from support.api import Api
from support.limits import (
    count,
    refused,
    refused_by_rule,
)


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
