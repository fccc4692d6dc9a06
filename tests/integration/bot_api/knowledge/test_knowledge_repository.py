"""KnowledgeRepository on the embedded MongoDB and its in-memory twin, held to one
contract: two accounts with two stories each and documents in every story; every call
reads or changes exactly the documents of the account and story it names, and a
document's reader sees only the passages of the revision its record names."""

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import pytest
from pymongo import AsyncMongoClient

from bot_api.knowledge.index import FaqPair
from bot_api.knowledge.passages import Passage
from bot_api.knowledge.records import StoredDocument, StoredPassage
from bot_api.knowledge.repository import KnowledgeRepository, KnowledgeStore
from integration.bot_api.knowledge.memory import KnowledgeInMemory
from shared.config import Config
from shared.ids import new_object_id

ACCOUNTS = ("a" * 24, "b" * 24)
MADE = datetime(2026, 3, 1, 12, 30, 15, 123000, tzinfo=UTC)


def document(document_id: str, number: int, revision: int = 1, passages: int = 2) -> StoredDocument:
    return StoredDocument(
        id=document_id,
        title=f"Document {number}",
        kind="text",
        media_type="text/markdown",
        revision=revision,
        sha256=f"{number:064x}",
        characters=100 * number,
        passages=passages,
        created_at=MADE + timedelta(minutes=number),
        updated_at=MADE + timedelta(minutes=number, seconds=revision),
        language="english",
        faq=(FaqPair(f"{document_id}.q0", f"question {number}?", "yes", ("alt",)),),
    )


def passages(document_id: str, revision: int, count: int = 2) -> list[StoredPassage]:
    return [
        StoredPassage(
            Passage(
                id=f"{document_id}.{n}",
                document_id=document_id,
                text=f"revision {revision} passage {n}",
                heading=("Top", f"Part {n}"),
                page=n + 1 if n else None,
                start=100 * n,
                end=100 * n + 20,
            ),
            ("revis", str(revision), "passag", str(n)),
        )
        for n in range(count)
    ]


@pytest.fixture(params=["mongodb", "memory"])
async def store(
    request: pytest.FixtureRequest, mongo_client: AsyncMongoClient, config: Config
) -> AsyncIterator[KnowledgeStore]:
    if request.param == "memory":
        yield KnowledgeInMemory()
        return
    repository = KnowledgeRepository(mongo_client[config.bot_database])
    await repository.ensure_indexes()
    yield repository


async def seed(store: KnowledgeStore) -> dict[tuple[str, str], list[str]]:
    """(account, story) -> its documents' ids, two a story, made in turns."""
    made: dict[tuple[str, str], list[str]] = {}
    number = 0
    for _ in range(2):
        for account in ACCOUNTS:
            for story in (f"{account[0]}-s1", f"{account[0]}-s2"):
                number += 1
                document_id = new_object_id()
                await store.insert_passages(account, story, 1, passages(document_id, 1))
                await store.put(account, story, document(document_id, number))
                made.setdefault((account, story), []).append(document_id)
    return made


async def test_each_story_reads_its_own_documents_and_passages(store: KnowledgeStore) -> None:
    made = await seed(store)
    for (account, story), ids in made.items():
        listed = await store.documents_of(account, story)
        assert [d.id for d in listed] == ids
        assert listed[0].faq[0].alternatives == ("alt",)
        assert listed[0].created_at < listed[1].created_at
        read = await store.passages(account, story)
        assert [p.passage.id for p in read] == [f"{i}.{n}" for i in ids for n in range(2)]
        assert await store.document_passages(account, story, listed[1]) == read[2:]
        assert read[1].passage.heading == ("Top", "Part 1") and read[1].passage.page == 2
        assert read[0].passage.page is None and read[0].terms == ("revis", "1", "passag", "0")
        other = ACCOUNTS[1] if account == ACCOUNTS[0] else ACCOUNTS[0]
        assert await store.get(other, story, ids[0]) is None
        assert await store.get(account, story, ids[0]) == listed[0]
    assert await store.characters(ACCOUNTS[0]) == sum(100 * n for n in (1, 2, 5, 6))


