"""The deploy gateway run for real: Debian's nginx with deploy/gateway.conf.template
rendered as the nginx image renders it, only the upstream servers and ports changed,
in front of bot-api and integrations-api processes."""

import asyncio
import http.client
import os
import re
import shutil
import socket
import ssl
import subprocess
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from bench.stack import create_account
from shared.auth import IssuedTokens
from shared.config import Config
from tools.embedded import ServerProcess, free_port, start_service

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
TEMPLATE = DEPLOY / "gateway.conf.template"
ENV_EXAMPLE = DEPLOY / ".env.example"
_VARIABLE = re.compile(r"\$\{(\w+)\}")


def env_example() -> dict[str, str]:
    settings = {}
    for line in ENV_EXAMPLE.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            name, _, value = line.partition("=")
            settings[name] = value
    return settings


def render(template: str, values: dict[str, str]) -> str:
    """What the nginx image's envsubst step makes of `template`: each ${NAME} with a
    value replaced, anything else (nginx's own $host...) left as it is."""
    return _VARIABLE.sub(lambda m: values.get(m.group(1), m.group(0)), template)


def nginx_executable() -> str:
    """Debian's nginx, installed with apt-get when missing."""
    found = shutil.which("nginx") or shutil.which("nginx", path="/usr/sbin")
    if found is not None:
        return found
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    install = ["apt-get", "install", "-y", "-qq", "nginx"]
    if subprocess.run(install, env=env, capture_output=True).returncode != 0:
        subprocess.run(["apt-get", "update", "-qq"], env=env, check=True, capture_output=True)
        subprocess.run(install, env=env, check=True, capture_output=True)
    found = shutil.which("nginx", path="/usr/sbin:/usr/bin")
    assert found is not None, "apt-get installed nginx but it is not on /usr/sbin"
    return found


# The main configuration the image's nginx.conf stands for: files under the test's
# directory; the workers run as the user running the test (root reads the tmp dirs).
MAIN_CONF = """
{user}
worker_processes 1;
daemon off;
pid nginx.pid;
error_log logs/error.log notice;
events {{ worker_connections 256; }}
http {{
    access_log logs/access.log;
    client_body_temp_path temp/body;
    proxy_temp_path temp/proxy;
    fastcgi_temp_path temp/fastcgi;
    uwsgi_temp_path temp/uwsgi;
    scgi_temp_path temp/scgi;
    include {gateway};
}}
"""


def self_signed(directory: Path, name: str, host: str) -> None:
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
         "-nodes", "-days", "1", "-subj", f"/CN={host}",
         "-keyout", str(directory / f"{name}.key"), "-out", str(directory / f"{name}.crt")],
        check=True,
        capture_output=True,
    )  # fmt: skip


@dataclass
class Gateway:
    http_port: int
    https_port: int
    bot_host: str
    integrations_host: str
    bot_apis: list[ServerProcess]
    integrations_api: ServerProcess
    tokens: IssuedTokens
    directory: Path

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
        """One request through the gateway: status, headers (lower-case names), body."""
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


def _wait_for_port(port: int, nginx: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        assert nginx.poll() is None, f"nginx exited:\n{log.read_text(errors='replace')}"
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.1)
    raise AssertionError(f"nginx did not listen:\n{log.read_text(errors='replace')}")


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
    nginx = None
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
        for sub in ("logs", "temp", "certs"):
            (directory / sub).mkdir(exist_ok=True)
        hosts = env_example()
        gateway = Gateway(
            http_port=free_port(),
            https_port=free_port(),
            bot_host=hosts["BOT_HOST"],
            integrations_host=hosts["INTEGRATIONS_HOST"],
            bot_apis=started[:2],
            integrations_api=integrations,
            tokens=tokens,
            directory=directory,
        )
        self_signed(directory / "certs", "bot", gateway.bot_host)
        self_signed(directory / "certs", "integrations", gateway.integrations_host)
        rendered = render(
            TEMPLATE.read_text(),
            {
                "BOT_HOST": gateway.bot_host,
                "INTEGRATIONS_HOST": gateway.integrations_host,
                "HTTP_PORT": str(gateway.http_port),
                "HTTPS_PORT": str(gateway.https_port),
                "MAX_BODY_BYTES": str(config.max_body_bytes),
                "MAX_CONNECTIONS_PER_CLIENT": str(config.max_connections_per_client),
                "BOT_API_SERVERS": " ".join(
                    f"server {b.url.removeprefix('http://')};" for b in started[:2]
                ),
                "INTEGRATIONS_API_SERVERS": f"server {integrations.url.removeprefix('http://')};",
            },
        )
        assert not _VARIABLE.search(rendered), "a variable of the template has no value"
        (directory / "gateway.conf").write_text(rendered)
        (directory / "nginx.conf").write_text(
            MAIN_CONF.format(
                user="user root;" if os.geteuid() == 0 else "",
                gateway=directory / "gateway.conf",
            )
        )
        log = directory / "logs" / "nginx.out"
        with log.open("wb") as out:
            nginx = subprocess.Popen(
                [nginx_executable(), "-p", str(directory), "-c", str(directory / "nginx.conf")],
                stdout=out,
                stderr=subprocess.STDOUT,
            )
        _wait_for_port(gateway.https_port, nginx, log)
        yield gateway
    finally:
        if nginx is not None:
            nginx.terminate()
            nginx.wait(10)
        for server in reversed(started):
            server.stop()
