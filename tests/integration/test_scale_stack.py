"""`make scale` (python -m tools.scale_stack) started once for the module: it answers
through the gateway and on each replica, holds the event stream on its three NATS nodes,
starts a replica that dies again, and SIGTERM stops every process it started."""

import json
import os
import re
import signal
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from shared import messaging
from shared.config import Config
from support.gateway import Entrance
from support.local_stack import (
    call,
    child_named,
    descendants,
    gone_within,
    launch,
    read_until,
    ready,
    stop,
)
from tools.embedded import free_port
from tools.gateway import env_example


@dataclass
class Scale:
    process: subprocess.Popen[str]
    printed: str
    var: Path
    gateway: Entrance

    def listed(self, name: str) -> list[str]:
        """The URLs the banner lists for the replicas or nodes called `name`-1, -2..."""
        return re.findall(rf"^  {name}-\d\s+(\S+)$", self.printed, re.M)

    def tokens(self) -> dict[str, str]:
        saved: dict[str, str] = json.loads((self.var / "local-account.json").read_text())
        return saved

    def settings(self) -> Config:
        """What the stack runs with, as it left them for the accounts command."""
        return Config.from_env_mapping(json.loads((self.var / "stack.json").read_text()))


@pytest.fixture(scope="module")
def scale(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Scale]:
    var = tmp_path_factory.mktemp("scale") / "var"
    http_port, https_port = free_port(), free_port()
    process, printed = launch(
        "tools.scale_stack",
        var,
        GATEWAY_HTTP_PORT=str(http_port),
        GATEWAY_HTTPS_PORT=str(https_port),
        SEMANTIC_MATCHING="off",  # three replicas need not each load the encoder here
    )
    hosts = env_example()
    gateway = Entrance(http_port, https_port, hosts["BOT_HOST"], hosts["INTEGRATIONS_HOST"])
    try:
        yield Scale(process, printed, var, gateway)
    finally:
        if process.poll() is None:
            stop(process, signal.SIGTERM)


def through_gateway(scale: Scale, path: str, token: str, body: dict[str, Any]) -> Any:
    status, _, answer = scale.gateway.call(
        "POST",
        path,
        host=scale.gateway.bot_host,
        body=json.dumps(body).encode(),
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
    )
    assert status == 200, answer
    return json.loads(answer)


def test_the_banner_lists_the_gateway_every_replica_and_node_and_the_tokens(
    scale: Scale,
) -> None:
    assert f"https://bot.localhost:{scale.gateway.https_port}/console/" in scale.printed
    assert f"https://integrations.localhost:{scale.gateway.https_port}" in scale.printed
    assert len(set(scale.listed("bot-api"))) == 3
    assert len(set(scale.listed("integrations-api"))) == 2
    assert scale.listed("nats") == scale.settings().nats_url.split(",")
    tokens = scale.tokens()
    assert tokens["developerToken"] in scale.printed and tokens["publicKey"] in scale.printed
    logs = {p.name for p in (scale.var / "logs").iterdir() if p.suffix == ".log"}
    assert {"bot_api-1.log", "bot_api-2.log", "bot_api-3.log", "nats-3.log"} <= logs
    assert {"integrations_api-1.log", "integrations_api-2.log", "nginx.log"} <= logs


def test_a_story_made_through_the_gateway_answers_there_and_on_every_replica(
    scale: Scale,
) -> None:
    tokens = scale.tokens()
    story = {"name": "Scaled", "description": ""}
    story_id = through_gateway(scale, "/stories", tokens["developerToken"], story)["id"]
    query = {"storyId": story_id, "sessionId": "through-the-gateway", "query": "hello"}
    answer = through_gateway(scale, "/query", tokens["publicKey"], query)
    assert answer["result"]["storyId"] == story_id
    for number, replica in enumerate(scale.listed("bot-api")):
        query = {"storyId": story_id, "sessionId": f"on-replica-{number}", "query": "hello"}
        answer = call(f"{replica}/query", tokens["publicKey"], query)
        assert answer["result"]["interaction"]["name"] == "Welcome"
    for replica in scale.listed("integrations-api"):
        assert call(f"{replica}/readyz", "")["checks"] == {"mongodb": "ok", "nats": "ok"}


async def test_the_event_stream_is_held_by_all_three_nats_nodes(scale: Scale) -> None:
    settings = scale.settings()
    assert settings.nats_stream_replicas == 3
    client = await messaging.connect(settings.nats_url, "scale-test")
    try:
        info = await client.jetstream().stream_info(settings.subjects.stream)
    finally:
        await client.close()
    assert info.config.num_replicas == 3
    assert info.cluster is not None and info.cluster.leader is not None
    holders = {info.cluster.leader, *(copy.name for copy in info.cluster.replicas or [])}
    assert holders == {"nats-1", "nats-2", "nats-3"}


def test_a_replica_that_dies_is_started_again_on_its_address(scale: Scale) -> None:
    os.kill(child_named(scale.process.pid, "bot_api"), signal.SIGKILL)
    said = read_until(scale.process, "Restarting bot_api-", 30)
    restarted = re.search(r"^Restarting (bot_api-\d) on (\S+)\.$", said, re.M)
    assert restarted is not None, said
    name, url = restarted.groups()
    assert f"{name} was killed by SIGKILL" in said
    assert url in scale.listed("bot-api")
    assert ready(url, 30)


def test_sigterm_stops_every_process_it_started(scale: Scale) -> None:
    """Last in the module: it stops the stack the others used."""
    started = descendants(scale.process.pid)
    assert len(started) >= 11  # nx-27017, 3 NATS nodes, 5 services, nginx and its worker
    out = stop(scale.process, signal.SIGTERM)
    assert "Parley stopped" in out
    assert gone_within(started, 5)
    assert not (scale.var / "stack.json").exists()
