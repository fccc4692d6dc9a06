"""The `accounts` command's audit records (docs/teams.md "Audit log"): each change it
makes leaves one record, by the command line named after the operating-system user,
that GET /audit shows; reads and refusals leave none; no record holds a token; and a
change whose record cannot be written is not made."""

import json
from datetime import timedelta
from typing import Any

import pytest
from aiohttp.test_utils import TestClient
from pymongo import AsyncMongoClient

from shared.auth import AccountRepository, Role, TokenKind
from shared.config import Config
from shared.errors import NotFound
from shared.members import MemberFields, MemberRepository
from shared.timeutil import iso, utcnow
from support.accounts_command import cli
from support.api import Api

OPERATOR = {"kind": "command line", "id": "cli:ops-ana", "name": "ops-ana"}
STORY = "a" * 24


async def changed(config: Config, *args: str) -> Any:
    """What a command printed as JSON, once it succeeded."""
    code, out, err = await cli(config, *args, "--json", user="ops-ana")
    assert code == 0, err
    return json.loads(out)


async def test_each_change_leaves_one_record_and_reads_and_refusals_none(
    config: Config, accounts: AccountRepository, bot_api: TestClient, mongo_client: AsyncMongoClient
) -> None:
    created = await changed(config, "create", "acme")
    account_id = await accounts.id_of("acme")
    rotated = await changed(config, "rotate", "acme")
    await changed(config, "limits", "acme", "QUOTA_STORIES=3", "QUERY_RATE=500")
    await changed(config, "limits", "acme", "QUERY_RATE=")
    member = await changed(
        config,
        "members",
        "acme",
        "add",
        "ci@example.com",
        "editor",
        "--name",
        "CI",
        "--stories",
        STORY,
    )
    expires = iso(utcnow().replace(microsecond=0) + timedelta(days=30))
    token = await changed(
        config, "tokens", "acme", "ci@example.com", "create", "pipeline", "--expires", expires
    )
    await changed(config, "tokens", "acme", "ci@example.com", "revoke", token["id"])
    again = await changed(config, "tokens", "acme", "ci@example.com", "create", "again")
    await changed(config, "members", "acme", "remove", "ci@example.com")
    first_owner = await changed(
        config, "members", "acme", "add", "a@example.com", "owner", "--name", "A"
    )
    for read in (
        ("limits", "acme"),
        ("members", "acme"),
        ("members", "acme", "list"),
        ("tokens", "acme", "a@example.com"),
    ):
        await changed(config, *read)
    for refused in (
        ("create", "acme"),
        ("members", "acme", "add", "A@example.com", "viewer", "--name", "A"),
        ("members", "acme", "remove", "a@example.com"),
        ("tokens", "acme", "a@example.com", "revoke", STORY),
    ):
        assert (await cli(config, *refused, user="ops-ana"))[0] == 1, refused

    owner = Api(bot_api, rotated["developerToken"])
    items = (await owner.ok("GET", "/audit?member=cli:ops-ana"))["items"]

    assert [(item["kind"], item["summary"]) for item in items] == [
        ("member.create", 'email: "a@example.com"; name: "A"; role: "owner"'),
        ("member.delete", 'email: "ci@example.com"'),
        ("token.create", 'member: "ci@example.com"; name: "again"'),
        ("token.revoke", 'member: "ci@example.com"'),
        ("token.create", f'member: "ci@example.com"; name: "pipeline"; expiresAt: "{expires}"'),
        (
            "member.create",
            'email: "ci@example.com"; name: "CI"; role: "editor"; stories: [1 items]',
        ),
        ("limits.update", "QUERY_RATE: 500.0 -> null"),
        ("limits.update", "QUOTA_STORIES: null -> 3; QUERY_RATE: null -> 500.0"),
        ("tokens.rotate", "developerToken; publicKey"),
        ("account.create", 'name: "acme"; developerToken; publicKey'),
    ]
    assert all(item["actor"] == OPERATOR and item["confirmed"] for item in items)
    assert all("storyId" not in item for item in items)
    assert [item["target"] for item in items] == [
        first_owner["id"],
        member["id"],
        again["id"],
        token["id"],
        token["id"],
        member["id"],
        *[account_id] * 4,
    ]
    assert (await owner.ok("GET", "/audit"))["items"] == items
    stored = json.dumps(
        await mongo_client[config.accounts_database]["audit"].find({}).to_list(), default=str
    )
    secrets = [created["developerToken"], created["publicKey"], token["token"], again["token"]]
    secrets += [rotated["developerToken"], rotated["publicKey"]]
    assert [secret for secret in secrets if secret in stored] == []


async def test_a_change_whose_record_cannot_be_written_is_not_made(
    config: Config, accounts: AccountRepository, mongo_client: AsyncMongoClient
) -> None:
    tokens = await accounts.create("acme")
    members = MemberRepository(mongo_client[config.accounts_database])
    owner = MemberFields("a@example.com", "A", Role.OWNER)
    editor = await members.create(
        tokens.account_id, MemberFields("e@example.com", "E", Role.EDITOR)
    )
    await members.create(tokens.account_id, owner)
    kept = await members.create_token(tokens.account_id, editor.id, "kept", None)
    await changed(config, "limits", "acme", "QUOTA_STORIES=5")
    records = mongo_client[config.accounts_database]["audit"]
    # One record per actor from now on: the command line's next one is refused.
    await records.create_index("actorId", unique=True)

    for args in (
        ("create", "other"),
        ("rotate", "acme"),
        ("limits", "acme", "QUOTA_STORIES=3", "QUERY_RATE="),
        ("members", "acme", "add", "b@example.com", "viewer", "--name", "B"),
        ("members", "acme", "remove", "e@example.com"),
        ("tokens", "acme", "e@example.com", "create", "new"),
        ("tokens", "acme", "e@example.com", "revoke", kept.id),
    ):
        code, out, err = await cli(config, *args, user="ops-ana")
        assert (code, out) == (1, ""), args
        assert "the audit log could not record this change, so it was not made" in err, args
        assert err.count("\n") == 1 and "Traceback" not in err, (args, err)

    with pytest.raises(NotFound):
        await accounts.id_of("other")
    assert (await accounts.authenticate(tokens.developer_token)).kind is TokenKind.DEVELOPER
    assert dict((await accounts.limits(tokens.account_id)).values) == {"quota_stories": 5}
    assert [m.email for m in await members.all(tokens.account_id)] == [
        "e@example.com",
        "a@example.com",
    ]
    assert [t.id for t in await members.tokens(tokens.account_id, editor.id)] == [kept.id]
    assert await records.count_documents({}) == 1
