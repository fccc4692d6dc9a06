"""`python -m bot_api story test FILE [--story ID] [--junit OUT.xml]`: a story's conversation
tests from CI (docs/tests.md), exiting 1 when one fails.

FILE is a story document holding `tests`: the story is compiled here and the tests replayed
against it, no server needed, with the server's matching: the semantic stage included when
`SEMANTIC_MATCHING` is on (the default), by the encoder the server would choose for the
story (they ship in packages; one is loaded only when a story needs it), its phrase
vectors kept as float16 as the server stores them. With `--story ID`, FILE may also be a
file of tests alone (a list, or a mapping with `tests`), and each turn goes through the
server's `/query` as the developer token's, with a session of its own per test: what a
client of that story's draft gets.
"""

import json
import uuid
import xml.etree.ElementTree as ET
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from marshmallow import ValidationError

from bot_api.domain.conversation_tests import (
    Answer,
    ConversationTest,
    ScriptedTurn,
    StoredTest,
    TestResult,
    TestRun,
    first_difference,
    unspoken_turn,
)
from bot_api.encoding.e5_small import E5SmallEncoder
from bot_api.encoding.minilm import MiniLmEncoder
from bot_api.encoding.use_and_e5 import UseAndE5Encoder
from bot_api.encoding.use_multilingual import UseMultilingualEncoder
from bot_api.engine.replay import replay
from bot_api.engine.semantic import Encoder, Encoders, PhraseVectors, Vectors, vector_key
from bot_api.engine.story import CompiledStory
from bot_api.story_tests.schemas import TestWriteSchema
from bot_api.transfer.document import FORMAT
from bot_api.transfer.report import Translated, TranslationError
from bot_api.transfer.schemas import checked_upload
from bot_api.transfer.shape import Budget
from bot_api.transfer.sources import parse_yaml
from shared.config import Config
from shared.errors import ApiError
from shared.timeutil import utcnow


class TestFileError(Exception):
    """What is wrong with the file, in one line for the terminal."""

    __test__ = False


Ask = Callable[[dict[str, Any]], dict[str, Any]]
"""Sends a /query body, answers the result."""


@dataclass(frozen=True)
class ServerStory:
    """The server's story the tests go to: its /query, and the languages it speaks (ISO
    639-1 codes, its default first), which a turn's language and the answer's are
    checked against as a run on the server checks them."""

    ask: Ask
    spoken: tuple[str, ...]


class LazyEncoder:
    """One of the server's encoders, its model loaded on first use: a lexical story (or
    one in another language) never loads it."""

    def __init__(self, make: type[MiniLmEncoder]) -> None:
        self._make = make
        self._loaded: Encoder | None = None
        self.model_id = make.model_id
        self.languages = make.languages
        self.calibration = make.calibration
        self.cross_lingual = make.cross_lingual
        self.any_language = make.any_language

    def __call__(self, texts: Sequence[str]) -> Vectors:
        if self._loaded is None:
            self._loaded = self._make()
        return self._loaded(texts)


def server_encoders(environ: Mapping[str, str]) -> Encoders | None:
    """The encoders a server with this environment offers (app.py); None when its
    `SEMANTIC_MATCHING` is off."""
    if not Config.from_env_mapping(environ).semantic_matching:
        return None
    use = UseMultilingualEncoder()  # its model is read on first use, as e5's
    return Encoders((LazyEncoder(MiniLmEncoder), use, UseAndE5Encoder(use, E5SmallEncoder())))


def run_test_file(
    path: Path,
    story_id: str | None,
    server: ServerStory | None,
    encoders: Encoders | None = None,
) -> tuple[str, TestRun]:
    """The suite's name and its run: in-process for a story document without `story_id`
    (matched by `encoders` as the server would, lexically without), else through
    `server` (the server's /query)."""
    try:
        content = parse_yaml(path.read_text(encoding="utf-8"), path.name, Budget())
    except (OSError, UnicodeDecodeError, TranslationError) as error:
        raise TestFileError(f"cannot read {path}: {error}") from None
    is_story = isinstance(content, dict) and content.get("format") == FORMAT
    tests = _tests(content["tests"] if isinstance(content, dict) else content)
    if story_id is None:
        if not is_story:
            raise TestFileError(f"{path} is no story document: give --story ID to run it")
        story = _compiled(content)
        encoder = None if encoders is None else encoders.for_story(story.settings)
        if encoder is not None:
            story = with_phrase_vectors(story, encoder)
        return str(content.get("name", path.stem)), replay(story, tests, utcnow(), encoder)
    assert server is not None
    return f"story {story_id}", _through_queries(story_id, tests, server)


