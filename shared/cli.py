"""The command line both services share: `serve`, and `accounts create|rotate NAME`."""

import argparse
import asyncio
import json
import logging
from collections.abc import Callable

from aiohttp import web

from shared import mongo, server
from shared.auth import AccountRepository, IssuedTokens
from shared.config import Config
from shared.errors import ApiError


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


def main(
    prog: str, create_app: Callable[[Config], web.Application], port_of: Callable[[Config], int]
) -> int:
    parser = argparse.ArgumentParser(prog=prog)
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("serve", help="serve the HTTP API")
    accounts = commands.add_parser("accounts", help="create an account or rotate its tokens")
    accounts.add_argument("action", choices=["create", "rotate"])
    accounts.add_argument("name")
    accounts.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    config = Config.from_env()

    if args.command == "serve":
        logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
        server.serve(create_app(config), config, host="0.0.0.0", port=port_of(config))
        return 0

    try:
        issued = asyncio.run(_accounts(config, args.action, args.name))
    except ApiError as error:
        parser.exit(1, f"{prog}: {error.details}\n")
    if args.json:
        print(json.dumps(issued.as_json()))
    else:
        print(f"account:          {issued.account}")
        print(f"developer token:  {issued.developer_token}")
        print(f"public API key:   {issued.public_key}")
        print("Keep them now: they are stored only as hashes and cannot be shown again.")
    return 0
