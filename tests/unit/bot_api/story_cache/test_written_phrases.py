"""The phrases a write gives a story are queued for their vectors by the process that took
it, before anyone asks the story: its read says how many wait, from the start."""

import asyncio
from collections import Counter
from typing import Any

import pytest

from bot_api.changes import ChangeFeed, EntitiesEdited, Handler
from bot_api.domain.interactions import default_interactions
from bot_api.domain.settings import Settings
from bot_api.engine.semantic import Encoders
from bot_api.quotas import Quotas
from bot_api.story_cache.cache import StoryCache
from bot_api.story_cache.queues import WAIT_SECONDS
from bot_api.story_cache.vectors import PhraseVectorService
from bot_api.story_cache.written import WrittenPhrases
from integration.bot_api.story_cache.memory import VectorsInMemory
from shared.audit import DEVELOPER_TOKEN, Actor
from shared.config import Config
from support.bodies import entity as entity_body
from support.bodies import new_interaction
from support.editing import set_phrases
from support.encoders import ConceptEncoder
from support.memory import Database
from support.story_service import entity_service, interaction_service, story_service

BY = Actor(DEVELOPER_TOKEN, "developer", "Developer token")

ACCOUNT = "account-1"
GREETINGS = {
    language: len(default_interactions(language)[0].user_says) for language in ("english", "german")
}


class Bot:
    """The management use cases with the story cache and the listener on their change
    feed, as the app wires them when the semantic stage is on: one replica, with
    `live_replicas` alive (itself included), on a database and vector store of its own
    or another's (`replica`)."""

    def __init__(
        self,
        database: Database | None = None,
        store: VectorsInMemory | None = None,
        live_replicas: int = 1,
        wait_seconds: float = WAIT_SECONDS,
    ) -> None:
        database = Database() if database is None else database
        feed = ChangeFeed()
        self.database = database
        self.store = VectorsInMemory() if store is None else store
        self.encoder = ConceptEncoder()
        self.vectors = PhraseVectorService(
            self.store,
            Encoders((self.encoder,)),
            retry_seconds=0.01,
            live_replicas=lambda: live_replicas,
            wait_seconds=wait_seconds,
            look_seconds=0.01,
        )
        self.cache = StoryCache(
            stories=database.stories,
            interactions=database.interactions,
            entities=database.entities,
            versions=database.versions,
            vectors=self.vectors,
            budget_bytes=2**30,
            retry_seconds=0.01,
        )
        self.written = WrittenPhrases(
            stories=database.stories,
            interactions=database.interactions,
            entities=database.entities,
            vectors=self.vectors,
            landed=self.cache.vectors_landed,
        )
        feed.handle(Handler.STORY_CACHE, self.cache)
        feed.handle(Handler.WRITTEN_PHRASES, self.written)
        quotas = Quotas.from_config(Config(mongodb_url="", nats_url=""))
        self.stories = story_service(database, feed, quotas, awaiting_meaning=self.vectors.waiting)
        self.interactions = interaction_service(database, feed, quotas)
        self.entities = entity_service(database, feed, quotas)

    def replica(self, wait_seconds: float = WAIT_SECONDS) -> "Bot":
        """Another replica on this one's database and vectors, both alive."""
        return Bot(self.database, self.store, live_replicas=2, wait_seconds=wait_seconds)

    async def new_story(self, language: str = "english") -> str:
        return await self.stories.create(
            account_id=ACCOUNT, name="Bot", description="", settings=Settings(language=language)
        )

    async def add(self, story_id: str, *user_says: str) -> str:
        body = {"name": "Greet", "userSays": [*user_says]}
        return await self.interactions.create(
            account_id=ACCOUNT, story_id=story_id, interaction=new_interaction(body)
        )

    async def edit(self, story_id: str, interaction_id: str, *user_says: str) -> None:
        await set_phrases(self.interactions, ACCOUNT, story_id, interaction_id, user_says)

    async def speak(self, story_id: str, language: str) -> None:
        await self.stories.update(
            account_id=ACCOUNT,
            story_id=story_id,
            name="Bot",
            description="",
            settings={"language": language},
            by=BY,
        )

    async def waiting(self, story_id: str) -> int:
        """`phrasesAwaitingMeaning` of the story's read, once the writes heard so far
        are queued."""
        await self.written.idle()
        read = await self.stories.read(account_id=ACCOUNT, story_id=story_id)
        count: int = read["phrasesAwaitingMeaning"]
        return count


@pytest.fixture
async def bot() -> Bot:
    return Bot()


async def test_a_story_written_and_never_asked_counts_its_phrases_until_they_land(
    bot: Bot,
) -> None:
    bot.encoder.released.clear()
    story_id = await bot.new_story()
    greet = await bot.add(story_id, "hello there", "hi friend")
    assert await bot.waiting(story_id) == GREETINGS["english"] + 2
    assert bot.cache.size == 0, "no query compiled the story"
    bot.encoder.released.set()
    await bot.vectors.idle()
    assert await bot.waiting(story_id) == 0
    await bot.cache.story(ACCOUNT, story_id)
    await bot.cache.idle()
    await bot.vectors.idle()
    story = await bot.cache.story(ACCOUNT, story_id)
    assert story.semantic is not None and greet in story.semantic
    assert {"hello there", "hi friend"} <= set(bot.encoder.encoded)
    assert max(Counter(bot.encoder.encoded).values()) == 1, "the compile encoded none again"


