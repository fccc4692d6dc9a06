"""The command line both services share: `serve`, and `accounts create|rotate NAME`."""

import argparse
import asyncio
import json
import os
import sys
from collections.abc import Callable, Mapping
from pathlib import Path

from aiohttp import web
from pymongo.errors import ConnectionFailure

from shared import logs, messaging, mongo
from shared.auth import AccountRepository, IssuedTokens
from shared.config import Config, InvalidSetting
from shared.errors import ApiError
from shared.events import TokensRotated, encode
from shared.serving import serve

STACK_FILE = "stack.json"


def var_dir(environ: Mapping[str, str]) -> Path:
    """Where `make run` keeps data, logs and tokens (PARLEY_VAR_DIR, default var/)."""
    return Path(environ.get("PARLEY_VAR_DIR", "var"))


def running_stack_settings(environ: Mapping[str, str]) -> dict[str, str]:
    """The settings of the stack `make run` is running from the var dir, so `accounts`
    reaches its database (on a port of its own); none when it is not running."""
    try:
        settings: dict[str, str] = json.loads((var_dir(environ) / STACK_FILE).read_text())
    except FileNotFoundError:
        return {}
    return settings


async def _accounts(config: Config, action: str, name: str) -> IssuedTokens:
    client = mongo.open_client(config.mongodb_url)
    try:
        accounts = AccountRepository(client[config.accounts_database])
        await accounts.ensure_indexes()
        if action == "create":
            return await accounts.create(name)
        return await accounts.rotate(name)
    finally:
        await client.close()


async def _announce_rotation(config: Config, issued: IssuedTokens) -> str | None:
    """Tell every running process to forget the account's old tokens; what went wrong,
    if it could not."""
    event = encode(TokensRotated(issued.account_id))
    try:
        await messaging.publish_once(config.nats_url, config.subjects.tokens_rotated, event)
    except Exception as error:
        return str(error) or type(error).__name__
    return None


def main(prog: str, create_app: Callable[[Config], web.Application], port_setting: str) -> int:
    """The command line of a service listening on the port its setting `port_setting`
    names (`BOT_API_PORT`)."""
    parser = argparse.ArgumentParser(prog=prog)
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("serve", help="serve the HTTP API")
    accounts = commands.add_parser("accounts", help="create an account or rotate its tokens")
    accounts.add_argument("action", choices=["create", "rotate"])
    accounts.add_argument("name")
    accounts.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()

    environ = dict(os.environ)
    if args.command == "accounts" and "MONGODB_URL" not in environ:
        environ = {**running_stack_settings(environ), **environ}
    try:
        config = Config.from_env_mapping(environ)
    except InvalidSetting as error:
        parser.exit(2, f"{prog}: {error}\n")

    if args.command == "serve":
        logs.configure(config)
        port = int(config.as_env()[port_setting])
        return asyncio.run(serve(create_app(config), config, port, port_setting))

    try:
        issued = asyncio.run(_accounts(config, args.action, args.name))
    except ApiError as error:
        parser.exit(1, f"{prog}: {error.details}\n")
    except ConnectionFailure:
        parser.exit(
            1,
            f"{prog}: no MongoDB answers at {config.mongodb_url}; "
            "start Parley with `make run` or set MONGODB_URL\n",
        )
    if args.action == "rotate":
        failure = asyncio.run(_announce_rotation(config, issued))
        if failure is not None:
            print(
                f"{prog}: NATS at {config.nats_url} did not take the rotation ({failure}); "
                "running services accept the old tokens for up to 30 s more",
                file=sys.stderr,
            )
    if args.json:
        print(json.dumps(issued.as_json()))
    else:
        print(f"account:          {issued.account}")
        print(f"developer token:  {issued.developer_token}")
        print(f"public API key:   {issued.public_key}")
        print("Keep them now: they are stored only as hashes and cannot be shown again.")
    return 0
