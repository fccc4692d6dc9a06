"""`python -m bot_api story test`: a story document's tests run with no server at all, a
file of tests runs against a server's story through /query; a failure exits 1, names the
turn and the difference, and lands in the JUnit XML."""

import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import yaml

from bot_api.commands.story_tests import run_test_file, server_encoders
from bot_api.domain.settings import Settings
from bot_api.encoding.minilm import MiniLmEncoder
from bot_api.engine.semantic import Encoders
from support import languages
from support.api import Tenant
from support.encoders import ConceptEncoder
from support.story_command import story_command
from support.walkthrough import pizza_story

DOCUMENT: dict[str, Any] = {
    "format": "parley.story",
    "version": 1,
    "name": "Pizza",
    "interactions": [
        {
            "key": "order",
            "name": "Order",
            "userSays": ["I want a {{size:size}} pizza", "a pizza please"],
            "parameters": [{"alias": "size", "entity": "size", "prompts": ["Which size?"]}],
            "responses": [{"type": "text", "messages": ["One {{size}} pizza coming up!"]}],
        }
    ],
    "entities": [
        {
            "name": "size",
            "entries": [{"value": "large", "synonyms": [{"value": "large"}, {"value": "big"}]}],
        }
    ],
    "tests": [
        {
            "name": "orders a big pizza",
            "turns": [
                {"query": "a pizza please", "expect": {"interaction": "Order", "incomplete": True}},
                {"query": "big", "expect": {"parameters": {"size": "large"}}},
            ],
        }
    ],
}
FAILING = {
    "name": "expects a small one",
    "turns": [{"query": "I want a big pizza", "expect": {"text": "One small pizza coming up!"}}],
}


async def test_a_story_document_s_tests_run_without_a_server(tmp_path: Path) -> None:
    path = tmp_path / "pizza.yaml"
    path.write_text(yaml.safe_dump(DOCUMENT))
    unreachable = "http://127.0.0.1:9"
    code, out, err = await story_command(unreachable, "no-token", "test", str(path))
    assert code == 0, err
    assert out.splitlines() == ["PASS orders a big pizza", "1 passed, 0 failed"]

    path.write_text(yaml.safe_dump({**DOCUMENT, "tests": [*DOCUMENT["tests"], FAILING]}))
    junit = tmp_path / "out.xml"
    code, out, err = await story_command(
        unreachable, "no-token", "test", str(path), "--junit", str(junit)
    )
    assert code == 1, err
    assert out.splitlines()[1:] == [
        'FAIL expects a small one: turn 1: text expected "One small pizza coming up!", '
        'got "One large pizza coming up!"',
        "1 passed, 1 failed",
    ]
    suite = ET.parse(junit).getroot()
    assert (suite.tag, suite.get("tests"), suite.get("failures")) == ("testsuite", "2", "1")
    cases = suite.findall("testcase")
    assert [c.get("name") for c in cases] == ["orders a big pizza", "expects a small one"]
    assert cases[0].find("failure") is None
    failure = cases[1].find("failure")
    assert failure is not None and "turn 1: text expected" in (failure.get("message") or "")


async def test_a_file_that_is_no_story_or_holds_bad_tests_is_refused(tmp_path: Path) -> None:
    tests_only = tmp_path / "tests.yaml"
    tests_only.write_text(yaml.safe_dump([FAILING]))
    code, _, err = await story_command("http://127.0.0.1:9", "t", "test", str(tests_only))
    assert code == 1 and "give --story ID" in err
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump({**DOCUMENT, "tests": [{"name": "x", "turns": []}]}))
    code, _, err = await story_command("http://127.0.0.1:9", "t", "test", str(bad))
    assert code == 1 and "the tests are not valid" in err and "turns" in err


async def test_a_file_of_tests_runs_against_a_server_s_story(
    alice: Tenant, second_bot_api: str, tmp_path: Path
) -> None:
    story_id = await pizza_story(alice.developer)
    path = tmp_path / "tests.yaml"
    path.write_text(yaml.safe_dump({"tests": DOCUMENT["tests"]}))
    token = alice.tokens.developer_token
    args = ("test", str(path), "--story", story_id)
    code, out, err = await story_command(second_bot_api, token, *args)
    assert code == 0, err
    assert out.splitlines()[-1] == "1 passed, 0 failed"

    path.write_text(yaml.safe_dump([FAILING]))
    code, out, err = await story_command(second_bot_api, token, *args)
    assert code == 1 and out.splitlines()[-1] == "0 passed, 1 failed", err


