"""The misses inbox over HTTP: turns written as the recorder writes them (history/repository.py)
into the story's `turns` collection, clustered by the API, and the actions on a cluster
live on the very next /query."""

import asyncio
import hashlib
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from bson import ObjectId
from prometheus_client import generate_latest
from pytest_aiohttp import AiohttpClient

from bot_api.app import create_app
from bot_api.domain.history import OutcomeKind, TurnRecord
from bot_api.history.documents import turn_from_document, turn_to_document
from bot_api.history.keys import RECORDER
from bot_api.inbox.repository import MAX_INBOX_TURNS
from shared import mongo
from shared.config import Config
from support.api import Api, Tenant
from support.limits import refused
from support.metrics import sample
from support.waiting import eventually

T0 = datetime.now(UTC).replace(hour=9, minute=0, second=0, microsecond=0) - timedelta(days=1)
"""Yesterday at 9:00: stored turns expire 30 days after their time (a TTL index), so a fixed
date stops being read a month later."""
OPEN = "what time do you open today"


@dataclass
class Inbox:
    api: Api
    story: str
    hours: str
    turns: Any
    account_id: str

    async def miss(
        self, *texts: str, outcome: OutcomeKind = "fallback", score: float = 0.1
    ) -> list[ObjectId]:
        ids = [ObjectId() for _ in texts]
        documents = [
            {
                "_id": turn_id,
                **turn_to_document(
                    TurnRecord(
                        self.account_id,
                        self.story,
                        f"visitor-{n}",
                        T0 + timedelta(minutes=n),
                        outcome,
                        query=text,
                        score=score,
                        threshold=0.5,
                    ),
                    T0 + timedelta(days=30),
                ),
            }
            for n, (turn_id, text) in enumerate(zip(ids, texts, strict=True))
        ]
        await self.turns.insert_many(documents)
        return ids

    async def clusters(self) -> list[dict[str, Any]]:
        return list((await self.api.ok("GET", f"/stories/{self.story}/inbox"))["clusters"])

    async def answered_by(self, text: str) -> str | None:
        reply = await self.api.ok(
            "POST", "/query", {"sessionId": text, "query": text, "storyId": self.story}
        )
        interaction = reply["result"]["interaction"]
        return None if interaction is None else str(interaction["name"])


@pytest.fixture
async def inbox(alice: Tenant, config: Config) -> AsyncIterator[Inbox]:
    api = alice.developer
    story = await api.create_story("Shop")
    hours = await api.create_interaction(
        story,
        "Hours",
        userSays=["when are you open", "opening hours"],
        responses=[{"type": "text", "messages": ["9 to 5."]}],
    )
    client = mongo.open_client(config.mongodb_url)
    yield Inbox(api, story, hours, client[config.bot_database]["turns"], alice.tokens.account_id)
    await client.close()


async def test_misses_come_in_clusters_biggest_first_with_the_suggested_interaction(
    inbox: Inbox,
) -> None:
    await inbox.miss(OPEN, OPEN, "What time do you open today?", "what time do you opne today")
    await inbox.miss("do you sell gift cards")
    await inbox.miss("when are you open", outcome="matched", score=0.9)  # sure: not a miss
    await inbox.miss("are you open on sundays", outcome="matched", score=0.6)  # below 0.65
    clusters = await inbox.clusters()
    assert [(c["count"], c["examples"][0]) for c in clusters] == [
        (4, OPEN),
        (1, "are you open on sundays"),
        (1, "do you sell gift cards"),
    ]
    first = clusters[0]
    assert first["examples"] == [
        OPEN,
        "What time do you open today?",
        "what time do you opne today",
    ]
    assert (
        first["first"] == T0.isoformat()
        and first["last"] == (T0 + timedelta(minutes=3)).isoformat()
    )
    assert first["suggested"]["id"] == inbox.hours and first["suggested"]["name"] == "Hours"
    assert 0 < first["suggested"]["score"] < 1


async def test_review_below_decides_which_matches_are_misses(inbox: Inbox) -> None:
    await inbox.miss("are you open on sundays", outcome="matched", score=0.6)
    await inbox.api.ok(
        "PUT",
        f"/stories/{inbox.story}",
        {"name": "Shop", "description": "", "settings": {"reviewBelow": 0.55}},
    )
    assert await inbox.clusters() == []


