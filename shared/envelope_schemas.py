"""The schemas of the envelope an answer wears (shared/envelope.py), success or error.

The status names its outcome `errorType` on management endpoints and `type` on the
connection API and /query; each field name gets one class, so the OpenAPI document
holds each schema once.
"""

import functools
from typing import Any

from marshmallow import Schema, fields


def _title(status_field: str) -> str:
    return status_field[0].upper() + status_field[1:]


@functools.cache
def status_schema(status_field: str) -> type[Schema]:
    return Schema.from_dict(
        {"code": fields.Integer(required=True), status_field: fields.String(required=True)},
        name=f"{_title(status_field)}StatusSchema",
    )


def _success_fields(status_field: str) -> dict[str, fields.Field[Any]]:
    return {
        "timestamp": fields.String(required=True),
        "status": fields.Nested(status_schema(status_field), required=True),
    }


@functools.cache
def success_schema(status_field: str) -> type[Schema]:
    return Schema.from_dict(
        _success_fields(status_field), name=f"{_title(status_field)}SuccessSchema"
    )


@functools.cache
def created_schema(status_field: str) -> type[Schema]:
    return Schema.from_dict(
        {**_success_fields(status_field), "id": fields.String(required=True)},
        name=f"{_title(status_field)}CreatedSchema",
    )


@functools.cache
def error_schema(status_field: str) -> type[Schema]:
    status = Schema.from_dict(
        {
            "code": fields.Integer(required=True),
            status_field: fields.String(required=True),
            "errorDetails": fields.String(required=True),
            "errors": fields.Dict(
                metadata={"description": "Field-level messages of a validation error"}
            ),
            "requestId": fields.String(metadata={"description": "On 5xx answers"}),
        },
        name=f"ErrorWith{_title(status_field)}StatusSchema",
    )
    return Schema.from_dict(
        {
            "timestamp": fields.String(required=True),
            "status": fields.Nested(status, required=True),
        },
        name=f"ErrorWith{_title(status_field)}Schema",
    )
