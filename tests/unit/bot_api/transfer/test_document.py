"""The story document: keys made from names, interactions by key, and a document read
back into a story with new ids and every problem at its place."""

import itertools
from dataclasses import replace
from typing import Any

from bot_api.domain.structure import Context, Structure
from bot_api.transfer.document import StoryContent, keys_for, read_document, to_document


def content(name: str, **fields: Any) -> dict[str, Any]:
    return {
        "type": "standard",
        "name": name,
        "action": "",
        "triggers": [],
        "userSays": [],
        "parameters": [],
        "responses": [],
        "webhook": "",
        **fields,
    }


def pizza() -> StoryContent:
    contexts = {
        "w": Context(root=True),
        "o": Context(root=True, context_out=("d", "w"), references=("w",)),
        "d": Context(root=False),
    }
    return StoryContent(
        name="Pizza",
        description="",
        settings={"language": "english"},
        structure=Structure(("w", "o"), contexts, frozenset({"w"})).checked(),
        interactions={
            "w": content("Welcome", type="welcome", triggers=["welcome"]),
            "o": content(
                "Order!",
                responses=[{"type": "card", "title": "Menu", "buttons": [
                    {"title": "Drinks", "postback": "d"}, {"title": "Web", "postback": "https://x.test"}
                ]}],
                webhook="0123456789abcdef01234567",
            ),
            "d": content("Drinks", userSays=["a {{drink:drink}}"]),
        },
        connection_names={"0123456789abcdef01234567": "Orders"},
    )  # fmt: skip


def new_ids() -> Any:
    numbers = itertools.count(1)
    return lambda: f"id-{next(numbers)}"


def test_keys_are_made_from_names_and_told_apart() -> None:
    assert keys_for(["Order pizza", "Order pizza", "Grüße!", "", "a/b", "你好"]) == [
        "order-pizza",
        "order-pizza-2",
        "grusse",
        "interaction",
        "a-b",
        "nihao",
    ]


def test_the_document_names_by_key_in_tree_order() -> None:
    document = to_document(pizza(), [{"name": "drink", "entries": []}])
    assert [i["key"] for i in document["interactions"]] == ["welcome", "order", "drinks"]
    order = document["interactions"][1]
    assert order["contextOut"] == ["drinks", "welcome"] and order["references"] == ["welcome"]
    assert order["connection"] == "Orders" and "webhook" not in order
    assert order["responses"][0]["buttons"] == [
        {"title": "Drinks", "goto": "drinks"},
        {"title": "Web", "postback": "https://x.test"},
    ]
    assert document["connections"] == ["Orders"]
    assert document["interactions"][2]["root"] is False


def test_a_document_reads_back_as_the_same_story_under_new_ids() -> None:
    document = to_document(pizza(), [])
    read = read_document(document, new_ids())
    assert read.problems == () and list(read.added) == ["fallback"]
    id_of = {key: i for i, key in read.keys.items()}
    structure = read.content.structure
    assert structure.order[:2] == (id_of["welcome"], id_of["order"])
    assert structure.contexts[id_of["order"]].context_out == (id_of["drinks"], id_of["welcome"])
    assert structure.order[2] == read.added["fallback"]
    assert structure.permanent == {id_of["welcome"], read.added["fallback"]}
    order = read.content.interactions[id_of["order"]]
    assert order["responses"][0]["buttons"][0] == {"title": "Drinks", "postback": id_of["drinks"]}
    assert read.connections == {id_of["order"]: "Orders"}
    assert "connection" not in order and "key" not in order
    exported_again = to_document(
        StoryContent(
            name="Pizza",
            description="",
            settings={"language": "english"},
            structure=read.content.structure,
            interactions={
                **{
                    i: {**content(""), **c, "webhook": "c1" if i == id_of["order"] else ""}
                    for i, c in read.content.interactions.items()
                },
                read.added["fallback"]: content("Fallback", type="fallback"),
            },
            connection_names={"c1": "Orders"},
        ),
        [],
    )
    assert exported_again["interactions"][:3] == document["interactions"]


def test_every_problem_is_found_with_its_place() -> None:
    document = to_document(pizza(), [])
    interactions = document["interactions"]
    interactions.append({**interactions[2]})  # the key "drinks" again
    interactions[1]["contextOut"] = ["drinks", "nowhere"]
    interactions[1]["references"] = []
    interactions[1]["responses"][0]["buttons"][0]["goto"] = "gone"
    interactions.append({**interactions[0], "key": "hello"})  # a second welcome
    read = read_document(document, new_ids())
    assert {(p.path, p.message) for p in read.problems} == {
        (("interactions", 3, "key"), "'drinks' is used twice"),
        (("interactions", 1, "contextOut", 1), "no interaction has the key 'nowhere'"),
        (
            ("interactions", 1, "responses", 0, "buttons", 0, "goto"),
            "no interaction has the key 'gone'",
        ),
        (("interactions", 4, "type"), "a second welcome interaction"),
    }  # fmt: skip


def test_a_broken_tree_is_told_by_key() -> None:
    document = to_document(pizza(), [])
    document["interactions"][0]["contextOut"] = ["drinks"]  # which order owns too
    read = read_document(document, new_ids())
    [problem] = read.problems
    assert problem.path == ("interactions", 1, "contextOut")
    assert "drinks is owned by welcome already" in problem.message


def test_a_handoff_is_written_by_its_connection_s_name_and_read_back_as_that_name() -> None:
    desk, gone = "a" * 24, "b" * 24
    story = pizza()
    handing = [{"type": "text", "messages": ["Wait"]}, {"type": "handoff", "connection": desk}]
    story = replace(
        story,
        interactions={
            **story.interactions,
            "d": content("Drinks", responses=handing),
            "w": content("Welcome", type="welcome", responses=[
                {"type": "handoff", "connection": gone}
            ]),
        },
        connection_names={**story.connection_names, desk: "Desk"},
        awaited_handoffs={"o": "Later"},
    )  # fmt: skip

    document = to_document(story, [])

    welcome, order, drinks = document["interactions"]
    assert drinks["handoff"] == "Desk"
    assert drinks["responses"] == [{"type": "text", "messages": ["Wait"]}]
    assert order["handoff"] == "Later"  # awaited: the story has no such connection yet
    assert "handoff" not in welcome and welcome["responses"] == []  # its connection is gone
    assert document["connections"] == ["Desk", "Later", "Orders"]
    read = read_document(document, new_ids())
    assert {read.keys[i]: name for i, name in read.handoffs.items()} == {
        "order": "Later",
        "drinks": "Desk",
    }
    assert all("handoff" not in c for c in read.content.interactions.values())
