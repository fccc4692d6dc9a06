"""Interaction rules beyond field shapes (docs/api.md "Interactions", triggers)."""

from dataclasses import replace
from typing import Any

import pytest

from bot_api.domain.errors import Clash, Invalid
from bot_api.domain.interactions import (
    FALLBACK,
    STANDARD,
    WELCOME,
    Interaction,
    Parameter,
    check_unique_triggers,
    default_interactions,
    entity_slots,
    prepare,
    strip_slots,
)
from bot_api.domain.responses import QuickReplies, TextChoice


def interaction(kind: str = STANDARD, **fields: Any) -> Interaction:
    return Interaction(id="order", kind=kind, name="Order", **fields)


def test_slots_are_read_with_their_entity_and_alias() -> None:
    assert entity_slots("from {{city:from}} to {{ city : to }}") == [
        ("city", "from"),
        ("city", "to"),
    ]


def test_a_slot_in_a_user_says_phrase_adds_its_parameter() -> None:
    prepared = prepare(interaction(user_says=("a {{size:size}} pizza to {{city:town}}",)))
    assert prepared.parameters == (Parameter("size", "size"), Parameter("town", "city"))


def test_a_declared_parameter_keeps_its_prompts_when_a_phrase_uses_it() -> None:
    declared = Parameter("size", "size", ("Which size?",))
    prepared = prepare(interaction(user_says=("a {{size:size}} pizza",), parameters=(declared,)))
    assert prepared.parameters == (declared,)


def test_a_slot_may_not_rebind_an_alias_to_another_entity() -> None:
    declared = Parameter("size", "size")
    with pytest.raises(Invalid, match="bound to entity 'size'") as refused:
        prepare(interaction(user_says=("fine", "{{colour:size}}"), parameters=(declared,)))
    assert refused.value.path == ("userSays", 1)


def test_aliases_are_unique() -> None:
    twice = (Parameter("a", "x"),) * 2
    with pytest.raises(Invalid, match="used twice") as refused:
        prepare(interaction(parameters=twice))
    assert refused.value.path == ("parameters", 1, "alias")


def test_removing_a_parameter_removes_its_slots_from_every_phrase() -> None:
    previous = prepare(interaction(user_says=("a {{size:size}} pizza", "{{size:size}} please")))
    updated = prepare(replace(previous, parameters=()), previous=previous)
    assert updated.user_says == ("a pizza", "please")
    assert updated.parameters == ()


def test_a_phrase_that_was_only_the_removed_slot_goes_with_it() -> None:
    previous = prepare(interaction(user_says=("{{size:size}}", "a {{size:size}} pizza")))
    updated = prepare(replace(previous, parameters=()), previous=previous)
    assert updated.user_says == ("a pizza",)


def test_stripping_slots_leaves_other_slots_and_collapses_spaces() -> None:
    assert strip_slots("a {{size:size}}  {{crust:crust}} pizza", {"size"}) == (
        "a {{crust:crust}} pizza"
    )
    assert strip_slots("unchanged  spacing", set()) == "unchanged  spacing"


def test_slots_beyond_ninety_nine_parameters_are_refused() -> None:
    declared = tuple(Parameter(f"p{i}", "x") for i in range(99))
    with pytest.raises(Invalid, match="at most 99"):
        prepare(interaction(parameters=declared, user_says=("{{x:one_more}}",)))


def test_the_welcome_trigger_is_reserved_for_the_welcome_interaction() -> None:
    with pytest.raises(Invalid, match="reserved"):
        prepare(interaction(triggers=("Welcome",)))
    welcome = prepare(interaction(WELCOME, triggers=("hello",)))
    assert welcome.triggers == ("welcome", "hello")


def test_triggers_are_listed_once() -> None:
    with pytest.raises(Invalid, match="listed twice"):
        prepare(interaction(triggers=("start", "start")))


def test_a_trigger_starts_one_interaction_of_a_story() -> None:
    others = {"other": ["Start"], "self": ["stop"]}
    with pytest.raises(Clash, match="already used by interaction other"):
        check_unique_triggers("self", ["start"], others)
    check_unique_triggers("self", ["stop", "go"], others)


def test_an_interaction_has_at_most_one_quick_reply_block() -> None:
    block = QuickReplies("Size?", ("S", "L"))
    prepare(interaction(responses=(block,)))
    with pytest.raises(Invalid, match=r"responses\[1\]"):
        prepare(interaction(responses=(block, block)))


def test_every_story_starts_with_welcome_and_fallback() -> None:
    welcome, fallback = default_interactions()
    assert (welcome.kind, fallback.kind) == (WELCOME, FALLBACK)
    assert welcome.triggers == ("welcome",)
    greeting = welcome.responses[0]
    assert isinstance(greeting, TextChoice) and "{{default_name}}" in greeting.messages[0]
