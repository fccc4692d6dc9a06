"""ChannelRepository on the embedded MongoDB and its in-memory twin, held to one
contract: three accounts, two stories each, two channels per story; every call reads or
changes exactly the channels it names, through its own account."""

import re
from collections.abc import AsyncIterator

import pytest
from pymongo import AsyncMongoClient

from integrations_api.channels.repository import (
    ACTIVE,
    ERROR,
    WEBHOOK_SECRET,
    Channel,
    ChannelFields,
    ChannelRepository,
    ChannelStore,
    channel_of,
)
from shared.config import Config
from shared.pages import Page
from support.channels import ChannelsInMemory
from support.documents import ACCOUNTS

STORIES = ("a" * 24, "b" * 24)
TOKEN = {"botToken": "123:abc"}
Snapshot = dict[str, Channel]


@pytest.fixture(params=["mongodb", "memory"])
async def channels(
    request: pytest.FixtureRequest, mongo_client: AsyncMongoClient, config: Config
) -> AsyncIterator[ChannelStore]:
    store: ChannelRepository | ChannelsInMemory
    if request.param == "mongodb":
        store = ChannelRepository(mongo_client[config.integrations_database])
    else:
        store = ChannelsInMemory()
    await store.ensure_indexes()
    yield store


async def seed(channels: ChannelStore) -> dict[tuple[str, str, int], str]:
    """(account, story, n) -> channel id."""
    ids = {}
    for account in ACCOUNTS:
        for story in STORIES:
            for n in range(2):
                fields = ChannelFields(f"Bot {n}", {"botToken": f"{account}-{story}-{n}"})
                channel = await channels.insert(
                    account, story, f"Story {story[0]}", "telegram", fields
                )
                ids[account, story, n] = channel.id
    return ids


async def snapshot(channels: ChannelStore) -> Snapshot:
    if isinstance(channels, ChannelRepository):
        return {str(d["_id"]): channel_of(d) async for d in channels.collection.find({})}
    assert isinstance(channels, ChannelsInMemory)
    return dict(channels.channels)


def changed(before: Snapshot, after: Snapshot) -> set[str]:
    return {key for key in before.keys() | after.keys() if before.get(key) != after.get(key)}


async def test_insert_adds_an_active_channel_with_a_webhook_secret_of_its_own(
    channels: ChannelStore,
) -> None:
    await seed(channels)
    before = await snapshot(channels)

    channel = await channels.insert(
        ACCOUNTS[1], STORIES[0], "Pizza", "telegram", ChannelFields("T", TOKEN)
    )

    after = await snapshot(channels)
    assert changed(before, after) == {channel.id}
    stored = after[channel.id]
    assert (stored.account_id, stored.story_id, stored.story_name, stored.type, stored.name) == (
        ACCOUNTS[1], STORIES[0], "Pizza", "telegram", "T"
    )  # fmt: skip
    assert (stored.status, stored.error) == (ACTIVE, None)
    assert stored.credentials["botToken"] == "123:abc"
    secrets = {c.credentials[WEBHOOK_SECRET] for c in after.values()}
    assert len(secrets) == len(after)
    assert len(stored.credentials[WEBHOOK_SECRET]) >= 32


async def test_a_new_channel_s_id_is_128_random_bits_and_an_old_one_s_is_still_found(
    channels: ChannelStore,
) -> None:
    """Ids were ObjectIds (a timestamp and a counter: the next one guessable from one's
    own, issue 29); the channels made then keep them."""
    fields = ChannelFields("T", TOKEN)
    made = [await channels.insert(ACCOUNTS[0], STORIES[0], "P", "telegram", fields) for _ in "abc"]
    ids = [channel.id for channel in made]
    assert all(re.fullmatch(r"[0-9a-f]{32}", channel_id) for channel_id in ids)
    assert len({channel_id[:8] for channel_id in ids}) == 3
    old = "65f0c0ffee65f0c0ffee0042"
    await channels.insert(ACCOUNTS[0], STORIES[0], "P", "telegram", fields, old)
    found = await channels.get(ACCOUNTS[0], old)
    assert found is not None and found == await channels.find(old)


async def test_a_channel_s_repr_never_shows_its_credentials(channels: ChannelStore) -> None:
    channel = await channels.insert(
        ACCOUNTS[0], STORIES[0], "P", "telegram", ChannelFields("T", TOKEN)
    )
    assert "123:abc" not in repr(channel)
    assert channel.credentials[WEBHOOK_SECRET] not in repr(channel)
    assert "123:abc" not in repr(ChannelFields("T", TOKEN))


async def test_list_and_count_show_the_account_s_channels_oldest_first(
    channels: ChannelStore,
) -> None:
    ids = await seed(channels)
    for account in ACCOUNTS:
        listed = [c.id for c in await channels.list(account, Page())]
        assert listed == [i for (a, _, _), i in ids.items() if a == account]
        assert await channels.count(account) == 4
        assert [c.id for c in await channels.list(account, Page(1, 2))] == listed[1:3]


