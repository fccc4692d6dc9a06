"""Built-in entities (`sys.*`): recognised in the story's language, normalised to JSON,
resolved in the conversation's timezone, and usable in phrases and parameters."""

from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from bench.sys_entities import shares
from bot_api.engine.builtin_entities import BuiltinRecognizer
from bot_api.engine.conversation import respond
from bot_api.engine.semantic import interaction_texts, representatives
from bot_api.engine.text import tokens
from bot_api.engine.turn import SessionState, Turn
from support.stories import interaction, story

BERLIN = ZoneInfo("Europe/Berlin")
WEDNESDAY = datetime(2026, 11, 25, 10, 0, tzinfo=BERLIN)

MEASURED = {"english": 65, "german": 64, "spanish": 62}
"""Utterances of tests/data/sys_entities.jsonl (67 per language) recognised right when
the recognisers were chosen (docs/benchmarks.md): a change may only add to these."""


def values(entities: set[str], text: str, language: str = "english") -> dict[str, list[Any]]:
    found: dict[str, list[Any]] = {}
    for mention in BuiltinRecognizer(entities, language).find(text, WEDNESDAY):
        found.setdefault(mention.entity, []).append(mention.value)
    return found


def test_the_test_set_is_recognised_at_least_as_well_as_measured() -> None:
    table = shares()
    for language, floor in MEASURED.items():
        right = sum(r for (_, lang), (r, _) in table.items() if lang == language)
        assert right >= floor, (language, right)


@pytest.mark.parametrize(
    ("language", "said", "guests"),
    [("chinese", "我们2个人，要第3排", "我们2个人"), ("japanese", "2人で3時に行きます", "2人です")],  # noqa: RUF001
)
def test_digits_touching_chinese_or_japanese_letters_are_numbers(
    language: str, said: str, guests: str
) -> None:
    assert values({"sys.number"}, said, language) == {"sys.number": [2, 3]}
    model = story(
        interaction(
            "book",
            "{{sys.number:guests}}",
            parameters=[{"alias": "guests", "entity": "sys.number", "prompts": []}],
        ),
        language=language,
    )
    _, outcome = respond(model, SessionState(), Turn(query=guests, now=WEDNESDAY))
    assert outcome.parameters["guests"] == 2


def test_numbers_in_digits_and_words_become_json_numbers() -> None:
    assert values({"sys.number"}, "a table for 4 and twenty one more") == {"sys.number": [4, 21]}
    assert values({"sys.number"}, "2,5 Kilo und 1.200 Besucher", "german") == {
        "sys.number": [2.5, 1200]
    }
    assert values({"sys.number"}, "somos doce", "spanish") == {"sys.number": [12]}


def test_ordinals_percentages_and_durations() -> None:
    assert values({"sys.ordinal"}, "the 3rd floor") == {"sys.ordinal": [3]}
    assert values({"sys.percentage"}, "fifty percent off") == {"sys.percentage": [50]}
    assert values({"sys.duration"}, "für 2 Stunden", "german") == {"sys.duration": ["PT2H"]}


def test_dates_times_and_ranges_are_iso_8601_in_the_timezone() -> None:
    found = values({"sys.date", "sys.time", "sys.date-time"}, "tomorrow at 8pm")
    assert found == {
        "sys.date": ["2026-11-26"],
        "sys.time": ["20:00:00"],
        "sys.date-time": ["2026-11-26T20:00:00+01:00"],
    }
    assert values({"sys.date-time"}, "next week") == {
        "sys.date-time": [
            {"start": "2026-11-30T00:00:00+01:00", "end": "2026-12-07T00:00:00+01:00"}
        ]
    }


def test_money_phone_numbers_emails_and_urls() -> None:
    assert values({"sys.amount-of-money"}, "100 Dollar", "german") == {
        "sys.amount-of-money": [{"amount": 100, "currency": "USD"}]
    }
    assert values({"sys.phone-number"}, "llámame al 912 345 678", "spanish") == {
        "sys.phone-number": ["+34912345678"]
    }
    found = values({"sys.email", "sys.url"}, "mail a@b.org or see https://parley.dev/x.")
    assert found == {"sys.email": ["a@b.org"], "sys.url": ["https://parley.dev/x"]}


def test_only_the_entities_used_are_looked_for() -> None:
    assert values({"sys.email"}, "4 tickets tomorrow for $20") == {}


def test_a_mention_is_placed_on_the_words_it_was_said_in() -> None:
    text = "a table for twenty one tomorrow"
    mentions = BuiltinRecognizer({"sys.number", "sys.date"}, "english").find(text, WEDNESDAY)
    words = tokens(text)
    spans = {m.entity: words[m.start : m.end] for m in mentions}
    assert spans["sys.date"] == ["tomorrow"]


def booking(**settings: Any) -> Any:
    return story(
        interaction(
            "book",
            "a table for {{sys.number:guests}} {{sys.date:when}}",
            "I want to book a table",
            parameters=[
                {"alias": "guests", "entity": "sys.number", "prompts": ["For how many?"]},
                {"alias": "when", "entity": "sys.date", "prompts": ["Which day?"]},
                {"alias": "name", "entity": "sys.any", "prompts": ["In which name?"]},
            ],
            responses=[{"type": "text", "messages": ["{{guests}} on {{when}} for {{name}}."]}],
        ),
        **settings,
    )


