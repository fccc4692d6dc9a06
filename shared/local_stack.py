"""`make run`: the whole stack on one machine, data kept under var/ between runs.

Starts nx-27017 and nats-server (unless MONGODB_URL / NATS_URL point elsewhere), both
services, makes sure a local account exists and its tokens work, prints what a person
needs to start, and stops everything on Ctrl-C.
"""

import asyncio
import json
import os
import signal
import sys
import time
from pathlib import Path
from types import FrameType

from shared import mongo
from shared.auth import AccountRepository, IssuedTokens
from shared.config import Config
from shared.embedded import ServerProcess, start_mongo, start_nats, start_service
from shared.errors import ApiError

LOCAL_ACCOUNT = "local"
LOOPBACK = "127.0.0.0/8,::1/128"


async def ensure_local_account(config: Config, saved: dict[str, str] | None) -> IssuedTokens:
    """Reuse the saved tokens while they still work; otherwise create or rotate them."""
    client = mongo.open_client(config.mongodb_url)
    try:
        accounts = AccountRepository(client[config.accounts_database])
        await accounts.ensure_indexes()
        if saved is not None:
            try:
                await accounts.authenticate(saved["developerToken"])
                await accounts.authenticate(saved["publicKey"])
                return IssuedTokens(saved["account"], saved["developerToken"], saved["publicKey"])
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


def main() -> None:
    var = Path(os.environ.get("PARLEY_VAR_DIR", "var")).resolve()
    logs = var / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ)
    env.setdefault("WEBHOOK_ALLOW", LOOPBACK)
    bot_api_port = env.get("BOT_API_PORT", "8080")
    env.setdefault(
        "API_ORIGINS", f"http://127.0.0.1:{bot_api_port},http://localhost:{bot_api_port}"
    )
    started: list[ServerProcess] = []

    def stop_all(signum: int | None = None, frame: FrameType | None = None) -> None:
        for server in reversed(started):
            server.stop()
        started.clear()
        if signum is not None:
            print("\nParley stopped; data kept in", var)
            raise SystemExit(0)

    signal.signal(signal.SIGINT, stop_all)
    signal.signal(signal.SIGTERM, stop_all)
    try:
        if "MONGODB_URL" not in env:
            started.append(start_mongo(var / "mongo", logs))
            env["MONGODB_URL"] = started[-1].url
        if "NATS_URL" not in env:
            started.append(start_nats(var / "nats", logs))
            env["NATS_URL"] = started[-1].url
        config = Config.from_env_mapping(env)
        tokens_file = var / "local-account.json"
        issued = local_account(config, tokens_file)
        bot_api = start_service("bot_api", config.bot_api_port, env, logs)
        started.append(bot_api)
        integrations = start_service("integrations_api", config.integrations_api_port, env, logs)
        started.append(integrations)
    except Exception as error:
        stop_all()
        raise SystemExit(f"make run failed: {error}") from None

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

Webhooks may call: {env["WEBHOOK_ALLOW"]} (WEBHOOK_ALLOW; loopback on your own machine).

Try:  curl -H "authorization: Bearer {issued.developer_token}" {bot_api.url}/stories
Logs in {logs}. Ctrl-C stops everything.
""",
        flush=True,
    )
    while True:
        for server in started:
            if server.process.poll() is not None:
                print(f"{server.name} exited; see {server.log_path}", file=sys.stderr)
                stop_all()
                raise SystemExit(1)
        time.sleep(0.5)


if __name__ == "__main__":
    main()
