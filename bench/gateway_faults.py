"""/query through the gateway of the scaled stack (bench/scaled.py) while a fault strikes,
each under the bench's own bounded load: CONCURRENCY clients, each sending /query on a
fresh session after its last answer, for at most REQUESTS requests and the load's
seconds, every request noted (its status, 0 when no HTTP answer came, and its time):

- one of the three bot-api replicas killed (SIGKILL) KILL_AT seconds in: the /query that
  failed as the clients saw it, p99 before and during the kill (goals: none failed, p99
  during ≤ 3 × before), and what nginx did about the victim, from its log: a connection
  refused is passed to the next replica (the request reached none), and so is a /query
  the victim had in hand (`non_idempotent` for /query alone: its turn is keyed by the
  request's `Parley-Turn-Id`, bot_api/query/repeats.py, so it is answered once);
- nx-27017 frozen (SIGSTOP) for FREEZE_SECONDS, then thawed (SIGCONT), as
  tests/integration/test_database_stall.py freezes it: what the clients saw (200, or 503
  within the request budget).

Afterwards, the history's turns by session and text: a 200 whose turn is not there is a
turn lost, a session with two turns a duplicate. Both run with the semantic stage on
(the default) and off, on a stack started afresh for each.
`python -m bench.gateway_faults`; make bench writes its section.
"""

import asyncio
import itertools
import os
import signal
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import aiohttp

from bench.query_load import upload_with
from bench.report import write_section
from bench.scaled import Scaled, history_turns, running_scaled
from bench.synthetic import queries, story_interactions
from tools.embedded import ServerProcess

CONCURRENCY = 16
REQUESTS = 20_000
WARM_UP_SECONDS = 1.0
"""The first second of each load is left out of the latencies (connections opening)."""
KILL_AT = 8.0
KILL_LOAD_SECONDS = 16.0
FREEZE_AT = 4.0
FREEZE_SECONDS = 10.0
FREEZE_LOAD_SECONDS = 24.0
ANSWER_SECONDS = 60.0
"""A client's bound on one answer: above nginx's proxy_read_timeout (30 s)."""
HISTORY_SECONDS = 30.0
"""The longest wait for the history to settle (it is written in batches, 2 s apart)."""
INTERACTIONS = 30


@dataclass(frozen=True)
class Asked:
    session: str
    text: str
    at: float
    """Seconds from the start of the load to the request."""
    seconds: float
    status: int


Fault = tuple[float, Callable[[], None]]
"""What to do, and when (seconds into the load)."""


async def bounded_load(
    scaled: Scaled, story_id: str, tag: str, seconds: float, faults: list[Fault]
) -> list[Asked]:
    texts = [q.replace('"', "") for q in queries(story_interactions(INTERACTIONS), 300)]
    numbers = itertools.count()
    asked: list[Asked] = []
    timeout = aiohttp.ClientTimeout(total=ANSWER_SECONDS)
    loop = asyncio.get_running_loop()
    async with scaled.bot(scaled.tokens.public_key, CONCURRENCY) as http:

        async def client() -> None:
            while (at := loop.time() - began) < seconds and (number := next(numbers)) < REQUESTS:
                session, text = f"{tag}-{number}", texts[number % len(texts)]
                body = {"sessionId": session, "storyId": story_id, "query": text}
                try:
                    async with http.post("/query", json=body, timeout=timeout) as reply:
                        await reply.read()
                        status = reply.status
                except (aiohttp.ClientError, TimeoutError):
                    status = 0
                asked.append(Asked(session, text, at, loop.time() - began - at, status))

        began = loop.time()
        for delay, action in faults:
            loop.call_later(delay, action)
        await asyncio.gather(*(client() for _ in range(CONCURRENCY)))
    return asked


