import functools
from typing import Any
from zoneinfo import available_timezones

from marshmallow import Schema, ValidationError, fields, post_load, validate

from bot_api.common.schemas import LanguageCode, distinct, text
from bot_api.domain.settings import (
    LANGUAGES,
    MAX_HANDOFF_RETURN_CHARACTERS,
    MAX_HISTORY_DAYS,
    MAX_LANGUAGES,
    Settings,
    language_named,
)
from shared.schema_fields import FullMatch, StrictBoolean, StrictNumber, WriteSchema


@functools.cache
def _timezones() -> frozenset[str]:
    """Read from tzdata when a timezone is first checked (40 ms), not at start-up."""
    return frozenset(available_timezones())


def iana_timezone(name: str) -> None:
    if name not in _timezones():
        raise ValidationError(f"{name!r} is no IANA timezone name (such as Europe/Berlin).")


class Language(fields.String):
    """A story language by name or ISO 639-1 code ("german", "de", "pt-BR"), read as its
    name: one spelling per language for the console, the greetings and the stemmer."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> str:
        given = super()._deserialize(value, attr, data, **kwargs)
        named = language_named(given)
        if named is None:
            raise ValidationError(
                f"{given!r} is no story language: give its name ({', '.join(LANGUAGES)}) "
                "or its ISO 639-1 code, with a region or not (de, pt-BR, zh-CN)."
            )
        return named


class SettingsSchema(Schema):
    confidence = StrictNumber(validate=validate.Range(min=0, max=1))
    fallback = StrictBoolean()
    lifespan = fields.Integer(strict=True, validate=validate.Range(min=1, max=10))
    language = Language(
        metadata={
            "description": "The story's language (default english), by name or ISO 639-1 "
            "code ('de', 'pt-BR', 'zh-CN'); read back by name: docs/api.md",
        },
    )
    languages = fields.List(
        LanguageCode(),
        validate=[validate.Length(max=MAX_LANGUAGES), distinct],
        metadata={
            "description": "Further languages (ISO 639-1 codes) the story answers in, with "
            "its interactions' and entities' translations (default none): docs/languages.md"
        },
    )
    answer_any_language = StrictBoolean(
        data_key="answerAnyLanguage",
        metadata={
            "description": "Understand messages in any language of the multilingual model, "
            "not only the story's (default false): docs/matching.md"
        },
    )
    history = StrictBoolean(metadata={"description": "Record each /query turn (default true)"})
    history_days = fields.Integer(
        strict=True,
        data_key="historyDays",
        validate=validate.Range(min=1, max=MAX_HISTORY_DAYS),
        metadata={"description": "Days a recorded turn is kept (default 30)"},
    )
    redact = StrictBoolean(
        metadata={"description": "Replace e-mails, phone, card and IBAN numbers (default true)"}
    )
    timezone = fields.String(
        validate=iana_timezone,
        metadata={
            "description": "IANA timezone of built-in dates and times when the conversation "
            "has no default_timezone (default UTC): docs/entities.md"
        },
    )
    review_below = StrictNumber(
        data_key="reviewBelow",
        allow_none=True,
        validate=validate.Range(min=0, max=1),
        metadata={
            "description": "Matches scoring below it join the misses inbox (default null: "
            "the confidence + 0.15): docs/history.md"
        },
    )
    generate_knowledge_answers = StrictBoolean(
        data_key="generateKnowledgeAnswers",
        metadata={
            "description": "Knowledge answers written by the deployment's LLM from the "
            "passages found, citing them (default false; with no LLM configured the "
            "answers stay extractive): docs/knowledge-generation.md"
        },
    )

    handoff_return_message = text(
        MAX_HANDOFF_RETURN_CHARACTERS,
        min_length=1,
        data_key="handoffReturnMessage",
        metadata={
            "description": "What the user is told when a person gives the conversation "
            'back to the bot (default "You are talking to the bot again."): docs/teams.md'
        },
    )


class StorySettingsSchema(SettingsSchema):
    """A story's settings and the version it publishes, which no story document holds."""

    published = fields.String(
        allow_none=True,
        validate=FullMatch(r"^[0-9a-f]{24}$", error="A version's id: 24 hex digits."),
        metadata={
            "description": "The version the public key's /query answers from; null: the "
            "draft answers everyone (docs/versions.md)"
        },
    )


class StoryFieldsSchema(WriteSchema):
    """`settings` loads into the settings given, by their names in `Settings`."""

    read_only = ("id", "story", "interactions", "phrasesAwaitingMeaning")

    name = text(1024, min_length=1, required=True)
    description = text(2048, required=True)
    settings = fields.Nested(SettingsSchema)


class StoryCreateSchema(StoryFieldsSchema):
    """The settings omitted take their defaults: `settings` loads into `Settings`."""

    @post_load
    def with_settings(self, body: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        return {**body, "settings": Settings(**body.get("settings", {}))}


class StoryUpdateSchema(StoryFieldsSchema):
    """The settings omitted keep their stored values (`dataclasses.replace`)."""

    settings = fields.Nested(StorySettingsSchema)
    force = StrictBoolean(
        load_default=False,
        metadata={
            "description": "Publish `settings.published` even if the story's tests fail on it"
        },
    )

    order = fields.List(
        fields.String(),
        metadata={"description": "The root interaction ids in a new order; omit to keep it"},
    )


class StorySummarySchema(Schema):
    name = fields.String(required=True)
    description = fields.String(required=True)
    id = fields.String(required=True, attribute="_id")


class ContextSummarySchema(Schema):
    id = fields.String(required=True)
    name = fields.String(required=True)
    root = fields.Boolean(required=True)
    references = fields.List(fields.String(), required=True)
    contextOut = fields.List(fields.String(), required=True)
    webhook = fields.String(required=True)


class TreeNodeSchema(Schema):
    id = fields.String(required=True)
    ref = fields.Boolean()
    childrens = fields.List(fields.Nested(lambda: TreeNodeSchema()), required=True)


class StoryDetailSchema(StorySummarySchema):
    id = fields.String(required=True)
    order = fields.List(fields.String(), required=True)
    story = fields.List(fields.Nested(TreeNodeSchema), required=True)
    interactions = fields.Dict(
        keys=fields.String(), values=fields.Nested(ContextSummarySchema), required=True
    )
    settings = fields.Nested(StorySettingsSchema, required=True)
    phrasesAwaitingMeaning = fields.Integer(
        required=True,
        metadata={
            "description": "How many of the story's phrases still wait for their sentence "
            "vector: matched by their words alone until it lands; 0 once every vector is "
            "stored, or without the semantic stage (docs/api.md)"
        },
    )
