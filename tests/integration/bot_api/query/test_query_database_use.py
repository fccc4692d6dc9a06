"""The /query hot path: one session read and one conditional session write, nothing else;
the turn's history is written behind it, in batches.

The story, its index and the account behind the key are cached in the process; a
PyMongo command listener sees every command the app's client sends.
"""

from typing import Any

from aiohttp.test_utils import TestClient
from pymongo import monitoring

from bot_api.app import create_app
from bot_api.history.keys import RECORDER as TURN_RECORDER
from shared.auth import AccountRepository
from shared.config import Config
from support.api import Api


class Recorder(monitoring.CommandListener):
    def __init__(self) -> None:
        self.recording = False
        self.commands: list[tuple[str, Any]] = []

    def started(self, event: monitoring.CommandStartedEvent) -> None:
        if self.recording and event.command_name not in ("endSessions", "ping"):
            self.commands.append((event.command_name, event.command.get(event.command_name)))

    def succeeded(self, event: monitoring.CommandSucceededEvent) -> None:
        pass

    def failed(self, event: monitoring.CommandFailedEvent) -> None:
        pass


RECORDER = Recorder()
monitoring.register(RECORDER)
BEHIND_THE_REQUEST = ("turns", "conversations", "analytics_hours", "analytics_conversations")
"""What the history recorder and the analytics counters write in batches, off /query's path."""


async def test_a_warm_query_reads_and_writes_only_its_session(
    aiohttp_client: Any, config: Config, accounts: AccountRepository
) -> None:
    client: TestClient = await aiohttp_client(create_app(config))
    tokens = await accounts.create("alice")
    developer = Api(client, tokens.developer_token)
    public = Api(client, tokens.public_key)
    await developer.create_story()
    body = {"sessionId": "s", "trigger": "welcome"}
    await public.ok("POST", "/query", body)
    history = client.server.app[TURN_RECORDER]
    await history.idle()
    RECORDER.commands.clear()
    RECORDER.recording = True
    try:
        await public.ok("POST", "/query", body)
        await public.ok("POST", "/query", {**body, "sessionId": "new"})
        await history.idle()
    finally:
        RECORDER.recording = False
    assert [c for c in RECORDER.commands if c[1] not in BEHIND_THE_REQUEST] == [
        ("find", "sessions"),
        ("update", "sessions"),
        ("find", "sessions"),
        ("insert", "sessions"),
    ]
    behind = {c for c in RECORDER.commands if c[1] in BEHIND_THE_REQUEST}
    assert ("insert", "turns") in behind
    assert ("find", "analytics_conversations") in behind
    assert behind <= {
        ("insert", "turns"),
        *((verb, name) for verb in ("find", "insert", "update") for name in BEHIND_THE_REQUEST[1:]),
    }