async def settled_history(scaled: Scaled, story_id: str) -> Counter[tuple[str, str]]:
    """The story's turns once three reads a second apart find the same count."""
    seen: list[int] = []
    deadline = asyncio.get_running_loop().time() + HISTORY_SECONDS
    while True:
        turns = await asyncio.to_thread(history_turns, scaled.config, story_id)
        seen.append(turns.total())
        if seen[-3:] == [seen[-1]] * 3 or asyncio.get_running_loop().time() > deadline:
            return turns
        await asyncio.sleep(1)


@dataclass(frozen=True)
class Ledger:
    """What the history holds of the requests of one load."""

    lost: int
    """Answered 200, no turn in the history."""
    doubled: int
    """Sessions (each asked once) with more than one turn."""
    failed_with_turn: int
    """Not answered 200, and yet a turn in the history."""


def ledger(asked: list[Asked], turns: Counter[tuple[str, str]]) -> Ledger:
    return Ledger(
        lost=sum(1 for a in asked if a.status == 200 and turns[(a.session, a.text)] == 0),
        doubled=sum(1 for a in asked if turns[(a.session, a.text)] > 1),
        failed_with_turn=sum(1 for a in asked if a.status != 200 and turns[(a.session, a.text)]),
    )


def p99(asked: list[Asked], start: float, end: float) -> float:
    seconds = sorted(a.seconds for a in asked if start <= a.at < end)
    return seconds[int(len(seconds) * 0.99)] * 1000 if seconds else float("nan")


def statuses(asked: list[Asked]) -> str:
    counted = Counter(a.status for a in asked)
    return ", ".join(
        f"{n} × {'no answer' if status == 0 else status}" for status, n in sorted(counted.items())
    )


def about_upstream(log: Path, offset: int, upstream: ServerProcess) -> tuple[int, int]:
    """From nginx's log past `offset`: (connections to `upstream` refused; other errors on
    a request it had in hand); nginx passes both to the next replica."""
    said = log.read_bytes()[offset:].decode(errors="replace").splitlines()
    errors = [line for line in said if "[error]" in line and f"127.0.0.1:{upstream.port}" in line]
    refused = sum("connect() failed (111: Connection refused)" in line for line in errors)
    return refused, len(errors) - refused


async def story(scaled: Scaled) -> str:
    """A story of generated interactions, compiled on every replica."""
    async with scaled.bot(scaled.tokens.developer_token) as http:
        story_id, _ = await upload_with(http, story_interactions(INTERACTIONS))
    async with aiohttp.ClientSession() as http:
        for replica in scaled.stack.bot_apis:
            body = {"sessionId": "warm", "storyId": story_id, "query": "hello"}
            headers = {"Authorization": f"Bearer {scaled.tokens.public_key}"}
            async with http.post(f"{replica.url}/query", json=body, headers=headers) as reply:
                assert reply.status == 200, await reply.text()
    return story_id


async def replica_killed(scaled: Scaled, story_id: str, victim: ServerProcess) -> list[str]:
    log = scaled.stack.gateway.server.log_path
    offset = log.stat().st_size
    kill = (KILL_AT, lambda: os.kill(victim.process.pid, signal.SIGKILL))
    asked = await bounded_load(scaled, story_id, "killed", KILL_LOAD_SECONDS, [kill])
    refused, cut = about_upstream(log, offset, victim)
    history = await settled_history(scaled, story_id)
    counted = ledger(asked, history)
    before = p99(asked, WARM_UP_SECONDS, KILL_AT)
    during = p99(asked, KILL_AT, KILL_LOAD_SECONDS)
    failed = [a for a in asked if a.status != 200]
    lost = sorted(a.at for a in asked if a.status == 200 and not history[(a.session, a.text)])
    lost_when = f" (sent {lost[0]:.1f} to {lost[-1]:.1f} s in)" if lost else ""
    return [
        f"| one of 3 bot-api replicas killed (SIGKILL) {KILL_AT:g} s into "
        f"{KILL_LOAD_SECONDS:g} s of load | {len(asked)} /query: {statuses(asked)}; "
        f"**{len(failed)} failed** as the clients saw them (goal 0); nginx's log names "
        f"{cut} requests cut on the victim |",
        f"| p99 before the kill / during it (goal ≤ 3 ×) | {before:.0f} ms / {during:.0f} ms "
        f"(**{during / before:.1f} ×**) |",
        f"| what nginx did about the victim (its log) | {refused} connections refused, each "
        f"request passed to the next replica (it reached none); {cut} /query the victim "
        "had in hand cut, each passed to the next replica too, keyed by its "
        "`Parley-Turn-Id` |",
        f"| the history afterwards | {counted.lost} answered turns missing{lost_when}: the "
        f"victim's batch not yet written; {counted.doubled} sessions with two turns, "
        f"{counted.failed_with_turn} failed requests with a turn |",
    ]


