"""`make scale`: Parley scaled out on this machine as it runs on several (docs/scaling.md):
nx-27017, a three-node NATS cluster holding the event stream on every node, three
bot-api and two integrations-api processes, and deploy/'s nginx gateway in front of them.

It runs from make run's var dir, with its lock, its database, its local account and its
stack file (tools.local_stack): one or the other runs at a time, on the same data.
`start_scaled_stack` starts it all and returns a handle on each process, for tests that
kill a replica or a NATS node; `main` is `make scale`, which says how to reach it, starts
again a process that dies, and stops everything on Ctrl-C, SIGTERM or SIGHUP.
"""

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from shared.auth import IssuedTokens
from shared.cli import STACK_FILE
from shared.config import Config
from shared.setting_reader import Reader
from tools.embedded import (
    ServerProcess,
    free_port,
    spawn_service,
    start_mongo,
    start_service,
    wait_ready,
)
from tools.gateway import NginxGateway, env_example, start_gateway
from tools.local_stack import (
    LOOPBACK,
    local_account,
    refuse_taken_ports,
    run_from_var_dir,
    watch,
    webhooks_reach,
    write_stack_file,
)
from tools.nats_cluster import NatsCluster, start_nats_cluster

NATS_NODES = 3
BOT_API_REPLICAS = 3
INTEGRATIONS_API_REPLICAS = 2
GATEWAY_HTTP_PORT = 8000
GATEWAY_HTTPS_PORT = 8443


@dataclass
class ScaledStack:
    mongo: ServerProcess
    nats: NatsCluster
    bot_apis: list[ServerProcess]
    integrations_apis: list[ServerProcess]
    gateway: NginxGateway
    config: Config
    """The settings every service process runs with, but its own port."""
    restarters: dict[str, Callable[[], ServerProcess]]
    """How each process (by its name) starts again: `start_again` uses them."""

    def processes(self) -> list[ServerProcess]:
        """Every process, in the order they started (a process uses those before it)."""
        return [
            self.mongo,
            *self.nats.servers,
            *self.bot_apis,
            *self.integrations_apis,
            self.gateway.server,
        ]

    def start_again(self, name: str) -> ServerProcess:
        """Start the process called `name` again as itself (same address, same data) once
        it died or a test stopped it, and put it in its place among the handles."""
        again = self.restarters[name]()  # a NATS node's takes its place in `nats` itself
        if name == self.mongo.name:
            self.mongo = again
        elif name == self.gateway.server.name:
            self.gateway.server = again
        for replicas in (self.bot_apis, self.integrations_apis):
            replicas[:] = [again if s.name == name else s for s in replicas]
        return again

    def stop(self) -> None:
        """Stop every process, newest first."""
        for server in reversed(self.processes()):
            server.stop()


def start_scaled_stack(
    var: Path, env: Mapping[str, str], gateway_ports: tuple[int, int]
) -> ScaledStack:
    """Everything started, on the data and logs of `var`, each service with the settings
    of `env` (but for the database, NATS and its port; INTEGRATIONS_PUBLIC_URL the
    gateway's unless `env` sets it), the gateway on 127.0.0.1 at `gateway_ports` (HTTP,
    HTTPS). On a failure (or a stop signal) meanwhile, what was started is stopped
    again."""
    logs = var / "logs"
    started: list[ServerProcess] = []
    restarters: dict[str, Callable[[], ServerProcess]] = {}
    try:
        mongo = start_mongo(var / "mongo", logs)
        started.append(mongo)
        restarters[mongo.name] = partial(start_mongo, var / "mongo", logs, port=mongo.port)
        nats = start_nats_cluster(var / "nats-cluster", logs, NATS_NODES)
        started += nats.servers
        restarters |= {node.name: partial(nats.start_node, i) for i, node in enumerate(nats.nodes)}
        service_env = {
            # a channel's inboundUrl, which Telegram is told: the gateway, as in deploy/
            "INTEGRATIONS_PUBLIC_URL": integrations_public_url(gateway_ports[1]),
            **env,
            "MONGODB_URL": mongo.url,
            "NATS_URL": nats.url,
            "NATS_STREAM_REPLICAS": str(NATS_NODES),
        }
        config = Config.from_env_mapping(service_env)
        bot_apis = _spawn_replicas("bot_api", BOT_API_REPLICAS, service_env, logs, restarters)
        started += bot_apis
        integrations_apis = _spawn_replicas(
            "integrations_api", INTEGRATIONS_API_REPLICAS, service_env, logs, restarters
        )
        started += integrations_apis
        for service in bot_apis + integrations_apis:
            wait_ready(service)
        start_nginx = partial(
            start_gateway, var / "gateway", logs, config, bot_apis, integrations_apis, gateway_ports
        )
        gateway = start_nginx()
        started.append(gateway.server)
        restarters[gateway.server.name] = lambda: start_nginx().server
    except BaseException:
        for server in reversed(started):
            server.stop()
        raise
    return ScaledStack(mongo, nats, bot_apis, integrations_apis, gateway, config, restarters)