async def test_assigning_a_cluster_makes_its_messages_match_on_the_next_query(inbox: Inbox) -> None:
    come, typo = "can i come by on saturday", "can i come by on saturdy"
    turn_ids = await inbox.miss(come, come, typo)
    await inbox.miss("do you sell gift cards")
    assert await inbox.answered_by(come) != "Hours"
    assert await inbox.answered_by(typo) != "Hours"
    cluster = (await inbox.clusters())[0]
    answer = await inbox.api.ok(
        "POST", f"/stories/{inbox.story}/inbox/{cluster['id']}/assign", {"interaction": inbox.hours}
    )
    assert answer["added"] == [come, typo]
    assert answer["notAdded"] == []
    assert sorted(answer["turns"]) == sorted(str(t) for t in turn_ids)
    assert await inbox.answered_by(come) == "Hours"
    assert await inbox.answered_by(typo) == "Hours"
    assert [c["examples"] for c in await inbox.clusters()] == [["do you sell gift cards"]]
    stored = turn_from_document(await inbox.turns.find_one({"_id": turn_ids[0]}))
    assert stored.resolution is not None
    assert (stored.resolution.by, stored.resolution.action) == (inbox.account_id, "assigned")
    assert stored.resolution.interaction_id == inbox.hours
    interaction = await inbox.api.ok("GET", f"/stories/{inbox.story}/interactions/{inbox.hours}")
    assert interaction["userSays"] == ["when are you open", "opening hours", come, typo]


async def test_phrases_are_not_added_twice_and_the_99_limit_is_reported(inbox: Inbox) -> None:
    full = [f"phrase number {n}" for n in range(97)]
    await inbox.api.ok(
        "PUT",
        f"/stories/{inbox.story}/interactions/{inbox.hours}",
        {"userSays": ["when are you open", *full]},
    )
    await inbox.miss(
        "when are you open?",
        "when are you open",
        "when are you opn",
        "when are u open",
        "when r you open",
    )
    cluster = (await inbox.clusters())[0]
    assert cluster["count"] == 5
    answer = await inbox.api.ok(
        "POST", f"/stories/{inbox.story}/inbox/{cluster['id']}/assign", {"interaction": inbox.hours}
    )
    assert len(answer["added"]) == 1
    assert len(answer["notAdded"]) == 2
    phrases = (await inbox.api.ok("GET", f"/stories/{inbox.story}/interactions/{inbox.hours}"))[
        "userSays"
    ]
    assert len(phrases) == 99
    left = await inbox.clusters()
    assert sum(c["count"] for c in left) == 2  # the turns of the texts that did not fit


async def test_chosen_messages_only_and_a_new_interaction_from_them(inbox: Inbox) -> None:
    """The new interaction takes its response in the same call (issue 28: one made without
    would answer nothing); a response the interaction API refuses is refused here too."""
    await inbox.miss("do you sell gift cards", "do you sell gift cards", "do you sell gift card")
    cluster = (await inbox.clusters())[0]
    path = f"/stories/{inbox.story}/inbox/{cluster['id']}/interaction"
    blank = [{"type": "text", "messages": ["  "]}]
    refused = await inbox.api.call("POST", path, {"name": "Gift cards", "responses": blank})
    assert refused.error == (400, "validation_error")
    responses = [{"type": "text", "messages": ["Yes, in every shop."]}]
    answer = await inbox.api.ok(
        "POST",
        path,
        {"name": "Gift cards", "messages": ["do you sell gift cards"], "responses": responses},
    )
    assert answer["added"] == ["do you sell gift cards"]
    assert len(answer["turns"]) == 2
    assert await inbox.answered_by("do you sell gift cards") == "Gift cards"
    created = await inbox.api.ok(
        "GET", f"/stories/{inbox.story}/interactions/{answer['interaction']}"
    )
    assert created["userSays"] == ["do you sell gift cards"]
    assert created["responses"] == responses
    assert [c["count"] for c in await inbox.clusters()] == [1]


