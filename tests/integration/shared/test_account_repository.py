"""AccountRepository against the embedded MongoDB: three accounts; each token names its
own account, and a rotation changes that account only."""

import pytest

from shared.auth import (
    AccountRepository,
    IssuedTokens,
    Principal,
    PrincipalCache,
    TokenKind,
    hash_token,
)
from shared.errors import Conflict, NotFound, Unauthorized
from support.documents import Documents, changed, contents

NAMES = ("alice", "bob", "carol")


async def seed(accounts: AccountRepository) -> dict[str, IssuedTokens]:
    return {name: await accounts.create(name) for name in NAMES}


async def snapshot(accounts: AccountRepository) -> Documents:
    return await contents(accounts.collection)


async def account_id(accounts: AccountRepository, name: str) -> str:
    document = await accounts.collection.find_one({"name": name})
    assert document is not None
    return str(document["_id"])


async def test_create_adds_one_account_and_refuses_a_name_taken(
    accounts: AccountRepository,
) -> None:
    await seed(accounts)
    before = await snapshot(accounts)

    with pytest.raises(Conflict):
        await accounts.create("bob")
    assert await snapshot(accounts) == before

    issued = await accounts.create("dave")
    after = await snapshot(accounts)
    assert changed(before, after) == {await account_id(accounts, "dave")}
    assert issued.developer_token.startswith("pdt_") and issued.public_key.startswith("ppk_")


async def test_authenticate_names_the_account_and_kind_of_each_token(
    accounts: AccountRepository,
) -> None:
    issued = await seed(accounts)
    for name, tokens in issued.items():
        owner = await account_id(accounts, name)
        assert await accounts.authenticate(tokens.developer_token) == Principal(
            owner, TokenKind.DEVELOPER
        )
        assert await accounts.authenticate(tokens.public_key) == Principal(owner, TokenKind.PUBLIC)
    with pytest.raises(Unauthorized):
        await accounts.authenticate("pdt_unknown")


async def test_rotate_replaces_the_tokens_of_that_account_only(
    accounts: AccountRepository,
) -> None:
    issued = await seed(accounts)
    before = await snapshot(accounts)

    rotated = await accounts.rotate("bob")

    after = await snapshot(accounts)
    assert changed(before, after) == {await account_id(accounts, "bob")}
    for old in (issued["bob"].developer_token, issued["bob"].public_key):
        with pytest.raises(Unauthorized):
            await accounts.authenticate(old)
    bob = await account_id(accounts, "bob")
    assert (await accounts.authenticate(rotated.developer_token)).account_id == bob
    assert (await accounts.authenticate(rotated.public_key)).account_id == bob
    carol = await accounts.authenticate(issued["carol"].developer_token)
    assert carol.account_id == await account_id(accounts, "carol")


async def test_rotate_of_an_unknown_account_changes_nothing(accounts: AccountRepository) -> None:
    await seed(accounts)
    before = await snapshot(accounts)

    with pytest.raises(NotFound):
        await accounts.rotate("mallory")

    assert await snapshot(accounts) == before


async def test_the_principal_cache_remembers_an_invalid_token_briefly(
    accounts: AccountRepository,
) -> None:
    """Repeating an invalid token reads no account for `refused_ttl`: a token stored after
    the first refusal is still refused by that cache, while a new cache finds it."""
    token = "ppk_guessed"
    cache = PrincipalCache(accounts, refused_ttl=60)
    with pytest.raises(Unauthorized):
        await cache.authenticate(token)
    await accounts.collection.insert_one(
        {"name": "late", "developerTokenHash": "d", "publicKeyHash": hash_token(token)}
    )
    with pytest.raises(Unauthorized):
        await cache.authenticate(token)
    assert (await PrincipalCache(accounts).authenticate(token)).kind is TokenKind.PUBLIC


async def test_an_account_s_public_principal_is_kept_until_its_limits_are_announced(
    accounts: AccountRepository,
) -> None:
    """A channel's turn names its account, not a token: the cache keeps the account's
    public principal as it keeps a token's, and forgets it when new limits are announced."""
    issued = await accounts.create("acme")
    cache = PrincipalCache(accounts, ttl=60)
    first = await cache.public(issued.account_id)
    assert (first.account_id, first.kind, first.limits.values) == (
        issued.account_id,
        TokenKind.PUBLIC,
        (),
    )
    await accounts.set_limits("acme", {"query_rate": 500})
    assert (await cache.public(issued.account_id)).limits.values == ()
    cache.forget(issued.account_id)
    assert (await cache.public(issued.account_id)).limits.values == (("query_rate", 500),)
