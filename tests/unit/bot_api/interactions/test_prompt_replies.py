"""A parameter's prompt replies through its one declaration: what a write takes, what a
read and a story document show (docs/api.md "Interactions")."""

from typing import Any

import pytest
from marshmallow import ValidationError

from bot_api.domain.interactions import Parameter
from bot_api.interactions.schemas import InteractionSchema, InteractionWriteSchema

WRITE = InteractionWriteSchema()
READ = InteractionSchema()


def parameter(**fields: Any) -> dict[str, Any]:
    return {"alias": "size", "entity": "size", "prompts": ["Which size?"], **fields}


def loaded(**fields: Any) -> Parameter:
    interaction = WRITE.load({"name": "Order", "parameters": [parameter(**fields)]})
    return interaction.parameters[0]  # type: ignore[no-any-return]


def refusal(**fields: Any) -> Any:
    with pytest.raises(ValidationError) as refused:
        loaded(**fields)
    return refused.value.messages["parameters"][0]  # type: ignore[index, call-overload]


def test_replies_load_with_the_prompts_and_default_to_none() -> None:
    assert loaded(promptReplies=["Small", "Large"]) == Parameter(
        "size", "size", ("Which size?",), ("Small", "Large")
    )
    assert loaded().prompt_replies == ()
    assert loaded(promptReplies=[]).prompt_replies == ()


def test_replies_keep_a_quick_reply_block_s_limits() -> None:
    assert refusal(promptReplies=[str(n) for n in range(12)]) == {
        "promptReplies": ["Length must be between 0 and 11."]
    }
    assert refusal(promptReplies=["Small", "x" * 21]) == {
        "promptReplies": {1: ["Length must be between 1 and 20."]}
    }
    assert refusal(promptReplies=["  "]) == {"promptReplies": {0: ["Must not be blank."]}}


def test_replies_need_a_prompt_to_be_shown_with() -> None:
    assert refusal(prompts=[], promptReplies=["Small"]) == {
        "promptReplies": ["Replies are shown with a prompt: a parameter without prompts has none."]
    }


def test_a_read_shows_replies_only_where_there_are_some_and_loads_back_the_same() -> None:
    written = {
        "name": "Order",
        "parameters": [parameter(promptReplies=["Small", "Large"]), parameter(alias="crust")],
    }
    interaction = WRITE.load(written)
    read = READ.dump(interaction)
    assert read["parameters"] == [
        {**parameter(promptReplies=["Small", "Large"]), "required": True},
        {**parameter(alias="crust"), "required": True},  # as before replies existed
    ]
    assert WRITE.load({k: v for k, v in read.items() if k not in ("id", "type")}) == interaction
