"""Every replica follows story events; one it cannot read is logged and skipped."""

import logging

import pytest
from aiohttp.test_utils import TestClient

from shared import messaging
from shared.config import Config
from support.waiting import eventually


async def test_a_replica_logs_and_skips_a_story_event_it_cannot_read(
    bot_api: TestClient, config: Config, caplog: pytest.LogCaptureFixture
) -> None:
    async def skipped() -> bool:
        return any("cannot read" in record.getMessage() for record in caplog.records)

    publisher = await messaging.connect(config.nats_url, "story-events-test")
    with caplog.at_level(logging.WARNING, logger="bot_api.messaging"):
        await publisher.jetstream().publish(config.subjects.story_changed, b'{"v": 99}')
        await eventually(skipped)
    await publisher.drain()

    async with bot_api.get("/healthz") as response:
        assert response.status == 200
