"""/query per second through the gateway with 1, 2 and 3 bot-api replicas behind it, at
the defaults (the semantic stage on) and with SEMANTIC_MATCHING=off, on this machine.

Per setting, the stack of `make scale` (bench/scaled.py) and three nginx gateways in
front of it, rendered from deploy/ as its own is, listing its first 1, 2 and 3 bot-api
replicas (the others idle). The HWU64 story of `make eval` (64 intents, up to 99 phrases
each, its phrase vectors landed on every replica) is asked its 1,076 test messages in
turn by wrk (2 threads, CONNECTIONS connections, SECONDS s, HTTPS), sessions rotating
over 1,000 per thread; each round drives each gateway in turn, ROUNDS rounds after one
warm-up run each, medians. During each run the CPU every part used (/proc; wrk's from
its rusage) is divided by the requests answered: bot-api's is the per-core figure the
provisioning model (docs/scaling.md) stands on, which a busy shared machine moves less
than req/s.
"""

import asyncio
import math
import os
import resource
import statistics
from pathlib import Path

import aiohttp

from bench import eval_nlu, eval_stories
from bench.history_load import cpu_seconds
from bench.query_load import ROUNDS, upload_with, wrk, wrk_script
from bench.report import write_section
from bench.scaled import Scaled, running_scaled
from tools.embedded import free_port
from tools.gateway import NginxGateway, start_gateway

CONNECTIONS = 32
SECONDS = 10
REPLICAS = (1, 2, 3)
TARGETS = (100, 1_000, 10_000)
HEADROOM = 0.6
"""A process runs at most 60 % busy: bursts, and the loss of one replica."""
OPERATIONS_PER_QUERY = 2.0
"""MongoDB operations of a warm /query (the "Capacity figures" section measures it)."""
PARTS = ("bot-api", "nginx", "nx-27017", "NATS", "wrk")
PRIMARY_OPERATIONS = 20_000
"""Assumed (docs/scaling.md): what one MongoDB primary takes of such operations a second."""


def with_children(pid: int) -> tuple[int, ...]:
    """The process and its children (nginx's master and its worker)."""
    children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    return (pid, *map(int, children))


