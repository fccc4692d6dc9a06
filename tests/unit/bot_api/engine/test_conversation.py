"""One turn at a time: what the bot answers and what it remembers."""

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import pytest

from bot_api.domain import responses
from bot_api.domain.errors import Invalid, Unknown
from bot_api.domain.responses import Button, ButtonTemplate, Card, Image, QuickReplies, Text
from bot_api.engine.conversation import respond
from bot_api.engine.story import CompiledStory
from bot_api.engine.turn import Outcome, OutcomeContext, SessionState, Turn
from support.stories import interaction, story


def first(options: Sequence[str]) -> str:
    return options[0]


def say(model: CompiledStory, state: SessionState, **turn: Any) -> tuple[SessionState, Outcome]:
    return respond(model, state, Turn(**turn), choose=first)


def texts(outcome: Outcome) -> list[str]:
    return [item.message for item in outcome.fulfillment if isinstance(item, Text)]


def pizza_story(**settings: Any) -> CompiledStory:
    return story(
        interaction(
            "order",
            "I want a {{size:size}} pizza",
            "I would like to order a pizza",
            parameters=[
                {"alias": "size", "entity": "size", "prompts": ["Which size?", "Small or large?"]}
            ],
            responses=[{"type": "text", "messages": ["One {{size}} pizza for {{default_name}}!"]}],
        ),
        interaction(
            "confirm", "yes please", responses=[{"type": "text", "messages": ["Confirmed."]}]
        ),
        interaction(
            "yes", "yes please", responses=[{"type": "text", "messages": ["Yes to what?"]}]
        ),
        interaction(
            "hours", "when are you open", responses=[{"type": "text", "messages": ["9 to 5."]}]
        ),
        parents={"confirm": "order"},
        entities={"size": [["large", "big"], "small"]},
        **settings,
    )


def test_the_welcome_trigger_fills_supplied_parameters_and_echoes_them() -> None:
    _, result = say(
        pizza_story(), SessionState(), trigger="welcome", parameters={"default_name": "Ada"}
    )
    assert texts(result) == ["Hello Ada!"]
    assert result.interaction.kind == "welcome"
    assert result.parameters == {"default_name": "Ada"}
    assert result.score == 1.0


def test_a_placeholder_without_a_value_leaves_no_trace() -> None:
    _, result = say(pizza_story(), SessionState(), trigger="WELCOME")
    assert texts(result) == ["Hello!"]


def test_an_unknown_trigger_or_goto_is_refused() -> None:
    with pytest.raises(Invalid, match="'dance'"):
        say(pizza_story(), SessionState(), trigger="dance")
    with pytest.raises(Unknown):
        say(pizza_story(), SessionState(), goto="nowhere")


def test_goto_jumps_straight_to_an_interaction() -> None:
    _, result = say(pizza_story(), SessionState(), goto="hours")
    assert (result.interaction.id, texts(result)) == ("hours", ["9 to 5."])


def test_a_phrase_with_a_slot_fills_the_parameter_with_the_entry_value() -> None:
    _, result = say(
        pizza_story(), SessionState(), query="I want a BIG pizza", parameters={"default_name": "Bo"}
    )
    assert result.interaction.id == "order"
    assert result.parameters["size"] == "large"
    assert texts(result) == ["One large pizza for Bo!"]
    assert result.incomplete is False


def test_below_the_confidence_the_fallback_answers() -> None:
    _, result = say(pizza_story(), SessionState(), query="the weather on mars")
    assert result.interaction.kind == "fallback"
    assert texts(result) == ["Sorry, I did not get that."]
    assert result.score < result.threshold == 0.5


def test_with_fallback_disabled_nothing_answers_a_miss() -> None:
    _, result = say(pizza_story(fallback=False), SessionState(), query="the weather on mars")
    assert (result.interaction, result.fulfillment) == (None, ())


def test_the_request_may_lower_the_confidence() -> None:
    _, result = say(pizza_story(), SessionState(), query="open on sunday?", confidence=0.01)
    assert result.interaction.id == "hours"
    assert result.threshold == 0.01


