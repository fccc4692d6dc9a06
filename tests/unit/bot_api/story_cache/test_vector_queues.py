"""Whose phrase texts a replica encodes, and when (story_cache/queues.py), on a clock the
test reads out: its own writes' at once, another replica's awaited and looked up in the
store until they land, encoded here only once none landed for the wait, or at once with
no other replica alive; the stories still taking turns."""

from bot_api.story_cache.queues import (
    CHUNK,
    LOOK_SECONDS,
    WAIT_SECONDS,
    Turn,
    VectorQueues,
)
from shared.config import Config
from support.encoders import ConceptEncoder

ENCODER = ConceptEncoder()
WAIT = 30.0


async def told(interaction_ids: set[str]) -> None:
    """The story's `landed`: what it is told is what the queues return."""


def queues_with(*stories: tuple[str, dict[str, list[str]], bool]) -> VectorQueues:
    """Queues holding, at time 0, each (story, texts by interaction, written here)."""
    queues = VectorQueues(WAIT)
    for story_id, texts, written_here in stories:
        queues.add(story_id, ENCODER, texts, told, written_here, now=0.0)
    return queues


def turn_texts(turn: Turn | None) -> tuple[str, list[str]] | None:
    return None if turn is None else (turn.story_id, turn.texts)


def test_a_write_of_this_replica_is_encoded_at_once_and_another_replicas_awaited() -> None:
    queues = queues_with(("theirs", {"i": ["a", "b"]}, False), ("ours", {"j": ["c"]}, True))
    turn = queues.next_turn(0.0, alone=False)
    assert turn_texts(turn) == ("ours", ["c"]), "an awaited story takes no turn from others"
    assert turn is not None and queues.encoded(turn) == {"j"}
    assert queues.next_turn(0.0, alone=False) is None
    assert (queues.waiting("theirs"), queues.waiting()) == (2, 2), "awaited texts wait too"


def test_awaited_texts_are_looked_up_every_look_and_land_as_they_are_found() -> None:
    queues = queues_with(("s", {"i": ["a", "b"], "j": ["c"]}, False))
    [look] = queues.looks(0.0)
    assert look.texts == ["a", "b", "c"]
    assert queues.looks(LOOK_SECONDS / 2) == [], "looked up once a look"
    assert queues.pause(LOOK_SECONDS / 2) == LOOK_SECONDS / 2
    assert queues.found(look, {"a", "c"}, 0.5) == {"j"}
    assert queues.waiting("s") == 1
    [look] = queues.looks(LOOK_SECONDS)
    assert look.texts == ["b"]
    assert queues.found(look, {"b"}, LOOK_SECONDS) == {"i"}
    assert not queues and queues.pause(LOOK_SECONDS) is None


def test_awaited_texts_are_encoded_here_once_none_landed_for_the_wait() -> None:
    queues = queues_with(("s", {"i": ["a", "b"]}, False))
    assert queues.pause(0.0) == 0.0, "looked up at once: another may have stored them"
    [look] = queues.looks(0.0)
    assert queues.next_turn(WAIT - 1, alone=False) is None
    queues.found(look, {"a"}, WAIT - 1)  # the writer is at work: the wait starts again
    assert queues.next_turn(2 * WAIT - 1.5, alone=False) is None
    assert len(queues.looks(2 * WAIT - 1.5)) == 1
    assert queues.pause(2 * WAIT - 1.5) == 0.5, "the wait ends before the next look"
    assert turn_texts(queues.next_turn(2 * WAIT - 1, alone=False)) == ("s", ["b"])


def test_with_no_other_replica_alive_nothing_is_awaited() -> None:
    queues = queues_with(("s", {"i": ["a"]}, False))
    assert turn_texts(queues.next_turn(0.0, alone=True)) == ("s", ["a"])


