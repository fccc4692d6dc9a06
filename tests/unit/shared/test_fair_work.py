import asyncio
import threading
from collections.abc import Callable, Iterator

import pytest

from shared.fair_work import FairWork, WorkCancelled, checkpoint
from tests.support.held_jobs import WAIT, held, until


@pytest.fixture
def work() -> Iterator[Callable[..., FairWork]]:
    made: list[FairWork] = []

    def make(
        threads: int, per_tenant: int = 1, clock: Callable[[], float] | None = None
    ) -> FairWork:
        fair = FairWork(threads, "test", per_tenant, *(() if clock is None else (clock,)))
        made.append(fair)
        return fair

    yield make
    for fair in made:
        fair.close()


async def test_a_tenant_with_many_jobs_lets_another_tenant_in_next(
    work: Callable[..., FairWork],
) -> None:
    fair = work(threads=1)
    started: list[str] = []
    release = {name: threading.Event() for name in ("a1", "a2", "a3", "b1")}
    a_jobs = [
        asyncio.create_task(fair.run("a", held(started, name, release[name])))
        for name in ("a1", "a2", "a3")
    ]
    await until(lambda: started == ["a1"])
    b_job = asyncio.create_task(fair.run("b", held(started, "b1", release["b1"])))
    await until(lambda: fair.waiting() == 3)
    release["a1"].set()
    await until(lambda: len(started) == 2)
    assert started == ["a1", "b1"]
    for event in release.values():
        event.set()
    assert await asyncio.gather(*a_jobs, b_job) == ["a1", "a2", "a3", "b1"]
    assert started == ["a1", "b1", "a2", "a3"]


async def test_one_tenant_holds_at_most_its_share_of_the_threads(
    work: Callable[..., FairWork],
) -> None:
    fair = work(threads=2, per_tenant=1)
    started: list[str] = []
    release = threading.Event()
    a_jobs = [asyncio.create_task(fair.run("a", held(started, n, release))) for n in ("a1", "a2")]
    await until(lambda: started == ["a1"])
    b_job = asyncio.create_task(fair.run("b", held(started, "b1", release)))
    await until(lambda: started == ["a1", "b1"])
    assert fair.waiting() == 1
    release.set()
    await asyncio.gather(*a_jobs, b_job)
    assert started == ["a1", "b1", "a2"]


async def test_a_job_whose_caller_stops_waiting_never_starts(work: Callable[..., FairWork]) -> None:
    fair = work(threads=1)
    started: list[str] = []
    release = threading.Event()
    first = asyncio.create_task(fair.run("a", held(started, "first", release)))
    await until(lambda: started == ["first"])
    dropped = asyncio.create_task(fair.run("b", held(started, "dropped", release)))
    await until(lambda: fair.waiting() == 1)
    dropped.cancel()
    with pytest.raises(asyncio.CancelledError):
        await dropped
    assert fair.waiting() == 0
    release.set()
    assert await first == "first"
    assert await fair.run("c", lambda: "next") == "next"
    assert started == ["first"]


class LongJob:
    """A job of a million steps of a millisecond, with a checkpoint after each."""

    STEPS = 1_000_000

    def __init__(self) -> None:
        self.steps: list[int] = []
        self.stopped = threading.Event()
        self.outcome: list[BaseException] = []

    def __call__(self) -> None:
        try:
            for step in range(self.STEPS):
                self.steps.append(step)
                checkpoint()
                threading.Event().wait(0.001)
        except WorkCancelled as error:
            self.outcome.append(error)
            raise
        finally:
            self.stopped.set()


async def test_a_running_job_stops_at_its_checkpoint_once_its_caller_stops_waiting(
    work: Callable[..., FairWork],
) -> None:
    fair = work(threads=1)
    long = LongJob()
    job = asyncio.create_task(fair.run("a", long))
    await until(lambda: len(long.steps) > 2)
    job.cancel()
    with pytest.raises(asyncio.CancelledError):
        await job
    assert await asyncio.to_thread(long.stopped.wait, WAIT)
    assert len(long.outcome) == 1 and len(long.steps) < long.STEPS


async def test_a_job_past_its_time_limit_stops_at_its_checkpoint(
    work: Callable[..., FairWork],
) -> None:
    now = [100.0]
    fair = work(threads=1, clock=lambda: now[0])
    steps: list[int] = []

    def job() -> str:
        for step in range(5):
            steps.append(step)
            if step == 2:
                now[0] += 31.0
            checkpoint()
        return "finished"

    with pytest.raises(WorkCancelled, match="time limit"):
        await fair.run("a", job, limit=30.0)
    assert steps == [0, 1, 2]
    assert await fair.run("a", job, limit=60.0) == "finished"


async def test_an_error_reaches_the_caller_and_frees_the_thread(
    work: Callable[..., FairWork],
) -> None:
    fair = work(threads=1)

    def failing() -> None:
        raise ValueError("bad input")

    with pytest.raises(ValueError, match="bad input"):
        await fair.run("a", failing)
    assert await fair.run("a", lambda: 7) == 7


def test_checkpoint_outside_a_job_does_nothing() -> None:
    checkpoint()


async def test_closing_tells_the_job_under_way_to_stop(work: Callable[..., FairWork]) -> None:
    fair = work(threads=1)
    long = LongJob()
    job = asyncio.create_task(fair.run("a", long))
    await until(lambda: len(long.steps) > 2)
    fair.close()
    assert await asyncio.to_thread(long.stopped.wait, WAIT)
    assert len(long.outcome) == 1 and len(long.steps) < long.STEPS
    with pytest.raises(WorkCancelled):
        await job