def test_a_missing_required_parameter_is_asked_for_then_read_from_the_answer() -> None:
    model = pizza_story()
    state, asked = say(model, SessionState(), query="I would like to order a pizza")
    assert (texts(asked), asked.incomplete, asked.interaction.id) == (
        ["Which size?"],
        True,
        "order",
    )
    state, again = say(model, state, query="hmm")
    assert (texts(again), again.incomplete, again.lifespan) == (["Small or large?"], True, 1)
    state, done = say(model, state, query="small please")
    assert (texts(done), done.incomplete) == (["One small pizza for!"], False)
    assert state.pending is None


def test_after_lifespan_failed_answers_the_conversation_resets_and_matches_anew() -> None:
    model = pizza_story(lifespan=2)
    state, _ = say(model, SessionState(), query="I would like to order a pizza")
    state, _ = say(model, state, query="hmm")
    state, result = say(model, state, query="when are you open")
    assert (result.interaction.id, result.incomplete) == ("hours", False)
    assert state.pending is None


def test_a_child_is_preferred_over_a_root_of_equal_score_after_its_parent() -> None:
    model = pizza_story()
    _, at_root = say(model, SessionState(), query="yes please")
    assert at_root.interaction.id == "yes"
    state, ordered = say(model, SessionState(), query="I want a large pizza")
    assert ordered.contexts == (OutcomeContext("order", "Order", 2),)
    _, in_context = say(model, state, query="yes please")
    assert in_context.interaction.id == "confirm"


def test_a_child_is_not_reachable_at_the_root_level() -> None:
    model = story(
        interaction("order", "order a pizza"),
        interaction("topping", "extra cheese on top"),
        parents={"topping": "order"},
    )
    _, result = say(model, SessionState(), query="extra cheese on top")
    assert result.interaction.kind == "fallback"


def test_each_miss_spends_lifespan_until_the_conversation_is_back_at_the_root() -> None:
    model = pizza_story(lifespan=2)
    state, _ = say(model, SessionState(), query="I want a large pizza")
    state, first_miss = say(model, state, query="the weather on mars")
    assert first_miss.contexts == (OutcomeContext("order", "Order", 1),)
    assert first_miss.lifespan == 1
    state, second_miss = say(model, state, query="when are you open")
    assert (second_miss.contexts, second_miss.lifespan) == ((), 0)
    _, result = say(model, state, query="yes please")
    assert result.interaction.id == "yes"


def test_a_reference_lets_a_child_jump_back_to_another_step() -> None:
    model = story(
        interaction("menu", "show me the menu"),
        interaction("pick", "I pick the margherita"),
        interaction("again", "show it again"),
        parents={"pick": "menu", "again": "pick"},
        references={"again": ["pick"]},
    )
    state, _ = say(model, SessionState(), query="show me the menu")
    state, _ = say(model, state, query="I pick the margherita")
    state, _ = say(model, state, query="show it again")
    _, result = say(model, state, query="I pick the margherita")
    assert result.interaction.id == "pick"


def test_reset_forgets_the_session_first() -> None:
    model = pizza_story()
    state, _ = say(model, SessionState(), query="I want a large pizza", parameters={"x": 1})
    fresh, result = say(model, state, trigger="welcome", reset=True)
    assert (result.parameters, result.contexts) == ({}, ())
    assert fresh.contexts == ()


def test_supplied_parameters_replace_collected_ones() -> None:
    model = pizza_story()
    state, _ = say(model, SessionState(), query="I want a large pizza")
    _, result = say(model, state, goto="order", parameters={"size": "small"})
    assert texts(result) == ["One small pizza for!"]


