"""Three bot-api replicas per test module (bench/stack.py `running_replicas`), started
once, and a fresh account at each of them per test."""

from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

from bench.stack import Replicas, running_replicas
from support.api import Tenant
from support.replicas import tenant_everywhere


@pytest.fixture(scope="module")
def replica_settings() -> dict[str, Any]:
    """What the module's replicas run with: a module needing more overrides this."""
    return {"semantic_matching": False}


@pytest.fixture(scope="module")
def replicas(
    mongo_url: str,
    nats_url: str,
    tmp_path_factory: pytest.TempPathFactory,
    replica_settings: dict[str, Any],
) -> Iterator[Replicas]:
    directory = tmp_path_factory.mktemp("replicas")
    with running_replicas(mongo_url, nats_url, directory, **replica_settings) as started:
        yield started


@pytest.fixture
async def tenant(replicas: Replicas) -> AsyncIterator[list[Tenant]]:
    """A new account's clients at replicas A, B and C."""
    async with tenant_everywhere(replicas) as at_each:
        yield at_each
