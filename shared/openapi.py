"""The OpenAPI 3 document of an app, built from its routes' `@endpoint` declarations."""

import re
from typing import Any

from aiohttp import web
from apispec import APISpec
from apispec.ext.marshmallow import MarshmallowPlugin
from apispec.ext.marshmallow.openapi import OpenAPIConverter
from marshmallow import Schema

from shared.endpoints import Body, EndpointSpec, endpoint
from shared.envelope_schemas import error_schema
from shared.errors import STATUSES
from shared.keys import STATUS_FIELD
from shared.pages import MAX_OFFSET, MAX_PAGE, TOTAL_HEADER
from shared.schema_fields import dict_to_openapi, union_to_openapi

_PATH_PARAMETER = re.compile(r"{(\w+)}")


class Converter(OpenAPIConverter):
    """apispec's converter, adding what a schema's `Meta.json_schema` states about the
    object as a whole (a rule across fields, such as "exactly one of")."""

    def schema2jsonschema(self, schema: Any) -> dict[str, Any]:
        jsonschema: dict[str, Any] = super().schema2jsonschema(schema)  # type: ignore[no-untyped-call]
        jsonschema.update(getattr(getattr(schema, "Meta", None), "json_schema", {}))
        return jsonschema


class Plugin(MarshmallowPlugin):
    Converter = Converter


def build_document(app: web.Application, title: str, version: str) -> dict[str, Any]:
    plugin = Plugin()
    spec = APISpec(title=title, version=version, openapi_version="3.0.3", plugins=[plugin])
    assert plugin.converter is not None
    plugin.converter.add_attribute_function(union_to_openapi)  # type: ignore[no-untyped-call]
    plugin.converter.add_attribute_function(dict_to_openapi)  # type: ignore[no-untyped-call]
    spec.components.security_scheme("bearer", {"type": "http", "scheme": "bearer"})
    operations: dict[str, dict[str, Any]] = {}
    for route in app.router.routes():
        declared: EndpointSpec | None = getattr(route.handler, "__endpoint__", None)
        if declared is None or route.resource is None or route.method == "HEAD":
            continue
        path = route.resource.canonical
        status_field = declared.status_field or app[STATUS_FIELD]
        operations.setdefault(path, {})[route.method.lower()] = _operation(
            plugin, path, declared, error_schema(status_field)
        )
    for path, by_method in sorted(operations.items()):
        spec.path(path=path, operations=by_method)
    return spec.to_dict()


_BINARY = {"type": "string", "format": "binary"}


def _schema_or_property(plugin: MarshmallowPlugin, body: Body) -> Any:
    if isinstance(body, Schema):
        return body
    assert plugin.converter is not None
    return plugin.converter.field2property(body)


def _operation(
    plugin: MarshmallowPlugin, path: str, declared: EndpointSpec, error: type[Schema]
) -> dict[str, Any]:
    operation: dict[str, Any] = {"summary": declared.summary, "tags": [declared.tag]}
    parameters = [
        {"name": name, "in": "path", "required": True, "schema": {"type": "string"}}
        for name in _PATH_PARAMETER.findall(path)
    ]
    if declared.paged:
        parameters += [
            {"name": "offset", "in": "query", "schema": {"type": "integer", "minimum": 0,
             "maximum": MAX_OFFSET}, "description": "Items skipped (0 when absent)"},
            {"name": "limit", "in": "query", "schema": {"type": "integer", "minimum": 1,
             "maximum": MAX_PAGE}, "description": f"Items at most ({MAX_PAGE} when only "
             "offset is given); without limit and offset the answer is every item"},
        ]  # fmt: skip
    if declared.query is not None:
        assert plugin.converter is not None
        parameters += [
            {"name": field.data_key or name, "in": "query",
             "schema": plugin.converter.field2property(field)}
            for name, field in declared.query.fields.items()
        ]  # fmt: skip
    if parameters:
        operation["parameters"] = parameters
    if declared.body is not None:
        schema = _schema_or_property(plugin, declared.body)
        operation["requestBody"] = {
            "required": True,
            "content": {
                media: {"schema": schema if media.endswith(("json", "yaml")) else _BINARY}
                for media in declared.uploads or ("application/json",)
            },
        }
        if declared.body_bytes is not None:
            operation["requestBody"]["description"] = (
                f"At most {declared.body_bytes} bytes (413 beyond)"
            )
    success: dict[str, Any] = {"description": "Success"}
    if declared.response is not None:
        schema = _schema_or_property(plugin, declared.response)
        success["content"] = {media: {"schema": schema} for media in declared.answers}
    if declared.paged:
        success["headers"] = {
            TOTAL_HEADER: {"description": "Items in all pages", "schema": {"type": "integer"}}
        }
    responses: dict[str, Any] = {str(declared.status): success}
    codes = set(declared.errors)
    if declared.body is not None:
        codes |= {400, 413, 415}
    if declared.paged or declared.query is not None:
        codes.add(400)  # an offset, a limit or another query parameter out of range
    if declared.auth is not None:
        operation["security"] = [{"bearer": []}]
        codes |= {401, 403, 429}
    for code in sorted(codes):
        responses[str(code)] = {
            "description": STATUSES[code].description,
            "content": {"application/json": {"schema": error}},
        }
    operation["responses"] = responses
    return operation


def add_openapi_route(app: web.Application, title: str, version: str) -> None:
    @endpoint(summary="This OpenAPI document", tag="meta", auth=None)
    async def openapi_document(request: web.Request) -> web.Response:
        return web.json_response(build_document(request.app, title, version))

    app.router.add_get("/openapi.json", openapi_document)
