"""Story import and export as use cases over in-memory repositories: what an import
writes, in which order, what it announces, and that a refusal or a failure on the way
leaves nothing behind."""

import json
from typing import Any

import pytest
from pymongo.errors import AutoReconnect

from bot_api.changes import ChangeFeed, EntitiesEdited, StoryCreated
from bot_api.domain.entities import Entity, Entry
from bot_api.management.quotas import QuotaExceeded, Quotas
from bot_api.management.transfer import ImportRefused, StoryTransfer
from bot_api.schemas.story_document import exported_document, read_upload
from shared.errors import Conflict
from support.changes import Announced
from support.memory import ConversationTestsInMemory, Database

ACCOUNT = "account-1"
WRITES = ("entities.insert", "interactions.insert_many", "stories.insert")


def document(**changes: Any) -> dict[str, Any]:
    return {
        "format": "parley.story",
        "version": 1,
        "name": "Pizza",
        "interactions": [
            {
                "key": "order",
                "name": "Order",
                "userSays": ["a {{size:size}} pizza"],
                "connection": "Orders",
                "contextOut": ["drinks"],
            },
            {"key": "drinks", "name": "Drinks", "userSays": ["drinks"], "root": False},
        ],
        "entities": [
            {"name": "size", "entries": [{"value": "large", "synonyms": [{"value": "large"}]}]}
        ],
        **changes,
    }


def upload(body: dict[str, Any]) -> Any:
    return read_upload("application/json", json.dumps(body).encode())


@pytest.fixture
def transfer(database: Database, feed: ChangeFeed, quotas: Quotas) -> StoryTransfer:
    return StoryTransfer(
        stores=database.stores(), changes=feed, quotas=quotas, tests=ConversationTestsInMemory()
    )


async def test_an_import_writes_entities_then_interactions_then_the_story(
    transfer: StoryTransfer, database: Database, announced: Announced
) -> None:
    story_id, report = await transfer.import_story(
        account_id=ACCOUNT, upload=upload(document()), dry_run=False
    )

    writes = [o for o in database.operations() if o in WRITES]
    assert writes == ["entities.insert", "interactions.insert_many", "stories.insert"]
    assert story_id is not None and announced == [
        EntitiesEdited(ACCOUNT),
        StoryCreated(ACCOUNT, story_id),
    ]
    assert [i["key"] for i in report.interactions] == ["order", "drinks", "welcome", "fallback"]
    assert report.added == ["welcome", "fallback"]
    assert report.connections == [
        {"name": "Orders", "status": "missing", "interactions": ["order"]}
    ]
    structure = database.stories.records[story_id].structure
    order = next(i["id"] for i in report.interactions if i["key"] == "order")
    assert structure.contexts[order].owned == (report.interactions[1]["id"],)

    exported = exported_document(await transfer.export(account_id=ACCOUNT, story_id=story_id))
    assert exported["interactions"][0]["connection"] == "Orders"
    assert exported["entities"] == document()["entities"]


async def test_a_dry_run_reads_and_writes_nothing(
    transfer: StoryTransfer, database: Database, announced: Announced
) -> None:
    story_id, report = await transfer.import_story(
        account_id=ACCOUNT, upload=upload(document()), dry_run=True
    )

    assert story_id is None and report.dry_run
    assert not [o for o in database.operations() if o in WRITES]
    assert announced == []


async def test_a_failure_on_the_way_removes_what_was_written(
    transfer: StoryTransfer, database: Database, announced: Announced
) -> None:
    async def database_unreachable() -> None:
        raise AutoReconnect("connection refused")

    database.meanwhile("stories.insert", database_unreachable)

    with pytest.raises(AutoReconnect):
        await transfer.import_story(account_id=ACCOUNT, upload=upload(document()), dry_run=False)

    assert database.interactions.records == {}
    assert database.entities.records == {}
    assert database.stories.records == {}
    assert announced == []


async def test_problems_are_all_told_and_nothing_is_written(
    transfer: StoryTransfer, database: Database
) -> None:
    await database.entities.insert(ACCOUNT, Entity("size", (Entry("small", ("small",)),)))
    broken = document(entities=[])
    broken["interactions"][0]["triggers"] = ["go"]
    broken["interactions"][1]["triggers"] = ["GO"]
    broken["interactions"][1]["userSays"] = ["{{colour:c}} drinks", "{{sys.colour:d}}"]

    with pytest.raises(ImportRefused) as refused:
        await transfer.import_story(account_id=ACCOUNT, upload=upload(broken), dry_run=False)

    assert {(p.path, p.message) for p in refused.value.problems} == {
        (("interactions", 1, "triggers", 0), "'GO' is a trigger of 'order' already"),
        (
            ("interactions", 1, "parameters"),
            "entity 'colour' is neither in the document nor in the account",
        ),
        (("interactions", 1, "parameters"), "no built-in entity 'sys.colour'"),
    }
    assert database.stories.records == {} and len(database.entities.records) == 1


async def test_an_entity_the_account_has_is_reused_or_its_difference_reported(
    transfer: StoryTransfer, database: Database
) -> None:
    await database.entities.insert(ACCOUNT, Entity("size", (Entry("large", ("large",)),)))
    _, report = await transfer.import_story(
        account_id=ACCOUNT, upload=upload(document()), dry_run=True
    )
    assert [(e.name, e.status) for e in report.entities] == [("size", "reused")]

    other = document()
    other["entities"][0]["entries"].append({"value": "small", "synonyms": [{"value": "small"}]})
    _, report = await transfer.import_story(account_id=ACCOUNT, upload=upload(other), dry_run=False)
    [size] = report.entities
    assert size.status == "differs" and "lacks 'small'" in size.detail
    assert len(database.entities.records) == 1


async def test_the_quotas_are_checked_before_anything_is_written(
    database: Database, feed: ChangeFeed, quotas: Quotas
) -> None:
    small = Quotas(
        stories=quotas.stories,
        interactions_per_story=3,
        phrases_per_story=quotas.phrases_per_story,
        entities=quotas.entities,
        entries=quotas.entries,
    )
    transfer = StoryTransfer(
        stores=database.stores(), changes=feed, quotas=small, tests=ConversationTestsInMemory()
    )

    with pytest.raises(QuotaExceeded):
        await transfer.import_story(account_id=ACCOUNT, upload=upload(document()), dry_run=False)

    assert not [o for o in database.operations() if o in WRITES]


def test_one_import_of_an_account_runs_at_a_time(transfer: StoryTransfer) -> None:
    transfer.begin_import(ACCOUNT)
    with pytest.raises(Conflict):
        transfer.begin_import(ACCOUNT)
    transfer.begin_import("account-2")
    transfer.end_import(ACCOUNT)
    transfer.begin_import(ACCOUNT)


async def test_a_retried_import_whose_write_landed_is_answered_again(
    transfer: StoryTransfer, database: Database, announced: Announced
) -> None:
    """Under the id its `Idempotency-Key` gives: the first attempt wrote, then its answer
    was lost (a 503 while MongoDB came back)."""
    new_id = "0123456789abcdef01234567"
    story_id, _ = await transfer.import_story(
        account_id=ACCOUNT, upload=upload(document()), dry_run=False, new_id=new_id
    )
    written = len(database.operations())

    again, report = await transfer.import_story(
        account_id=ACCOUNT, upload=upload(document()), dry_run=False, new_id=new_id
    )

    assert story_id == again == new_id
    assert not [o for o in database.operations()[written:] if o in WRITES]
    assert len(database.stories.records) == 1 and len(announced) == 2
    assert all("id" not in i for i in report.interactions)