def test_a_compile_of_this_replicas_own_write_keeps_it_encoded_at_once_in_either_order() -> None:
    compiled_after = queues_with(("s", {"i": ["a", "b"]}, True), ("s", {"i": ["b"]}, False))
    compiled_before = queues_with(("s", {"i": ["a", "b"]}, False), ("s", {"i": ["a", "b"]}, True))
    assert turn_texts(compiled_after.next_turn(0.0, alone=False)) == ("s", ["b"])
    assert turn_texts(compiled_before.next_turn(0.0, alone=False)) == ("s", ["a", "b"])
    elsewhere = queues_with(("s", {"i": ["a"]}, True), ("s", {"j": ["z"]}, False))
    assert turn_texts(elsewhere.next_turn(0.0, alone=False)) == ("s", ["a"]), "j is awaited"


def test_an_interaction_being_encoded_here_stays_this_replicas_to_finish() -> None:
    """A compile that read the store while the write's first chunk was being stored
    queues the whole interaction again: its rest is not awaited from anyone else."""
    texts = [f"t{n}" for n in range(CHUNK + 8)]
    queues = queues_with(("s", {"i": texts}, True))
    turn = queues.next_turn(0.0, alone=False)
    assert turn is not None and queues.encoded(turn) == set()
    queues.add("s", ENCODER, {"i": texts}, told, False, now=0.0)
    assert queues.looks(0.0) == []
    turn = queues.next_turn(0.0, alone=False)
    assert turn is not None and turn.texts == texts[:CHUNK], "skipped once found stored"


def test_the_stories_to_encode_take_turns_a_chunk_each() -> None:
    queues = queues_with(
        ("large", {"i": [f"t{n}" for n in range(CHUNK + 1)]}, True),
        ("small", {"j": ["a"]}, True),
    )
    order = []
    while (turn := queues.next_turn(0.0, alone=False)) is not None:
        order.append((turn.story_id, len(turn.texts)))
        queues.encoded(turn)
    assert order == [("large", CHUNK), ("small", 1), ("large", 1)]


def test_a_story_re_edited_or_forgotten_while_looked_up_keeps_only_what_is_queued_now() -> None:
    queues = queues_with(("s", {"i": ["a"], "j": ["b"]}, False))
    [look] = queues.looks(0.0)
    queues.add("s", ENCODER, {"i": ["new"]}, told, False, now=0.1)
    assert queues.found(look, {"a", "b"}, 0.2) == {"j"}, "i's texts are the new ones now"
    assert queues.waiting("s") == 1
    [look] = queues.looks(0.1)  # queued again: looked up at once
    queues.forget("s")
    assert queues.found(look, {"new"}, 0.2) is None and not queues


def test_a_turn_of_a_story_forgotten_or_edited_meanwhile_tells_nothing_stale() -> None:
    queues = queues_with(("s", {"i": ["a"]}, True))
    turn = queues.next_turn(0.0, alone=False)
    assert turn is not None
    queues.add("s", ENCODER, {"i": ["b"]}, told, True, now=0.0)
    assert queues.encoded(turn) == set(), "i's new text is still to encode"
    turn = queues.next_turn(0.0, alone=False)
    assert turn is not None
    queues.forget("s")
    assert queues.encoded(turn) is None


def test_a_look_that_failed_is_made_again_later() -> None:
    queues = queues_with(("s", {"i": ["a"]}, False))
    [look] = queues.looks(0.0)
    queues.look_again(look, 5.0)
    assert queues.looks(LOOK_SECONDS) == [] and queues.pause(LOOK_SECONDS) == 4.0
    assert len(queues.looks(5.0)) == 1


def test_an_interaction_given_no_texts_waits_for_none_and_a_new_encoder_drops_the_old() -> None:
    queues = queues_with(("s", {"i": ["a"], "j": ["b"]}, False), ("s", {"i": []}, False))
    assert queues.waiting("s") == 1
    other = ConceptEncoder()
    other.model_id = "other-v1"
    queues.add("s", other, {"k": ["c"]}, told, True, now=0.0)
    assert turn_texts(queues.next_turn(0.0, alone=False)) == ("s", ["c"])
    queues.add("s", other, {"k": []}, told, True, now=0.0)
    assert not queues


def test_the_wait_is_the_setting_s_default() -> None:
    assert Config(mongodb_url="", nats_url="").phrase_vector_wait_seconds == WAIT_SECONDS
