"""The command line both services share: `serve`, `accounts create|rotate NAME`,
`accounts limits NAME [SETTING=VALUE ...]` (shared/account_commands.py) and `accounts
members|tokens NAME ...` (shared/member_commands.py), each change of an account recorded
in its audit log (shared/command_audit.py)."""

import argparse
import asyncio
import dataclasses
import json
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from aiohttp import web
from pymongo.errors import ConnectionFailure

from shared import account_commands, logs, member_commands, messaging, mongo
from shared.auth import ACCOUNT_SETTINGS, AccountRepository, IssuedLimits, IssuedTokens
from shared.command_audit import CommandAudit, command_line_actor
from shared.config import Config
from shared.errors import ApiError
from shared.events import TokensRotated, encode
from shared.member_commands import MemberOptions, Outcome
from shared.members import MemberRepository
from shared.serving import serve
from shared.setting_reader import InvalidSetting

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


def limit_changes(config: Config, assignments: list[str]) -> dict[str, float | None]:
    """`SETTING=VALUE` (an account's own value, checked as the setting is) or `SETTING=`
    (back to the deployment's), by Config field name."""
    changes: dict[str, float | None] = {}
    for assignment in assignments:
        setting, equals, value = assignment.partition("=")
        if not equals or setting not in ACCOUNT_SETTINGS:
            raise InvalidSetting(
                f"{assignment!r}: write SETTING=VALUE (or SETTING= for the deployment's), "
                f"SETTING one of {', '.join(ACCOUNT_SETTINGS)}"
            )
        field = setting.lower()
        if value:
            checked = Config.from_env_mapping({**config.as_env(), setting: value})
            changes[field] = getattr(checked, field)
        else:
            changes[field] = None
    return changes


async def _accounts(
    config: Config,
    action: str,
    name: str,
    changes: dict[str, float | None],
    words: list[str],
    options: MemberOptions,
) -> IssuedTokens | IssuedLimits | Outcome:
    client = mongo.open_client(config.mongodb_url)
    try:
        database = client[config.accounts_database]
        accounts = AccountRepository(database)
        await accounts.ensure_indexes()
        audit = CommandAudit(database, config.audit_retention_days, command_line_actor())
        if action == "create":
            return await account_commands.create(accounts, audit, name)
        account_id = await accounts.id_of(name)
        if action in ("members", "tokens"):
            command = member_commands.members if action == "members" else member_commands.tokens
            outcome = await command(MemberRepository(database), audit, account_id, words, options)
            return dataclasses.replace(outcome, account_id=account_id)
        if action == "limits":
            return await account_commands.limits(accounts, audit, account_id, name, changes)
        return await account_commands.rotate(accounts, audit, account_id, name)
    finally:
        await client.close()


async def _announce(config: Config, account_id: str) -> str | None:
    """Tell every running process to forget what it cached of the account (its old
    tokens, its limits); what went wrong, if it could not."""
    event = encode(TokensRotated(account_id))
    try:
        await messaging.publish_once(config.nats_url, config.subjects.tokens_rotated, event)
    except Exception as error:
        return str(error) or type(error).__name__
    return None


Command = Callable[[Sequence[str], Mapping[str, str]], int]
"""A service's own command: its arguments (after its name) and the environment in, the
exit status out."""


