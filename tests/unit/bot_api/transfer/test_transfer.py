"""Story import and export as use cases over in-memory repositories: what an import
writes, in which order, what it announces, and that a refusal or a failure on the way
leaves nothing behind."""

import dataclasses
import json
from typing import Any

import pytest
from pymongo.errors import AutoReconnect

from bot_api.changes import ChangeFeed, EntitiesEdited, StoryCreated
from bot_api.domain.entities import Entity, Entry
from bot_api.domain.settings import Settings
from bot_api.domain.structure import Structure
from bot_api.quotas import QuotaExceeded, Quotas
from bot_api.transfer.report import Translated, Unmapped
from bot_api.transfer.report_schemas import ImportReportSchema
from bot_api.transfer.schemas import (
    checked_upload,
    exported_document,
    read_upload,
)
from bot_api.transfer.service import ImportRefused, StoryTransfer
from integration.bot_api.knowledge.memory import KnowledgeInMemory
from integration.bot_api.story_tests.memory import ConversationTestsInMemory
from shared.errors import Conflict
from support.changes import Announced
from support.memory import Database

ACCOUNT = "account-1"
WRITES = ("entities.insert", "interactions.insert_many", "stories.insert")
OTHER_STORY = "0123456789abcdef0123beef"


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


def transfer_within(database: Database, feed: ChangeFeed, quotas: Quotas) -> StoryTransfer:
    return StoryTransfer(
        stories=database.stories,
        interactions=database.interactions,
        entities=database.entities,
        connections=database.connections,
        changes=feed,
        quotas=quotas,
        tests=ConversationTestsInMemory(),
        knowledge=KnowledgeInMemory(),
    )


@pytest.fixture
def transfer(database: Database, feed: ChangeFeed, quotas: Quotas) -> StoryTransfer:
    return transfer_within(database, feed, quotas)


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


async def test_an_entity_the_account_has_with_the_same_entries_is_reused(
    transfer: StoryTransfer, database: Database
) -> None:
    await database.entities.insert(ACCOUNT, Entity("size", (Entry("large", ("large",)),)))

    _, report = await transfer.import_story(
        account_id=ACCOUNT, upload=upload(document()), dry_run=False
    )

    assert [(e.name, e.status, e.stored_as) for e in report.entities] == [
        ("size", "reused", "size")
    ]
    assert len(database.entities.records) == 1


def other_sizes() -> dict[str, Any]:
    other = document()
    other["entities"][0]["entries"] = [{"value": "small", "synonyms": [{"value": "small"}]}]
    other["interactions"][0]["parameters"] = [
        {"alias": "size", "entity": "size", "prompts": ["Which size?"]}
    ]
    return other


async def entity_names(database: Database) -> list[str]:
    return sorted(e.entity.name for e in await database.entities.list(ACCOUNT))


async def test_an_entity_that_differs_from_the_accounts_is_created_under_a_free_name(
    transfer: StoryTransfer, database: Database
) -> None:
    """The account's `size` (large) stays; the story gets its own (small) as `size_2`,
    and every reference of the story names it: a parameter and a phrase's slot."""
    await database.entities.insert(ACCOUNT, Entity("size", (Entry("large", ("large",)),)))

    dry_id, dry = await transfer.import_story(
        account_id=ACCOUNT, upload=upload(other_sizes()), dry_run=True
    )
    story_id, report = await transfer.import_story(
        account_id=ACCOUNT, upload=upload(other_sizes()), dry_run=False
    )

    assert dry_id is None and dry.entities == report.entities
    [size] = report.entities
    assert (size.name, size.status, size.stored_as) == ("size", "created", "size_2")
    assert size.detail.startswith("created as size_2: the account's size differs")
    assert "lacks 'small'" in size.detail and "also has 'large'" in size.detail
    assert await entity_names(database) == ["size", "size_2"]
    assert story_id is not None
    order = next(i["id"] for i in report.interactions if i["key"] == "order")
    stored = database.interactions.records[order].interaction
    assert stored.user_says == ("a {{size_2:size}} pizza",)
    assert [(p.alias, p.entity, p.prompts) for p in stored.parameters] == [
        ("size", "size_2", ("Which size?",))
    ]
    exported = exported_document(await transfer.export(account_id=ACCOUNT, story_id=story_id))
    assert [e["name"] for e in exported["entities"]] == ["size_2"]


async def test_the_same_bot_imported_again_reuses_the_copy_an_earlier_import_made(
    transfer: StoryTransfer, database: Database
) -> None:
    await database.entities.insert(ACCOUNT, Entity("size", (Entry("large", ("large",)),)))
    await transfer.import_story(account_id=ACCOUNT, upload=upload(other_sizes()), dry_run=False)

    _, report = await transfer.import_story(
        account_id=ACCOUNT, upload=upload(other_sizes()), dry_run=False
    )

    [size] = report.entities
    assert (size.status, size.stored_as) == ("reused", "size_2")
    assert size.detail.startswith("reused size_2: the account's size differs")
    assert await entity_names(database) == ["size", "size_2"]


