"""The error vocabulary of both services (DESIGN.md "Errors").

Domain and handler code raise `ApiError`; the error middleware turns it, and anything
else, into the one JSON envelope.
"""

from typing import Any


class ApiError(Exception):
    status = 500
    error_type = "internal_error"

    def __init__(self, details: str, errors: dict[str, Any] | None = None) -> None:
        super().__init__(details)
        self.details = details
        self.errors = errors


class BadRequest(ApiError):
    status = 400
    error_type = "bad_request"


class ValidationFailed(ApiError):
    status = 400
    error_type = "validation_error"

    @classmethod
    def at(cls, path: tuple[str | int, ...], message: str) -> "ValidationFailed":
        """An error about one field: `errorDetails` names its path and `errors` holds it in
        marshmallow's shape, e.g. ("responses", 2) -> {"responses": {"2": [message]}}."""
        tree: Any = [message]
        for part in reversed(path):
            tree = {str(part): tree}
        details = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path).lstrip(".")
        return cls(f"{details}: {message}", tree)


class Unauthorized(ApiError):
    status = 401
    error_type = "unauthorized"


class Forbidden(ApiError):
    status = 403
    error_type = "forbidden"


class NotFound(ApiError):
    status = 404
    error_type = "not_found"


class MethodNotAllowed(ApiError):
    status = 405
    error_type = "method_not_allowed"


class Conflict(ApiError):
    status = 409
    error_type = "conflict"


class PayloadTooLarge(ApiError):
    status = 413
    error_type = "payload_too_large"


class UnsupportedMediaType(ApiError):
    status = 415
    error_type = "bad_request"


class Unavailable(ApiError):
    status = 503
    error_type = "unavailable"


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
