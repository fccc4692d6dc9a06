"""`make run`: the whole stack on one machine, data kept under var/ between runs.

Starts nx-27017 and nats-server (unless MONGODB_URL / NATS_URL point elsewhere), both
services, makes sure a local account exists and its tokens work, prints what a person
needs to start, and stops everything on Ctrl-C, SIGTERM or a closed terminal (SIGHUP).

One run per var dir: it holds a lock on var/run.lock (holding its pid) from before it
starts anything, and leaves its settings in var/stack.json while it runs, for the
`accounts` command.
"""

import asyncio
import fcntl
import json
import os
import signal
import sys
import time
from collections.abc import Callable, Mapping
from functools import partial
from pathlib import Path
from types import FrameType

from shared import mongo
from shared.auth import AccountRepository, IssuedTokens
from shared.cli import STACK_FILE, var_dir
from shared.config import Config
from shared.errors import ApiError
from tools.embedded import ServerProcess, port_taken, start_mongo, start_nats, start_service

LOCAL_ACCOUNT = "local"
MAX_RESTARTS = 3
RESTART_WINDOW_SECONDS = 60.0
"""A server (the databases and both services) that dies is started again on the same
address, as often as it dies, unless it died more than MAX_RESTARTS times within the
last RESTART_WINDOW_SECONDS: a crash loop (a broken install, a full disk) stops the run
and says why. A service a request crashed (SIGSEGV) answered /readyz again 17 s later
on this 2-core machine at a load of 8; before, the first crash of a service stopped the
whole run."""
LOOPBACK = "127.0.0.0/8,::1/128"


async def ensure_local_account(config: Config, saved: dict[str, str] | None) -> IssuedTokens:
    """Reuse the saved tokens while they still work; otherwise create or rotate them."""
    client = mongo.open_client(config.mongodb_url)
    try:
        accounts = AccountRepository(client[config.accounts_database])
        await accounts.ensure_indexes()
        if saved is not None:
            try:
                principal = await accounts.authenticate(saved["developerToken"])
                await accounts.authenticate(saved["publicKey"])
                return IssuedTokens(
                    principal.account_id,
                    saved["account"],
                    saved["developerToken"],
                    saved["publicKey"],
                )
            except (ApiError, KeyError):
                pass
        try:
            return await accounts.create(LOCAL_ACCOUNT)
        except ApiError:
            return await accounts.rotate(LOCAL_ACCOUNT)
    finally:
        await client.close()


def local_account(config: Config, tokens_file: Path) -> IssuedTokens:
    saved = json.loads(tokens_file.read_text()) if tokens_file.exists() else None
    issued = asyncio.run(ensure_local_account(config, saved))
    if issued.as_json() != saved:
        tokens_file.touch(mode=0o600)
        tokens_file.chmod(0o600)
        tokens_file.write_text(json.dumps(issued.as_json(), indent=2) + "\n")
    return issued


STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


class StopRequested(BaseException):
    """Raised by a stop signal wherever the main thread is, like KeyboardInterrupt."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def request_stop(signum: int, frame: FrameType | None) -> None:
    raise StopRequested(signum)


def hold_run_lock(var: Path) -> None:
    """Lock var/run.lock for the life of this process, or exit saying who holds it.

    The kernel drops the lock when the process ends however it ends, so a killed run
    leaves nothing that blocks the next one."""
    lock = os.open(var / "run.lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = os.read(lock, 32).decode().strip() or "unknown"
        raise SystemExit(
            f"Parley is already running from {var} (pid {holder}); stop it first."
        ) from None
    os.ftruncate(lock, 0)
    os.write(lock, f"{os.getpid()}\n".encode())


def refuse_taken_ports(host: str, ports: dict[str, int], command: str) -> None:
    """Exit in one line, before starting anything, when one of the `ports` (by the
    setting that chose it) is taken."""
    for setting, port in ports.items():
        if port_taken(host, port):
            raise SystemExit(
                f"Port {port} is taken by another program: stop it, or set {setting} "
                f"to a free port (e.g. {setting}={port + 10} {command})."
            )


def channels_reach(config: Config) -> str:
    """The banner's word on where the messaging platforms reach integrations-api: under
    `make run` it listens on 127.0.0.1, which no platform reaches, and Telegram takes only
    an https:// webhook, so a laptop needs a tunnel (README.md "Channels")."""
    if config.integrations_public_url:
        return (
            f"Channels: the platforms call {config.integrations_public_url}"
            " (INTEGRATIONS_PUBLIC_URL);\n  Telegram's webhooks are registered there again"
            " at each start."
        )
    port = config.integrations_api_port
    return (
        "Channels: no platform reaches 127.0.0.1, and Telegram takes only https://. Start a\n"
        f"  tunnel to port {port} (cloudflared tunnel --url http://127.0.0.1:{port}) and run\n"
        "  INTEGRATIONS_PUBLIC_URL=https://<its address> make run   (README.md, Channels)"
    )


