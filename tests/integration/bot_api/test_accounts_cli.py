"""`python -m bot_api accounts create|rotate NAME`: tokens shown once, stored as hashes;
`accounts limits NAME SETTING=VALUE ...`: one account's own limits and quotas."""

import dataclasses
import json
from typing import Any

from pymongo import MongoClient

from bot_api.app import create_app
from shared.auth import AccountRepository, TokenKind
from shared.config import Config
from shared.errors import Unauthorized
from support.accounts_command import cli
from support.api import Api
from support.waiting import eventually
from tools.embedded import free_port


async def test_create_prints_both_tokens_once_and_stores_only_their_hashes(
    config: Config, accounts: AccountRepository
) -> None:
    code, out, _ = await cli(config, "create", "acme", "--json")
    assert code == 0
    issued = json.loads(out)
    assert set(issued) == {"account", "developerToken", "publicKey"}
    assert issued["account"] == "acme"
    developer = await accounts.authenticate(issued["developerToken"])
    public = await accounts.authenticate(issued["publicKey"])
    assert (developer.kind, public.kind) == (TokenKind.DEVELOPER, TokenKind.PUBLIC)
    assert developer.account_id == public.account_id
    with MongoClient(config.mongodb_url) as client:
        stored = json.dumps(
            list(client[config.accounts_database]["accounts"].find({})), default=str
        )
    assert issued["developerToken"] not in stored and issued["publicKey"] not in stored


async def test_rotate_replaces_both_tokens(config: Config, accounts: AccountRepository) -> None:
    _, out, _ = await cli(config, "create", "acme", "--json")
    old = json.loads(out)
    code, out, _ = await cli(config, "rotate", "acme", "--json")
    new = json.loads(out)
    assert code == 0
    for token in (old["developerToken"], old["publicKey"]):
        try:
            await accounts.authenticate(token)
            raise AssertionError("a rotated token still works")
        except Unauthorized:
            pass
    assert (await accounts.authenticate(new["developerToken"])).kind == TokenKind.DEVELOPER


async def test_the_human_output_names_each_token(config: Config) -> None:
    code, out, _ = await cli(config, "create", "acme")
    assert code == 0
    assert "developer token:  pdt_" in out and "public API key:   ppk_" in out


async def test_a_taken_name_or_an_unknown_account_fails_with_a_message(config: Config) -> None:
    await cli(config, "create", "acme")
    code, _, err = await cli(config, "create", "acme")
    assert code == 1 and "already exists" in err
    code, _, err = await cli(config, "rotate", "nobody")
    assert code == 1 and "no account named 'nobody'" in err


async def test_with_no_database_answering_it_says_so_in_one_line() -> None:
    nowhere = Config(mongodb_url=f"mongodb://127.0.0.1:{free_port()}", nats_url="nats://unused")
    code, out, err = await cli(nowhere, "create", "acme")
    assert (code, out) == (1, "")
    assert err.splitlines() == [
        f"python -m bot_api: no MongoDB answers at {nowhere.mongodb_url}; "
        "start Parley with `make run` or set MONGODB_URL"
    ]


async def test_a_rotation_nats_does_not_take_is_said_in_one_line(config: Config) -> None:
    await cli(config, "create", "acme")
    unreachable = dataclasses.replace(config, nats_url=f"nats://127.0.0.1:{free_port()}")
    code, out, err = await cli(unreachable, "rotate", "acme", "--json")
    assert code == 0 and json.loads(out)["account"] == "acme"
    assert err.count("\n") == 1 and "did not take the rotation" in err
    assert "Traceback" not in err


async def test_limits_raise_one_accounts_rate_and_quotas(
    aiohttp_client: Any, config: Config, accounts: AccountRepository
) -> None:
    tight = dataclasses.replace(config, quota_stories=1, management_rate=0.001, management_burst=5)
    client = await aiohttp_client(create_app(tight))
    raised = Api(client, (await accounts.create("acme")).developer_token)
    other = Api(client, (await accounts.create("other")).developer_token)

    code, out, _ = await cli(tight, "limits", "acme", "QUOTA_STORIES=3", "MANAGEMENT_BURST=20")
    assert code == 0
    assert "QUOTA_STORIES" in out and "(this account's)" in out

    created = [
        (await raised.post("/stories", {"name": f"S{n}", "description": ""})).status
        for n in range(4)
    ]
    assert created == [200, 200, 200, 409]
    assert [(await raised.get("/stories")).status for _ in range(10)] == [200] * 10
    assert [
        (await other.post("/stories", {"name": f"S{n}", "description": ""})).status
        for n in range(2)
    ] == [
        200,
        409,
    ]
    assert [(await other.get("/stories")).status for _ in range(4)] == [200, 200, 200, 429]


