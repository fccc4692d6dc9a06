"""The report of an import (docs/import-export.md "The report"): what was created,
reused, left out and why, as `POST /stories/import` answers it."""

from marshmallow import Schema, fields

from shared.envelope_schemas import created_schema


class UnmappedSchema(Schema):
    place = fields.String(required=True)
    element = fields.String(required=True)
    reason = fields.String(required=True)


class ImportedInteractionSchema(Schema):
    key = fields.String(required=True)
    name = fields.String(required=True)
    id = fields.String(metadata={"description": "Not in a dry run"})


class ImportedEntitySchema(Schema):
    name = fields.String(required=True, metadata={"description": "As the document names it"})
    status = fields.String(required=True, metadata={"enum": ["created", "reused"]})
    detail = fields.String()
    storedAs = fields.String(
        required=True,
        attribute="stored_as",
        metadata={
            "description": "The account's entity the story uses: `name`, or the free name "
            "it has when the account's entity of that name differs (docs/entities.md)"
        },
    )


class ImportedConnectionSchema(Schema):
    name = fields.String(required=True)
    status = fields.String(required=True, metadata={"enum": ["missing"]})
    interactions = fields.List(fields.String(), required=True)


class UnmappedRowSchema(Schema):
    place = fields.String(required=True)
    element = fields.String(required=True)


class ReasonGroupSchema(Schema):
    reason = fields.String(required=True)
    count = fields.Integer(required=True)


class UnmappedGroupSchema(ReasonGroupSchema):
    rows = fields.List(fields.Nested(UnmappedRowSchema), required=True)


class SilentInteractionSchema(Schema):
    key = fields.String(required=True)
    name = fields.String(required=True)


class SilentGroupSchema(ReasonGroupSchema):
    interactions = fields.List(
        fields.Nested(SilentInteractionSchema), required=True, attribute="rows"
    )


class SilentSchema(Schema):
    count = fields.Integer(required=True)
    byReason = fields.List(fields.Nested(SilentGroupSchema), required=True, attribute="by_reason")


class ImportReportSchema(Schema):
    source = fields.String(required=True, metadata={"enum": ["parley", "dialogflow", "rasa"]})
    dryRun = fields.Boolean(required=True, attribute="dry_run")
    name = fields.String(required=True)
    language = fields.String(required=True)
    interactions = fields.List(fields.Nested(ImportedInteractionSchema), required=True)
    phrases = fields.Integer(required=True)
    entities = fields.List(fields.Nested(ImportedEntitySchema), required=True)
    connections = fields.List(fields.Nested(ImportedConnectionSchema), required=True)
    added = fields.List(
        fields.String(),
        required=True,
        metadata={"description": "welcome or fallback: the story's default one was added"},
    )
    unmapped = fields.List(fields.Nested(UnmappedSchema), required=True)
    silent = fields.Nested(
        SilentSchema,
        required=True,
        metadata={
            "description": "The interactions that would answer nothing of their own (no "
            "response), grouped by reason, the largest group first"
        },
    )
    unmappedByReason = fields.List(
        fields.Nested(UnmappedGroupSchema),
        required=True,
        attribute="unmapped_by_reason",
        metadata={"description": "`unmapped` grouped by reason, the largest group first"},
    )


class ImportedSchema(created_schema("errorType")):  # type: ignore[misc]
    """The envelope of an import: the new story's id (none in a dry run) and the report."""

    id = fields.String(allow_none=True, required=True)
    report = fields.Nested(ImportReportSchema, required=True)
