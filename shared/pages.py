"""List endpoints answer a page: `?limit=` (1 to MAX_PAGE, MAX_PAGE when absent) items
from `?offset=` (0 when absent), and the number of items in all pages in the
`X-Total-Count` header, so no list answer grows with what an account holds."""

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
    offset: int = 0
    limit: int = MAX_PAGE

    def of(self, items: list[T]) -> list[T]:
        return items[self.offset : self.offset + self.limit]


def page_of(request: web.Request) -> Page:
    return Page(
        offset=_number(request, "offset", 0, 0, MAX_OFFSET),
        limit=_number(request, "limit", MAX_PAGE, 1, MAX_PAGE),
    )


def _number(request: web.Request, name: str, default: int, low: int, high: int) -> int:
    raw = request.query.get(name)
    if raw is None:
        return default
    if not (raw.isascii() and raw.isdigit()) or not low <= int(raw) <= high:
        raise ValidationFailed.at((name,), f"Must be a whole number from {low} to {high}.")
    return int(raw)
