"""The gateway of deploy/ for real, once per module (tests/support/gateway.py)."""

from collections.abc import Iterator

import pytest

from support.gateway import Gateway, running_gateway


@pytest.fixture(scope="module")
def gateway(
    mongo_url: str, nats_url: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Gateway]:
    yield from running_gateway(mongo_url, nats_url, tmp_path_factory.mktemp("gateway"))