async def test_limits_show_and_reset_an_accounts_own_values(config: Config) -> None:
    await cli(config, "create", "acme")
    await cli(config, "limits", "acme", "QUERY_RATE=500", "QUOTA_ENTITIES=900")
    code, out, _ = await cli(config, "limits", "acme", "QUERY_RATE=", "--json")
    shown = json.loads(out)
    assert code == 0 and shown["own"] == ["QUOTA_ENTITIES"]
    assert shown["limits"]["QUOTA_ENTITIES"] == 900
    assert shown["limits"]["QUERY_RATE"] == Config.from_env_mapping({}).query_rate


async def test_limits_refuse_an_unknown_setting_or_a_bad_value(config: Config) -> None:
    await cli(config, "create", "acme")
    for wrong in ("MAX_BODY_BYTES=1", "QUOTA_STORIES=-1", "QUERY_RATE"):
        code, out, err = await cli(config, "limits", "acme", wrong)
        assert (code, out) == (2, ""), wrong
        assert err.count("\n") == 1 and "Traceback" not in err
    code, _, err = await cli(config, "limits", "nobody", "QUOTA_STORIES=3")
    assert code == 1 and "nobody" in err


async def test_new_limits_reach_the_cached_principals_of_query_at_once(
    aiohttp_client: Any, config: Config, accounts: AccountRepository
) -> None:
    """/query keeps principals for 30 s; the command's announcement makes it drop them."""
    tight = dataclasses.replace(config, query_rate=0.001, query_burst=2)
    client = await aiohttp_client(create_app(tight))
    tokens = await accounts.create("acme")
    story_id = await Api(client, tokens.developer_token).create_story()
    public = Api(client, tokens.public_key)
    query = {"sessionId": "s", "query": "hi", "storyId": story_id}
    assert [(await public.post("/query", query)).status for _ in range(3)] == [200, 200, 429]

    code, _, _ = await cli(tight, "limits", "acme", "QUERY_RATE=1000")
    assert code == 0

    async def answered() -> bool:
        return (await public.post("/query", query)).status == 200

    await eventually(answered, seconds=10)


async def test_members_and_their_tokens_are_added_listed_and_removed(
    aiohttp_client: Any, config: Config
) -> None:
    client = await aiohttp_client(create_app(config))
    await cli(config, "create", "acme")
    code, out, err = await cli(
        config, "members", "acme", "add", "ci@example.com", "editor", "--name", "CI", "--json"
    )
    assert code == 0, err
    added = json.loads(out)
    assert (added["email"], added["role"], added["stories"]) == ("ci@example.com", "editor", None)
    code, out, _ = await cli(config, "members", "acme")
    assert code == 0 and "ci@example.com" in out and "editor" in out

    code, out, _ = await cli(
        config, "tokens", "acme", "CI@example.com", "create", "pipeline", "--json"
    )
    assert code == 0
    issued = json.loads(out)
    editor = Api(client, issued["token"])
    assert (await editor.get("/stories")).status == 200
    assert (await editor.get("/account/members")).status == 403
    code, out, _ = await cli(config, "tokens", "acme", "ci@example.com", "--json")
    assert [token["name"] for token in json.loads(out)] == ["pipeline"]
    assert issued["token"] not in out

    code, _, _ = await cli(config, "tokens", "acme", "ci@example.com", "revoke", issued["id"])
    assert code == 0
    assert (await editor.get("/stories")).status == 401
    second = json.loads(
        (await cli(config, "tokens", "acme", "ci@example.com", "create", "again", "--json"))[1]
    )
    code, _, _ = await cli(config, "members", "acme", "remove", "ci@example.com")
    assert code == 0
    assert (await Api(client, second["token"]).get("/stories")).status == 401


async def test_member_commands_refuse_bad_input_in_one_line(config: Config) -> None:
    await cli(config, "create", "acme")
    await cli(config, "members", "acme", "add", "a@example.com", "owner", "--name", "A")
    cases = [
        (("members", "acme", "add", "b@example.com", "admin", "--name", "B"), "no role"),
        (("members", "acme", "add", "b@example.com", "viewer"), "--name"),
        (("members", "acme", "add", "A@example.com", "viewer", "--name", "A"), "already"),
        (("members", "acme", "remove", "a@example.com"), "last owner"),
        (("members", "nobody"), "no account named 'nobody'"),
        (("tokens", "acme", "x@example.com"), "no member"),
        (("tokens", "acme", "a@example.com", "create", "t", "--expires", "soon"), "ISO 8601"),
        (
            ("members", "acme", "add", "c@example.com", "viewer", "--name", "C", "--stories", "x"),
            "story id",
        ),
    ]
    for args, message in cases:
        code, out, err = await cli(config, *args)
        assert (code, out) == (1, ""), args
        assert message in err and err.count("\n") == 1, (args, err)
