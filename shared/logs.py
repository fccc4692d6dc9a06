"""Log lines of both services: one JSON object a line (containers, LOG_FORMAT=json) or
plain text (`make run`), at LOG_LEVEL.

A line carries its message and the fields given as `extra={"fields": {...}}` (the
request line: request id, method, route template, status, latency, account id). Values
that could hold a token, a password, a webhook secret or a user's message are never
logged: a request is named by its route template, not its path or body.
"""

import json
import logging
import sys
from datetime import UTC, datetime
from typing import Any

from shared.config import Config

FIELDS = "fields"
QUIET_LIBRARIES = ("pymongo", "nats", "aiohttp")


def _fields(record: logging.LogRecord) -> dict[str, Any]:
    fields = getattr(record, FIELDS, None)
    return fields if isinstance(fields, dict) else {}


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
            **_fields(record),
        }
        if record.exc_info:
            line["error"] = self.formatException(record.exc_info)
        return json.dumps(line, default=str)


class TextFormatter(logging.Formatter):
    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s %(message)s")

    def format(self, record: logging.LogRecord) -> str:
        text = super().format(record)
        fields = " ".join(f"{key}={value}" for key, value in _fields(record).items())
        return f"{text} {fields}" if fields else text


def configure(config: Config) -> None:
    """Send every log line to stderr in the configured format and level."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter() if config.log_format == "json" else TextFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(config.log_level)
    for library in QUIET_LIBRARIES:  # their debug lines hold documents and messages
        logging.getLogger(library).setLevel(max(logging.INFO, root.level))
