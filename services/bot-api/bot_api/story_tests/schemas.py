"""Conversation tests as request bodies and answers (docs/tests.md); the story document's
`tests` are read by the same schema."""

from typing import Any, ClassVar

from marshmallow import (
    Schema,
    ValidationError,
    fields,
    post_load,
    pre_dump,
    validate,
    validates_schema,
)

from bot_api.common.schemas import (
    MAX_QUERY_PARAMETERS,
    NAME_PATTERN,
    LanguageCode,
    ParameterValue,
    text,
)
from bot_api.domain.conversation_tests import (
    MAX_TESTS_PER_STORY,
    MAX_TURNS_PER_TEST,
    ConversationTest,
    StoredTest,
    TestResult,
    TestRun,
)
from bot_api.interactions.schemas import TRIGGER
from bot_api.story_tests.repository import (
    EXPECTATION_FIELDS,
    conversation_test,
    result_document,
    written_test,
)
from shared.schema_fields import FullMatch, StrictBoolean
from shared.timeutil import iso


def parameters(**kwargs: Any) -> fields.Dict:
    return fields.Dict(
        keys=fields.String(validate=[validate.Length(min=1, max=128), NAME_PATTERN]),
        values=ParameterValue(),
        validate=validate.Length(max=MAX_QUERY_PARAMETERS),
        **kwargs,
    )


MAX_EXPECTED_DEPTH = 4
"""Nesting an expected value may have: a date-time range `{"start", "end"}` is one level, a
list of them two; four leaves room without letting a body nest without end."""
MAX_EXPECTED_ITEMS = 100
"""Items of an expected list, keys of an expected object: a list parameter holds a few."""


class ExpectedValue(fields.Field[Any]):
    """An expected parameter's value: any JSON value (a text, a number, a boolean, null,
    a list or an object, as a built-in entity fills one), compared structurally."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> Any:
        return _json_value(value, MAX_EXPECTED_DEPTH)


def _json_value(value: Any, depth: int) -> Any:
    if isinstance(value, list | dict) and depth == 0:
        raise ValidationError(f"Nested deeper than {MAX_EXPECTED_DEPTH} levels.")
    if isinstance(value, list | dict) and len(value) > MAX_EXPECTED_ITEMS:
        raise ValidationError(f"More than {MAX_EXPECTED_ITEMS} items.")
    if isinstance(value, list):
        return [_json_value(item, depth - 1) for item in value]
    if isinstance(value, dict):
        for key in value:
            if not isinstance(key, str) or not 1 <= len(key) <= 128 or key[0] == "$" or "." in key:
                raise ValidationError(
                    f"Key {str(key)[:40]!r}: 1 to 128 characters, no '.' and no leading '$'."
                )
        return {key: _json_value(item, depth - 1) for key, item in value.items()}
    return ParameterValue().deserialize(value)


class ExpectationSchema(Schema):
    class Meta:
        json_schema: ClassVar = {"minProperties": 1}  # checks_something, for OpenAPI

    interaction = text(
        1024, min_length=1, metadata={"description": "The answering interaction's name"}
    )
    fallback = StrictBoolean(metadata={"description": "true: the fallback answered"})
    parameters = fields.Dict(
        keys=fields.String(validate=[validate.Length(min=1, max=128), NAME_PATTERN]),
        values=ExpectedValue(),
        validate=validate.Length(max=MAX_QUERY_PARAMETERS),
        metadata={
            "description": "Each must have this value (a subset of the parameters): any "
            "JSON value, compared structurally (2 is 2.0, never true; objects key by key)"
        },
    )
    incomplete = StrictBoolean(metadata={"description": "true: a required parameter is asked for"})
    contexts = fields.List(
        text(1024, min_length=1),
        validate=validate.Length(max=50),
        metadata={"description": "The names of the active contexts' interactions, exactly"},
    )
    textContains = text(4096, min_length=1, metadata={"description": "Part of the answer's texts"})
    text = fields.String(
        validate=validate.Length(max=4096),
        metadata={"description": "The answer's texts, joined by new lines, exactly"},
    )
    answeredIn = LanguageCode(
        metadata={
            "description": "The answer's language (`result.answeredIn`; a story of one "
            "language answers in its default): an ISO 639-1 code or a name of one the story "
            "speaks (docs/languages.md)"
        }
    )

    @validates_schema
    def checks_something(self, data: dict[str, Any], **kwargs: Any) -> None:
        if not data:
            names = ", ".join(name for _, name in EXPECTATION_FIELDS)
            raise ValidationError(f"Expect at least one of {names}.", field_name="_schema")


class ScriptedTurnSchema(Schema):
    class Meta:
        json_schema: ClassVar = {"oneOf": [{"required": ["query"]}, {"required": ["trigger"]}]}

    query = text(2048, min_length=1, metadata={"description": "What the user says"})
    trigger = fields.String(validate=[validate.Length(min=1, max=50), TRIGGER])
    language = LanguageCode(
        metadata={
            "description": "The language the user says it in, sent as "
            "`parameters.default_language`: an ISO 639-1 code or a name of one the story "
            "speaks, its default or a further one (docs/languages.md)"
        }
    )
    parameters = parameters()
    expect = fields.Nested(ExpectationSchema, required=True)

    @validates_schema
    def exactly_one_input(self, data: dict[str, Any], **kwargs: Any) -> None:
        given = [name for name in ("query", "trigger") if name in data]
        if len(given) != 1:
            raise ValidationError(
                f"Send exactly one of query and trigger (got {', '.join(given) or 'none'}).",
                field_name="query",
            )

    @validates_schema
    def one_language(self, data: dict[str, Any], **kwargs: Any) -> None:
        if "language" in data and "default_language" in data.get("parameters", {}):
            raise ValidationError(
                "Name the turn's language once: as language, which is sent as "
                "parameters.default_language.",
                field_name="language",
            )


class TestWriteSchema(Schema):
    __test__ = False  # a schema, not a pytest class

    name = text(256, min_length=1, required=True)
    turns = fields.List(
        fields.Nested(ScriptedTurnSchema),
        required=True,
        validate=validate.Length(min=1, max=MAX_TURNS_PER_TEST),
    )

    @post_load
    def to_value(self, test: dict[str, Any], **kwargs: Any) -> ConversationTest:
        return conversation_test(test)


class TestSchema(TestWriteSchema):
    id = fields.String(required=True)

    @pre_dump
    def from_value(self, stored: StoredTest, **kwargs: Any) -> dict[str, Any]:
        return {"id": stored.id, **written_test(stored.test)}


class DocumentTestsField(fields.List):  # type: ignore[type-arg]
    """The story document's `tests`: at most as many as a story holds."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(
            fields.Nested(TestWriteSchema),
            validate=validate.Length(max=MAX_TESTS_PER_STORY),
            **kwargs,
        )


