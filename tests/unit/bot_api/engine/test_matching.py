"""Scoring phrases: exact, paraphrased, misspelled; incremental edits."""

from bot_api.engine.matching import MatchIndex, calibrated, compile_phrase
from bot_api.engine.text import tokens


def index() -> MatchIndex:
    built = MatchIndex()
    built.put("order", ["I want to order a pizza", "can I get a {{size:size}} pizza"])
    built.put("hours", ["when are you open", "what are your opening hours"])
    built.put("track", ["where is my delivery", "track my order"])
    return built


def best(built: MatchIndex, text: str) -> tuple[str, float]:
    top = built.search([tokens(text)], lambda i: True)[0]
    return top.interaction_id, top.score


def test_a_slot_becomes_a_word_for_its_entity() -> None:
    phrase = compile_phrase("Can I get a {{size:size}} pizza, {{ city : to }}?")
    assert phrase.words == ("can", "i", "get", "a", "@size", "pizza", "@city")
    assert phrase.slots == (("size", "size"), ("city", "to"))


def test_a_phrase_said_exactly_scores_one() -> None:
    assert best(index(), "When are you OPEN?") == ("hours", 1.0)


def test_the_blend_is_calibrated_so_that_a_tenth_reads_as_one_half() -> None:
    assert [calibrated(b) for b in (0.0, 0.1, 1.0, 1.7, -0.2)] == [0.0, 0.5, 1.0, 1.0, 0.0]
    assert calibrated(0.05) == 0.25
    assert calibrated(0.55) == 0.75


def test_paraphrases_and_typos_find_the_right_interaction() -> None:
    built = index()
    for said, expected in [
        ("I would like to order pizzas", "order"),
        ("what time do you open", "hours"),
        ("where's my delivry", "track"),
    ]:
        interaction_id, score = best(built, said)
        assert interaction_id == expected, said
        assert 0 < score < 1


def test_ineligible_interactions_are_never_returned() -> None:
    ranked = index().search([tokens("when are you open")], lambda i: i != "hours")
    assert "hours" not in {s.interaction_id for s in ranked}


def test_an_edit_is_matched_at_once_and_a_removal_forgotten() -> None:
    built = index()
    built.put("hours", ["is the shop closed on sunday"])
    assert best(built, "is the shop closed on sunday") == ("hours", 1.0)
    assert all(s.score < 0.5 for s in built.search([tokens("when are you open")], lambda i: True))
    built.remove("track")
    ranked = built.search([tokens("track my order")], lambda i: True)
    assert "track" not in {s.interaction_id for s in ranked}
    assert len(built) == 3


def test_the_best_match_is_the_same_whether_or_not_every_candidate_is_scored() -> None:
    built = index()
    for said in ("I would like to order pizzas", "what time do you open", "track my delivery"):
        quick = built.search([tokens(said)], lambda i: True)
        full = built.search([tokens(said)], lambda i: True, every_candidate=True)
        assert (quick[0].interaction_id, quick[0].score) == (full[0].interaction_id, full[0].score)
        assert len(full) >= len(quick)
    assert len(built.search([tokens("order my pizza delivery")], lambda i: True, True)) == 2