def test_each_text_block_chooses_one_message_and_other_blocks_render_whole() -> None:
    model = story(
        interaction(
            "menu",
            "menu",
            responses=[
                {"type": "text", "messages": ["A", "B"]},
                {"type": "text", "messages": ["C"]},
                {"type": "quickReply", "title": "For {{who}}?", "replies": ["Me", "{{who}}"]},
                {"type": "image", "imageUrl": "https://x.io/{{who}}.png"},
                {
                    "type": "card",
                    "title": "T",
                    "subtitle": "",
                    "imageUrl": "",
                    "buttons": [{"title": "Go", "postback": "go"}],
                },
                {
                    "type": "buttonTemplate",
                    "title": "Pick",
                    "buttons": [{"title": "A", "postback": "A"}],
                },
            ],
        )
    )
    _, result = respond(
        model, SessionState(), Turn(query="menu", parameters={"who": "Al"}), choose=lambda o: o[-1]
    )
    assert result.fulfillment == (
        Text("B"),
        Text("C"),
        QuickReplies("For Al?", ("Me", "Al")),
        Image("https://x.io/Al.png"),
        Card("T", "", "", (Button("Go", "go"),)),
        ButtonTemplate("Pick", (Button("A", "A"),)),
    )


def test_debug_explains_the_candidates_and_the_decision() -> None:
    model = pizza_story()
    state, ordered = say(model, SessionState(), query="I want a large pizza")
    _, result = say(model, state, query="yes please", debug=True)
    _, missed = say(model, SessionState(), query="the weather on mars", debug=True)
    assert result.debug is not None and missed.debug is not None
    assert [c.id for c in result.debug.candidates[:2]] == ["confirm", "yes"]
    assert result.debug.candidates[0].tier == "current context"
    assert "tied with 'Yes', preferred as current context" in result.debug.decision
    assert "below the confidence 0.5: fallback" in missed.debug.decision
    assert ordered.debug is None


def test_a_second_order_asks_for_its_size_again_instead_of_reusing_the_first() -> None:
    model = pizza_story()
    state, first_order = say(model, SessionState(), query="I want a large pizza")
    assert first_order.parameters["size"] == "large"
    state, second = say(model, state, query="I would like to order a pizza")
    assert (texts(second), second.incomplete) == (["Which size?"], True)
    assert "size" not in second.parameters
    state, third = say(model, state, query="I want a small pizza")
    assert (third.parameters["size"], third.incomplete) == ("small", False)


def test_what_a_parent_collected_stays_for_its_children() -> None:
    size = [{"alias": "size", "entity": "size", "prompts": ["Which size?"]}]
    model = story(
        interaction("order", "I want a {{size:size}} pizza", parameters=size),
        interaction(
            "confirm",
            "yes please",
            parameters=size,
            responses=[{"type": "text", "messages": ["A {{size}} one, confirmed."]}],
        ),
        parents={"confirm": "order"},
        entities={"size": ["large", "small"]},
    )
    state, _ = say(model, SessionState(), query="I want a large pizza")
    _, confirmed = say(model, state, query="yes please")
    assert (texts(confirmed), confirmed.incomplete) == (["A large one, confirmed."], False)


def test_supplied_values_are_nobodys_and_stay_for_the_session() -> None:
    model = pizza_story()
    state, _ = say(model, SessionState(), goto="order", parameters={"size": "small"})
    _, again = say(model, state, query="I would like to order a pizza")
    assert (again.parameters["size"], again.incomplete) == ("small", False)


def test_a_value_a_webhook_replaced_is_no_longer_the_collectors() -> None:
    model = pizza_story()
    state, outcome = say(model, SessionState(), query="I want a large pizza")
    state = state.with_parameters({**outcome.parameters, "size": "family"})
    _, again = say(model, state, query="I would like to order a pizza")
    assert (again.parameters["size"], again.incomplete) == ("family", False)


def test_a_value_shared_by_two_entities_fills_the_slot_that_asks_for_it() -> None:
    model = story(
        interaction(
            "box",
            "I want a {{boxsize:box}} box",
            parameters=[{"alias": "box", "entity": "boxsize", "prompts": ["Which box size?"]}],
            responses=[{"type": "text", "messages": ["A {{box}} box."]}],
        ),
        interaction("cup", "a {{cupsize:cup}} coffee"),
        entities={"cupsize": [["large", "big"], "small"], "boxsize": [["large", "big"]]},
    )
    _, said = say(model, SessionState(), query="I want a big box")
    assert (texts(said), said.incomplete, said.score) == (["A large box."], False, 1.0)
    state, asked = say(model, SessionState(), query="I want a box")
    assert texts(asked) == ["Which box size?"]
    _, answered = say(model, state, query="large")
    assert (answered.parameters, answered.incomplete) == ({"box": "large"}, False)


