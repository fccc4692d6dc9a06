"""A story compiled a chunk at a time: whole, it scores as the story compiled at once;
before the end, it has every interaction but indexes only those read."""

from bot_api.engine.story import CompiledStory, StoryCompile
from bot_api.engine.text import tokens
from support.stories import interaction, story

MESSAGES = ["I want a large pizza", "when are you open", "yes please", "hello", "what now"]


def pizza() -> CompiledStory:
    return story(
        interaction("order", "I want a {{size:size}} pizza", "I would like to order a pizza"),
        interaction("confirm", "yes please"),
        interaction("hours", "when are you open", "what are your opening hours"),
        parents={"confirm": "order"},
        entities={"size": [["large", "big"], "small"]},
    )


def in_chunks(whole: CompiledStory) -> StoryCompile:
    return StoryCompile(
        whole.id,
        whole.settings,
        whole.structure,
        whole.interactions.values(),
        whole.account_entities.values(),
    )


def scores(compiled: CompiledStory, text: str) -> list[tuple[str, float]]:
    found = compiled.index.search([tokens(text)], lambda i: True, every_candidate=True)
    return [(s.interaction_id, round(s.score, 6)) for s in found]


def test_a_story_compiled_in_chunks_scores_as_one_compiled_at_once() -> None:
    whole = pizza()
    compiling = in_chunks(whole)
    steps = 0
    while not compiling.done:
        compiling.step(1)
        steps += 1

    chunked = compiling.story()

    assert steps == 4, "welcome; fallback (no phrases) and order; confirm; hours"
    assert chunked.interactions == whole.interactions
    assert chunked.triggers == whole.triggers
    assert chunked.positions == whole.positions
    for message in MESSAGES:
        assert scores(chunked, message) == scores(whole, message), message


def test_a_partial_story_has_every_interaction_and_indexes_those_read() -> None:
    whole = pizza()
    compiling = in_chunks(whole)
    compiling.step(1)
    compiling.step(1)

    partial = compiling.story()
    compiling.step(10)  # reading on leaves the partial story as it was
    assert compiling.done

    assert partial.interactions == whole.interactions
    assert partial.triggers == whole.triggers
    assert {i for i, _ in scores(partial, "I want a large pizza")} == {"order"}
    assert scores(partial, "when are you open") == []
    assert "open" not in partial.index.known_words()
    assert scores(compiling.story(), "when are you open")[0] == ("hours", 1.0)