async def database_frozen(scaled: Scaled, story_id: str) -> list[str]:
    pid = scaled.stack.mongo.process.pid
    freeze = (FREEZE_AT, lambda: os.kill(pid, signal.SIGSTOP))
    thaw = (FREEZE_AT + FREEZE_SECONDS, lambda: os.kill(pid, signal.SIGCONT))
    try:
        asked = await bounded_load(scaled, story_id, "frozen", FREEZE_LOAD_SECONDS, [freeze, thaw])
    finally:
        os.kill(pid, signal.SIGCONT)
    counted = ledger(asked, await settled_history(scaled, story_id))
    thawed = FREEZE_AT + FREEZE_SECONDS
    windows = {
        "before": [a for a in asked if a.at < FREEZE_AT],
        "during": [a for a in asked if FREEZE_AT <= a.at < thawed],
        "after": [a for a in asked if a.at >= thawed],
    }
    slowest = max(a.seconds for a in windows["during"]) if windows["during"] else 0.0
    return [
        f"| nx-27017 frozen (SIGSTOP) {FREEZE_SECONDS:g} s, {FREEZE_AT:g} s into "
        f"{FREEZE_LOAD_SECONDS:g} s of load | "
        + "; ".join(f"sent {name}: {statuses(w) or 'none'}" for name, w in windows.items())
        + f"; the slowest sent during it answered in {slowest:.1f} s |",
        f"| the history afterwards | {counted.lost} answered turns missing, "
        f"{counted.doubled} sessions with two turns, {counted.failed_with_turn} refused "
        "requests with a turn |",
    ]


def table() -> str:
    load = os.getloadavg()[0]
    rows = []
    for semantic in (True, False):
        stage = "on (the default)" if semantic else "off"
        name = f"gateway-faults-{'on' if semantic else 'off'}"
        with running_scaled(name, semantic_matching=semantic) as scaled:
            story_id = asyncio.run(story(scaled))
            victim = scaled.stack.bot_apis[0]
            measured = asyncio.run(replica_killed(scaled, story_id, victim))
            victim.process.wait()
            scaled.stack.start_again(victim.name)  # children start from the main thread
            measured += asyncio.run(database_frozen(scaled, story_id))
        rows += [f"| {stage} {row}" for row in measured]
    lines = [
        f"The scaled stack of `make scale` (3 bot-api, 2 integrations-api, 3 NATS nodes, "
        "nx-27017, nginx; rate limits off), started afresh for each setting of the "
        "semantic stage, /query through the "
        f"gateway on HTTPS: {CONCURRENCY} clients each sending the next /query (a fresh "
        f"session, a reworded phrase of a {INTERACTIONS}-interaction story) once answered, "
        f"at most {REQUESTS:,} requests. The bench's clients, nginx and every process share "
        "the machine's 2 cores, which other work shared too (its load average was "
        f"{load:.1f} as the bench began).",
        "",
        "| Semantic stage | Fault | Measured |",
        "|---|---|---|",
        *rows,
    ]
    return "\n".join(lines)


TITLE = "/query through the gateway under faults (make bench)"


def main() -> None:
    body = table()
    write_section("gateway-faults", TITLE, body)
    print(body)


if __name__ == "__main__":
    main()