class RunRequestSchema(Schema):
    version = fields.String(
        validate=FullMatch(r"^[0-9a-fA-F]{24}$", error="A version's id: 24 hex digits."),
        metadata={"description": "A version's id: run against it, not the draft"},
    )


class ResultSchema(Schema):
    id = fields.String(required=True)
    name = fields.String(required=True)
    passed = fields.Boolean(required=True)
    broken = fields.Boolean(
        required=True, metadata={"description": "Passed in the run before, fails in this one"}
    )
    turn = fields.Integer(metadata={"description": "The first failing turn, from 0"})
    expected = fields.Dict(metadata={"description": "The first expectation not met"})
    got = fields.Dict(metadata={"description": "What the turn answered for it"})

    @pre_dump
    def from_value(self, result: TestResult, **kwargs: Any) -> dict[str, Any]:
        """As stored, the first expectation not met shown by its field's name."""
        dumped = result_document(result)
        difference = dumped.pop("difference", None)
        if difference is not None:
            dumped["expected"] = {difference["field"]: difference["expected"]}
            dumped["got"] = {difference["field"]: difference["got"]}
        return dumped


class RunSchema(Schema):
    passed = fields.Integer(required=True)
    failed = fields.Integer(required=True)
    turns = fields.Integer(required=True, metadata={"description": "Turns taken in all"})
    ranAt = fields.String(required=True, metadata={"description": "ISO 8601, UTC"})
    results = fields.List(fields.Nested(ResultSchema), required=True)

    @pre_dump
    def from_value(self, run: TestRun, **kwargs: Any) -> dict[str, Any]:
        return {
            "passed": run.passed,
            "failed": run.failed,
            "turns": run.turns,
            "ranAt": iso(run.ran_at),
            "results": run.results,
        }
