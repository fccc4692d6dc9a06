"""The deploy gateway run for real (tools/gateway.py) in front of bot-api and
integrations-api processes, and requests through it."""

import asyncio
import http.client
import os
import ssl
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from bench.stack import create_account
from shared.auth import IssuedTokens
from shared.config import Config
from tools.embedded import ServerProcess, free_port, start_service
from tools.gateway import start_gateway


@dataclass
class Entrance:
    """Where a gateway is reached: its ports on 127.0.0.1 and the host names it answers."""

    http_port: int
    https_port: int
    bot_host: str
    integrations_host: str

    def call(
        self,
        method: str,
        path: str,
        *,
        host: str,
        body: bytes | None = None,
        headers: dict[str, str] | None = None,
        https: bool = True,
    ) -> tuple[int, dict[str, str], bytes]:
        """One request through the gateway: status, headers (lower-case names), body.
        Its certificates are self-signed."""
        if https:
            context = ssl.create_default_context()
            context.check_hostname = False
            context.verify_mode = ssl.CERT_NONE
            connection: http.client.HTTPConnection = http.client.HTTPSConnection(
                "127.0.0.1", self.https_port, timeout=30, context=context
            )
        else:
            connection = http.client.HTTPConnection("127.0.0.1", self.http_port, timeout=30)
        try:
            connection.request(method, path, body=body, headers={"Host": host, **(headers or {})})
            response = connection.getresponse()
            return (
                response.status,
                {k.lower(): v for k, v in response.getheaders()},
                response.read(),
            )
        finally:
            connection.close()


@dataclass
class Gateway(Entrance):
    bot_apis: list[ServerProcess]
    integrations_api: ServerProcess
    tokens: IssuedTokens


def running_gateway(mongo_url: str, nats_url: str, directory: Path) -> Iterator[Gateway]:
    """Two bot-api processes and one integrations-api behind nginx, until closed."""
    config = Config(
        mongodb_url=mongo_url,
        nats_url=nats_url,
        database_prefix=f"g{uuid.uuid4().hex[:12]}",
        integrations_api_port=free_port(),
    )
    tokens = asyncio.run(create_account(config, "gateway"))
    started: list[ServerProcess] = []
    try:
        for replica in (1, 2):
            env = {**os.environ, **config.as_env(), "BOT_API_PORT": str(free_port())}
            started.append(
                start_service("bot_api", int(env["BOT_API_PORT"]), env, directory / f"r{replica}")
            )
        env = {**os.environ, **config.as_env()}
        integrations = start_service(
            "integrations_api", config.integrations_api_port, env, directory
        )
        started.append(integrations)
        nginx = start_gateway(
            directory / "nginx",
            directory / "logs",
            config,
            bot_apis=started[:2],
            integrations_apis=[integrations],
            ports=(free_port(), free_port()),
        )
        started.append(nginx.server)
        yield Gateway(
            nginx.http_port,
            nginx.https_port,
            nginx.bot_host,
            nginx.integrations_host,
            bot_apis=started[:2],
            integrations_api=integrations,
            tokens=tokens,
        )
    finally:
        for server in reversed(started):
            server.stop()
