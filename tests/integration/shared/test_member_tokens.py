"""Member tokens against the embedded MongoDB, on a clock of the test's: a token names
its member's role and stories, stops at its expiry (cached or not) and at its revoke;
the bounds and the last owner hold."""

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import pytest

from shared import mongo
from shared.auth import AccountRepository, PrincipalCache, Role, TokenKind
from shared.config import Config
from shared.errors import BadRequest, Conflict, Unauthorized
from shared.members import MAX_MEMBERS, MemberFields, MemberRepository


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2030, 1, 1, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
async def repositories(
    config: Config, clock: Clock
) -> AsyncIterator[tuple[AccountRepository, MemberRepository]]:
    client = mongo.open_client(config.mongodb_url)
    database = client[config.accounts_database]
    accounts = AccountRepository(database, now=clock)
    await accounts.ensure_indexes()
    yield accounts, MemberRepository(database, now=clock)
    await client.close()


async def test_a_token_names_its_member_and_stops_at_its_expiry_even_cached(
    repositories: tuple[AccountRepository, MemberRepository], clock: Clock
) -> None:
    accounts, members = repositories
    account_id = (await accounts.create("acme")).account_id
    story = "0123456789abcdef01234567"
    ada = await members.create(
        account_id, MemberFields("ada@example.com", "Ada", Role.AGENT, (story,))
    )
    issued = await members.create_token(
        account_id, ada.id, "laptop", clock.now + timedelta(hours=1)
    )
    cache = PrincipalCache(accounts)
    principal = await cache.authenticate(issued.token)
    assert (principal.account_id, principal.kind, principal.role) == (
        account_id,
        TokenKind.DEVELOPER,
        Role.AGENT,
    )
    assert (principal.member_id, principal.member_name, principal.token_id) == (
        ada.id,
        "Ada",
        issued.id,
    )
    assert principal.stories == frozenset({story})
    clock.now += timedelta(hours=1)
    for source in (cache, accounts):
        with pytest.raises(Unauthorized):
            await source.authenticate(issued.token)


async def test_tokens_expire_within_a_year_and_by_default_in_ninety_days(
    repositories: tuple[AccountRepository, MemberRepository], clock: Clock
) -> None:
    accounts, members = repositories
    account_id = (await accounts.create("acme")).account_id
    ada = await members.create(account_id, MemberFields("ada@example.com", "Ada", Role.VIEWER))
    issued = await members.create_token(account_id, ada.id, "ci", None)
    assert issued.expires_at == clock.now + timedelta(days=90)
    for when in (clock.now, clock.now + timedelta(days=367)):
        with pytest.raises(BadRequest):
            await members.create_token(account_id, ada.id, "ci", when)


async def test_the_members_of_an_account_are_bounded(
    repositories: tuple[AccountRepository, MemberRepository],
) -> None:
    accounts, members = repositories
    account_id = (await accounts.create("acme")).account_id
    for number in range(MAX_MEMBERS):
        await members.create(account_id, MemberFields(f"m{number}@example.com", "M", Role.VIEWER))
    with pytest.raises(Conflict):
        await members.create(account_id, MemberFields("one@example.com", "M", Role.VIEWER))


async def test_a_failed_create_gives_its_place_back(
    repositories: tuple[AccountRepository, MemberRepository],
) -> None:
    """An e-mail taken costs no place among the members, nor an owner's count."""
    accounts, members = repositories
    account_id = (await accounts.create("acme")).account_id
    first = await members.create(account_id, MemberFields("a@example.com", "A", Role.OWNER))
    with pytest.raises(Conflict):
        await members.create(account_id, MemberFields("A@example.com", "B", Role.OWNER))
    with pytest.raises(Conflict):  # still the last owner: the failed create counted none
        await members.delete(account_id, first.id)