async def test_an_ignored_message_never_comes_back(inbox: Inbox) -> None:
    await inbox.miss("asdf qwerty", "Asdf  qwerty!")
    cluster = (await inbox.clusters())[0]
    answer = await inbox.api.ok("POST", f"/stories/{inbox.story}/inbox/{cluster['id']}/ignore", {})
    assert len(answer["turns"]) == 2
    await inbox.miss("ASDF qwerty")
    assert await inbox.clusters() == []


async def test_undo_puts_the_turns_back_and_forgets_the_ignore(inbox: Inbox) -> None:
    await inbox.miss("asdf qwerty")
    cluster = (await inbox.clusters())[0]
    answer = await inbox.api.ok("POST", f"/stories/{inbox.story}/inbox/{cluster['id']}/ignore", {})
    reopened = await inbox.api.ok(
        "POST",
        f"/stories/{inbox.story}/inbox/reopen",
        {"turns": answer["turns"]},
    )
    assert reopened == {"reopened": 1}
    assert [c["id"] for c in await inbox.clusters()] == [cluster["id"]]


async def test_a_cluster_that_no_longer_exists_or_messages_not_in_it_are_refused(
    inbox: Inbox, bob: Tenant
) -> None:
    await inbox.miss(OPEN)
    cluster = (await inbox.clusters())[0]
    path = f"/stories/{inbox.story}/inbox/{cluster['id']}"
    wrong = await inbox.api.post(
        f"{path}/assign", {"interaction": inbox.hours, "messages": ["something else"]}
    )
    assert wrong.status == 400
    assert "messages" in wrong.details
    missing = await inbox.api.post(f"{path}/assign", {"interaction": "nope"})
    assert missing.status == 404
    await inbox.api.ok("POST", f"{path}/ignore", {})
    gone = await inbox.api.post(f"{path}/assign", {"interaction": inbox.hours})
    assert gone.status == 404
    assert "read the inbox again" in gone.details
    assert (await bob.developer.get(f"/stories/{inbox.story}/inbox")).status == 404
    assert (await inbox.api.post(f"{path}/ignore", ["x"])).status == 400


async def test_deleting_the_story_forgets_its_ignored_texts(inbox: Inbox, config: Config) -> None:
    await inbox.miss("asdf qwerty")
    cluster = (await inbox.clusters())[0]
    await inbox.api.ok("POST", f"/stories/{inbox.story}/inbox/{cluster['id']}/ignore", {})
    ignored = inbox.turns.database["inbox_ignored"]
    assert await ignored.count_documents({"storyId": inbox.story}) == 1
    await inbox.api.ok("DELETE", f"/stories/{inbox.story}")
    assert await ignored.count_documents({"storyId": inbox.story}) == 0


async def test_an_erased_conversation_leaves_the_inbox_at_once(inbox: Inbox) -> None:
    """The inbox kept the turns it read: an erased conversation's message stayed in it
    until its next whole read (a minute later at the soonest)."""
    for text in ("asdf qwerty", "zxcv uiop"):  # each its own conversation, as recorded
        assert await inbox.answered_by(text) == "Fallback"

    async def both_in_the_inbox() -> bool:
        return len(await inbox.clusters()) == 2

    await eventually(both_in_the_inbox, 10)  # the recorder writes in batches
    await inbox.api.ok("DELETE", f"/stories/{inbox.story}/conversations/asdf qwerty")
    assert [c["examples"] for c in await inbox.clusters()] == [["zxcv uiop"]]


async def test_an_erased_conversation_leaves_another_replica_s_inbox_too(
    inbox: Inbox, aiohttp_client: AiohttpClient, config: Config
) -> None:
    """The erasure was not published: another replica's kept turns held the erased
    conversation until its next whole read, a minute after it read the inbox."""
    for text in ("asdf qwerty", "zxcv uiop"):
        assert await inbox.answered_by(text) == "Fallback"

    async def both_in_the_inbox() -> bool:
        return len(await inbox.clusters()) == 2

    await eventually(both_in_the_inbox, 10)
    replica = replace(inbox, api=inbox.api.with_client(await aiohttp_client(create_app(config))))
    assert len(await replica.clusters()) == 2  # read, and kept, by the other replica
    await inbox.api.ok("DELETE", f"/stories/{inbox.story}/conversations/asdf qwerty")

    async def gone_from_the_replica() -> bool:
        return [c["examples"] for c in await replica.clusters()] == [["zxcv uiop"]]

    await eventually(gone_from_the_replica, 10)


