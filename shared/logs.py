"""Log lines of both services: one JSON object a line (containers, LOG_FORMAT=json) or
plain text (`make run`), at LOG_LEVEL.

A line carries its message and the fields given as `extra={"fields": {...}}` (the
request line: request id, method, route template, status, latency, account id). Values
that could hold a token, a password, a webhook secret or a user's message are never
logged: a request is named by its route template, not its path or body.

In text, a line is a record: control characters in the message and the fields (a
newline in a webhook answer's attribute key, which a failure names) are escaped as
Python writes them (`\n`, `\x1b`, `\u2028`), so no value can write a line of its own, and
a traceback's lines are indented, so a record's first line is the only one that starts
with its time. JSON escapes them already.
"""

import json
import logging
import re
import sys
from datetime import UTC, datetime
from typing import Any

from shared.config import Config

FIELDS = "fields"
QUIET_LIBRARIES = ("pymongo", "nats", "aiohttp")
CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")
"""C0 and C1 controls (line feed, carriage return, escape, NEL ...), DEL, and the Unicode
line and paragraph separators some viewers break lines at."""


def escaped(value: object) -> str:
    return CONTROL.sub(lambda match: match[0].encode("unicode_escape").decode(), str(value))


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
        record.message = escaped(record.getMessage())
        record.asctime = self.formatTime(record)
        line = self.formatMessage(record)
        fields = " ".join(f"{key}={escaped(value)}" for key, value in _fields(record).items())
        if fields:
            line = f"{line} {fields}"
        if record.exc_info:
            line += "".join(
                f"\n    {escaped(text)}"
                for text in self.formatException(record.exc_info).splitlines()
            )
        return line


def configure(config: Config) -> None:
    """Send every log line to stderr in the configured format and level."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter() if config.log_format == "json" else TextFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(config.log_level)
    for library in QUIET_LIBRARIES:  # their debug lines hold documents and messages
        logging.getLogger(library).setLevel(max(logging.INFO, root.level))