async def test_edits_queue_an_interactions_latest_phrases_the_store_lacks_and_no_more(
    bot: Bot,
) -> None:
    story_id = await bot.new_story()
    greet = await bot.add(story_id, "hello there")
    await bot.written.idle()
    await bot.vectors.idle()
    bot.encoder.released.clear()
    for n in range(5):
        await bot.edit(story_id, greet, "hello there", f"order {n} pizza", f"large {n} pizza")
    assert await bot.waiting(story_id) == 2
    await bot.edit(story_id, greet, "hello there")
    assert await bot.waiting(story_id) == 0, "what the edits queued is no longer wanted"
    bot.encoder.released.set()
    await bot.vectors.idle()


async def test_a_language_the_model_reads_queues_every_phrase_and_one_it_cannot_none(
    bot: Bot,
) -> None:
    story_id = await bot.new_story("german")
    await bot.add(story_id, "guten tag", "hallo freund")
    assert await bot.waiting(story_id) == 0, "no model reads german here"
    bot.encoder.released.clear()
    await bot.speak(story_id, "english")
    assert await bot.waiting(story_id) == GREETINGS["german"] + 2
    await bot.speak(story_id, "german")
    assert await bot.waiting(story_id) == 0
    bot.encoder.released.set()
    await bot.vectors.idle()


async def test_a_replica_compiling_anothers_write_takes_in_its_vectors_and_encodes_none() -> None:
    """Another replica's first query of a story just written finds its new phrases
    without vectors: it awaits them from the writer, which is still encoding them, and
    takes them in as they land."""
    writer = Bot(live_replicas=2)
    other = writer.replica()
    story_id = await writer.new_story()
    await writer.written.idle()
    await writer.vectors.idle()
    writer.encoder.released.clear()
    greet = await writer.add(story_id, "hello there", "hi friend")
    assert await writer.waiting(story_id) == 2
    await other.cache.story(ACCOUNT, story_id)
    await other.cache.idle()
    assert await other.waiting(story_id) == 2, "awaited, and counted as awaiting meaning"
    writer.encoder.released.set()
    await writer.vectors.idle()
    await asyncio.wait_for(other.vectors.idle(), 10)
    story = await other.cache.story(ACCOUNT, story_id)
    assert story.semantic is not None and greet in story.semantic
    assert other.encoder.encoded == []
    assert Counter(writer.encoder.encoded)["hello there"] == 1


async def test_phrases_whose_writer_never_encoded_them_are_encoded_after_the_wait() -> None:
    """As if the writer died before encoding: the vectors are not in the store."""
    writer = Bot(live_replicas=2)
    other = writer.replica(wait_seconds=0.05)
    story_id = await writer.new_story()
    greet = await writer.add(story_id, "hello there", "hi friend")
    await writer.written.idle()
    await writer.vectors.idle()
    writer.store.by_key.clear()
    await other.cache.story(ACCOUNT, story_id)
    await other.cache.idle()
    await asyncio.wait_for(other.vectors.idle(), 10)
    story = await other.cache.story(ACCOUNT, story_id)
    assert story.semantic is not None and greet in story.semantic
    assert {"hello there", "hi friend"} <= set(other.encoder.encoded)


def sizes(*values: str) -> Any:
    body = {"name": "size", "entries": [{"value": v, "synonyms": [{"value": v}]} for v in values]}
    return entity_body(body)


async def test_an_entity_edit_made_here_is_encoded_at_once_and_one_heard_of_awaited() -> None:
    bot = Bot(live_replicas=2, wait_seconds=3600)
    size = await bot.entities.create(account_id=ACCOUNT, entity=sizes("small", "large"))
    story_id = await bot.new_story()
    body = {
        "name": "Order",
        "userSays": ["a {{size:size}} pizza"],
        "parameters": [{"alias": "size", "entity": "size", "prompts": []}],
    }
    await bot.interactions.create(
        account_id=ACCOUNT, story_id=story_id, interaction=new_interaction(body)
    )
    await bot.cache.story(ACCOUNT, story_id)
    await bot.cache.idle()
    await bot.vectors.idle()
    await bot.entities.update(account_id=ACCOUNT, entity_id=size, entity=sizes("medium"))
    await bot.cache.story(ACCOUNT, story_id)
    await asyncio.wait_for(bot.vectors.idle(), 10)  # not awaited from another replica
    assert "a medium pizza" in bot.encoder.encoded
    await bot.database.entities.replace(ACCOUNT, size, sizes("large"))
    await bot.cache.changed(EntitiesEdited(ACCOUNT, remote=True))
    await bot.cache.story(ACCOUNT, story_id)
    assert bot.vectors.waiting(story_id) == 1
    assert "a large pizza" not in bot.encoder.encoded, "the replica that made it encodes it"
    await bot.vectors.close()