def test_an_entity_no_interaction_uses_changes_nothing() -> None:
    order = interaction("order", "I want a {{size:size}} pizza")
    alone = story(order, entities={"size": ["large"]})
    with_noise = story(order, entities={"size": ["large"], "filler": ["a", "i", "to"]})
    for model in (alone, with_noise):
        _, outcome = say(model, SessionState(), query="I want a large pizza")
        assert (outcome.score, outcome.parameters) == (1.0, {"size": "large"})


def flower_story(**settings: Any) -> CompiledStory:
    return story(
        interaction(
            "flowers",
            "I want {{flower:flower}} in a {{container:container}}",
            "I would like to send flowers",
            parameters=[
                {"alias": "flower", "entity": "flower", "prompts": ["Which flower?", "Roses?"]},
                {"alias": "container", "entity": "container", "prompts": ["Vase?", "Or not?"]},
            ],
            responses=[{"type": "text", "messages": ["{{flower}} in a {{container}}."]}],
        ),
        entities={"flower": ["roses", "tulips"], "container": ["vase", "bouquet"]},
        **settings,
    )


def test_a_message_naming_another_parameter_while_one_is_asked_fills_it_too() -> None:
    model = flower_story()
    state, asked = say(model, SessionState(), query="I would like to send flowers")
    assert texts(asked) == ["Which flower?"]
    state, vase = say(model, state, query="A vase")
    assert (texts(vase), vase.incomplete, vase.lifespan) == (["Which flower?"], True, 2)
    assert vase.parameters == {"container": "vase"}
    _, done = say(model, state, query="tulips")
    assert (texts(done), done.incomplete) == (["tulips in a vase."], False)


def test_matching_the_asking_interaction_again_goes_on_without_losing_what_it_collected() -> None:
    model = flower_story(lifespan=1)
    state, asked = say(model, SessionState(), query="I want roses")
    assert (texts(asked), asked.parameters) == (["Vase?"], {"flower": "roses"})
    state, again = say(model, state, query="I would like to send flowers", debug=True)
    assert (texts(again), again.incomplete, again.interaction.id) == (["Vase?"], True, "flowers")
    assert again.parameters == {"flower": "roses"}
    assert "the interaction asking for 'container' goes on" in again.debug.decision
    _, done = say(model, state, query="a bouquet")
    assert (texts(done), done.incomplete) == (["roses in a bouquet."], False)


def test_every_outcome_carries_its_best_three_candidates_without_debug() -> None:
    model = pizza_story()
    state, _ = say(model, SessionState(), query="I want a large pizza")
    _, plain = say(model, state, query="yes please")
    _, explained = say(model, state, query="yes please", debug=True)
    assert plain.debug is None
    assert explained.debug is not None
    assert 1 <= len(plain.top) <= 3
    assert [(c.id, c.name, c.score) for c in plain.top] == [
        (c.id, c.name, c.score) for c in explained.debug.candidates[: len(plain.top)]
    ]
    _, triggered = say(model, SessionState(), trigger="welcome")
    assert triggered.top == ()


def test_a_prompt_fills_its_placeholders_as_a_response_does() -> None:
    """README's pizza: the crust's prompt names the size said; a value not yet filled
    leaves no trace, as in a response."""
    model = story(
        interaction(
            "order",
            "I want a {{size:size}} pizza",
            "I would like a pizza with {{crust:crust}} crust",
            parameters=[
                {
                    "alias": "crust",
                    "entity": "crust",
                    "prompts": ["What crust for your {{size}} pizza?"],
                },
                {"alias": "size", "entity": "size", "prompts": ["Which size?"]},
            ],
            responses=[{"type": "text", "messages": ["One {{size}} {{crust}} pizza."]}],
        ),
        entities={"size": ["large", "small"], "crust": ["thin", "thick"]},
    )
    _, asked = say(model, SessionState(), query="I want a large pizza")
    assert texts(asked) == ["What crust for your large pizza?"]
    _, unfilled = say(model, SessionState(), goto="order")
    assert texts(unfilled) == ["What crust for your pizza?"]