def inbox_parts() -> dict[str, float]:
    """How often each part of the inbox ran in this process (`parley_inbox_seconds`)."""
    page = generate_latest().decode()
    return {
        part: sample(page, "parley_inbox_seconds_count", part=part) for part in ("read", "snapshot")
    }


async def snapshot_of(inbox: Inbox) -> dict[str, Any] | None:
    head = await inbox.turns.database["inbox_snapshots"].find_one({"_id": inbox.story})
    return None if head is None else head.get("snapshot")


async def test_another_replica_reads_the_inbox_from_its_snapshot_until_an_action_drops_it(
    inbox: Inbox, aiohttp_client: AiohttpClient, config: Config
) -> None:
    """Issue 29: the first read of a story's inbox in a process read every turn (3.2 s for
    12,000 misses on nx-27017, the goal 1 s); it now reads the snapshot of the last whole
    read and the turns recorded since."""
    await inbox.miss(OPEN, "what time do you opne today", "asdf qwerty")
    read_whole = await inbox.clusters()
    await eventually(lambda: snapshot_of(inbox))
    replica = replace(inbox, api=inbox.api.with_client(await aiohttp_client(create_app(config))))

    before = inbox_parts()
    assert await replica.clusters() == read_whole
    assert inbox_parts() == {"read": before["read"] + 1, "snapshot": before["snapshot"] + 1}

    cluster = next(c for c in read_whole if c["examples"] == ["asdf qwerty"])
    await replica.api.ok("POST", f"/stories/{inbox.story}/inbox/{cluster['id']}/ignore", {})
    assert await snapshot_of(inbox) is None
    third = replace(inbox, api=inbox.api.with_client(await aiohttp_client(create_app(config))))
    assert [c["examples"] for c in await third.clusters()] == [
        [OPEN, "what time do you opne today"]
    ]
    await eventually(lambda: snapshot_of(inbox))


async def test_a_storys_first_misses_have_its_snapshot_written_before_anybody_reads_it(
    inbox: Inbox,
) -> None:
    """So that even the first read of a story's inbox starts from a snapshot."""
    assert await inbox.answered_by("asdf qwerty") == "Fallback"
    await eventually(lambda: snapshot_of(inbox), 10)  # the recorder writes in batches
    before = inbox_parts()
    assert [c["examples"] for c in await inbox.clusters()] == [["asdf qwerty"]]
    assert inbox_parts()["snapshot"] == before["snapshot"], "the inbox read ahead is kept"


async def test_concurrent_reads_of_two_stories_all_answer_their_own_clusters(inbox: Inbox) -> None:
    """Reads of one story share a clustering and stories take turns in one worker
    (tests/unit/bot_api/inbox/test_inbox_clustering.py): every read still answers."""
    other = replace(inbox, story=await inbox.api.create_story("Other shop"))
    await inbox.miss(OPEN, "what time do you opne today")
    await other.miss("do you sell gift cards", "do you sell gift card")
    answers = await asyncio.gather(*(story.clusters() for story in (inbox, other) * 3))
    assert [[c["examples"] for c in a] for a in answers] == [
        [[OPEN, "what time do you opne today"]],
        [["do you sell gift card", "do you sell gift cards"]],
    ] * 3


async def test_reopen_takes_10000_turns_and_refuses_one_more_naming_the_field(
    inbox: Inbox,
) -> None:
    """An action may resolve the 10,000 turns the inbox reads (`MAX_INBOX_TURNS`), and its
    undo sends them all back (issue 29: a body guard refused more than 2,048 members)."""
    path = f"/stories/{inbox.story}/inbox/reopen"
    turns = [str(ObjectId()) for _ in range(MAX_INBOX_TURNS)]
    assert await inbox.api.ok("POST", path, {"turns": turns}) == {"reopened": 0}
    refused(await inbox.api.post(path, {"turns": [*turns, str(ObjectId())]}), "turns", "10000")


