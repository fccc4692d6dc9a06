"""A story's versions as request bodies and answers (docs/versions.md), and the story
document's writer and reader the versions' use cases are given."""

from collections.abc import Iterator
from dataclasses import replace
from typing import Any

from marshmallow import Schema, fields

from bot_api.common.schemas import ActorSchema, text
from bot_api.domain.responses import Handoff
from bot_api.interactions.responses import reading_frozen
from bot_api.transfer.report import Translated
from bot_api.transfer.schemas import checked_upload, exported_document
from bot_api.transfer.service import Exported, StoryUpload
from bot_api.versions.repository import StoryVersion
from bot_api.versions.service import DRAFT
from shared.envelope_schemas import created_schema
from shared.schema_fields import FullMatch


class StoryDocuments:
    """The story document as export writes it and an import reads it (schemas and all)."""

    def written(self, exported: Exported) -> dict[str, Any]:
        return exported_document(exported)

    def read(self, version: StoryVersion) -> StoryUpload:
        """Each interaction under the draft id it was frozen with (in the document's
        order, which `read_document` gives its ids in), calling the webhook it called and
        handing over to the connection it handed over to. Its responses are read as they
        were frozen (`reading_frozen`)."""
        ids: Iterator[str] = iter([frozen.id for frozen in version.interactions])
        with reading_frozen():
            upload = checked_upload(
                "parley", Translated(dict(version.document), ()), lambda: next(ids)
            )
        webhooks, handoffs = version.webhooks(), version.handoffs()
        interactions = {
            i: replace(
                interaction,
                webhook=webhooks.get(i, interaction.webhook),
                responses=(*interaction.responses, Handoff(handoffs[i]))
                if i in handoffs
                else interaction.responses,
            )
            for i, interaction in upload.interactions.items()
        }
        return replace(upload, interactions=interactions)


class VersionCreateSchema(Schema):
    note = text(1024, load_default="", metadata={"description": "What this version is"})


class VersionCreatedSchema(created_schema("errorType")):  # type: ignore[misc]
    number = fields.Integer(required=True, metadata={"description": "1, 2, ... per story"})


class VersionSummarySchema(Schema):
    id = fields.String(required=True)
    number = fields.Integer(required=True)
    note = fields.String(required=True)
    createdAt = fields.String(required=True)
    published = fields.Boolean(required=True)
    frozenBy = fields.Nested(
        ActorSchema,
        required=True,
        allow_none=True,
        metadata={"description": "Who froze it; null for versions frozen before this was kept"},
    )
    publishedBy = fields.Nested(
        ActorSchema,
        required=True,
        allow_none=True,
        metadata={"description": "Who last published it; null if no one has since kept"},
    )


class VersionSchema(VersionSummarySchema):
    document = fields.Dict(
        required=True, metadata={"description": "The story's document (docs/import-export.md)"}
    )


class DiffQuerySchema(Schema):
    to = fields.String(
        load_default=DRAFT,
        validate=FullMatch(r"^(?:[0-9a-f]{24}|draft)$", error="A version's id, or draft."),
        metadata={"description": "Another version's id, or draft (the default)"},
    )


class NamedSchema(Schema):
    key = fields.String(required=True)
    name = fields.String(required=True)


class FieldChangeSchema(Schema):
    name = fields.String(required=True)
    before = fields.Raw(
        required=True, data_key="from", allow_none=True, metadata={"description": "null: absent"}
    )
    after = fields.Raw(
        required=True, data_key="to", allow_none=True, metadata={"description": "null: absent"}
    )


class InteractionChangeSchema(NamedSchema):
    fields_ = fields.List(fields.String(), required=True, data_key="fields", attribute="fields")
    phrasesAdded = fields.List(fields.String(), required=True, attribute="phrases_added")
    phrasesRemoved = fields.List(fields.String(), required=True, attribute="phrases_removed")
    changes = fields.List(
        fields.Nested(FieldChangeSchema),
        required=True,
        metadata={
            "description": "Each changed field but userSays, with its value before (`from`) "
            "and after (`to`), as the story document holds it"
        },
    )


class InteractionsDiffSchema(Schema):
    added = fields.List(fields.Nested(NamedSchema), required=True)
    removed = fields.List(fields.Nested(NamedSchema), required=True)
    changed = fields.List(fields.Nested(InteractionChangeSchema), required=True)


class SettingChangeSchema(FieldChangeSchema):
    """A setting with its value before and after."""


class EntityChangeSchema(Schema):
    name = fields.String(required=True)
    entriesAdded = fields.List(fields.String(), required=True, attribute="entries_added")
    entriesRemoved = fields.List(fields.String(), required=True, attribute="entries_removed")
    entriesChanged = fields.List(
        fields.String(),
        required=True,
        attribute="entries_changed",
        metadata={"description": "Entries whose synonyms differ"},
    )


class EntitiesDiffSchema(Schema):
    added = fields.List(fields.String(), required=True)
    removed = fields.List(fields.String(), required=True)
    changed = fields.List(fields.Nested(EntityChangeSchema), required=True)


class DiffSchema(Schema):
    from_ = fields.String(required=True, data_key="from", attribute="from")
    to = fields.String(required=True)
    interactions = fields.Nested(InteractionsDiffSchema, required=True)
    settings = fields.List(fields.Nested(SettingChangeSchema), required=True)
    entities = fields.Nested(EntitiesDiffSchema, required=True)