def silent_story(*fallback_responses: dict[str, Any]) -> CompiledStory:
    """Interactions that would say nothing: no block, a text that renders blank, only a
    webhook; the fallback with these responses (none given: the default)."""
    model = story(
        interaction("quiet", "be quiet please"),
        interaction(
            "blank", "say nothing at all", responses=[{"type": "text", "messages": ["{{x}}"]}]
        ),
        interaction("hooked", "call home now", webhook="https://backend.example/hook"),
    )
    if not fallback_responses:
        return model
    given = interaction("fallback", responses=list(fallback_responses))
    fallback = replace(model.interactions["fallback"], responses=given.responses)
    return model.edited(interactions=[fallback])


@pytest.mark.parametrize("query", ["be quiet please", "say nothing at all"])
def test_an_interaction_that_says_nothing_says_the_fallback_text(query: str) -> None:
    _, result = say(silent_story(), SessionState(), query=query)
    assert result.interaction.kind == "standard"
    assert texts(result) == ["Sorry, I did not get that."]


def test_the_fallback_text_is_its_text_blocks_or_the_default_message() -> None:
    own = silent_story(
        {"type": "image", "imageUrl": "https://x.io/a.png"},
        {"type": "text", "messages": ["Pardon, {{default_name}}?"]},
    )
    _, result = say(own, SessionState(), query="be quiet please", parameters={"default_name": "Al"})
    assert result.fulfillment == (Text("Pardon, Al?"),)
    without_text = silent_story({"type": "image", "imageUrl": "https://x.io/a.png"})
    _, result = say(without_text, SessionState(), query="be quiet please")
    assert texts(result) == ["Sorry, I did not get that."]
    german = story(interaction("still", "sei still"), language="german")
    _, result = say(german, SessionState(), query="sei still")
    assert texts(result) == ["Entschuldigung, das habe ich nicht verstanden."]


def test_an_interaction_with_a_webhook_leaves_the_fallback_text_to_its_answer() -> None:
    """The webhook's request sees no fulfillment; its answer (or failure) decides."""
    _, result = say(silent_story(), SessionState(), query="call home now")
    assert result.fulfillment == ()
    assert result.spoken().fulfillment == (Text("Sorry, I did not get that."),)
    answered = result.with_webhook_answer([responses.TextChoice(("Home says hi",))], {}, first)
    assert answered.fulfillment == (Text("Home says hi"),)
    assert result.with_webhook_answer([], {}, first).fulfillment == result.silence


def offer_story() -> CompiledStory:
    """Two questions, each with its own answer to "yes", and "yes" said anywhere else."""
    said = [{"type": "text", "messages": ["OK."]}]
    return story(
        interaction("yes", "yes please", "sure", action="affirm", responses=said),
        interaction(
            "offer",
            "offsets",
            responses=[{"type": "text", "messages": ["Would you like to buy offsets?"]}],
        ),
        interaction(
            "estimate",
            "estimate",
            responses=[{"type": "text", "messages": ["Shall I estimate your flight?"]}],
        ),
        interaction(
            "offer.yes", action="affirm", responses=[{"type": "text", "messages": ["Here."]}]
        ),
        interaction(
            "estimate.yes",
            action="affirm",
            responses=[{"type": "text", "messages": ["From where?"]}],
        ),
        parents={"offer.yes": "offer", "estimate.yes": "estimate"},
    )


def test_a_follow_up_without_phrases_answers_its_root_s_phrases_after_its_question() -> None:
    model = offer_story()
    _, anywhere = say(model, SessionState(), query="sure")
    assert (anywhere.interaction.id, texts(anywhere)) == ("yes", ["OK."])
    state, _ = say(model, SessionState(), query="offsets")
    state, offered = say(model, state, query="yes please", debug=True)
    assert (offered.interaction.id, texts(offered)) == ("offer.yes", ["Here."])
    assert "answered by its follow-up 'Offer.Yes'" in offered.debug.decision
    state, _ = say(model, state, query="estimate")
    _, estimated = say(model, state, query="sure")
    assert (estimated.interaction.id, texts(estimated)) == ("estimate.yes", ["From where?"])


