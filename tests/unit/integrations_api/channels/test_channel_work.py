"""channels/work.py: the background work is bounded per channel and per account, one
channel's hung sends never hold another channel's messages, one conversation's messages
run in order, and nothing is kept once the work is done."""

import asyncio

from prometheus_client import REGISTRY, generate_latest

from integrations_api.channels import work
from integrations_api.channels.work import (
    ACCOUNT_BACKLOG,
    ACCOUNT_RUNNING,
    CHANNEL_BACKLOG,
    CHANNEL_RUNNING,
    Work,
)
from support.metrics import sample
from support.waiting import eventually


def dropped() -> float:
    return sample(
        generate_latest(REGISTRY).decode(), "parley_channel_messages_dropped_total", type="telegram"
    )


async def test_a_full_channel_drops_and_counts_what_comes_next() -> None:
    queue = Work()
    release = asyncio.Event()

    async def held(turn_slot: asyncio.Semaphore) -> None:
        await release.wait()

    before = dropped()
    taken = [
        queue.submit("a", "c1", "telegram", f"chat{n}", held) for n in range(CHANNEL_BACKLOG + 2)
    ]
    assert taken == [True] * CHANNEL_BACKLOG + [False, False]
    assert dropped() == before + 2
    assert queue.submit("a", "c2", "telegram", "chat", held)  # another channel still has room
    release.set()
    await queue.close()


async def test_an_account_s_channels_share_its_backlog_and_its_turn_slots() -> None:
    queue = Work()
    release = asyncio.Event()
    running = 0
    most = 0

    async def held(turn_slot: asyncio.Semaphore) -> None:
        nonlocal running, most
        async with turn_slot:
            running += 1
            most = max(most, running)
            await release.wait()
            running -= 1

    channels = ACCOUNT_BACKLOG // CHANNEL_BACKLOG + 1
    taken = [
        queue.submit("a", f"c{c}", "telegram", f"chat{n}", held)
        for c in range(channels)
        for n in range(CHANNEL_BACKLOG)
    ]
    assert taken.count(True) == ACCOUNT_BACKLOG
    assert queue.submit("b", "other", "telegram", "chat", held)
    await eventually(lambda: _now(running == ACCOUNT_RUNNING + 1))
    for _ in range(10):
        await asyncio.sleep(0)  # room for any more to start: none may
    assert most == ACCOUNT_RUNNING + 1  # the account's eight, and the other account's one
    release.set()
    await queue.close()


async def _now(value: bool) -> bool:
    return value


async def test_a_channel_whose_platform_hangs_never_holds_another_channel_s_messages() -> None:
    """Each of the hanging channel's messages asks its turn, then hangs in its send."""
    queue = Work()
    outage = asyncio.Event()
    turns: list[str] = []
    answered = asyncio.Event()

    def message(channel: str) -> work.Job:
        async def run(turn_slot: asyncio.Semaphore) -> None:
            async with turn_slot:
                turns.append(channel)
            if channel == "healthy":
                answered.set()
            else:
                await outage.wait()

        return run

    for n in range(CHANNEL_RUNNING + ACCOUNT_RUNNING + 5):
        assert queue.submit("a", "down", "slack", f"user{n}", message("down"))
    await eventually(lambda: _now(turns.count("down") == CHANNEL_RUNNING))
    assert queue.submit("a", "healthy", "telegram", "user", message("healthy"))
    await asyncio.wait_for(answered.wait(), 5)
    assert turns.count("down") == CHANNEL_RUNNING  # the rest wait for their own channel
    outage.set()
    await queue.close()


async def test_one_conversation_is_answered_in_order_and_then_forgotten() -> None:
    queue = Work()
    done: list[int] = []
    finished = asyncio.Event()

    def job(n: int, pause: float) -> work.Job:
        async def run(turn_slot: asyncio.Semaphore) -> None:
            await asyncio.sleep(pause)
            done.append(n)
            if len(done) == 3:
                finished.set()

        return run

    for n, pause in enumerate((0.05, 0.0, 0.01)):
        assert queue.submit("a", "c1", "telegram", "chat", job(n, pause))
    await asyncio.wait_for(finished.wait(), 2)
    await asyncio.sleep(0)
    assert done == [0, 1, 2]
    assert (
        queue._channels,
        queue._accounts,
        queue._running,
        queue._turns,
        queue._conversations,
    ) == ({}, {}, {}, {}, {})
    await queue.close()


async def test_a_failing_job_is_logged_and_frees_its_place() -> None:
    queue = Work()
    finished = asyncio.Event()

    async def failing(turn_slot: asyncio.Semaphore) -> None:
        finished.set()
        raise RuntimeError("platform down")

    assert queue.submit("a", "c1", "telegram", "chat", failing)
    await asyncio.wait_for(finished.wait(), 2)
    await asyncio.sleep(0)
    assert queue._channels == {}
    await queue.close()
