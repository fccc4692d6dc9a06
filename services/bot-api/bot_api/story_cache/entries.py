"""What the story cache (story_cache/cache.py) keeps of each story while it loads and once
compiled, and the waits of a story's first queries: for its first compiled chunk, and
for its semantic stage when its stored vectors can be read meanwhile."""

import asyncio
from dataclasses import dataclass, field

from bot_api.engine.story import CompiledStory
from bot_api.story_cache.compiler import Compiling, Marks

SEMANTIC_WAIT_SECONDS = 1.0
"""How long the query that compiled a story waits for its semantic stage before it is
answered lexically: the stored vectors are read at about `VECTORS_READ_PER_SECOND`, so
a story of up to ~10,000 phrases is answered with them from its first query."""
VECTORS_READ_PER_SECOND = 12_000
"""Stored phrase vectors read from the embedded server (88,450 in 6 to 8 s): a story with
more phrases than are read in `SEMANTIC_WAIT_SECONDS` is answered lexically at once, as
the wait would not see its stage (its first query took 1.7 s instead of 0.7, 1,000 ×
99)."""
SEMANTIC_RETRY_SECONDS = 5.0
"""A semantic stage whose vectors could not be read is tried again this much later."""


@dataclass
class Loading:
    task: "asyncio.Task[Entry]"
    progress: Compiling


@dataclass
class Entry:
    story: CompiledStory
    size: int
    """The compiled story's estimated bytes (CompiledStory.size_estimate)."""
    marks: Marks = field(default_factory=Marks)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    """Held while changes are taken in or the semantic stage is added."""
    refreshing: bool = False
    """Changes are being taken in: a query arriving then waits, since the marks it would
    see are already taken (else it would be answered by the story from before)."""
    semantic: "asyncio.Task[None] | None" = None
    """Adding the story's semantic stage, while it runs: refreshes meanwhile leave the
    phrase vectors to it."""
    vectors_due: set[str] = field(default_factory=set)
    """Interactions whose vectors landed while the semantic stage was being added."""


async def first_chunk(loading: Loading) -> None:
    """Wait until a chunk of the story is compiled, or the whole (the request's
    budget cuts the wait: a compile still reading the story's interactions then)."""
    begun = asyncio.ensure_future(loading.progress.begun.wait())
    try:
        await asyncio.wait([loading.task, begun], return_when=asyncio.FIRST_COMPLETED)
    finally:
        begun.cancel()


async def semantic_stage(entry: Entry) -> None:
    """Wait for the semantic stage of a story just compiled, if its stored vectors can be
    read within `SEMANTIC_WAIT_SECONDS`: its first query is then answered with it."""
    if entry.semantic is not None and read_within_the_wait(entry.story):
        await asyncio.wait([entry.semantic], timeout=SEMANTIC_WAIT_SECONDS)


def read_within_the_wait(story: CompiledStory) -> bool:
    """Whether the story's stored phrase vectors can be read while its first query waits."""
    phrases = sum(i.phrase_count for i in story.interactions.values())
    return phrases <= VECTORS_READ_PER_SECOND * SEMANTIC_WAIT_SECONDS
