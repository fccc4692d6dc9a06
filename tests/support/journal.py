"""The journal the in-memory twins of bot-api's repositories write every call to, so a
test can say what was read and written, in which order; `meanwhile` makes something
happen in the middle of a call, as another writer (or a failing database) would.
`support.memory.Database` is this journal with the twins that write to it; the journal
is a module of its own so that the twins, which `Database` imports, import it without a
cycle.
"""

from collections.abc import Awaitable, Callable, Iterable
from typing import Any

Call = tuple[Any, ...]
"""The operation ("stories.get") followed by the ids it was given."""
Action = Callable[[], Awaitable[None]]


class Journal:
    def __init__(self) -> None:
        self.journal: list[Call] = []
        self._meanwhile: dict[str, list[Action]] = {}

    def meanwhile(self, operation: str, action: Action, times: int = 1) -> None:
        """Run `action` at the start of each of the next `times` calls of `operation`
        (say "stories.update"), before the call looks at the data: what another writer
        does between the caller's read and its write. An action that raises makes the
        call fail."""
        self._meanwhile.setdefault(operation, []).extend([action] * times)

    def operations(self) -> list[str]:
        return [call[0] for call in self.journal]

    async def record(self, operation: str, *ids: Any) -> None:
        self.journal.append((operation, *ids))
        pending = self._meanwhile.get(operation)
        if pending:
            await pending.pop(0)()


def sorted_ids(ids: Iterable[str]) -> tuple[str, ...]:
    return tuple(sorted(ids))


class InMemory:
    def __init__(self, database: Journal) -> None:
        self._database = database

    async def ensure_indexes(self) -> None:
        """Nothing to index in memory."""
