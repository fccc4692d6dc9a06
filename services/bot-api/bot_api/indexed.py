"""What every repository offers: the indexes it needs, made at start-up."""

from typing import Protocol


class Indexed(Protocol):
    async def ensure_indexes(self) -> None: ...