def test_a_follow_up_needs_the_same_action_and_no_phrases_of_its_own() -> None:
    model = story(
        interaction("yes", "yes please", action="affirm"),
        interaction("offer", "offsets"),
        interaction("offer.other", action="deny"),
        interaction("offer.worded", "never", action="affirm"),
        parents={"offer.other": "offer", "offer.worded": "offer"},
    )
    state, _ = say(model, SessionState(), query="offsets")
    _, answered = say(model, state, query="yes please")
    assert answered.interaction.id == "yes"


def test_a_button_click_while_free_text_is_asked_answers_its_own_interaction() -> None:
    """financial-demo: "Who do you want to pay?" takes any text, and the "Talk to a human"
    quick reply sends its title: that is the handoff's phrase, not a name."""
    model = story(
        interaction(
            "pay",
            "pay someone",
            parameters=[{"alias": "payee", "entity": "sys.any", "prompts": ["Who?"]}],
            responses=[{"type": "text", "messages": ["Paid {{payee}}."]}],
        ),
        interaction(
            "human", "Talk to a human", responses=[{"type": "text", "messages": ["Hold on."]}]
        ),
    )
    state, asked = say(model, SessionState(), query="pay someone")
    assert texts(asked) == ["Who?"]
    state, clicked = say(model, state, query="Talk to a human")
    assert (clicked.interaction.id, texts(clicked), clicked.incomplete) == (
        "human",
        ["Hold on."],
        False,
    )
    assert "payee" not in clicked.parameters
    state, _ = say(model, state, query="pay someone")
    _, paid = say(model, state, query="a human being")  # not a phrase said exactly
    assert texts(paid) == ["Paid a human being."]


def test_a_prompt_with_replies_asks_with_quick_replies_filled_in() -> None:
    model = story(
        interaction(
            "pay",
            "pay my {{account:account}} bill",
            "pay a bill",
            parameters=[
                {
                    "alias": "account",
                    "entity": "account",
                    "prompts": ["Which account, {{default_name}}?", "Pay from which one?"],
                    "promptReplies": ["Credit card", "{{default_name}}'s", "{{nothing}}"],
                }
            ],
            responses=[{"type": "text", "messages": ["Paid from {{account}}."]}],
        ),
        entities={"account": [["credit", "Credit card"], ["savings", "Ada's"]]},
    )
    state, asked = say(
        model, SessionState(), query="pay a bill", parameters={"default_name": "Ada"}
    )
    assert asked.incomplete is True
    # the reply left blank once filled is left out, like a quick reply block's
    assert asked.fulfillment == (QuickReplies("Which account, Ada?", ("Credit card", "Ada's")),)
    state, again = say(model, state, query="the blue one")
    assert again.fulfillment == (QuickReplies("Pay from which one?", ("Credit card", "Ada's")),)
    _, paid = say(model, state, query="Ada's")
    assert (paid.incomplete, texts(paid)) == (False, ["Paid from savings."])


def test_a_reply_that_is_another_interaction_s_phrase_and_no_value_leaves_the_prompt() -> None:
    """A Rasa form's question with a "Talk to a human" button (payload `/human`): its click
    answers as the human interaction, as the click of any other button during a prompt
    does; the replies that are values fill the parameter."""
    model = story(
        interaction(
            "pay",
            "pay a bill",
            parameters=[
                {
                    "alias": "account",
                    "entity": "account",
                    "prompts": ["Which account?"],
                    "promptReplies": ["Credit card", "Talk to a human"],
                }
            ],
            responses=[{"type": "text", "messages": ["Paid from {{account}}."]}],
        ),
        interaction(
            "human", "Talk to a human", responses=[{"type": "text", "messages": ["Hold on."]}]
        ),
        entities={"account": [["credit", "Credit card"], "savings"]},
    )
    state, _ = say(model, SessionState(), query="pay a bill")
    state, clicked = say(model, state, query="Talk to a human")
    assert (clicked.interaction.id, texts(clicked), clicked.incomplete) == (
        "human",
        ["Hold on."],
        False,
    )
    state, _ = say(model, state, query="pay a bill")
    _, paid = say(model, state, query="Credit card")
    assert texts(paid) == ["Paid from credit."]