async def test_get_finds_a_channel_only_through_its_account_and_find_through_any(
    channels: ChannelStore,
) -> None:
    ids = await seed(channels)
    for (account, story, n), channel_id in ids.items():
        found = await channels.get(account, channel_id)
        assert found is not None
        assert (found.account_id, found.story_id, found.name) == (account, story, f"Bot {n}")
        assert await channels.find(channel_id) == found
        for other in ACCOUNTS:
            if other != account:
                assert await channels.get(other, channel_id) is None
    assert await channels.get(ACCOUNTS[0], "not-an-id") is None
    assert await channels.find("not-an-id") is None
    assert await channels.find("c" * 24) is None


async def test_update_renames_and_replaces_credentials_keeping_the_webhook_secret(
    channels: ChannelStore,
) -> None:
    ids = await seed(channels)
    target = ids[ACCOUNTS[1], STORIES[1], 0]
    before = await snapshot(channels)
    secret = before[target].credentials[WEBHOOK_SECRET]

    renamed = await channels.update(ACCOUNTS[1], target, ChannelFields("Renamed"))
    assert renamed is not None
    assert (renamed.name, renamed.credentials) == ("Renamed", before[target].credentials)
    replaced = await channels.update(ACCOUNTS[1], target, ChannelFields("R", {"botToken": "9:z"}))

    after = await snapshot(channels)
    assert changed(before, after) == {target}
    assert replaced == after[target]
    assert dict(after[target].credentials) == {"botToken": "9:z", WEBHOOK_SECRET: secret}
    assert after[target].updated_at >= before[target].updated_at


async def test_update_through_another_account_changes_nothing(channels: ChannelStore) -> None:
    ids = await seed(channels)
    before = await snapshot(channels)

    stolen = ChannelFields("Stolen", {"botToken": "evil"})
    assert await channels.update(ACCOUNTS[0], ids[ACCOUNTS[2], STORIES[0], 1], stolen) is None
    await channels.set_status(ACCOUNTS[0], ids[ACCOUNTS[2], STORIES[0], 1], ERROR, "x")
    await channels.record_delivery(ACCOUNTS[0], ids[ACCOUNTS[2], STORIES[0], 1], "x")
    await channels.record_delivery(ACCOUNTS[0], "not-an-id", "x")

    assert await snapshot(channels) == before


async def test_set_status_and_record_delivery_change_one_channel(channels: ChannelStore) -> None:
    ids = await seed(channels)
    first, second = ids[ACCOUNTS[1], STORIES[0], 0], ids[ACCOUNTS[1], STORIES[0], 1]
    before = await snapshot(channels)

    await channels.set_status(ACCOUNTS[1], first, ERROR, "Unauthorized")
    await channels.record_delivery(ACCOUNTS[1], second, "telegram sendMessage: HTTP 400")

    after = await snapshot(channels)
    assert changed(before, after) == {first, second}
    assert (after[first].status, after[first].error) == (ERROR, "Unauthorized")
    assert (after[second].status, after[second].error) == (ACTIVE, "telegram sendMessage: HTTP 400")

    await channels.set_status(ACCOUNTS[1], first, ACTIVE, None)
    await channels.record_delivery(ACCOUNTS[1], second, None)
    assert await snapshot(channels) == before


async def test_of_type_lists_every_account_s_channels_with_where_they_were_registered(
    channels: ChannelStore,
) -> None:
    ids = await seed(channels)
    first = ids[ACCOUNTS[1], STORIES[0], 0]
    url = f"https://tunnel.example/v2/channels/{first}"

    await channels.set_status(ACCOUNTS[1], first, ACTIVE, None, url)

    listed = {channel.id: channel async for channel in channels.of_type("telegram")}
    assert set(listed) == set(ids.values())
    assert {key: c.webhook_url for key, c in listed.items() if c.webhook_url} == {first: url}
    await channels.set_status(ACCOUNTS[1], first, ERROR, "Unauthorized")
    refused = await channels.find(first)
    assert refused is not None and refused.webhook_url is None
    assert [channel async for channel in channels.of_type("slack")] == []


async def test_stories_rename_and_take_their_channels_only(channels: ChannelStore) -> None:
    ids = await seed(channels)
    before = await snapshot(channels)
    assert await channels.used_by_story(ACCOUNTS[0], STORIES[1])
    assert not await channels.used_by_story(ACCOUNTS[0], "c" * 24)

    await channels.rename_story(ACCOUNTS[1], STORIES[0], "Pizza")
    renamed = await snapshot(channels)
    expected = {ids[ACCOUNTS[1], STORIES[0], n] for n in range(2)}
    assert changed(before, renamed) == expected
    assert {renamed[i].story_name for i in expected} == {"Pizza"}

    await channels.delete_for_story(ACCOUNTS[2], STORIES[1])
    after = await snapshot(channels)
    assert changed(renamed, after) == {ids[ACCOUNTS[2], STORIES[1], n] for n in range(2)}
    assert not await channels.used_by_story(ACCOUNTS[2], STORIES[1])


async def test_delete_deletes_one_channel_of_its_own_account(channels: ChannelStore) -> None:
    ids = await seed(channels)
    target = ids[ACCOUNTS[0], STORIES[1], 1]
    before = await snapshot(channels)

    assert await channels.delete(ACCOUNTS[1], target) is None
    assert await snapshot(channels) == before

    deleted = await channels.delete(ACCOUNTS[0], target)
    assert deleted == before[target]
    assert changed(before, await snapshot(channels)) == {target}
    assert await channels.delete(ACCOUNTS[0], target) is None
