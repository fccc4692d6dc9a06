"""The text log format: one record, one line of its own; a value cannot start another."""

import logging
import sys

from shared.logs import FIELDS, TextFormatter

FORGED = "2026-01-01 00:00:00,000 ERROR parley.requests forged"


def record(message: str, *args: object, **fields: object) -> logging.LogRecord:
    made = logging.LogRecord("parley.test", logging.WARNING, __file__, 1, message, args, None)
    setattr(made, FIELDS, fields)
    return made


def test_control_characters_in_the_message_and_fields_are_escaped() -> None:
    line = TextFormatter().format(
        record("failed: %s", f"key\n{FORGED}\u2028", route=f"/x\r{FORGED}\x1b[2J")
    )
    assert "\n" not in line and "\r" not in line and "\u2028" not in line
    assert line.endswith(f"failed: key\\n{FORGED}\\u2028 route=/x\\r{FORGED}\\x1b[2J")


def test_a_tracebacks_lines_are_indented_under_its_record() -> None:
    try:
        raise ValueError(f"bad\n{FORGED}")
    except ValueError:
        failed = record("it broke")
        failed.exc_info = sys.exc_info()
    first, *rest = TextFormatter().format(failed).split("\n")
    assert first.endswith("WARNING parley.test it broke")
    assert rest and all(line.startswith("    ") for line in rest)
    assert f"    {FORGED}" in rest
