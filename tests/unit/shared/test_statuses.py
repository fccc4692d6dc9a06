"""One table names every HTTP status the services answer with: the error classes, the
envelope middleware and the OpenAPI document all read it."""

from typing import Any

import pytest
from aiohttp import web

from shared.endpoints import endpoint
from shared.errors import STATUSES, ApiError, ValidationFailed
from shared.openapi import build_document


def error_classes() -> list[type[ApiError]]:
    found: list[type[ApiError]] = [ApiError]
    for known in found:
        found.extend(known.__subclasses__())
    return found


@pytest.mark.parametrize("error", error_classes(), ids=lambda error: error.__name__)
def test_every_error_class_answers_with_the_type_of_its_status(error: type[ApiError]) -> None:
    if error is ValidationFailed:
        assert (error.status, error.error_type) == (400, "validation_error")
    else:
        assert error.error_type == STATUSES[error.status].error_type


def test_the_openapi_document_describes_each_error_as_the_table_does() -> None:
    @endpoint(summary="Read a thing", tag="things", errors=(404, 409, 503))
    async def read_thing(request: web.Request) -> Any:
        return {}

    app = web.Application()
    app.router.add_get("/things/{id}", read_thing)
    responses = build_document(app, "Things", "1")["paths"]["/things/{id}"]["get"]["responses"]
    errors = {code: answer["description"] for code, answer in responses.items() if code != "200"}
    assert errors == {
        str(code): STATUSES[code].description for code in (401, 403, 404, 409, 429, 503)
    }
