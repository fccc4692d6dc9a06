"""The analytics report of a story: its counted hours in a range, by hour or day, with
the names of its interactions as they are now (docs/analytics.md)."""

from typing import Any

from bot_api.conversations.analytics import AnalyticsStore
from bot_api.domain.analytics import ANY, Segment, Span, Tally, hour_start, series, summary
from bot_api.management.stories import load_story
from bot_api.storage import Stores
from shared.timeutil import iso


class AnalyticsReports:
    def __init__(self, *, stores: Stores, counters: AnalyticsStore) -> None:
        self._stores = stores
        self._counters = counters

    async def report(
        self, *, account_id: str, story_id: str, span: Span, only: Segment = ANY
    ) -> dict[str, Any]:
        """The figures of the turns of the segments `only` matches (None: any)."""
        story = await load_story(self._stores, account_id, story_id)
        hours = await self._counters.hours_of(story.id, span.first, span.end, only)
        steps = series(hours, span)
        total = sum((tally for _, tally in steps), Tally())
        current = list(story.structure.contexts)
        summaries = await self._stores.interactions.summaries(story.id, current)
        names = {interaction_id: s.name for interaction_id, s in summaries.items()}
        answered = sorted(total.interactions.items(), key=lambda item: (-item[1], item[0]))
        first_hour = await self._counters.first_hour(story.id)
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