def integrations_public_url(https_port: int) -> str:
    """integrations-api's address through the gateway (behind nginx it sees neither the
    scheme nor the port it was called on)."""
    return f"https://{env_example()['INTEGRATIONS_HOST']}:{https_port}"


PORT_SETTINGS = {"bot_api": "BOT_API_PORT", "integrations_api": "INTEGRATIONS_API_PORT"}


def _spawn_replicas(
    module: str,
    count: int,
    env: dict[str, str],
    logs: Path,
    restarters: dict[str, Callable[[], ServerProcess]],
) -> list[ServerProcess]:
    """`count` processes of `module`, each on a free port and named by its number
    (bot_api-1...), started side by side (not yet waited for); how each starts again
    goes into `restarters`."""
    replicas = []
    for number in range(1, count + 1):
        name, port = f"{module}-{number}", free_port()
        own = {**env, PORT_SETTINGS[module]: str(port)}
        replicas.append(spawn_service(module, port, own, logs, name))
        restarters[name] = partial(start_service, module, port, own, logs, name)
    return replicas


def run(var: Path, started: list[ServerProcess]) -> None:
    """`make scale`: start everything into `started`, say how to reach it, and return
    once a process keeps dying (tools.local_stack.watch)."""
    env = dict(os.environ)
    setting = Reader(env)
    http_port = setting.port("GATEWAY_HTTP_PORT", GATEWAY_HTTP_PORT)
    https_port = setting.port("GATEWAY_HTTPS_PORT", GATEWAY_HTTPS_PORT)
    ports = {"GATEWAY_HTTP_PORT": http_port, "GATEWAY_HTTPS_PORT": https_port}
    refuse_taken_ports("127.0.0.1", ports, "make scale")
    Config.from_env_mapping(env)  # a bad setting stops it here, before anything starts
    env.setdefault("WEBHOOK_ALLOW", LOOPBACK)
    # the console's pages are served on the bot host and call the APIs there
    env.setdefault("API_ORIGINS", f"https://{env_example()['BOT_HOST']}:{https_port}")
    stack = start_scaled_stack(var, env, (http_port, https_port))
    started += stack.processes()
    restarters = {server.name: partial(stack.start_again, server.name) for server in started}
    tokens_file = var / "local-account.json"
    issued = local_account(stack.config, tokens_file)
    write_stack_file(var / STACK_FILE, stack.config)
    print(banner(stack, issued, tokens_file), flush=True)
    watch(started, restarters)


def banner(stack: ScaledStack, issued: IssuedTokens, tokens_file: Path) -> str:
    gateway = stack.gateway
    processes = [
        *(
            f"  {s.name.replace('_', '-'):<20}{s.url}"
            for s in stack.bot_apis + stack.integrations_apis
        ),
        f"  {'MongoDB':<20}{stack.mongo.url}",
        *(f"  {n.name:<20}{n.url}" for n in stack.nats.nodes),
    ]
    listed = "\n".join(processes)
    return f"""
Parley is running, scaled out on this machine (docs/scaling.md).

  console             {gateway.bot_url}/console/   (sign in with the developer token below)
  bot host            {gateway.bot_url}   (the gateway: /query, the management API)
  integrations host   {gateway.integrations_url}
  (self-signed certificates: curl -k, or accept them in the browser;
   http://127.0.0.1:{gateway.http_port} redirects to HTTPS)

{listed}
  (the event stream on every NATS node: NATS_STREAM_REPLICAS={NATS_NODES})

  account             {issued.account}
  developer token     {issued.developer_token}
  public API key      {issued.public_key}
  (saved in {tokens_file})

{webhooks_reach(stack.config)}

Try:  curl -k -H "authorization: Bearer {issued.developer_token}" {gateway.bot_url}/stories
Logs in {tokens_file.parent / "logs"}, one per process. Ctrl-C stops everything.
"""


def main() -> None:
    run_from_var_dir(run, "make scale")


if __name__ == "__main__":
    main()
