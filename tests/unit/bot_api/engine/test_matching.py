"""Scoring phrases: exact, paraphrased, misspelled; incremental edits."""

from bot_api.engine.analysis import analyser
from bot_api.engine.matching import MatchIndex
from bot_api.engine.phrases import compile_phrase
from bot_api.engine.scoring import SCORING, calibrated
from bot_api.engine.text import tokens


def index() -> MatchIndex:
    return MatchIndex.build(
        {
            "order": ["I want to order a pizza", "can I get a {{size:size}} pizza"],
            "hours": ["when are you open", "what are your opening hours"],
            "track": ["where is my delivery", "track my order"],
        }
    )


def best(built: MatchIndex, text: str) -> tuple[str, float]:
    top = built.search([tokens(text)], lambda i: True)[0]
    return top.interaction_id, top.score


def test_a_slot_becomes_a_word_for_its_entity() -> None:
    phrase = compile_phrase(
        "Can I get a {{size:size}} pizza, {{ city : to }}?", analyser("english")
    )
    assert phrase.words == ("can", "i", "get", "a", "@size", "pizza", "@city")
    assert phrase.slots == (("size", "size"), ("city", "to"))


def test_a_phrase_said_exactly_scores_one() -> None:
    assert best(index(), "When are you OPEN?") == ("hours", 1.0)


def test_the_blend_is_calibrated_so_that_a_tenth_reads_as_one_half() -> None:
    knee = SCORING.calibration_knee
    assert [calibrated(b, knee) for b in (0.0, 0.1, 1.0, 1.7, -0.2)] == [0.0, 0.5, 1.0, 1.0, 0.0]
    assert calibrated(0.05, knee) == 0.25
    assert calibrated(0.55, knee) == 0.75


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
    built = index().updated({"hours": ["is the shop closed on sunday"]})
    assert best(built, "is the shop closed on sunday") == ("hours", 1.0)
    assert all(s.score < 0.5 for s in built.search([tokens("when are you open")], lambda i: True))
    built = built.updated({}, removed=["track"])
    ranked = built.search([tokens("track my order")], lambda i: True)
    assert "track" not in {s.interaction_id for s in ranked}
    assert best(built, "I want to order a pizza") == ("order", 1.0)


def test_an_updated_index_leaves_the_one_it_came_from_as_it_was() -> None:
    before = index()
    said = [tokens("where is my delivery")], [tokens("is the shop closed on sunday")]
    scores = [[(s.interaction_id, s.score) for s in before.search(w, lambda i: True)] for w in said]
    after = before.updated({"hours": ["is the shop closed on sunday"]}, removed=["track"])
    assert best(after, "is the shop closed on sunday") == ("hours", 1.0)
    again = [[(s.interaction_id, s.score) for s in before.search(w, lambda i: True)] for w in said]
    assert again == scores
    assert scores[0][0] == ("track", 1.0)


def test_a_story_edited_one_interaction_at_a_time_scores_as_one_built_at_once() -> None:
    phrases = {
        "order": ["I want to order a pizza", "can I get a {{size:size}} pizza"],
        "hours": ["when are you open", "what are your opening hours"],
        "track": ["where is my delivery", "track my order"],
    }
    edited = MatchIndex.build({})
    for interaction_id, user_says in phrases.items():
        edited = edited.updated({interaction_id: user_says})
    built = MatchIndex.build(phrases)
    for said in ("order pizzas", "opening time", "my delivery is late"):
        assert built.search([tokens(said)], lambda i: True, True) == edited.search(
            [tokens(said)], lambda i: True, True
        )


def test_the_best_match_is_the_same_whether_or_not_every_candidate_is_scored() -> None:
    built = index()
    for said in ("I would like to order pizzas", "what time do you open", "track my delivery"):
        quick = built.search([tokens(said)], lambda i: True)
        full = built.search([tokens(said)], lambda i: True, every_candidate=True)
        assert (quick[0].interaction_id, quick[0].score) == (full[0].interaction_id, full[0].score)
        assert len(full) >= len(quick)
    assert len(built.search([tokens("order my pizza delivery")], lambda i: True, True)) == 2


def test_an_interaction_saying_a_phrase_twice_can_be_updated_and_removed() -> None:
    built = MatchIndex.build({"hours": ["When are you open?", "when are you open"]})
    updated = built.updated({"hours": ["when do you open"]})
    assert best(updated, "when do you open") == ("hours", 1.0)
    assert updated.updated({}, ["hours"]).search([tokens("when do you open")], bool) == []


def large_story() -> dict[str, list[str]]:
    """Forty interactions of five phrases, each about its own made-up topic: an edit of
    one of them stays under a tenth of the phrases, so the index is updated in place."""
    topics = [
        f"{a}{b}"
        for a in ("ka", "lo", "mi", "ne", "ru")
        for b in ("ta", "vo", "zi", "pe", "su", "do", "fa", "gi")
    ]
    return {
        f"topic-{t}": [
            f"i want to book the {t}",
            f"can you cancel my {t} please",
            f"how much is a {t}",
            f"where is the {t} today",
            f"{t} opening hours",
        ]
        for t in topics
    }


def test_an_edit_of_a_large_story_updates_it_in_place_like_a_full_build() -> None:
    phrases = large_story()
    before = MatchIndex.build(phrases)
    edited = {"topic-kata": ["reserve a quiet table by the window"]}
    after = before.updated(edited, removed=["topic-lovo"])
    rebuilt = MatchIndex.build({**phrases, **edited} | {"topic-lovo": []})
    assert best(after, "reserve a quiet table by the window") == ("topic-kata", 1.0)
    assert best(after, "a quiet table by the window please")[0] == "topic-kata"
    for said in ("i want to book the kata", "where is the lovo today", "lovo opening hours"):
        ids = {s.interaction_id for s in after.search([tokens(said)], lambda i: True, True)}
        assert not ids & {"topic-kata", "topic-lovo"}, said
    assert best(before, "lovo opening hours") == ("topic-lovo", 1.0)
    assert best(before, "i want to book the kata") == ("topic-kata", 1.0)
    for said in ("cancel my ruzi", "how much for a nedo", "mipe hours", "book a quiet table"):
        assert best(after, said)[0] == best(rebuilt, said)[0], said
    again = after.updated({"topic-kata": ["i want to book the kata"]})
    assert best(again, "i want to book the kata") == ("topic-kata", 1.0)
    gone = again.search([tokens("reserve a quiet table by the window")], lambda i: True, True)
    assert "topic-kata" not in {s.interaction_id for s in gone}
