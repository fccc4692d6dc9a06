"""The gateway of deploy/ run on this machine: Debian's nginx with deploy/gateway.conf.template
rendered as the nginx image renders it, only the upstream servers and the listening
addresses changed (loopback ports instead of 80 and 443), in front of service processes.
`make scale` and tests/deploy both run it this way.
"""

import os
import re
import shutil
import socket
import subprocess
from dataclasses import dataclass
from pathlib import Path

from shared.config import Config
from tools.embedded import ServerProcess, fresh_log, spawn, wait_until

DEPLOY = Path(__file__).resolve().parents[1] / "deploy"
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
    if found is None:
        raise RuntimeError("apt-get installed nginx but it is not on /usr/sbin")
    return found


# The main configuration the image's nginx.conf stands for: files under the gateway's
# directory, errors to the log of the process; the workers run as the user running it
# (root reads the tests' tmp dirs).
MAIN_CONF = """
{user}
worker_processes 1;
daemon off;
pid nginx.pid;
error_log stderr notice;
events {{ worker_connections 1024; }}
http {{
    access_log {access_log};
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
         "-nodes", "-days", "30", "-subj", f"/CN={host}", "-addext", f"subjectAltName=DNS:{host}",
         "-keyout", str(directory / f"{name}.key"), "-out", str(directory / f"{name}.crt")],
        check=True,
        capture_output=True,
    )  # fmt: skip


@dataclass
class NginxGateway:
    server: ServerProcess
    """nginx's master process (its workers end with it)."""
    http_port: int
    https_port: int
    bot_host: str
    integrations_host: str

    @property
    def bot_url(self) -> str:
        return f"https://{self.bot_host}:{self.https_port}"

    @property
    def integrations_url(self) -> str:
        return f"https://{self.integrations_host}:{self.https_port}"


def upstream(servers: list[ServerProcess]) -> str:
    """The `server` lines of an nginx upstream for these service processes."""
    return " ".join(f"server {s.url.removeprefix('http://')};" for s in servers)


def start_gateway(
    directory: Path,
    log_dir: Path,
    config: Config,
    bot_apis: list[ServerProcess],
    integrations_apis: list[ServerProcess],
    ports: tuple[int, int],
) -> NginxGateway:
    """nginx on 127.0.0.1 at `ports` (plain HTTP, HTTPS), with fresh self-signed
    certificates of deploy's host names, once it listens; its configuration and work
    files under `directory`, its log and access log under `log_dir`."""
    for sub in ("temp", "certs"):
        (directory / sub).mkdir(parents=True, exist_ok=True)
    hosts = env_example()
    http_port, https_port = ports
    bot_host, integrations_host = hosts["BOT_HOST"], hosts["INTEGRATIONS_HOST"]
    self_signed(directory / "certs", "bot", bot_host)
    self_signed(directory / "certs", "integrations", integrations_host)
    rendered = render(
        TEMPLATE.read_text(),
        {
            "BOT_HOST": bot_host,
            "INTEGRATIONS_HOST": integrations_host,
            "HTTP_PORT": f"127.0.0.1:{http_port}",
            "HTTPS_PORT": f"127.0.0.1:{https_port}",
            "MAX_BODY_BYTES": str(config.max_body_bytes),
            "MAX_CONNECTIONS_PER_CLIENT": str(config.max_connections_per_client),
            "BOT_API_SERVERS": upstream(bot_apis),
            "INTEGRATIONS_API_SERVERS": upstream(integrations_apis),
        },
    )
    if _VARIABLE.search(rendered):
        raise RuntimeError(f"a variable of {TEMPLATE} has no value")
    (directory / "gateway.conf").write_text(rendered)
    (directory / "nginx.conf").write_text(
        MAIN_CONF.format(
            user="user root;" if os.geteuid() == 0 else "",
            access_log=fresh_log(log_dir / "nginx-access.log"),
            gateway=directory / "gateway.conf",
        )
    )
    command = [
        nginx_executable(),
        "-p",
        str(directory),
        "-c",
        str(directory / "nginx.conf"),
        "-e",
        "stderr",
    ]
    server = spawn("nginx", f"https://127.0.0.1:{https_port}", command, log_dir / "nginx.log")

    def listens() -> bool:
        with socket.create_connection(("127.0.0.1", https_port), timeout=1):
            return True

    wait_until(server, listens)
    return NginxGateway(server, http_port, https_port, bot_host, integrations_host)