MANY_MISSES = 4000
INBOX_SECONDS = 3.5
"""Generous: with 4,000 misses stored in nx-27017, the inbox read again answered in 0.5 s
and ignoring its biggest cluster took 0.7 s here, only the turns recorded since the first
read read again (before: 2.9 s and 2.4 s; issue 29: 5.6 s and 6.2 s with 12,000, every
request reading them all). `test_inbox_clustering.py` proves the reads themselves."""


def suggestions_made() -> float:
    """Times the inbox made suggestions (`parley_inbox_seconds`)."""
    return sample(generate_latest().decode(), "parley_inbox_seconds_count", part="suggestions")


async def test_the_inbox_of_thousands_of_misses_is_read_again_and_acted_on_at_once(
    inbox: Inbox,
) -> None:
    said = [hashlib.sha1(str(n).encode()).hexdigest() for n in range(300)]
    texts = [f"{said[n % 300][:8]} {said[n % 300][8:16]}" for n in range(MANY_MISSES)]
    for start in range(0, MANY_MISSES, 1000):
        await inbox.miss(*texts[start : start + 1000])
    assert len(await inbox.clusters()) == 100  # the first read reads them all

    suggested = suggestions_made()
    started = time.perf_counter()
    clusters = await inbox.clusters()
    read_again = time.perf_counter() - started
    assert suggestions_made() == suggested  # the story did not change: none made again
    biggest = clusters[0]
    started = time.perf_counter()
    ignored = await inbox.api.ok("POST", f"/stories/{inbox.story}/inbox/{biggest['id']}/ignore", {})
    ignoring = time.perf_counter() - started

    assert len(ignored["turns"]) == biggest["count"]
    assert biggest["id"] not in [c["id"] for c in await inbox.clusters()]
    assert read_again < INBOX_SECONDS, f"the inbox read again in {read_again:.1f} s"
    assert ignoring < INBOX_SECONDS, f"a cluster ignored in {ignoring:.1f} s"


async def test_a_cluster_shows_the_passages_nearest_it_and_one_becomes_an_faq_pair(
    inbox: Inbox,
) -> None:
    api = inbox.api
    assert all(c["passages"] == [] for c in await _filled(inbox))
    text = {
        "title": "Parking",
        "text": "Cars may be parked behind the shop, in the yard off Mill Lane.\n\n"
        "Bicycles are left at the racks by the front door.",
    }
    await api.ok("POST", f"/stories/{inbox.story}/knowledge", text)
    await inbox.miss("where do bicycles go", "where do bicycles go")
    [cluster] = [c for c in await inbox.clusters() if "bicycles" in c["examples"][0]]
    nearest = cluster["passages"][0]
    assert "racks" in nearest["text"] and nearest["score"] > 0
    faq = {
        "title": "From the inbox",
        "faq": [{"question": cluster["examples"][0], "answer": nearest["text"]}],
    }
    await api.ok("POST", f"/stories/{inbox.story}/knowledge", faq)
    reply = await api.ok(
        "POST",
        "/query",
        {"sessionId": "bicycle", "query": "where do bicycles go", "storyId": inbox.story},
    )
    assert reply["result"]["knowledge"]["question"] == "where do bicycles go"


async def _filled(inbox: Inbox) -> list[dict[str, Any]]:
    await inbox.miss("do you sell gift cards")
    return await inbox.clusters()