def main(
    prog: str,
    create_app: Callable[[Config], web.Application],
    port_setting: str,
    more: Mapping[str, tuple[str, Command]] | None = None,
) -> int:
    """The command line of a service listening on the port its setting `port_setting`
    names (`BOT_API_PORT`); `more`: the service's own commands by name, each with its
    help line, listed by `--help` and given their arguments whole."""
    more = more or {}
    if sys.argv[1:2] and sys.argv[1] in more:
        return more[sys.argv[1]][1](sys.argv[2:], os.environ)
    parser = argparse.ArgumentParser(prog=prog)
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("serve", help="serve the HTTP API")
    accounts = commands.add_parser(
        "accounts",
        help="create an account, rotate its tokens, set its own limits, manage its members",
        epilog="; ".join(f"accounts {usage}" for usage in member_commands.USAGE.values()),
    )
    accounts.add_argument("action", choices=["create", "rotate", "limits", "members", "tokens"])
    accounts.add_argument("name")
    accounts.add_argument(
        "settings",
        nargs="*",
        metavar="SETTING=VALUE",
        help=f"limits: the account's own value of {', '.join(ACCOUNT_SETTINGS)} "
        "(SETTING= for the deployment's); members and tokens: what to do (below)",
    )
    accounts.add_argument("--json", action="store_true", help="print one JSON object")
    accounts.add_argument("--name", dest="member_name", help="members add: the member's name")
    accounts.add_argument("--stories", help="members add: the story ids they are narrowed to")
    accounts.add_argument("--expires", help="tokens create: when it expires (ISO 8601)")
    for name, (help_line, _) in more.items():
        commands.add_parser(name, help=help_line, add_help=False)
    args = parser.parse_args()

    environ = dict(os.environ)
    if args.command == "accounts" and "MONGODB_URL" not in environ:
        environ = {**running_stack_settings(environ), **environ}
    try:
        config = Config.from_env_mapping(environ)
        is_accounts = args.command == "accounts"
        if is_accounts and args.settings and args.action in ("create", "rotate"):
            raise InvalidSetting(f"accounts {args.action} takes no SETTING=VALUE")
        limits = is_accounts and args.action == "limits"
        changes = limit_changes(config, args.settings) if limits else {}
    except InvalidSetting as error:
        parser.exit(2, f"{prog}: {error}\n")

    if args.command == "serve":
        logs.configure(config)
        port = int(config.as_env()[port_setting])
        return asyncio.run(serve(create_app(config), config, port, port_setting))

    options = MemberOptions(args.member_name, args.stories, args.expires)
    words = [] if limits else args.settings
    try:
        issued = asyncio.run(_accounts(config, args.action, args.name, changes, words, options))
    except ApiError as error:
        parser.exit(1, f"{prog}: {error.details}\n")
    except ConnectionFailure:
        parser.exit(
            1,
            f"{prog}: no MongoDB answers at {config.mongodb_url}; "
            "start Parley with `make run` or set MONGODB_URL\n",
        )
    if isinstance(issued, Outcome):
        return _member_outcome(prog, config, issued, args.json)
    if args.action == "rotate" or changes:
        failure = asyncio.run(_announce(config, issued.account_id))
        if failure is not None:
            change = "rotation" if args.action == "rotate" else "new limits"
            print(
                f"{prog}: NATS at {config.nats_url} did not take the {change} ({failure}); "
                "running services keep what they cached of the account for up to 30 s more",
                file=sys.stderr,
            )
    if isinstance(issued, IssuedLimits):
        _print_limits(config, args.name, issued, args.json)
    elif args.json:
        print(json.dumps(issued.as_json()))
    else:
        print(f"account:          {issued.account}")
        print(f"developer token:  {issued.developer_token}")
        print(f"public API key:   {issued.public_key}")
        print("Keep them now: they are stored only as hashes and cannot be shown again.")
    return 0


def _member_outcome(prog: str, config: Config, outcome: Outcome, as_json: bool) -> int:
    """Print what a members or tokens command did; a removal or a revoke is announced, so
    running services refuse the member's tokens at once."""
    print(member_commands.printed(outcome, as_json))
    if outcome.changed:
        failure = asyncio.run(_announce(config, outcome.account_id))
        if failure is not None:
            print(
                f"{prog}: NATS at {config.nats_url} did not take the change ({failure}); "
                "running services may accept the member's tokens on /query for up to 30 s more",
                file=sys.stderr,
            )
    return 0


def _print_limits(config: Config, name: str, issued: IssuedLimits, as_json: bool) -> None:
    """Every setting the account may have of its own: its value, and whose it is."""
    own = dict(issued.limits.values)
    effective = issued.limits.applied_to(config)
    values = {setting: getattr(effective, setting.lower()) for setting in ACCOUNT_SETTINGS}
    if as_json:
        mine = sorted(field.upper() for field in own)
        print(json.dumps({"account": name, "limits": values, "own": mine}))
        return
    print(f"account: {name}")
    for setting, value in values.items():
        whose = "(this account's)" if setting.lower() in own else "(the deployment's)"
        print(f"  {setting:<30} {value:<10} {whose}")