def test_a_phrase_with_built_in_slots_fills_both_then_asks_free_text() -> None:
    late = datetime(2026, 11, 25, 23, 30, tzinfo=UTC)  # already Thursday in Berlin
    turn = Turn(
        query="a table for 4 tomorrow", now=late, parameters={"default_timezone": "Europe/Berlin"}
    )
    state, outcome = respond(booking(), SessionState(), turn)
    assert outcome.interaction is not None and outcome.interaction.id == "book"
    assert outcome.parameters["guests"] == 4
    assert outcome.parameters["when"] == "2026-11-27"
    assert outcome.incomplete
    _, outcome = respond(booking(), state, Turn(query="Ada Lovelace", now=late))
    assert outcome.parameters["name"] == "Ada Lovelace"
    assert not outcome.incomplete


@pytest.mark.parametrize(("timezone", "day"), [("UTC", "2026-11-26"), ("Asia/Tokyo", "2026-11-27")])
def test_without_default_timezone_the_story_timezone_resolves_dates(
    timezone: str, day: str
) -> None:
    late = datetime(2026, 11, 25, 16, 0, tzinfo=UTC)  # 01:00 on Thursday in Tokyo
    _, outcome = respond(
        booking(timezone=timezone), SessionState(), Turn(query="a table for 2 tomorrow", now=late)
    )
    assert outcome.parameters["when"] == day


def test_a_required_built_in_parameter_prompts_and_takes_the_answer() -> None:
    state, outcome = respond(booking(), SessionState(), Turn(query="I want to book a table"))
    assert outcome.incomplete and outcome.parameters == {}
    state, outcome = respond(booking(), state, Turn(query="we are six"))
    assert outcome.parameters == {"guests": 6}


def test_responses_say_money_and_ranges_plainly() -> None:
    said = story(
        interaction(
            "pay",
            "I pay {{sys.amount-of-money:price}} {{sys.date-time:when}}",
            parameters=[
                {"alias": "price", "entity": "sys.amount-of-money", "prompts": []},
                {"alias": "when", "entity": "sys.date-time", "prompts": []},
            ],
            responses=[{"type": "text", "messages": ["{{price}} in {{when}}"]}],
        ),
        timezone="Europe/Berlin",
    )
    _, outcome = respond(said, SessionState(), Turn(query="I pay 20 € next week", now=WEDNESDAY))
    assert [item.message for item in outcome.fulfillment] == [  # type: ignore[union-attr]
        "20 EUR in 2026-11-30T00:00:00+01:00/2026-12-07T00:00:00+01:00"
    ]


def test_a_number_within_another_value_is_that_value_only() -> None:
    entities = {"sys.number", "sys.amount-of-money", "sys.duration"}
    found = values(entities, "4 people, $20 each, for 2 hours")
    assert found == {
        "sys.number": [4],
        "sys.amount-of-money": [{"amount": 20, "currency": "USD"}],
        "sys.duration": ["PT2H"],
    }
    assert values({"sys.number"}, "$20 for 2 hours") == {"sys.number": [20, 2]}


def test_a_number_dateparser_takes_into_a_date_stays_a_number() -> None:
    found = values({"sys.number", "sys.date"}, "ein Tisch für zwölf am 24. Dezember", "german")
    assert found == {"sys.number": [12], "sys.date": ["2026-12-24"]}
    found = values({"sys.number", "sys.date"}, "a table for 4 tomorrow")
    assert found == {"sys.number": [4], "sys.date": ["2026-11-26"]}


def test_numbers_beyond_what_json_clients_hold_are_not_read() -> None:
    assert values({"sys.number"}, "1" * 600) == {}
    assert values({"sys.amount-of-money"}, "$" + "9" * 400) == {}
    assert values({"sys.number"}, "1e15 is no number, 999999999999999 is") == {
        "sys.number": [999999999999999]
    }


@pytest.mark.parametrize(("language", "expected"), [("norwegian", "2026-11-26"), ("sesotho", None)])
def test_dates_in_every_story_language_dateparser_reads_and_none_in_others(
    language: str, expected: str | None
) -> None:
    found = values({"sys.date", "sys.number"}, "4 i morgen", language)
    assert found.get("sys.date") == (None if expected is None else [expected])
    assert found["sys.number"] == [4]


def test_dates_are_looked_for_in_a_bounded_beginning_of_the_message() -> None:
    assert values({"sys.date"}, "1 2 3 4 5 tomorrow") == {"sys.date": ["2026-11-26"]}
    assert values({"sys.date"}, "1 2 3 4 5 6 tomorrow") == {}
    assert values({"sys.date"}, "so " * 16 + "tomorrow") == {}
    assert values({"sys.number"}, "so " * 16 + "4") == {"sys.number": [4]}


def test_a_built_in_slot_reads_as_an_example_value_for_the_encoder() -> None:
    texts = interaction_texts(booking().interactions.values(), representatives(()))
    assert texts["book"][0] == "a table for 2 tomorrow"


def test_spanish_de_la_manana_is_the_morning_not_tomorrow() -> None:
    found = values({"sys.date", "sys.time"}, "a las 9 de la mañana", "spanish")
    assert found == {"sys.time": ["09:00:00"], "sys.date": ["2026-11-26"]}
