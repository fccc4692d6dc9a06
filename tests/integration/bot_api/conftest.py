"""Fixtures of bot-api's integration tests."""

import dataclasses
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from shared.config import Config
from tools.embedded import free_port, start_service


@pytest.fixture
def second_bot_api(config: Config, tmp_path: Path) -> Iterator[str]:
    """The URL of a bot-api process of its own, on the test's databases (beside the
    in-process app the tenant fixtures call)."""
    own_port = dataclasses.replace(config, bot_api_port=free_port())
    server = start_service(
        "bot_api", own_port.bot_api_port, {**os.environ, **own_port.as_env()}, tmp_path
    )
    yield server.url
    server.stop()
