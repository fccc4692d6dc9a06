"""The figures docs/scaling.md's capacity model stands on, and the model itself.

- /query per CPU-second of bot-api: wrk drives /query (150 × 99 story) while the CPU
  time of the bot-api process is read from /proc, so a busy shared machine lowers the
  rate but not the cost per query.
- MongoDB operations and bytes per /query: bot-api talks to nx-27017 through a counting
  TCP proxy; wire messages from bot-api are operations; an idle window of the same
  length is subtracted (the driver's heartbeats).
- memory per compiled story: the growth of bot-api's resident memory when it compiles
  stories of a typical size (30 interactions × 10 phrases).

Lexical stage only (SEMANTIC_MATCHING=off): with the semantic stage, the background
encoding of the stories' phrase vectors would be counted as the queries' traffic and
memory. The semantic stage adds one message encoding per non-decisive query (the
edit section of docs/benchmarks.md has its latency).
"""

import asyncio
import dataclasses
import math
import struct
import threading
import time
from pathlib import Path

import aiohttp

from bench.query_load import SECONDS, upload, wrk, wrk_script
from bench.report import write_section
from bench.stack import Stack, running_stack, serve
from bench.synthetic import queries, story_interactions
from tools.embedded import free_port

QUERIES_COUNTED = 300
TYPICAL_STORIES = 20
TARGETS = (1_000, 100_000)
HEADROOM = 0.6  # a replica runs at most 60 % busy, for bursts and a lost replica
PRIMARY_OPS_PER_SECOND = 20_000  # assumed, not measured here: see docs/scaling.md


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / 100  # utime + stime, in clock ticks


def resident_bytes(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError("no VmRSS")


class CountingProxy:
    """A loopback TCP proxy to MongoDB counting wire messages and bytes each way."""

    def __init__(self, upstream_port: int) -> None:
        self.upstream_port = upstream_port
        self.port = free_port()
        self.messages = 0
        self.bytes = 0
        self.loop = asyncio.new_event_loop()
        threading.Thread(target=self.loop.run_forever, daemon=True).start()
        asyncio.run_coroutine_threadsafe(self._listen(), self.loop).result()

    def snapshot(self) -> tuple[int, int]:
        return self.messages, self.bytes

    async def _listen(self) -> None:
        await asyncio.start_server(self._client, "127.0.0.1", self.port)

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.upstream_port)
        await asyncio.gather(
            self._pipe(reader, up_writer, count_messages=True),
            self._pipe(up_reader, writer, count_messages=False),
        )

    async def _pipe(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, count_messages: bool
    ) -> None:
        try:
            while header := await reader.readexactly(16):
                length = struct.unpack("<i", header[:4])[0]
                body = await reader.readexactly(length - 16)
                self.bytes += length
                self.messages += count_messages
                writer.write(header + body)
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            writer.close()


async def _queries(url: str, token: str, story_id: str, asked: list[str]) -> None:
    headers = {"Authorization": f"Bearer {token}"}
    async with aiohttp.ClientSession(url, headers=headers) as http:
        for number, text in enumerate(asked):
            body = {"storyId": story_id, "sessionId": f"c{number % 50}", "query": text}
            async with http.post("/query", json=body) as reply:
                assert reply.status == 200, await reply.text()


def per_query_cpu(stack: Stack, asked: list[str]) -> tuple[float, float]:
    """(/query per CPU-second of bot-api, requests per second) under wrk."""
    with wrk_script(asked, stack.tokens.public_key) as script:
        wrk(stack.url, script)  # warm-up
        pid = stack.bot_api.process.pid
        before = cpu_seconds(pid)
        run = wrk(stack.url, script)
        used = cpu_seconds(pid) - before
    return run["rps"] * SECONDS / used, run["rps"]