async def test_a_new_revision_replaces_the_passages_only_once_its_record_names_it(
    store: KnowledgeStore,
) -> None:
    made = await seed(store)
    account, story = ACCOUNTS[0], "a-s1"
    document_id = made[(account, story)][0]
    await store.insert_passages(account, story, 2, passages(document_id, 2, count=3))
    before = [p.passage.text for p in await store.passages(account, story)]
    assert before.count("revision 1 passage 0") == 2 and "revision 2 passage 0" not in before
    await store.put(account, story, document(document_id, 1, revision=2, passages=3))
    after = [
        p for p in await store.passages(account, story) if p.passage.document_id == document_id
    ]
    assert [p.passage.text for p in after] == [f"revision 2 passage {n}" for n in range(3)]
    stored = await store.get(account, story, document_id)
    assert stored is not None and stored.revision == 2 and stored.passages == 3


async def test_deletes_take_only_what_they_name(store: KnowledgeStore) -> None:
    made = await seed(store)
    account, story = ACCOUNTS[1], "b-s2"
    first, second = made[(account, story)]
    assert not await store.delete(ACCOUNTS[0], story, first)
    assert await store.delete(account, story, first)
    assert not await store.delete(account, story, first)
    assert [d.id for d in await store.documents_of(account, story)] == [second]
    assert {p.passage.document_id for p in await store.passages(account, story)} == {second}
    await store.delete_for_story("a-s1")
    assert await store.documents_of(ACCOUNTS[0], "a-s1") == []
    assert await store.passages(ACCOUNTS[0], "a-s1") == []
    assert len(await store.documents_of(ACCOUNTS[0], "a-s2")) == 2


async def test_a_frozen_version_keeps_the_revisions_it_names_until_it_is_thawed(
    store: KnowledgeStore,
) -> None:
    made = await seed(store)
    account, story = ACCOUNTS[0], "a-s2"
    first, second = made[(account, story)]
    assert await store.frozen(account, story, "v1") is None
    await store.freeze(account, story, "v1")
    await store.insert_passages(account, story, 2, passages(first, 2, count=1))
    await store.put(account, story, document(first, 2, revision=2, passages=1))
    assert await store.delete(account, story, second)

    now = await store.passages(account, story)
    assert [p.passage.text for p in now] == ["revision 2 passage 0"]
    frozen = await store.frozen(account, story, "v1")
    assert frozen is not None and [(d.id, d.revision) for d in frozen] == [(first, 1), (second, 1)]
    then = await store.passages(account, story, "v1")
    assert [(p.passage.document_id, p.passage.text) for p in then] == [
        (first, "revision 1 passage 0"),
        (first, "revision 1 passage 1"),
        (second, "revision 1 passage 0"),
        (second, "revision 1 passage 1"),
    ]
    assert await store.frozen(ACCOUNTS[1], story, "v1") is None

    await store.thaw(account, story, "v1")
    assert await store.frozen(account, story, "v1") is None
    assert [p.passage.text for p in await store.passages(account, story, "v1")] == [
        "revision 2 passage 0"
    ]
    assert [p.passage.text for p in await store.passages(account, story)] == [
        "revision 2 passage 0"
    ]
    await store.freeze(account, story, "v2")
    await store.delete_for_story(story)
    assert await store.frozen(account, story, "v2") is None


async def test_a_write_retried_after_it_stopped_replaces_what_it_left(
    store: KnowledgeStore,
) -> None:
    made = await seed(store)
    account, story = ACCOUNTS[1], "b-s1"
    document_id = made[(account, story)][0]
    await store.insert_passages(account, story, 2, passages(document_id, 2, count=3))
    await store.insert_passages(account, story, 2, passages(document_id, 2, count=2))
    await store.put(account, story, document(document_id, 1, revision=2, passages=2))
    read = [p for p in await store.passages(account, story) if p.passage.document_id == document_id]
    assert [p.passage.text for p in read] == ["revision 2 passage 0", "revision 2 passage 1"]
