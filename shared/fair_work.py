"""Blocking work (compiling, importing, running tests, heavy reads) shared fairly between
tenants, off the event loop.

Each tenant's jobs wait in a queue of their own. A free thread takes the next job of the
tenant served least recently (a tenant new to the queue first), and at most
`per_tenant` jobs of one tenant run at once: a tenant that sends many jobs, or one long
job, holds at most its share of the threads, and another tenant's job starts as soon as a
thread is free. Long work is cut into jobs (or checks `checkpoint()` between steps), so a
thread is free again soon.

A job is cancelled when its caller stops waiting (a request past its budget): one that has
not started is dropped; one that runs stops at its next `checkpoint()`, which raises
`WorkCancelled`, as it does past the job's own time limit. A thread cannot be stopped from
outside, so work that never checks runs to its end: what it is given must be bounded.
"""

import asyncio
import contextlib
import itertools
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

T = TypeVar("T")


class WorkCancelled(TimeoutError):
    """A job's caller stopped waiting, or the job ran past its time limit: a timeout, so
    a request whose job ran past its limit answers as one past its budget (a 503,
    shared/budget.py)."""


@dataclass(eq=False)
class _Job(Generic[T]):
    tenant: str
    work: Callable[[], T]
    done: "Future[T]"
    limit: float | None
    cancelled: threading.Event = field(default_factory=threading.Event)
    deadline: float | None = None

    clock: Callable[[], float] = time.monotonic

    def check(self) -> None:
        if self.cancelled.is_set():
            raise WorkCancelled("the caller stopped waiting")
        if self.deadline is not None and self.clock() > self.deadline:
            raise WorkCancelled("the work ran past its time limit")


_running = threading.local()


def checkpoint() -> None:
    """Raise `WorkCancelled` if the job running in this thread is cancelled or past its
    time limit; outside a job, nothing."""
    job: _Job[Any] | None = getattr(_running, "job", None)
    if job is not None:
        job.check()


class FairWork:
    def __init__(
        self,
        threads: int,
        name: str,
        per_tenant: int = 1,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix=name)
        self._threads = threads
        self._per_tenant = per_tenant
        self._clock = clock
        self._lock = threading.Lock()
        self._waiting: dict[str, deque[_Job[Any]]] = {}
        self._served: dict[str, int] = {}
        self._turns = itertools.count()
        self._under_way: set[_Job[Any]] = set()

    def close(self) -> None:
        """Drop what waits and stop the threads; a job under way is told to stop (at its
        next checkpoint)."""
        with self._lock:
            for jobs in self._waiting.values():
                for job in jobs:
                    job.done.cancel()
            self._waiting.clear()
            for job in self._under_way:
                job.cancelled.set()
        self._pool.shutdown(wait=False, cancel_futures=True)

    async def run(self, tenant: str, work: Callable[[], T], limit: float | None = None) -> T:
        """`work`'s value, computed in a thread when the tenant's turn comes; `limit`:
        seconds it may run once started (then its `checkpoint()` raises)."""
        job: _Job[T] = _Job(tenant, work, Future(), limit, clock=self._clock)
        with self._lock:
            self._waiting.setdefault(tenant, deque()).append(job)
        self._start_next()
        try:
            return await asyncio.wrap_future(job.done)
        except asyncio.CancelledError:
            job.cancelled.set()
            with self._lock:
                queue = self._waiting.get(tenant)
                if queue is not None and job in queue:
                    queue.remove(job)
                    if not queue:
                        del self._waiting[tenant]
                        if not self._under_way_of(tenant):
                            self._served.pop(tenant, None)
            raise

    def waiting(self) -> int:
        """Jobs queued and not started, every tenant's."""
        with self._lock:
            return sum(len(jobs) for jobs in self._waiting.values())

    def running(self) -> int:
        """Jobs given a thread and not ended, every tenant's (a cancelled one runs to
        its next checkpoint)."""
        with self._lock:
            return len(self._under_way)

    def _under_way_of(self, tenant: str) -> int:
        """The tenant's jobs under way (a few at most: one per thread)."""
        return sum(1 for job in self._under_way if job.tenant == tenant)

    def _start_next(self) -> None:
        with self._lock:
            while len(self._under_way) < self._threads:
                job = self._next_job()
                if job is None:
                    return
                self._under_way.add(job)
                self._pool.submit(self._run, job)

    def _next_job(self) -> "_Job[Any] | None":
        """The first waiting job of the tenant served least recently (a newcomer first)
        that has a thread to spare."""
        ready = [t for t in self._waiting if self._under_way_of(t) < self._per_tenant]
        if not ready:
            return None
        tenant = min(ready, key=lambda t: self._served.get(t, -1))
        self._served[tenant] = next(self._turns)
        jobs = self._waiting[tenant]
        job = jobs.popleft()
        if not jobs:
            del self._waiting[tenant]
        return job

    def _run(self, job: "_Job[Any]") -> None:
        try:
            if job.done.set_running_or_notify_cancel():
                if job.limit is not None:
                    job.deadline = self._clock() + job.limit
                with _current(job):
                    try:
                        job.check()
                        job.done.set_result(job.work())
                    except BaseException as error:  # handed to the waiting caller
                        job.done.set_exception(error)
        finally:
            with self._lock:
                self._under_way.discard(job)
                if not self._under_way_of(job.tenant) and job.tenant not in self._waiting:
                    self._served.pop(job.tenant, None)
            self._start_next()


@contextlib.contextmanager
def _current(job: "_Job[Any]") -> Iterator[None]:
    _running.job = job
    try:
        yield
    finally:
        _running.job = None