def per_query_database(stack: Stack, story_id: str, asked: list[str]) -> tuple[float, float]:
    """(MongoDB operations, bytes) per /query, through the counting proxy."""
    mongo_port = int(stack.config.mongodb_url.rsplit(":", 1)[1])
    proxy = CountingProxy(mongo_port)
    config = dataclasses.replace(
        stack.config,
        mongodb_url=f"mongodb://127.0.0.1:{proxy.port}",
        bot_api_port=free_port(),
    )
    counted = serve(config, stack.directory)
    url = f"http://127.0.0.1:{config.bot_api_port}"
    try:
        asyncio.run(_queries(url, stack.tokens.public_key, story_id, asked[:60]))  # warm
        messages, sent = proxy.snapshot()
        started = time.monotonic()
        asyncio.run(_queries(url, stack.tokens.public_key, story_id, asked[:QUERIES_COUNTED]))
        elapsed = time.monotonic() - started
        busy_messages, busy_bytes = proxy.snapshot()
        time.sleep(elapsed)
        idle_messages, idle_bytes = proxy.snapshot()
    finally:
        counted.stop()
    operations = (busy_messages - messages) - (idle_messages - busy_messages)
    traffic = (busy_bytes - sent) - (idle_bytes - busy_bytes)
    return operations / QUERIES_COUNTED, traffic / QUERIES_COUNTED


def memory_per_story(stack: Stack) -> float:
    """Resident bytes one compiled story of 30 interactions × 10 phrases adds."""
    config = dataclasses.replace(stack.config, bot_api_port=free_port())
    process = serve(config, stack.directory)
    url = f"http://127.0.0.1:{config.bot_api_port}"
    try:
        own = dataclasses.replace(stack, url=url)
        story_ids = [
            asyncio.run(upload(own, story_interactions(30, phrases=10, seed=seed)))[0]
            for seed in range(TYPICAL_STORIES)
        ]
        before = resident_bytes(process.process.pid)
        for story_id in story_ids:
            asyncio.run(_queries(url, stack.tokens.public_key, story_id, ["hello there"]))
        grown = resident_bytes(process.process.pid) - before
    finally:
        process.stop()
    return grown / TYPICAL_STORIES


def model(per_core: float, operations: float, traffic: float, story_bytes: float) -> list[str]:
    lines = [
        "| /query per second | bot-api replicas (1 core each, ≤ 60 % busy) | MongoDB "
        "operations/s | MongoDB traffic | shards (≤ 20,000 operations/s each) | NATS nodes |",
        "|---|---|---|---|---|---|",
    ]
    for target in TARGETS:
        replicas = max(2, math.ceil(target / (per_core * HEADROOM)))
        ops = target * operations
        shards = math.ceil(ops / PRIMARY_OPS_PER_SECOND)
        nats_nodes = 3 if target < 50_000 else 5
        lines.append(
            f"| {target:,} | {replicas} | {ops:,.0f} | {target * traffic / 1e6:,.1f} MB/s "
            f"| {shards if shards > 1 else '1 (a replica set)'} | {nats_nodes} |"
        )
    lines += [
        "",
        f"Story cache: {story_bytes / 1024 / 1024:.1f} MiB per compiled story of 30 × 10 in "
        f"every replica; 1,000 active stories take {1000 * story_bytes / 2**30:.1f} GiB "
        "per replica.",
    ]
    return lines


def capacity_table(stack: Stack) -> str:
    interactions = story_interactions(150)
    story_id, _ = asyncio.run(upload(stack, interactions))
    asked = [q.replace('"', "") for q in queries(interactions, QUERIES_COUNTED)]
    per_core, rps = per_query_cpu(stack, asked)
    operations, traffic = per_query_database(stack, story_id, asked)
    story_bytes = memory_per_story(stack)
    lines = [
        "Lexical stage only. /query on the 150 × 99 generated story (50 sessions in turn);",
        "bot-api's CPU time from /proc during one wrk run; MongoDB traffic through a",
        "counting proxy over",
        f"{QUERIES_COUNTED} sequential queries (driver heartbeats subtracted).",
        "",
        "| measure | value |",
        "|---|---|",
        f"| /query per CPU-second of bot-api | {per_core:,.0f} |",
        f"| (req/s of that wrk run, machine shared) | {rps:,.0f} |",
        f"| MongoDB operations per /query | {operations:.2f} |",
        f"| MongoDB bytes per /query (both ways) | {traffic:,.0f} |",
        f"| memory per compiled story (30 × 10) | {story_bytes / 1024:,.0f} KiB |",
        "",
        "The model (docs/scaling.md):",
        "",
        *model(per_core, operations, traffic, story_bytes),
    ]
    return "\n".join(lines)


def main() -> None:
    with running_stack("capacity") as stack:
        write_section("capacity", "Capacity figures (make bench)", capacity_table(stack))


if __name__ == "__main__":
    main()
