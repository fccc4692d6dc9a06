"""List endpoints answer every item, or a page of them when asked.

Without `?limit=` and `?offset=` a list is every item: a team's console and scripts list
with a plain GET and must not lose records, and what a list can hold is bounded by the
quotas (docs/reliability.md). With either, the answer is a page as before: `limit` (1 to
MAX_PAGE, MAX_PAGE when absent) items from `offset` (0 when absent). Either way the
number of items in all pages is in the `X-Total-Count` header (docs/api.md "Lists", which
says why a plain GET is no longer the first page)."""

from dataclasses import dataclass
from typing import TypeVar

from aiohttp import web

from shared.errors import ValidationFailed

T = TypeVar("T")
MAX_PAGE = 200
MAX_OFFSET = 1_000_000
TOTAL_HEADER = "X-Total-Count"


@dataclass(frozen=True)
class Page:
    """`limit` items from `offset`; with no `limit`, every item from `offset`."""

    offset: int = 0
    limit: int | None = None

    def of(self, items: list[T]) -> list[T]:
        end = None if self.limit is None else self.offset + self.limit
        return items[self.offset : end]


EVERY_ITEM = Page()


def page_of(request: web.Request) -> Page:
    if "offset" not in request.query and "limit" not in request.query:
        return EVERY_ITEM
    return Page(
        offset=_number(request, "offset", 0, 0, MAX_OFFSET),
        limit=_number(request, "limit", MAX_PAGE, 1, MAX_PAGE),
    )


def _number(request: web.Request, name: str, default: int, low: int, high: int) -> int:
    raw = request.query.get(name)
    if raw is None:
        return default
    # Leading zeros go and the length is checked before int(), which refuses more than
    # 4,300 digits (a ValueError: it was a 500).
    digits = raw.lstrip("0")
    if not (raw.isascii() and raw.isdigit()) or len(digits) > len(str(high)):
        raise _out_of_range(name, low, high)
    number = int(digits or "0")
    if not low <= number <= high:
        raise _out_of_range(name, low, high)
    return number


def _out_of_range(name: str, low: int, high: int) -> ValidationFailed:
    return ValidationFailed.at((name,), f"Must be a whole number from {low} to {high}.")
