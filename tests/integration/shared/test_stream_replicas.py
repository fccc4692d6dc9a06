"""The event stream on a real three-node NATS cluster: three copies with a leader, an
existing stream (and its durable consumer) given them at start, and a client that goes
on publishing and consuming when the node leading the stream stops."""

import functools
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from nats.aio.client import Client
from nats.js.api import ClusterInfo

from shared import messaging
from shared.events import Subjects
from support.waiting import eventually
from tools.nats_cluster import NatsCluster, start_nats_cluster

FAILOVER_SECONDS = 30.0
"""Bounds a new stream leader's election and the client's move to another node (a few
seconds on the 2-core machine)."""


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[NatsCluster]:
    directory: Path = tmp_path_factory.mktemp("nats-cluster")
    cluster = start_nats_cluster(directory / "jetstream", directory)
    yield cluster
    cluster.stop()


@pytest.fixture
def subjects() -> Subjects:
    return Subjects(f"t{uuid.uuid4().hex[:12]}")


@pytest.fixture
async def nats(cluster: NatsCluster) -> AsyncIterator[Client]:
    client = await messaging.connect(cluster.url, "stream-replicas-test")
    yield client
    await client.close()


async def settled(nats: Client, subjects: Subjects) -> ClusterInfo | None:
    """The stream's cluster once it has a leader and every other copy is current."""
    info = (await nats.jetstream().stream_info(subjects.stream)).cluster
    assert info is not None
    copies = info.replicas or []
    return info if info.leader and copies and all(c.current for c in copies) else None


async def test_the_stream_gets_three_copies_and_an_existing_stream_and_consumer_get_them(
    nats: Client, subjects: Subjects, cluster: NatsCluster
) -> None:
    jetstream = nats.jetstream()
    await messaging.ensure_stream(nats, subjects, replicas=1)
    info = await jetstream.stream_info(subjects.stream)
    assert info.config.num_replicas == 1
    assert info.cluster is not None and not info.cluster.replicas
    durable = subjects.consumer("stories")
    await jetstream.pull_subscribe(subjects.story_changed, durable=durable)

    await messaging.ensure_stream(nats, subjects, replicas=3)
    info = await jetstream.stream_info(subjects.stream)
    assert info.config.num_replicas == 3
    assert info.config.subjects == subjects.stream_subjects
    placed = await eventually(lambda: settled(nats, subjects), FAILOVER_SECONDS)
    every_node = {node.name for node in cluster.nodes}
    assert {placed.leader, *(copy.name for copy in placed.replicas)} == every_node

    async def consumer_on_every_node() -> bool:
        """Whether the durable consumer made before got a copy on every node too (no
        cluster shown yet while its copies are being placed)."""
        held = (await jetstream.consumer_info(subjects.stream, durable)).cluster
        if held is None:
            return False
        return {held.leader, *(copy.name for copy in held.replicas or [])} == every_node

    await eventually(consumer_on_every_node, FAILOVER_SECONDS)


async def test_publishing_and_consuming_go_on_when_the_node_leading_the_stream_stops(
    nats: Client, subjects: Subjects, cluster: NatsCluster
) -> None:
    await messaging.ensure_stream(nats, subjects, replicas=3)
    leader = (await eventually(lambda: settled(nats, subjects), FAILOVER_SECONDS)).leader
    received: set[bytes] = set()

    async def handle(data: bytes) -> None:
        received.add(data)

    async def publish(data: bytes) -> bool:
        """Whether JetStream stored `data` (not while no node leads the stream)."""
        try:
            await nats.jetstream().publish(subjects.story_changed, data, timeout=1)
        except Exception:
            return False
        return True

    before = {f"before {n}".encode() for n in range(5)}
    after = {f"after {n}".encode() for n in range(5)}
    durable = subjects.consumer("stories")
    stopped = cluster.index(leader)
    try:
        async with messaging.pulling(nats, subjects.story_changed, durable, handle):
            for data in sorted(before):
                assert await publish(data)
            await eventually(lambda: _holds(received, before), FAILOVER_SECONDS)

            cluster.servers[stopped].stop()
            for data in sorted(after):
                await eventually(functools.partial(publish, data), FAILOVER_SECONDS)
            await eventually(lambda: _holds(received, before | after), FAILOVER_SECONDS)
        new_leader = (await eventually(lambda: settled_without(nats, subjects, leader))).leader
    finally:
        cluster.start_node(stopped)
    assert new_leader != leader


async def _holds(received: set[bytes], expected: set[bytes]) -> bool:
    return expected <= received


async def settled_without(nats: Client, subjects: Subjects, gone: str) -> ClusterInfo | None:
    """The stream's cluster once a node other than `gone` leads it."""
    info = (await nats.jetstream().stream_info(subjects.stream)).cluster
    return info if info is not None and info.leader not in (None, gone) else None
