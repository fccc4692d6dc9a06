"""Schemathesis against both services running as real processes: every check, a fixed
seed, thousands of generated requests each; no 5xx and no answer that breaks its own
schema (docs/reliability.md "HTTP input and the OpenAPI contract").

`make fuzz` runs the same for longer (PARLEY_FUZZ_SECONDS, PARLEY_FUZZ_MIN_REQUESTS).
"""

import dataclasses
import json
import os
import re
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from shared.config import Config
from tools.embedded import ServerProcess, free_port, start_service

CONFIG_FILE = Path(__file__).with_name("schemathesis.toml")
EXAMPLES = {"bot_api": 11, "integrations_api": 120}
MIN_REQUESTS = int(os.environ.get("PARLEY_FUZZ_MIN_REQUESTS", "2000"))
FUZZ_SECONDS = os.environ.get("PARLEY_FUZZ_SECONDS")
RUN_LIMIT_SECONDS = 900 if FUZZ_SECONDS is None else int(FUZZ_SECONDS) + 300
REQUEST_LINE = re.compile(r" parley\.requests .* status=(\d{3}) ")
"""The service's own line per request (shared/request_log.py): what it answered."""


@dataclasses.dataclass
class Stack:
    services: dict[str, ServerProcess]
    variables: dict[str, str]


def seeded(bot_api: str, integrations_api: str, token: str) -> dict[str, str]:
    """The records the generated requests name: kept ones, and spare ones to delete."""

    def create(url: str, body: dict[str, Any]) -> str:
        headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
        request = urllib.request.Request(url, json.dumps(body).encode(), headers)
        with urllib.request.urlopen(request, timeout=10) as reply:
            return str(json.loads(reply.read())["id"])

    story = create(f"{bot_api}/stories", {"name": "Pizza", "description": ""})
    spare_story = create(f"{bot_api}/stories", {"name": "Spare", "description": ""})
    hours = {"name": "Hours", "userSays": ["when are you open"], "triggers": ["hours"]}
    entry = {"value": "large", "synonyms": [{"value": "large"}]}
    connection = {"storyId": story, "name": "Orders", "url": "https://hooks.test/o"}
    greets = {"name": "greets", "turns": [{"trigger": "welcome", "expect": {"fallback": False}}]}
    return {
        "PARLEY_TOKEN": token,
        "PARLEY_STORY": story,
        "PARLEY_SPARE_STORY": spare_story,
        "PARLEY_INTERACTION": create(f"{bot_api}/stories/{story}/interactions", hours),
        "PARLEY_TEST": create(f"{bot_api}/stories/{story}/tests", greets),
        "PARLEY_SPARE_TEST": create(f"{bot_api}/stories/{story}/tests", greets),
        "PARLEY_ENTITY": create(f"{bot_api}/entities", {"name": "size", "entries": [entry]}),
        "PARLEY_SPARE_ENTITY": create(f"{bot_api}/entities", {"name": "spare", "entries": [entry]}),
        "PARLEY_CONNECTION": create(f"{integrations_api}/v2/integrations/webhook", connection),
        "PARLEY_SPARE_CONNECTION": create(
            f"{integrations_api}/v2/integrations/webhook", connection
        ),
    }


@pytest.fixture
def stack(config: Config, tmp_path: Path) -> Iterator[Stack]:
    ports = dataclasses.replace(config, bot_api_port=free_port(), integrations_api_port=free_port())
    env = {**os.environ, **ports.as_env()}
    bot_api = start_service("bot_api", ports.bot_api_port, env, tmp_path)
    integrations_api = start_service("integrations_api", ports.integrations_api_port, env, tmp_path)
    try:
        account = subprocess.run(
            [sys.executable, "-m", "bot_api", "accounts", "create", "fuzz", "--json"],
            env=env,
            capture_output=True,
            check=True,
            timeout=60,
        )
        token = json.loads(account.stdout)["developerToken"]
        variables = seeded(bot_api.url, integrations_api.url, token)
        yield Stack({"bot_api": bot_api, "integrations_api": integrations_api}, variables)
    finally:
        integrations_api.stop()
        bot_api.stop()


def statuses_answered(log: Path) -> list[int]:
    return [int(m.group(1)) for m in map(REQUEST_LINE.search, log.read_text().splitlines()) if m]


@pytest.mark.parametrize("service", ["bot_api", "integrations_api"])
def test_schemathesis_finds_no_server_error_and_no_answer_off_its_schema(
    stack: Stack, service: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    server = stack.services[service]
    budget = ["--max-examples", str(EXAMPLES[service])]
    if FUZZ_SECONDS is not None:
        budget = ["--max-time", FUZZ_SECONDS, "--workers", "4"]
    run = subprocess.run(
        [
            str(Path(sys.executable).with_name("schemathesis")),
            "--config-file",
            str(CONFIG_FILE),
            "run",
            f"{server.url}/openapi.json",
            "--checks",
            "all",
            "--seed",
            "20261122",
            "--no-color",
            *budget,
        ],
        env={**os.environ, **stack.variables},
        cwd=tmp_path,  # its cache of found failures stays out of the repository
        capture_output=True,
        text=True,
        timeout=RUN_LIMIT_SECONDS,
    )
    statuses = statuses_answered(server.log_path)
    request.node.user_properties.append(("requests", len(statuses)))
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-2000:]
    assert [status for status in statuses if status >= 500] == []
    assert len(statuses) >= MIN_REQUESTS, run.stdout[-2000:]
