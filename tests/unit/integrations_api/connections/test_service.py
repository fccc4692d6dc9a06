"""integrations-api's use cases, against in-memory connections, stories and outbox."""

from typing import Any

import pytest

from integrations_api.connections import service
from shared.errors import Conflict, NotFound, ValidationFailed
from shared.events import DeliveryResult, StoryChanged
from shared.pages import Page
from support.integrations import MemoryBackends

ACCOUNT = "acc-1"
OTHER_ACCOUNT = "acc-2"
STORY = "65f0c0ffee65f0c0ffee0001"
OTHER_STORY = "65f0c0ffee65f0c0ffee0002"


@pytest.fixture
def memory() -> MemoryBackends:
    memory = MemoryBackends()
    memory.stories.names[(ACCOUNT, STORY)] = "Support"
    memory.stories.names[(ACCOUNT, OTHER_STORY)] = "Sales"
    memory.stories.names[(OTHER_ACCOUNT, STORY)] = "Theirs"
    return memory


def connection(story_id: str = STORY, **extra: Any) -> dict[str, Any]:
    return {"storyId": story_id, "name": "CRM", "url": "https://crm.test/hook", **extra}


async def create(memory: MemoryBackends, account_id: str = ACCOUNT, story_id: str = STORY) -> str:
    return await service.create_connection(
        memory.backends, account_id=account_id, fields=connection(story_id)
    )


async def story_name_shown(memory: MemoryBackends, connection_id: str) -> str:
    document = await service.read_connection(
        memory.backends, account_id=ACCOUNT, connection_id=connection_id
    )
    return str(document["storyName"])


async def test_a_connection_is_created_for_a_story_of_the_account_and_published(
    memory: MemoryBackends,
) -> None:
    connection_id = await service.create_connection(
        memory.backends, account_id=ACCOUNT, fields=connection(token="secret")
    )

    assert await story_name_shown(memory, connection_id) == "Support"
    [event] = memory.published()
    assert (event.connection_id, event.revision, event.token, event.deleted) == (
        connection_id, 1, "secret", False,
    )  # fmt: skip


async def test_create_refuses_a_story_the_account_does_not_have_and_stores_nothing(
    memory: MemoryBackends,
) -> None:
    missing = "65f0c0ffee65f0c0ffee0009"
    with pytest.raises(ValidationFailed) as refused:
        await service.create_connection(
            memory.backends, account_id=OTHER_ACCOUNT, fields=connection(missing)
        )

    assert refused.value.errors == {"storyId": [f"no story {missing} in this account"]}
    assert memory.connections.documents == {}
    assert memory.outbox.events == []


async def test_each_write_publishes_a_greater_revision_and_a_deletion_one_more(
    memory: MemoryBackends,
) -> None:
    connection_id = await create(memory)
    for name in ("CRM v2", "CRM v3"):
        await service.update_connection(
            memory.backends,
            account_id=ACCOUNT,
            connection_id=connection_id,
            fields={"name": name, "url": "https://crm.test/v2"},
        )
    await service.delete_connection(
        memory.backends, account_id=ACCOUNT, connection_id=connection_id
    )

    published = memory.published()
    assert [event.revision for event in published] == [1, 2, 3, 4]
    assert [event.deleted for event in published] == [False, False, False, True]
    assert published[2].name == "CRM v3"


async def test_an_update_keeps_the_optional_fields_it_leaves_out_and_drops_nulls(
    memory: MemoryBackends,
) -> None:
    connection_id = await service.create_connection(
        memory.backends, account_id=ACCOUNT, fields=connection(token="secret")
    )
    await service.update_connection(
        memory.backends, account_id=ACCOUNT, connection_id=connection_id, fields=connection()
    )
    assert memory.published()[-1].token == "secret"

    await service.update_connection(
        memory.backends,
        account_id=ACCOUNT,
        connection_id=connection_id,
        fields=connection(token=None),
    )
    assert memory.published()[-1].token is None