def webhooks_reach(config: Config) -> str:
    """The banner's word on where webhooks may call: any public address, and on local
    and private networks only those WEBHOOK_ALLOW lists (`make run` sets loopback unless
    told otherwise; set empty, it lists none, which the banner once showed as a blank)."""
    allowed = config.webhook_allow
    if not allowed:
        return (
            "Webhooks may call: public addresses only (WEBHOOK_ALLOW is empty: nothing on\n"
            f"  this machine or its networks; WEBHOOK_ALLOW={LOOPBACK} make run allows this"
            " machine)."
        )
    where = "loopback on your own machine" if ",".join(allowed) == LOOPBACK else "WEBHOOK_ALLOW"
    return f"Webhooks may call: public addresses and {', '.join(allowed)} ({where})."


def write_stack_file(path: Path, config: Config) -> None:
    partial = path.with_suffix(".partial")
    partial.write_text(json.dumps(config.as_env(), indent=2) + "\n")
    partial.replace(path)


def stop_all(started: list[ServerProcess], var: Path) -> None:
    """Stop the servers newest first (services before the databases they use), deaf to
    further stop signals meanwhile."""
    for signum in STOP_SIGNALS:
        signal.signal(signum, signal.SIG_IGN)
    for server in reversed(started):
        server.stop()
    (var / STACK_FILE).unlink(missing_ok=True)


def run(var: Path, started: list[ServerProcess]) -> None:
    """Start everything into `started`, say how to use it, and return once a server exits
    by itself."""
    logs = var / "logs"
    env = dict(os.environ)
    env.setdefault("WEBHOOK_ALLOW", LOOPBACK)
    bot_api_port = env.get("BOT_API_PORT", "8080")
    env.setdefault(
        "API_ORIGINS", f"http://127.0.0.1:{bot_api_port},http://localhost:{bot_api_port}"
    )
    # no gateway here: the console calls integrations-api on its own port
    integrations_api_port = env.get("INTEGRATIONS_API_PORT", "8081")
    env.setdefault("CONSOLE_INTEGRATIONS_URL", f"http://127.0.0.1:{integrations_api_port}")
    config = Config.from_env_mapping(env)
    ports = {
        "BOT_API_PORT": config.bot_api_port,
        "INTEGRATIONS_API_PORT": config.integrations_api_port,
    }
    refuse_taken_ports(config.host, ports, "make run")
    restarters: dict[str, Callable[[], ServerProcess]] = {}
    if "MONGODB_URL" not in env:
        mongo = start_mongo(var / "mongo", logs)
        restarters[mongo.name] = partial(start_mongo, var / "mongo", logs, port=mongo.port)
        started.append(mongo)
        env["MONGODB_URL"] = mongo.url
    if "NATS_URL" not in env:
        nats = start_nats(var / "nats", logs)
        restarters[nats.name] = partial(start_nats, var / "nats", logs, port=nats.port)
        started.append(nats)
        env["NATS_URL"] = nats.url
    config = Config.from_env_mapping(env)
    tokens_file = var / "local-account.json"
    issued = local_account(config, tokens_file)
    bot_api = start_service("bot_api", config.bot_api_port, env, logs)
    restarters[bot_api.name] = partial(start_service, "bot_api", bot_api.port, env, logs)
    started.append(bot_api)
    integrations = start_service("integrations_api", config.integrations_api_port, env, logs)
    restarters[integrations.name] = partial(
        start_service, "integrations_api", integrations.port, env, logs
    )
    started.append(integrations)
    write_stack_file(var / STACK_FILE, config)

    print(
        f"""
Parley is running.

  console           {bot_api.url}/console/   (sign in with the developer token below)
  bot-api           {bot_api.url}        (OpenAPI: {bot_api.url}/openapi.json)
  integrations-api  {integrations.url}   (OpenAPI: {integrations.url}/openapi.json)
  MongoDB           {config.mongodb_url}
  NATS              {config.nats_url}

  account           {issued.account}
  developer token   {issued.developer_token}
  public API key    {issued.public_key}
  (saved in {tokens_file})

{webhooks_reach(config)}
{channels_reach(config)}

Try:  curl -H "authorization: Bearer {issued.developer_token}" {bot_api.url}/stories
More accounts: .venv/bin/python -m bot_api accounts create NAME
Logs in {logs}. Ctrl-C stops everything.
""",
        flush=True,
    )
    watch(started, restarters)