def _tests(written: Any) -> list[StoredTest]:
    if not isinstance(written, list) or not written:
        raise TestFileError("the file holds no tests (a list of tests, or `tests:`)")
    try:
        loaded: list[ConversationTest] = TestWriteSchema(many=True).load(written)
    except ValidationError as error:
        raise TestFileError(f"the tests are not valid: {json.dumps(error.messages)}") from None
    return [StoredTest(str(index), test) for index, test in enumerate(loaded)]


def _compiled(document: dict[str, Any]) -> CompiledStory:
    """The document's story as an import would write it, compiled (lexically)."""
    try:
        upload = checked_upload("parley", Translated(document, ()))
    except ApiError as error:
        raise TestFileError(f"the story document is not valid: {error}") from None
    return CompiledStory.compile(
        "file", upload.settings, upload.structure, upload.interactions.values(), upload.entities
    )


def with_phrase_vectors(story: CompiledStory, encoder: Encoder) -> CompiledStory:
    """The story with every phrase's vector, stored as float16 like the server's (so a
    score is the server's, not one 0.001 off)."""
    texts = story.phrase_texts(story.interactions)
    distinct = list(dict.fromkeys(text for phrases in texts.values() for text in phrases))
    rows = encoder(distinct).astype(np.float16)
    by_key = {vector_key(encoder.model_id, t): row for t, row in zip(distinct, rows, strict=True)}
    return story.with_vectors(story.interactions, PhraseVectors(encoder.model_id, by_key))


def _through_queries(story_id: str, tests: Sequence[StoredTest], server: ServerStory) -> TestRun:
    results = []
    turns = 0
    for stored in tests:
        session = f"parley-test-{uuid.uuid4().hex}"
        result = TestResult(stored.id, stored.test.name, passed=True)
        for index, scripted in enumerate(stored.test.turns):
            turns += 1
            difference = unspoken_turn(scripted, server.spoken)
            if difference is None:
                answered = server.ask(_query(story_id, session, scripted))
                difference = first_difference(scripted.expect, _answer(answered, server.spoken[0]))
            if difference is not None:
                result = TestResult(stored.id, stored.test.name, False, index, difference)
                break
        results.append(result)
    return TestRun(tuple(results), turns, utcnow())


def _query(story_id: str, session: str, scripted: ScriptedTurn) -> dict[str, Any]:
    said = {"query": scripted.query} if scripted.query else {"trigger": scripted.trigger}
    return {
        "storyId": story_id,
        "sessionId": session,
        **said,
        "parameters": dict(scripted.sent_parameters()),
    }


def _answer(result: dict[str, Any], default_code: str) -> Answer:
    """A /query result in the terms an expectation checks (what `engine.replay` reads
    from an outcome); a story of one language answers in `default_code` without saying."""
    interaction = result.get("interaction")
    return Answer(
        interaction=None if interaction is None else interaction["name"],
        fallback=interaction is None or interaction["type"] == "fallback",
        parameters=result["parameters"],
        incomplete=result["incomplete"],
        contexts=tuple(context["name"] for context in result["contexts"]),
        text="\n".join(i["message"] for i in result["fulfillment"] if i["type"] == "text"),
        answered_in=result.get("answeredIn", default_code),
    )


def report_lines(run: TestRun) -> list[str]:
    lines = []
    for result in run.results:
        if result.passed:
            lines.append(f"PASS {result.name}")
        else:
            lines.append(f"FAIL {result.name}: {failure_message(result)}")
    lines.append(f"{run.passed} passed, {run.failed} failed")
    return lines


def failure_message(result: TestResult) -> str:
    difference = result.difference
    assert difference is not None and result.turn is not None
    expected, got = json.dumps(difference.expected), json.dumps(difference.got)
    return f"turn {result.turn + 1}: {difference.field} expected {expected}, got {got}"


def junit_xml(suite: str, run: TestRun) -> bytes:
    """The run as JUnit XML, which CI servers show test by test: four elements, written
    with the standard library."""
    root = ET.Element(
        "testsuite",
        name=suite,
        tests=str(len(run.results)),
        failures=str(run.failed),
        errors="0",
        timestamp=run.ran_at.isoformat(),
    )
    for result in run.results:
        case = ET.SubElement(root, "testcase", name=result.name, classname=suite)
        if not result.passed:
            message = failure_message(result)
            ET.SubElement(
                case, "failure", message=message, type="ConversationTestFailure"
            ).text = message
    return bytes(ET.tostring(root, encoding="utf-8", xml_declaration=True))
