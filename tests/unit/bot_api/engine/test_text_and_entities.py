"""Normalising text and finding entity values in it."""

from bot_api.domain.entities import Entity, Entry
from bot_api.engine.analysis import analyser
from bot_api.engine.entities import EntityRecognizer
from bot_api.engine.text import tokens


def test_case_accents_punctuation_and_spacing_do_not_matter() -> None:
    assert tokens("  Où est-ce,   S'IL vous PLAÎT?! ") == [
        "ou",
        "est",
        "ce",
        "s",
        "il",
        "vous",
        "plait",
    ]
    assert tokens("I'd like 2 pizzas_now") == ["i", "d", "like", "2", "pizzas", "now"]


def recognizer() -> EntityRecognizer:
    return EntityRecognizer(
        [
            Entity(
                "size",
                (Entry("large", ("large", "extra big")), Entry("small", ("small", "tiny"))),
            ),
            Entity("city", (Entry("New York", ("New York", "NYC")),)),
        ],
        analyser("english"),
    )


def test_synonyms_are_found_as_their_entry_value_longest_first() -> None:
    mentions = recognizer().find(tokens("An EXTRA BIG pizza to nyc, and a tiny one to New-York"))
    assert [(m.entity, m.value, m.text) for m in mentions] == [
        ("size", "large", "extra big"),
        ("city", "New York", "nyc"),
        ("size", "small", "tiny"),
        ("city", "New York", "new york"),
    ]


def test_small_typos_in_values_are_tolerated_but_known_words_are_taken_as_said() -> None:
    found = recognizer().find(tokens("a lagre pizza"))
    assert [(m.entity, m.value) for m in found] == [("size", "large")]
    assert recognizer().find(tokens("a lagre pizza"), known={"lagre"}) == []
    assert recognizer().find(tokens("a pizza please")) == []