async def test_each_cluster_shows_its_turns_languages_and_the_inbox_filters_by_one(
    alice: Tenant, bob: Tenant
) -> None:
    """Misses of /query in a story of three languages, recorded as each was read
    (docs/languages.md): each cluster counts its turns by language, the filter keeps the
    clusters holding one read in it, and an action names a cluster the filter showed; a
    story of one language shows no languages, and a language that is none is a 400."""
    api = alice.developer
    story_id = await api.create_story("Shop", settings={"languages": ["de", "fr"]})
    hours = await api.create_interaction(
        story_id,
        "Hours",
        userSays=["when are you open"],
        responses=[{"type": "text", "messages": ["9 to 5."]}],
    )
    base = f"/stories/{story_id}/inbox"

    async def miss(session: str, query: str, language: str, story: str = story_id) -> None:
        body = {
            "storyId": story,
            "sessionId": session,
            "query": query,
            "parameters": {"default_language": language},
        }
        result = (await alice.public.ok("POST", "/query", body))["result"]
        assert result["interaction"]["type"] == "fallback", result

    await miss("v1", "verkaufen Sie Gutscheine", "de")
    await miss("v2", "verkaufen Sie Gutscheine", "de")
    await miss("v3", "verkaufen Sie Gutscheine", "fr")
    await miss("v4", "is the moon made of cheese", "en")
    await api.client.server.app[RECORDER].idle()

    clusters = (await api.ok("GET", base))["clusters"]
    assert [(c["examples"][0], c["languages"]) for c in clusters] == [
        ("verkaufen Sie Gutscheine", {"de": 2, "fr": 1}),
        ("is the moon made of cheese", {"en": 1}),
    ]
    assert list(clusters[0]["languages"]) == ["de", "fr"], "the most turns first"

    async def shown(query: str) -> tuple[int, list[str]]:
        inbox = await api.ok("GET", f"{base}?{query}")
        return inbox["total"], [c["examples"][0] for c in inbox["clusters"]]

    assert await shown("language=fr") == (1, ["verkaufen Sie Gutscheine"])
    assert await shown("language=german") == (1, ["verkaufen Sie Gutscheine"])
    assert await shown("language=en") == (1, ["is the moon made of cheese"])
    assert await shown("language=it") == (0, [])
    for bad in ("language=xx", "language="):
        reply = await api.get(f"{base}?{bad}")
        assert reply.error == (400, "validation_error"), bad
        assert "language" in reply.body["status"]["errors"], reply.body
    assert (await bob.developer.get(f"{base}?language=de")).error == (404, "not_found")

    german = (await api.ok("GET", f"{base}?language=de"))["clusters"][0]
    assigned = await api.ok("POST", f"{base}/{german['id']}/assign", {"interaction": hours})
    assert len(assigned["turns"]) == 3
    assert await shown("language=de") == (0, [])
    written = await api.ok("GET", f"/stories/{story_id}/interactions/{hours}")
    assert written["userSays"] == ["when are you open"]
    german_variant = {"userSays": ["verkaufen Sie Gutscheine"], "responses": [], "parameters": []}
    assert written["translations"] == {"de": german_variant}, "most turns were read in German"
    (english,) = (await api.ok("GET", base))["clusters"]
    body = {"name": "Moon", "responses": [{"type": "text", "messages": ["No."]}]}
    created = await api.ok("POST", f"{base}/{english['id']}/interaction", body)
    moon = await api.ok("GET", f"/stories/{story_id}/interactions/{created['interaction']}")
    assert moon["userSays"] == ["is the moon made of cheese"]
    assert "translations" not in moon

    one_language = await api.create_story("Plain")
    await miss("v5", "is the moon made of cheese", "en", one_language)
    await api.client.server.app[RECORDER].idle()
    (plain,) = (await api.ok("GET", f"/stories/{one_language}/inbox"))["clusters"]
    assert "languages" not in plain
    assert (await api.ok("GET", f"/stories/{one_language}/inbox?language=en"))["total"] == 0


async def test_a_cluster_is_suggested_as_its_turns_language_reads_it(alice: Tenant) -> None:
    """A German miss, once the interaction has a German variant, is suggested that
    interaction: read in English, as the default, "geöffnet" matches nothing."""
    api = alice.developer
    story_id = await api.create_story("Shop", settings={"languages": ["de"]})
    hours = await api.create_interaction(
        story_id,
        "Hours",
        userSays=["when are you open"],
        responses=[{"type": "text", "messages": ["9 to 5."]}],
    )
    body = {
        "storyId": story_id,
        "sessionId": "v1",
        "query": "geöffnet",
        "parameters": {"default_language": "de"},
    }
    result = (await alice.public.ok("POST", "/query", body))["result"]
    assert result["interaction"]["type"] == "fallback", result
    await api.client.server.app[RECORDER].idle()
    german = {"de": {"userSays": ["wann habt ihr geöffnet"]}}
    await api.ok("PUT", f"/stories/{story_id}/interactions/{hours}", {"translations": german})
    (cluster,) = (await api.ok("GET", f"/stories/{story_id}/inbox"))["clusters"]
    assert cluster["suggested"] is not None and cluster["suggested"]["id"] == hours, cluster
