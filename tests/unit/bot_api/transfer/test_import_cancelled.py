"""An import is long work shared fairly between accounts (shared/fair_work.py): each
importer checks between its steps whether its request still waits and its time is not
up, so one that is cancelled frees its thread soon (issue 29: a million-item YAML held
the one transfer thread for 23 minutes; such a list is now refused before parsing, and an
upload within the bounds can still take seconds)."""

import asyncio
import functools
import threading
from collections.abc import AsyncIterator, Callable

import pytest

from bench.fair_work import SLOW_IMPORT
from bot_api.transfer.schemas import read_upload
from bot_api.transfer.sources import JSON, YAML, ZIP
from shared.fair_work import FairWork, WorkCancelled
from support.samples import SAMPLE_BOTS, zipped

FREED_SECONDS = 1.0
"""How soon a cancelled import's thread takes the next job: within 5 ms of the cancel
here (its next step); without the checks it ran on for the rest of its 6 s."""
WAIT = 10.0


@pytest.fixture
async def one_thread() -> AsyncIterator[FairWork]:
    fair = FairWork(1, "test")
    yield fair
    fair.close()


async def test_a_cancelled_import_frees_its_thread_soon(one_thread: FairWork) -> None:
    started = threading.Event()

    def slow_import() -> object:
        started.set()
        return read_upload(JSON, SLOW_IMPORT)

    importing = asyncio.create_task(one_thread.run("a", slow_import))
    assert await asyncio.to_thread(started.wait, WAIT)
    importing.cancel()
    with pytest.raises(asyncio.CancelledError):
        await importing
    async with asyncio.timeout(FREED_SECONDS):
        assert await one_thread.run("b", lambda: "next") == "next"


def stepping_clock() -> Callable[[], float]:
    """A clock that moves a second each time it is read: a job given a limit of n
    seconds stops at about its n-th checkpoint."""
    now = [0.0]

    def read() -> float:
        now[0] += 1.0
        return now[0]

    return read


STORY_DOCUMENT = "format: parley.story\nversion: 1\nname: Hours\ninteractions:\n" + "".join(
    f"- {{key: k{n}, name: I{n}, userSays: [hello {n}]}}\n" for n in range(5)
)
UPLOADS = {
    "dialogflow": (ZIP, SAMPLE_BOTS["bike-shop"]),
    "rasa": (ZIP, SAMPLE_BOTS["helpdesk-assistant"]),
    "story document": (YAML, None),
}


@pytest.mark.parametrize("source", sorted(UPLOADS))
async def test_each_importer_stops_at_its_steps_once_past_its_limit(source: str) -> None:
    media_type, folder = UPLOADS[source]
    data = STORY_DOCUMENT.encode() if folder is None else zipped(folder)
    fair = FairWork(1, "test", clock=stepping_clock())
    read = functools.partial(read_upload, media_type, data)
    try:
        with pytest.raises(WorkCancelled, match="time limit"):
            await fair.run("a", read, limit=20)
        imported = await fair.run("a", read, limit=1e9)
    finally:
        fair.close()
    assert imported.interactions