def watch(
    started: list[ServerProcess],
    restarters: Mapping[str, Callable[[], ServerProcess]],
    clock: Callable[[], float] = time.monotonic,
    pause: float = 0.5,
) -> None:
    """Start again a server that died (on the same address; the services reconnect by
    themselves), checking every `pause` seconds; return when one died more than
    MAX_RESTARTS times within RESTART_WINDOW_SECONDS. Either way, say what died, how,
    and the last lines of its log."""
    deaths: dict[str, list[float]] = {name: [] for name in restarters}
    while True:
        for index, server in enumerate(started):
            if server.process.poll() is not None:
                died = f"{server.name} {server.exit_reason()}. Last lines of {server.log_path}:\n"
                print(died + server.log_tail(10), file=sys.stderr, flush=True)
                now = clock()
                recent = [t for t in deaths[server.name] if now - t < RESTART_WINDOW_SECONDS]
                deaths[server.name] = [*recent, now]
                if len(recent) >= MAX_RESTARTS:
                    print(
                        f"{server.name} died {len(recent) + 1} times within "
                        f"{RESTART_WINDOW_SECONDS:g} s and is not restarted; stopping Parley.",
                        file=sys.stderr,
                    )
                    return
                print(f"Restarting {server.name} on {server.url}.", file=sys.stderr, flush=True)
                started[index] = restarters[server.name]()
        time.sleep(pause)


def run_from_var_dir(run: Callable[[Path, list[ServerProcess]], None], command: str) -> None:
    """`run` (start everything into its list, say how to use it, return once a server
    exits by itself) with the var dir's lock held, until a stop signal; then stop what
    it started. `command` names the run in a failure."""
    var = var_dir(os.environ).resolve()
    var.mkdir(parents=True, exist_ok=True)
    hold_run_lock(var)
    (var / STACK_FILE).unlink(missing_ok=True)  # left by a run that was killed
    for signum in STOP_SIGNALS:
        signal.signal(signum, request_stop)
    started: list[ServerProcess] = []
    try:
        run(var, started)
    except StopRequested as stop:
        hung_up = stop.signum == signal.SIGHUP
    except Exception as error:
        raise SystemExit(f"{command} failed: {error}") from None
    else:
        raise SystemExit(1)  # a server exited by itself; run() said which
    finally:
        stop_all(started, var)
    if not hung_up:  # after a hang-up no terminal reads it
        print("\nParley stopped; data kept in", var)


def main() -> None:
    run_from_var_dir(run, "make run")


if __name__ == "__main__":
    main()