def machine_busy() -> tuple[float, float]:
    """(busy, all) clock ticks of every core since boot (/proc/stat)."""
    fields = [int(f) for f in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = fields[3] + fields[4]
    return sum(fields) - idle, sum(fields)


def parts(scaled: Scaled, gateway: NginxGateway, serving: int) -> dict[str, tuple[int, ...]]:
    """The processes of each part, for their CPU."""
    stack = scaled.stack
    return {
        "bot-api": tuple(s.process.pid for s in stack.bot_apis[:serving]),
        "nginx": with_children(gateway.server.process.pid),
        "nx-27017": (stack.mongo.process.pid,),
        "NATS": tuple(s.process.pid for s in stack.nats.servers),
    }


def measured_run(
    scaled: Scaled, gateway: NginxGateway, serving: int, script: Path
) -> dict[str, float]:
    """One wrk run through `gateway`: its figures, and each part's CPU per request (ms)."""
    pids = parts(scaled, gateway, serving)
    before = {name: cpu_seconds(p) for name, p in pids.items()}
    wrk_before = resource.getrusage(resource.RUSAGE_CHILDREN)
    busy_before, all_before = machine_busy()
    run = wrk(f"https://127.0.0.1:{gateway.https_port}/query", script, CONNECTIONS, SECONDS)
    busy_after, all_after = machine_busy()
    wrk_after = resource.getrusage(resource.RUSAGE_CHILDREN)
    requests = run["rps"] * SECONDS
    used = {name: cpu_seconds(p) - before[name] for name, p in pids.items()}
    used["wrk"] = (wrk_after.ru_utime + wrk_after.ru_stime) - (
        wrk_before.ru_utime + wrk_before.ru_stime
    )
    return {
        **run,
        **{f"cpu {name}": seconds / requests * 1000 for name, seconds in used.items()},
        "busy": (busy_after - busy_before) / (all_after - all_before),
    }


async def hwu64_story(scaled: Scaled) -> tuple[str, list[str]]:
    """The story, its vectors landed on every replica when the semantic stage is on; the
    test messages as wrk sends them."""
    phrases, test = eval_nlu.intents("hwu64_kfold1")
    async with scaled.bot(scaled.tokens.developer_token) as http:
        story_id, _ = await upload_with(
            http, [{"name": i, "userSays": t} for i, t in phrases.items()]
        )
    if scaled.config.semantic_matching:
        headers = {"Authorization": f"Bearer {scaled.tokens.developer_token}"}
        for replica in scaled.stack.bot_apis:
            async with aiohttp.ClientSession(replica.url, headers=headers) as http:
                await eval_stories.vectors_landed(http, story_id)
    return story_id, [text.replace('"', "").replace("\\", "") for text, _ in test]


def gateways(scaled: Scaled) -> dict[int, NginxGateway]:
    """A gateway listing the first n replicas, for each n (the stack's own lists all)."""
    stack = scaled.stack
    made = {
        n: start_gateway(
            scaled.var / f"gateway-{n}",
            scaled.var / "logs" / f"gateway-{n}",
            stack.config,
            stack.bot_apis[:n],
            stack.integrations_apis,
            (free_port(), free_port()),
        )
        for n in REPLICAS
        if n < len(stack.bot_apis)
    }
    return {**made, len(stack.bot_apis): stack.gateway}


def setting_runs(semantic: bool, loads: list[float]) -> dict[int, dict[str, float]]:
    """The medians of each figure for each count of replicas; the machine's load average
    at each round's start into `loads`."""
    name = "capacity-semantic" if semantic else "capacity-lexical"
    with running_scaled(name, semantic_matching=semantic) as scaled:
        story_id, asked = asyncio.run(hwu64_story(scaled))
        fronts = gateways(scaled)
        host = scaled.stack.gateway.bot_host
        runs: dict[int, list[dict[str, float]]] = {n: [] for n in REPLICAS}
        try:
            with wrk_script(asked, scaled.tokens.public_key, story_id, host) as script:
                for gateway in fronts.values():
                    wrk(
                        f"https://127.0.0.1:{gateway.https_port}/query",
                        script,
                        CONNECTIONS,
                        SECONDS,
                    )
                for _ in range(ROUNDS):
                    loads.append(os.getloadavg()[0])
                    for n in REPLICAS:
                        runs[n].append(measured_run(scaled, fronts[n], n, script))
        finally:
            for gateway in fronts.values():
                if gateway is not scaled.stack.gateway:
                    gateway.server.stop()
    return {
        n: {key: statistics.median(r[key] for r in results) for key in results[0]}
        for n, results in runs.items()
    }


def per_core(runs: dict[int, dict[str, float]]) -> float:
    """/query per CPU-second of bot-api: the median over the counts of replicas."""
    return 1000 / statistics.median(m["cpu bot-api"] for m in runs.values())


def provisioning(settings: dict[bool, dict[int, dict[str, float]]]) -> list[str]:
    lines = [
        "| /query per second | bot-api cores, semantic stage on (off) | nginx cores "
        "| MongoDB operations/s | NATS nodes |",
        "|---|---|---|---|---|",
    ]
    on, off = per_core(settings[True]), per_core(settings[False])
    nginx_ms = statistics.median(
        m["cpu nginx"] for runs in settings.values() for m in runs.values()
    )
    for target in TARGETS:
        cores = [max(2, math.ceil(target / (rate * HEADROOM))) for rate in (on, off)]
        nginx = max(1, math.ceil(target * nginx_ms / 1000 / HEADROOM))
        operations = target * OPERATIONS_PER_QUERY
        primaries = math.ceil(operations / (PRIMARY_OPERATIONS * HEADROOM))
        database = "one replica set" if primaries == 1 else f"{primaries} shards"
        lines.append(
            f"| {target:,} | {cores[0]} ({cores[1]}) | {nginx} "
            f"| {operations:,.0f} ({database}) | 3 |"
        )
    return lines


def table() -> str:
    loads: list[float] = []
    settings = {semantic: setting_runs(semantic, loads) for semantic in (True, False)}
    lines = [
        f"wrk through nginx on HTTPS (2 threads, {CONNECTIONS} connections, {SECONDS} s), "
        f"medians of {ROUNDS} rounds run side by side (one warm-up run each first): the "
        "HWU64 story of `make eval` asked its 1,076 test messages in turn, history on, "
        "rate limits off, on the stack of `make scale` with a gateway listing 1, 2 or 3 of "
        "its bot-api replicas. CPU per request of each part from /proc; busy: the share of "
        "the machine's 2 cores in use during the run (every process of the stack, wrk, and "
        "the other work of this shared machine: its load average at each round's start "
        + ", ".join(f"{load:.1f}" for load in loads)
        + ").",
        "",
        "| semantic stage | bot-api replicas | req/s | p50 | p99 | non-2xx | CPU per request: "
        "bot-api, nginx, nx-27017, NATS, wrk (ms) | machine busy |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for semantic, runs in settings.items():
        for n, m in runs.items():
            cpu = ", ".join(f"{m[f'cpu {part}']:.2f}" for part in PARTS)
            lines.append(
                f"| {'on (default)' if semantic else 'off'} | {n} | {m['rps']:.0f} "
                f"| {m['p50']:.1f} ms | {m['p99']:.1f} ms | {m['errors']:.0f} | {cpu} "
                f"| {m['busy']:.0%} |"
            )
    for semantic, runs in settings.items():
        one = runs[1]
        cores = {part: one["rps"] * one[f"cpu {part}"] / 1000 for part in PARTS}
        lines += [
            "",
            f"Semantic stage {'on' if semantic else 'off'}: 2 replicas give "
            f"**{runs[2]['rps'] / one['rps']:.2f} ×** the req/s of one, 3 give "
            f"**{runs[3]['rps'] / one['rps']:.2f} ×**; /query per CPU-second of bot-api "
            f"**{per_core(runs):,.0f}**. With one replica the machine was already "
            f"{one['busy']:.0%} busy, of which "
            + ", ".join(f"{part} {used:.2f}" for part, used in cores.items())
            + " cores.",
        ]
    lines += [
        "",
        f"Provisioning (docs/scaling.md): bot-api cores = ⌈ target ÷ (/query per CPU-second "
        f"× {HEADROOM:g}) ⌉, at least 2; nginx cores the same from its CPU per request; "
        f"MongoDB {OPERATIONS_PER_QUERY:g} operations per /query against "
        f"{PRIMARY_OPERATIONS:,} a second per primary (assumed), as busy; NATS carries no "
        "/query (docs/scaling.md).",
        "",
        *provisioning(settings),
    ]
    return "\n".join(lines)


TITLE = "Capacity with 1, 2 and 3 bot-api replicas behind the gateway (make bench)"


def main() -> None:
    body = table()
    write_section("scale-capacity", TITLE, body)
    print(body)


if __name__ == "__main__":
    main()
