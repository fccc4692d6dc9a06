"""PUT /stories/:story/contexts: roots, contextOut and references of listed interactions."""

from typing import Any

import pytest

from support.api import Api


@pytest.fixture
async def story(api: Api) -> dict[str, str]:
    story_id = await api.create_story("Pizza")
    order = await api.create_interaction(story_id, "Order")
    size = await api.create_interaction(story_id, "Size", parent=order)
    confirm = await api.create_interaction(story_id, "Confirm", parent=size)
    help_id = await api.create_interaction(story_id, "Help")
    return {"id": story_id, "order": order, "size": size, "confirm": confirm, "help": help_id}


def context(interaction_id: str, root: bool, out: list[str], refs: list[str]) -> dict[str, Any]:
    return {"id": interaction_id, "root": root, "contextOut": out, "references": refs}


async def test_a_reference_shows_as_a_ref_leaf_in_the_tree(api: Api, story: dict[str, str]) -> None:
    path = f"/stories/{story['id']}/contexts"
    await api.ok(
        "PUT", path, [context(story["confirm"], False, [story["order"]], [story["order"]])]
    )
    tree = await api.story(story["id"])
    assert tree["interactions"][story["confirm"]]["references"] == [story["order"]]
    confirm_node = tree["story"][2]["childrens"][0]["childrens"][0]
    assert confirm_node == {
        "id": story["confirm"],
        "ref": False,
        "childrens": [{"id": story["order"], "ref": True, "childrens": []}],
    }


async def test_summaries_read_from_the_story_are_accepted_back_unchanged(
    api: Api, story: dict[str, str]
) -> None:
    before = await api.story(story["id"])
    await api.ok("PUT", f"/stories/{story['id']}/contexts", list(before["interactions"].values()))
    assert await api.story(story["id"]) == before


async def test_moving_a_subtree_to_another_owner(api: Api, story: dict[str, str]) -> None:
    await api.ok(
        "PUT",
        f"/stories/{story['id']}/contexts",
        [
            context(story["order"], True, [], []),
            context(story["help"], True, [story["size"]], []),
        ],
    )
    tree = await api.story(story["id"])
    assert tree["story"][3] == {
        "id": story["help"],
        "childrens": [
            {
                "id": story["size"],
                "ref": False,
                "childrens": [{"id": story["confirm"], "ref": False, "childrens": []}],
            }
        ],
    }


async def test_promoting_a_child_to_root_adds_it_to_the_order(
    api: Api, story: dict[str, str]
) -> None:
    await api.ok(
        "PUT",
        f"/stories/{story['id']}/contexts",
        [
            context(story["order"], True, [], []),
            context(story["size"], True, [story["confirm"]], []),
        ],
    )
    assert (await api.story(story["id"]))["order"][-1] == story["size"]


@pytest.mark.parametrize(
    ("build", "error"),
    [
        (lambda s: [context(s["confirm"], False, [s["order"]], [])], (400, "validation_error")),
        (lambda s: [context(s["confirm"], False, [s["size"]], [])], (400, "validation_error")),
        (lambda s: [context(s["order"], True, [], [])], (400, "validation_error")),
        (lambda s: [context("ghost", True, [], [])], (404, "not_found")),
        (lambda s: [context(s["order"], True, ["ghost"], [])], (400, "validation_error")),
        (
            lambda s: [context(s["order"], True, [s["size"]], [s["help"]])],
            (400, "validation_error"),
        ),
        (
            lambda s: [{"id": s["order"], "root": "yes", "contextOut": [], "references": []}],
            (400, "validation_error"),
        ),
        (lambda s: {"id": s["order"]}, (400, "validation_error")),
    ],
    ids=[
        "owning-a-root",
        "ownership-cycle",
        "orphaning-a-subtree",
        "unknown-id",
        "unknown-id-in-contextOut",
        "reference-outside-contextOut",
        "root-not-a-boolean",
        "not-an-array",
    ],
)
async def test_an_update_that_breaks_the_tree_is_refused_and_changes_nothing(
    api: Api, story: dict[str, str], build: Any, error: tuple[int, str]
) -> None:
    before = await api.story(story["id"])
    reply = await api.put(f"/stories/{story['id']}/contexts", build(story))
    assert reply.error == error
    assert await api.story(story["id"]) == before
