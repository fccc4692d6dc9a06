"""Analytics counters as plain values (issue 18, docs/analytics.md).

Each batch of recorded turns becomes a few `Tally`s, one per (story, UTC hour), added to
what is stored; a report then reads hours, never turns. Messages, fallbacks, webhook
failures, answers per interaction and latency count in the hour of the turn;
conversations, and those that fell back at least once, count in the hour of the
conversation's first turn (its `Conversation` mark, kept per story and session).
"""

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from bot_api.domain.errors import Invalid
from bot_api.domain.history import TurnRecord

HOUR = timedelta(hours=1)
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)

LATENCY_FLOOR_MS = 0.1
LATENCY_RATIO = 1.05
"""Latency bucket `i` holds [0.1 ms × 1.05^i, 0.1 ms × 1.05^(i+1)); a percentile is its
bucket's geometric middle, so it is within 2.5 % of the true value (sqrt(1.05) - 1),
and a minute of latency needs 273 buckets, stored only where a turn fell."""


def hour_of(moment: datetime) -> int:
    """Whole hours since the epoch (UTC): a naive time is taken as UTC."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return math.floor((moment - EPOCH) / HOUR)


def hour_start(hour: int) -> datetime:
    return EPOCH + hour * HOUR


def latency_bucket(latency_ms: float) -> int:
    if latency_ms <= LATENCY_FLOOR_MS:
        return 0
    return math.floor(math.log(latency_ms / LATENCY_FLOOR_MS) / math.log(LATENCY_RATIO))


def percentile(histogram: Mapping[int, int], fraction: float) -> float | None:
    """The latency (ms) below which `fraction` of the turns fall, or None with no turn."""
    total = sum(histogram.values())
    if total <= 0:
        return None
    rank = fraction * total
    seen = 0
    for bucket in sorted(histogram):
        seen += histogram[bucket]
        if seen >= rank:
            return float(LATENCY_FLOOR_MS * LATENCY_RATIO ** (bucket + 0.5))
    raise AssertionError("unreachable: the cumulative count reaches the total")


def _summed(first: Mapping[str, int], second: Mapping[str, int]) -> dict[str, int]:
    total = dict(first)
    for key, count in second.items():
        total[key] = total.get(key, 0) + count
    return total


@dataclass(frozen=True)
class Tally:
    """Counts of one story in one hour (or of a sum of hours). Keys of `latency` are
    latency buckets as strings, as stored."""

    conversations: int = 0
    fell_back: int = 0
    """Conversations started in the hour that fell back at least once."""
    messages: int = 0
    fallbacks: int = 0
    webhook_failures: int = 0
    interactions: Mapping[str, int] = field(default_factory=dict)
    latency: Mapping[str, int] = field(default_factory=dict)

    def __add__(self, other: "Tally") -> "Tally":
        return Tally(
            conversations=self.conversations + other.conversations,
            fell_back=self.fell_back + other.fell_back,
            messages=self.messages + other.messages,
            fallbacks=self.fallbacks + other.fallbacks,
            webhook_failures=self.webhook_failures + other.webhook_failures,
            interactions=_summed(self.interactions, other.interactions),
            latency=_summed(self.latency, other.latency),
        )

    def percentile_ms(self, fraction: float) -> float | None:
        return percentile({int(k): v for k, v in self.latency.items()}, fraction)


Segment = tuple[str | None, str | None]
"""(source, channel) of the turns a tally counts: the turn's `default_source` and the id
of the channel that carried it (None, None: neither, as /query without a source)."""
EVERYWHERE: Segment = (None, None)
ANY: Segment = (None, None)
"""As a filter of the segments read: any source, any channel."""


def segment_of(turn: TurnRecord) -> Segment:
    return (turn.default_source, turn.channel)


def turn_tally(turn: TurnRecord) -> Tally:
    answered = turn.interaction
    return Tally(
        messages=1,
        fallbacks=int(turn.outcome == "fallback"),
        webhook_failures=int(turn.webhook not in (None, "ok")),
        interactions={} if answered is None else {answered.id: 1},
        latency={str(latency_bucket(turn.latency_ms)): 1},
    )


BucketKey = tuple[str, int, Segment]
"""(story id, hour, segment): each hour is counted per source and channel, so a report
can be asked for one of them."""
SessionKey = tuple[str, str]
"""(story id, session id)."""


def add_to(tallies: dict[BucketKey, Tally], key: BucketKey, tally: Tally) -> None:
    tallies[key] = tallies.get(key, Tally()) + tally


def message_tallies(turns: Iterable[TurnRecord]) -> dict[BucketKey, Tally]:
    """What the turns add to the hours they happened in (conversations aside)."""
    tallies: dict[BucketKey, Tally] = {}
    for turn in turns:
        add_to(tallies, (turn.story_id, hour_of(turn.at), segment_of(turn)), turn_tally(turn))
    return tallies


@dataclass(frozen=True)
class Conversation:
    """What analytics keeps of one session of a story: the hour of its first turn (and
    that turn's segment, where the conversation is counted), and whether it ever fell
    back."""

    start: int
    fell_back: bool
    segment: Segment = EVERYWHERE

    def merged(self, other: "Conversation") -> "Conversation":
        earlier = other if other.start < self.start else self
        return Conversation(earlier.start, self.fell_back or other.fell_back, earlier.segment)


def conversations_seen(turns: Sequence[TurnRecord]) -> dict[SessionKey, Conversation]:
    """Each session of the batch as the batch alone shows it."""
    seen: dict[SessionKey, Conversation] = {}
    for turn in turns:
        key = (turn.story_id, turn.session_id)
        mark = Conversation(hour_of(turn.at), turn.outcome == "fallback", segment_of(turn))
        seen[key] = mark if key not in seen else seen[key].merged(mark)
    return seen


def conversation_change(
    story_id: str, before: Conversation | None, after: Conversation
) -> dict[BucketKey, Tally]:
    """What the counters change by when a conversation's mark goes from `before`
    (None: unknown until now) to `after`: it leaves its old start hour for its new."""
    change: dict[BucketKey, Tally] = {}
    if before is not None:
        before_key = (story_id, before.start, before.segment)
        add_to(change, before_key, Tally(-1, -int(before.fell_back)))
    add_to(change, (story_id, after.start, after.segment), Tally(1, int(after.fell_back)))
    return change


MAX_RANGE_DAYS = 366
EARLIEST = EPOCH
LATEST = datetime(9000, 1, 1, tzinfo=UTC)
"""Far from datetime's year 9999, past which rounding `to` up to a day would overflow."""
INTERVAL_HOURS = {"hour": 1, "day": 24}


@dataclass(frozen=True)
class Span:
    """A report's range in whole hours since the epoch, `first` up to `end` (not
    included), cut in steps of `step` hours."""

    first: int
    end: int
    step: int

    @classmethod
    def of(cls, start: datetime, end: datetime, interval: str) -> "Span":
        """`start` rounded down and `end` up to whole intervals (UTC days for `day`)."""
        step = INTERVAL_HOURS[interval]
        if start < EARLIEST or end > LATEST:
            raise Invalid.at(("from",), "Times must be from 1970 to 8999.")
        if end <= start:
            raise Invalid.at(("to",), "Must be after from.")
        if end - start > timedelta(days=MAX_RANGE_DAYS):
            raise Invalid.at(("to",), f"The range may span at most {MAX_RANGE_DAYS} days.")
        first = hour_of(start) // step * step
        last = hour_of(end - timedelta(microseconds=1))
        return cls(first, (last // step + 1) * step, step)

    def starts(self) -> range:
        return range(self.first, self.end, self.step)


def _rate(part: int, whole: int) -> float | None:
    return None if whole <= 0 else part / whole


def summary(tally: Tally) -> dict[str, object]:
    """The figures of a tally, as the report shows them for the range and each step."""
    return {
        "conversations": tally.conversations,
        "messages": tally.messages,
        "fallbacks": tally.fallbacks,
        "fallbackRate": _rate(tally.fallbacks, tally.messages),
        "containment": _rate(tally.conversations - tally.fell_back, tally.conversations),
        "messagesPerConversation": _rate(tally.messages, tally.conversations),
        "webhookFailures": tally.webhook_failures,
        "latency": {"p50": tally.percentile_ms(0.5), "p95": tally.percentile_ms(0.95)},
    }


def series(hours: Mapping[int, Tally], span: Span) -> list[tuple[datetime, Tally]]:
    """Every step of the span with the sum of its hours (an empty tally without any)."""
    steps = {start: Tally() for start in span.starts()}
    for hour, tally in hours.items():
        start = hour // span.step * span.step
        steps[start] = steps[start] + tally
    return [(hour_start(start), steps[start]) for start in span.starts()]
