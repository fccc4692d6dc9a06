from datetime import UTC, datetime


def utcnow() -> datetime:
    return datetime.now(UTC)


def iso(moment: datetime) -> str:
    """ISO 8601 UTC with milliseconds and a Z, the form every response uses."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def epoch_ms(moment: datetime) -> int:
    """Epoch milliseconds, the form stored where times are compared or ordered:
    nx-27017 compares datetimes only to the second (docs/mongodb-compatibility.md)."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return int(moment.timestamp() * 1000)
