"""What changed between two story documents, by key (versions/diff.py)."""

import copy
from typing import Any

from bot_api.versions.diff import (
    EntityChange,
    FieldChange,
    InteractionChange,
    Named,
    SettingChange,
    diff,
)

BEFORE: dict[str, Any] = {
    "settings": {"confidence": 0.5, "lifespan": 2},
    "interactions": [
        {"key": "welcome", "name": "Welcome", "userSays": ["hi"], "responses": []},
        {"key": "order", "name": "Order", "userSays": ["a pizza", "one pizza"], "action": ""},
        {"key": "hours", "name": "Hours", "userSays": ["when open"]},
    ],
    "entities": [
        {
            "name": "size",
            "entries": [
                {"value": "large", "synonyms": [{"value": "large"}, {"value": "big"}]},
                {"value": "small", "synonyms": [{"value": "small"}]},
            ],
        },
        {"name": "drink", "entries": [{"value": "cola", "synonyms": [{"value": "cola"}]}]},
    ],
}


def test_the_same_document_has_no_difference() -> None:
    assert not diff(BEFORE, copy.deepcopy(BEFORE))


def test_interactions_added_removed_and_changed_with_their_fields_and_phrases() -> None:
    after = copy.deepcopy(BEFORE)
    order = after["interactions"][1]
    order["userSays"] = ["one pizza", "pizza time"]
    order["action"] = "order"
    del after["interactions"][2]
    after["interactions"].append({"key": "menu", "name": "Menu", "userSays": []})

    found = diff(BEFORE, after)

    assert found.added == (Named("menu", "Menu"),)
    assert found.removed == (Named("hours", "Hours"),)
    assert found.changed == (
        InteractionChange(
            "order",
            "Order",
            ("userSays", "action"),
            ("pizza time",),
            ("a pizza",),
            (FieldChange("action", "", "order"),),
        ),
    )


def test_each_changed_field_says_what_it_was_and_what_it_is() -> None:
    """Not only `"fields": ["responses"]`: the responses before and after, and a field
    one side lacks as null there."""
    after = copy.deepcopy(BEFORE)
    welcome = after["interactions"][0]
    welcome["responses"] = [{"type": "text", "messages": ["Hello!"]}]
    welcome["webhook"] = {"enabled": True}

    (change,) = diff(BEFORE, after).changed

    assert change.fields == ("responses", "webhook")
    assert change.changes == (
        FieldChange("responses", [], [{"type": "text", "messages": ["Hello!"]}]),
        FieldChange("webhook", None, {"enabled": True}),
    )


def test_a_field_only_one_side_has_is_changed() -> None:
    after = copy.deepcopy(BEFORE)
    del after["interactions"][0]["responses"]

    assert [c.fields for c in diff(BEFORE, after).changed] == [("responses",)]


def test_settings_changed_name_both_values() -> None:
    after = copy.deepcopy(BEFORE)
    after["settings"]["lifespan"] = 4
    after["settings"]["timezone"] = "Europe/Berlin"

    assert diff(BEFORE, after).settings == (
        SettingChange("lifespan", 2, 4),
        SettingChange("timezone", None, "Europe/Berlin"),
    )


def test_entities_added_removed_and_their_entries_changed() -> None:
    after = copy.deepcopy(BEFORE)
    size = after["entities"][0]
    size["entries"][0]["synonyms"].append({"value": "huge"})
    size["entries"][1:] = [{"value": "medium", "synonyms": [{"value": "medium"}]}]
    after["entities"][1] = {"name": "topping", "entries": []}

    found = diff(BEFORE, after)

    assert (found.entities_added, found.entities_removed) == (("topping",), ("drink",))
    assert found.entities_changed == (EntityChange("size", ("medium",), ("small",), ("large",)),)