@pytest.mark.parametrize("use_case", ["read", "update", "delete"])
async def test_another_accounts_connection_is_not_found_and_nothing_is_published(
    memory: MemoryBackends, use_case: str
) -> None:
    theirs = await create(memory, account_id=OTHER_ACCOUNT)
    memory.outbox.events.clear()
    backends = memory.backends

    with pytest.raises(NotFound):
        if use_case == "read":
            await service.read_connection(backends, account_id=ACCOUNT, connection_id=theirs)
        elif use_case == "update":
            await service.update_connection(
                backends, account_id=ACCOUNT, connection_id=theirs, fields=connection()
            )
        else:
            await service.delete_connection(backends, account_id=ACCOUNT, connection_id=theirs)

    assert memory.outbox.events == []
    assert len(memory.connections.documents) == 1


async def test_the_list_holds_the_accounts_connections_only(memory: MemoryBackends) -> None:
    mine = {await create(memory), await create(memory, story_id=OTHER_STORY)}
    await create(memory, account_id=OTHER_ACCOUNT)

    listed, _ = await service.list_connections(memory.backends, account_id=ACCOUNT, page=Page())

    assert {str(document["_id"]) for document in listed} == mine


async def test_a_story_deletion_removes_that_storys_connections_only(
    memory: MemoryBackends,
) -> None:
    await create(memory)
    kept = {
        await create(memory, story_id=OTHER_STORY),
        await create(memory, account_id=OTHER_ACCOUNT),
    }

    await service.story_changed(memory.backends, event=StoryChanged(ACCOUNT, STORY, deleted=True))

    assert {str(key) for key in memory.connections.documents} == kept


async def test_a_story_change_shows_the_storys_new_name(memory: MemoryBackends) -> None:
    connection_id = await create(memory)
    memory.stories.names[(ACCOUNT, STORY)] = "Support desk"

    await service.story_changed(memory.backends, event=StoryChanged(ACCOUNT, STORY, ("i1",)))

    assert await story_name_shown(memory, connection_id) == "Support desk"


async def test_a_change_to_a_story_deleted_since_leaves_its_connections_to_the_deletion(
    memory: MemoryBackends,
) -> None:
    connection_id = await create(memory)
    del memory.stories.names[(ACCOUNT, STORY)]

    await service.story_changed(memory.backends, event=StoryChanged(ACCOUNT, STORY, ("i1",)))

    assert await story_name_shown(memory, connection_id) == "Support"


async def test_a_delivery_result_sets_then_clears_the_connections_error(
    memory: MemoryBackends,
) -> None:
    connection_id = await create(memory)
    backends = memory.backends

    await service.delivery_reported(
        backends, result=DeliveryResult(ACCOUNT, connection_id, "timeout", at_ms=1_000)
    )
    failed = await service.read_connection(
        backends, account_id=ACCOUNT, connection_id=connection_id
    )
    await service.delivery_reported(
        backends, result=DeliveryResult(ACCOUNT, connection_id, None, at_ms=2_000)
    )
    recovered = await service.read_connection(
        backends, account_id=ACCOUNT, connection_id=connection_id
    )

    assert (failed["error"], recovered["error"]) == ("timeout", None)


async def test_a_connection_past_the_accounts_quota_is_refused_and_stores_nothing(
    memory: MemoryBackends,
) -> None:
    memory.quota = 2
    first = [await create(memory), await create(memory, story_id=OTHER_STORY)]
    with pytest.raises(Conflict) as refused:
        await create(memory)
    assert refused.value.errors == {"quota": "connections", "limit": 2}
    assert str(refused.value) == "quota reached: webhook connections per account (at most 2)"
    listed, total = await service.list_connections(memory.backends, account_id=ACCOUNT, page=Page())
    assert [str(c["_id"]) for c in listed] == first and total == 2
    assert await create(memory, account_id=OTHER_ACCOUNT)