MEANING: dict[str, Any] = {
    "format": "parley.story",
    "version": 1,
    "name": "Greeter",
    "interactions": [
        {"key": "greet", "name": "Greet", "userSays": ["hello there"]},
        {"key": "weather", "name": "Weather", "userSays": ["weather forecast"]},
    ],
    "tests": [
        {"name": "howdy greets", "turns": [{"query": "howdy", "expect": {"interaction": "Greet"}}]}
    ],
}


def test_the_server_less_run_matches_by_meaning_as_the_server_does(tmp_path: Path) -> None:
    """ "howdy" shares no word with "hello there": only the semantic stage answers it, as
    the server would with its encoder; without one (SEMANTIC_MATCHING off) it falls back."""
    path = tmp_path / "greeter.yaml"
    path.write_text(yaml.safe_dump(MEANING))
    encoder = ConceptEncoder()

    _, run = run_test_file(path, None, None, Encoders((encoder,)))
    assert (run.passed, run.failed) == (1, 0)
    assert set(encoder.encoded) >= {"hello there", "weather forecast", "howdy"}

    _, lexical = run_test_file(path, None, None, server_encoders({"SEMANTIC_MATCHING": "off"}))
    assert lexical.failed == 1
    assert lexical.results[0].difference is not None
    assert lexical.results[0].difference.got == "Fallback"


def test_the_server_s_encoders_load_only_for_a_story_that_uses_them() -> None:
    encoders = server_encoders({})
    assert encoders is not None
    english = encoders.for_story(Settings(language="english"))
    assert english is not None and english.model_id == MiniLmEncoder.model_id
    any_language = encoders.for_story(Settings(language="english", answer_any_language=True))
    assert any_language is not None and any_language.cross_lingual
    assert encoders.for_story(Settings(language="portuguese")) is None


SHOP: dict[str, Any] = {
    "format": "parley.story",
    "version": 1,
    "name": "Shop",
    "settings": {"languages": ["de"]},
    "interactions": [{"key": "hours", **languages.HOURS}],
    "tests": [
        {
            "name": "in German",
            "turns": [
                {
                    "query": "wann habt ihr geöffnet",
                    "language": "de",
                    "expect": {"text": "9 bis 17 Uhr.", "answeredIn": "de"},
                }
            ],
        }
    ],
}
ITALIAN = {
    "name": "in Italian",
    "turns": [{"query": "quando aprite", "language": "it", "expect": {"fallback": True}}],
}


async def test_a_turn_s_language_is_sent_and_checked_with_and_without_a_server(
    alice: Tenant, second_bot_api: str, tmp_path: Path
) -> None:
    """Server-less, a document naming a language its story does not speak is refused as
    its import would be; through a server's /query, such a turn fails there."""
    path = tmp_path / "shop.yaml"
    path.write_text(yaml.safe_dump(SHOP))
    code, out, err = await story_command("http://127.0.0.1:9", "t", "test", str(path))
    assert (code, out.splitlines()) == (0, ["PASS in German", "1 passed, 0 failed"]), err
    path.write_text(yaml.safe_dump({**SHOP, "tests": [*SHOP["tests"], ITALIAN]}))
    code, _, err = await story_command("http://127.0.0.1:9", "t", "test", str(path))
    assert code == 1 and "is not a language of this story" in err, err

    imported = await alice.developer.call("POST", "/stories/import", {**SHOP, "tests": []})
    assert imported.status == 200, imported.body
    args = ("test", str(path), "--story", imported.body["id"])
    code, out, err = await story_command(second_bot_api, alice.tokens.developer_token, *args)
    assert code == 1, err
    assert out.splitlines() == [
        "PASS in German",
        'FAIL in Italian: turn 1: language expected "it", got "en"',
        "1 passed, 1 failed",
    ]
