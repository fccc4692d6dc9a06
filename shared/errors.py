"""The error vocabulary of both services (docs/api.md "Envelope and errors").

Handler and use-case code raise `ApiError`; the error middleware turns it, and anything
else, into the one JSON envelope. Code that must know nothing of HTTP (bot-api's engine and
domain) raises exceptions of its own that declare their `kind`: "invalid" (with a field
`path` and a `message`), "unknown" or "clash". `from_domain` answers them as a 400
`validation_error`, a 404 and a 409, by those attributes alone, so shared imports nothing of
the services. `STATUSES` names each HTTP status the services answer
with: its error type in the envelope and what it means in the OpenAPI document.
"""

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class HttpStatus:
    error_type: str
    description: str


STATUSES = {
    400: HttpStatus("bad_request", "Malformed JSON or a field that fails validation"),
    401: HttpStatus("unauthorized", "Missing or invalid token"),
    403: HttpStatus(
        "forbidden", "A public key where the developer token is needed, or a role not allowed"
    ),
    404: HttpStatus("not_found", "No such record in the caller's account"),
    405: HttpStatus("method_not_allowed", "The path does not take this method"),
    408: HttpStatus("request_timeout", "The body did not arrive in time"),
    409: HttpStatus("conflict", "The request conflicts with stored data"),
    413: HttpStatus("payload_too_large", "Body larger than the configured limit"),
    415: HttpStatus("bad_request", "Body is not application/json"),
    429: HttpStatus("rate_limited", "Too many requests"),
    500: HttpStatus("internal_error", "An unexpected error; the answer carries a request id"),
    503: HttpStatus("unavailable", "A backing service is unavailable"),
}


class ApiError(Exception):
    status = 500
    error_type = STATUSES[500].error_type

    def __init__(self, details: str, errors: dict[str, Any] | None = None) -> None:
        super().__init__(details)
        self.details = details
        self.errors = errors
        self.headers: dict[str, str] = {}
        """Sent with the error answer (e.g. `Retry-After`)."""


class BadRequest(ApiError):
    status = 400
    error_type = STATUSES[400].error_type


MAX_FIELD_ERRORS = 20
"""Field errors an answer lists; the rest are counted ("and N more")."""


class ValidationFailed(ApiError):
    status = 400
    error_type = "validation_error"

    @classmethod
    def of_tree(cls, tree: dict[Any, Any], limit: int = MAX_FIELD_ERRORS) -> "ValidationFailed":
        """An error from marshmallow's error tree, listing at most `limit` messages so a
        body with many faults cannot make a huge answer."""
        path, message = first_error_path(tree)
        kept, total = _first_messages(tree, limit)
        details = f"{path}: {message}"
        if total > limit:
            details += f" (and {total - limit} more errors)"
        return cls(details, kept)

    @classmethod
    def at(cls, path: tuple[str | int, ...], message: str) -> "ValidationFailed":
        """An error about one field: `errorDetails` names its path and `errors` holds it in
        marshmallow's shape, e.g. ("responses", 2) -> {"responses": {"2": [message]}}."""
        tree: Any = [message]
        for part in reversed(path):
            tree = {str(part): tree}
        details = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path).lstrip(".")
        return cls(f"{details}: {message}", tree)


class RequestTimeout(ApiError):
    status = 408
    error_type = STATUSES[408].error_type


class Unauthorized(ApiError):
    status = 401
    error_type = STATUSES[401].error_type


class Forbidden(ApiError):
    status = 403
    error_type = STATUSES[403].error_type


class NotFound(ApiError):
    status = 404
    error_type = STATUSES[404].error_type


class Conflict(ApiError):
    status = 409
    error_type = STATUSES[409].error_type


class PayloadTooLarge(ApiError):
    status = 413
    error_type = STATUSES[413].error_type


class UnsupportedMediaType(ApiError):
    status = 415
    error_type = STATUSES[415].error_type


class Unavailable(ApiError):
    status = 503
    error_type = STATUSES[503].error_type


def first_error_path(errors: dict[Any, Any], prefix: str = "") -> tuple[str, str]:
    """The first (path, message) of a marshmallow error tree, e.g. ("userSays[3]", "...").

    Errors about the body as a whole (marshmallow's `_schema`) read as "body".
    """
    for key, value in errors.items():
        if key == "_schema":
            path = prefix or "body"
        elif isinstance(key, int) or str(key).isdigit():
            path = f"{prefix}[{key}]"
        else:
            path = f"{prefix}.{key}" if prefix else str(key)
        if isinstance(value, dict):
            return first_error_path(value, path)
        if isinstance(value, list) and value:
            head = value[0]
            if isinstance(head, dict):
                return first_error_path(head, path)
            return path, str(head)
        return path, str(value)
    return prefix or "body", "invalid"


def _first_messages(node: Any, limit: int) -> tuple[Any, int]:
    """`node` (a marshmallow error tree) cut down to its first `limit` messages, and how
    many messages it held."""
    if isinstance(node, dict):
        kept: dict[str, Any] = {}
        total = 0
        for key, value in node.items():
            branch, count = _first_messages(value, max(limit - total, 0))
            if branch:
                kept[str(key)] = branch
            total += count
        return kept, total
    if isinstance(node, list):
        items: list[Any] = []
        total = 0
        for value in node:
            branch, count = _first_messages(value, max(limit - total, 0))
            if branch:
                items.append(branch)
            total += count
        return items, total
    return (str(node) if limit > 0 else None), 1


def from_domain(error: BaseException) -> ApiError | None:
    """The answer to an exception that declares its `kind` (see the module docstring);
    None for any other exception."""
    kind = getattr(error, "kind", None)
    if kind == "invalid":
        path, message = getattr(error, "path", None), getattr(error, "message", None)
        if isinstance(path, tuple) and isinstance(message, str):
            return ValidationFailed.at(path, message)
        return ValidationFailed(str(error))
    if kind == "unknown":
        return NotFound(str(error))
    if kind == "clash":
        return Conflict(str(error))
    return None