async def test_the_free_name_is_one_neither_the_account_nor_the_document_holds(
    transfer: StoryTransfer, database: Database
) -> None:
    await database.entities.insert(ACCOUNT, Entity("size", (Entry("large", ("large",)),)))
    await database.entities.insert(ACCOUNT, Entity("size_2", (Entry("huge", ("huge",)),)))
    brought = other_sizes()
    brought["entities"].append(
        {"name": "size_3", "entries": [{"value": "tiny", "synonyms": [{"value": "tiny"}]}]}
    )
    brought["interactions"][1]["userSays"] = ["{{size_3:small}} drinks"]

    _, report = await transfer.import_story(
        account_id=ACCOUNT, upload=upload(brought), dry_run=False
    )

    assert [(e.name, e.status, e.stored_as) for e in report.entities] == [
        ("size", "created", "size_4"),
        ("size_3", "created", "size_3"),
    ]
    assert await entity_names(database) == ["size", "size_2", "size_3", "size_4"]


async def test_a_free_name_keeps_within_an_entitys_128_characters(
    transfer: StoryTransfer, database: Database
) -> None:
    long_name = "s" * 128
    await database.entities.insert(ACCOUNT, Entity(long_name, (Entry("large", ("large",)),)))
    brought = other_sizes()
    brought["entities"][0]["name"] = long_name
    brought["interactions"][0]["userSays"] = [f"a {{{{{long_name}:size}}}} pizza"]
    brought["interactions"][0]["parameters"][0]["entity"] = long_name

    _, report = await transfer.import_story(
        account_id=ACCOUNT, upload=upload(brought), dry_run=False
    )

    assert report.entities[0].stored_as == "s" * 126 + "_2"


async def test_a_failure_on_the_way_removes_the_entity_created_under_a_free_name(
    transfer: StoryTransfer, database: Database
) -> None:
    await database.entities.insert(ACCOUNT, Entity("size", (Entry("large", ("large",)),)))

    async def database_unreachable() -> None:
        raise AutoReconnect("connection refused")

    database.meanwhile("stories.insert", database_unreachable)

    with pytest.raises(AutoReconnect):
        await transfer.import_story(account_id=ACCOUNT, upload=upload(other_sizes()), dry_run=False)

    assert await entity_names(database) == ["size"]
    assert database.interactions.records == {} and database.stories.records == {}


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
    transfer = transfer_within(database, feed, small)

    with pytest.raises(QuotaExceeded):
        await transfer.import_story(account_id=ACCOUNT, upload=upload(document()), dry_run=False)

    assert not [o for o in database.operations() if o in WRITES]


async def test_an_import_that_raced_a_create_past_the_quota_takes_back_all_it_wrote(
    database: Database, feed: ChangeFeed, quotas: Quotas, announced: Announced
) -> None:
    """A story created on another replica between the import's check and its write: the
    import is refused and leaves nothing of its own (its entity, interactions, tests)."""
    transfer = transfer_within(database, feed, dataclasses.replace(quotas, stories=1))

    async def created_elsewhere() -> None:
        await database.stories.insert(
            OTHER_STORY, ACCOUNT, "Other", "", Settings(), Structure.for_new_story([]), phrases=0
        )

    database.meanwhile("stories.insert", created_elsewhere)
    with pytest.raises(QuotaExceeded):
        await transfer.import_story(account_id=ACCOUNT, upload=upload(document()), dry_run=False)

    assert list(database.stories.records) == [OTHER_STORY]
    assert database.interactions.records == {} and await entity_names(database) == []
    assert announced == []


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


async def test_the_report_counts_what_answers_nothing_and_groups_its_rows_by_reason(
    transfer: StoryTransfer,
) -> None:
    """At its top, the interactions with no response, by why; then what was left out,
    each reason once with its count and its rows."""
    body = document()
    body["interactions"] += [
        {"key": "thanks", "name": "thanks", "userSays": ["thanks"]},
        {
            "key": "bye",
            "name": "bye",
            "userSays": ["bye"],
            "responses": [{"type": "text", "messages": ["Bye!"]}],
        },
    ]
    custom = "its code is not imported"
    left_out = (
        Unmapped("data/rules.yml: rules[0]", "custom action 'action_a'", custom),
        Unmapped("data/nlu.yml: nlu[3]", "regex 'zip'", "regex features are not read"),
        Unmapped("data/rules.yml: rules[4]", "custom action 'action_b'", custom),
    )
    rasa = checked_upload("rasa", Translated(body, left_out))

    _, report = await transfer.import_story(account_id=ACCOUNT, upload=rasa, dry_run=True)
    dumped = ImportReportSchema().dump(report)

    no_response = (
        "no rule or story answers the intent with a response: custom code (an action), "
        "not imported, answered it, or nothing did"
    )
    assert dumped["silent"] == {
        "count": 3,
        "byReason": [
            {
                "reason": no_response,
                "count": 2,
                "interactions": [
                    {"key": "drinks", "name": "Drinks"},
                    {"key": "thanks", "name": "thanks"},
                ],
            },
            {
                "reason": "its webhook connection 'Orders' is to answer: the story has none "
                "of that name yet",
                "count": 1,
                "interactions": [{"key": "order", "name": "Order"}],
            },
        ],
    }
    assert dumped["unmappedByReason"] == [
        {
            "reason": custom,
            "count": 2,
            "rows": [
                {"place": "data/rules.yml: rules[0]", "element": "custom action 'action_a'"},
                {"place": "data/rules.yml: rules[4]", "element": "custom action 'action_b'"},
            ],
        },
        {
            "reason": "regex features are not read",
            "count": 1,
            "rows": [{"place": "data/nlu.yml: nlu[3]", "element": "regex 'zip'"}],
        },
    ]
    assert len(dumped["unmapped"]) == 3  # the flat list a client read before stays
