"""The analytics report of a story: its counted hours in a range, by hour or day, with
the names of its interactions as they are now (docs/analytics.md).

A report of a year by hour is 8,784 steps: building and writing them took 1.7 s of CPU
(measured on the 2-core test machine), which on the event loop raised another account's
/query p50 from 22 ms to 1,088 ms while four loops asked for such reports. So the steps are
built and written in a thread (shared/fair_work.py, shared fairly between accounts), and
an account has at most `MAX_REPORTS_PER_ACCOUNT` reports under way: one more answers 429.
"""

from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from bot_api.analytics.counters import AnalyticsStore
from bot_api.domain.analytics import ANY, Segment, Span, Tally, hour_start, series, summary
from bot_api.interactions.repository import InteractionStore
from bot_api.stories.repository import StoryStore
from bot_api.stories.service import load_story
from shared.fair_work import FairWork
from shared.rates import RateLimited
from shared.timeutil import iso

T = TypeVar("T")

MAX_REPORTS_PER_ACCOUNT = 2
"""Reports of one account read or computed at once: a console asks for one at a time, a
script looping over stories two; a third waits for neither and answers 429."""
RETRY_AFTER_SECONDS = 2.0
"""What a 429 asks to wait: a year by hour takes about a second to build."""


class AnalyticsReports:
    def __init__(
        self,
        *,
        stories: StoryStore,
        interactions: InteractionStore,
        counters: AnalyticsStore,
        work: FairWork,
        limit: float | None = None,
    ) -> None:
        self._stories = stories
        self._interactions = interactions
        self._counters = counters
        self._work = work
        self._limit = limit
        """Seconds a report's build may take (the request's budget)."""
        self._under_way: dict[str, int] = {}

    async def report(
        self,
        *,
        account_id: str,
        story_id: str,
        span: Span,
        render: Callable[[dict[str, Any]], T],
        only: Segment = ANY,
    ) -> T:
        """`render` of the figures of the turns of the segments `only` matches (None:
        any), both made in a thread."""
        under_way = self._under_way.get(account_id, 0)
        if under_way >= MAX_REPORTS_PER_ACCOUNT:
            raise RateLimited(
                RETRY_AFTER_SECONDS, f"of analytics: {MAX_REPORTS_PER_ACCOUNT} are under way"
            )
        self._under_way[account_id] = under_way + 1
        try:
            story = await load_story(self._stories, account_id, story_id)
            hours = await self._counters.hours_of(story.id, span.first, span.end, only)
            current = list(story.structure.contexts)
            summaries = await self._interactions.summaries(story.id, current)
            names = {interaction_id: s.name for interaction_id, s in summaries.items()}
            first_hour = await self._counters.first_hour(story.id)

            def build() -> T:
                return render(_report(hours, span, current, names, first_hour))

            return await self._work.run(account_id, build, limit=self._limit)
        finally:
            self._under_way[account_id] -= 1
            if not self._under_way[account_id]:
                del self._under_way[account_id]


def _report(
    hours: Mapping[int, Tally],
    span: Span,
    current: list[str],
    names: Mapping[str, str],
    first_hour: int | None,
) -> dict[str, Any]:
    steps = series(hours, span)
    total = sum((tally for _, tally in steps), Tally())
    answered = sorted(total.interactions.items(), key=lambda item: (-item[1], item[0]))
    return {
        "firstRecorded": None if first_hour is None else iso(hour_start(first_hour)),
        "from": iso(hour_start(span.first)),
        "to": iso(hour_start(span.end)),
        "interval": "hour" if span.step == 1 else "day",
        "totals": summary(total),
        "series": [{"at": iso(at), **summary(tally)} for at, tally in steps],
        "interactions": [
            {"id": interaction_id, "name": names.get(interaction_id), "count": count}
            for interaction_id, count in answered
        ],
        "unanswered": [
            {"id": interaction_id, "name": names.get(interaction_id)}
            for interaction_id in current
            if interaction_id not in total.interactions
        ],
    }
