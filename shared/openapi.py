"""The OpenAPI 3 document of an app, built from its routes' `@endpoint` declarations."""

import re
from typing import Any

from aiohttp import web
from apispec import APISpec
from apispec.ext.marshmallow import MarshmallowPlugin
from marshmallow import Schema, fields

from shared.endpoints import Body, EndpointSpec, endpoint
from shared.errors import STATUSES
from shared.pages import MAX_OFFSET, MAX_PAGE, TOTAL_HEADER
from shared.schema_fields import union_to_openapi

_PATH_PARAMETER = re.compile(r"{(\w+)}")


class ErrorStatusSchema(Schema):
    code = fields.Integer(required=True)
    errorType = fields.String(required=True, metadata={"description": "or `type` (see the API)"})
    errorDetails = fields.String(required=True)
    errors = fields.Dict(metadata={"description": "Field-level messages of a validation error"})
    requestId = fields.String(metadata={"description": "On 5xx answers"})


class ErrorSchema(Schema):
    timestamp = fields.String(required=True)
    status = fields.Nested(ErrorStatusSchema, required=True)


def build_document(app: web.Application, title: str, version: str) -> dict[str, Any]:
    plugin = MarshmallowPlugin()
    spec = APISpec(title=title, version=version, openapi_version="3.0.3", plugins=[plugin])
    assert plugin.converter is not None
    plugin.converter.add_attribute_function(union_to_openapi)  # type: ignore[no-untyped-call]
    spec.components.security_scheme("bearer", {"type": "http", "scheme": "bearer"})
    spec.components.schema("Error", schema=ErrorSchema)
    operations: dict[str, dict[str, Any]] = {}
    for route in app.router.routes():
        declared: EndpointSpec | None = getattr(route.handler, "__endpoint__", None)
        if declared is None or route.resource is None or route.method == "HEAD":
            continue
        path = route.resource.canonical
        operations.setdefault(path, {})[route.method.lower()] = _operation(plugin, path, declared)
    for path, by_method in sorted(operations.items()):
        spec.path(path=path, operations=by_method)
    return spec.to_dict()


def _schema_or_property(plugin: MarshmallowPlugin, body: Body) -> Any:
    if isinstance(body, Schema):
        return body
    assert plugin.converter is not None
    return plugin.converter.field2property(body)


def _operation(plugin: MarshmallowPlugin, path: str, declared: EndpointSpec) -> dict[str, Any]:
    operation: dict[str, Any] = {"summary": declared.summary, "tags": [declared.tag]}
    parameters = [
        {"name": name, "in": "path", "required": True, "schema": {"type": "string"}}
        for name in _PATH_PARAMETER.findall(path)
    ]
    if declared.paged:
        parameters += [
            {"name": "offset", "in": "query", "schema": {"type": "integer", "minimum": 0,
             "maximum": MAX_OFFSET}},
            {"name": "limit", "in": "query", "schema": {"type": "integer", "minimum": 1,
             "maximum": MAX_PAGE}},
        ]  # fmt: skip
    if parameters:
        operation["parameters"] = parameters
    if declared.body is not None:
        operation["requestBody"] = {
            "required": True,
            "content": {"application/json": {"schema": _schema_or_property(plugin, declared.body)}},
        }
    success: dict[str, Any] = {"description": "Success"}
    if declared.response is not None:
        success["content"] = {
            "application/json": {"schema": _schema_or_property(plugin, declared.response)}
        }
    if declared.paged:
        success["headers"] = {
            TOTAL_HEADER: {"description": "Items in all pages", "schema": {"type": "integer"}}
        }
    responses: dict[str, Any] = {str(declared.status): success}
    codes = set(declared.errors)
    if declared.body is not None:
        codes |= {400, 413, 415}
    if declared.auth is not None:
        operation["security"] = [{"bearer": []}]
        codes |= {401, 403, 429}
    for code in sorted(codes):
        responses[str(code)] = {
            "description": STATUSES[code].description,
            "content": {"application/json": {"schema": "Error"}},
        }
    operation["responses"] = responses
    return operation


def add_openapi_route(app: web.Application, title: str, version: str) -> None:
    @endpoint(summary="This OpenAPI document", tag="meta", auth=None)
    async def openapi_document(request: web.Request) -> web.Response:
        return web.json_response(build_document(request.app, title, version))

    app.router.add_get("/openapi.json", openapi_document)
