"""Phrase vectors: computed once per text in the background, taken in by the story on
its next query; until then the phrase is matched lexically."""

import asyncio
from collections.abc import Iterable, Mapping

import pytest
from prometheus_client import REGISTRY

from bot_api.changes import ChangeFeed, Handler
from bot_api.engine.conversation import respond
from bot_api.engine.semantic import Encoders, StoredVectors, Vectors, vector_key
from bot_api.engine.turn import SessionState, Turn
from bot_api.quotas import Quotas
from bot_api.story_cache import entries
from bot_api.story_cache.cache import StoryCache
from bot_api.story_cache.queues import CHUNK
from bot_api.story_cache.sweep import VectorSweeper
from bot_api.story_cache.vectors import PhraseVectorService
from integration.bot_api.story_cache.memory import VectorsInMemory
from shared.config import Config
from shared.pages import Page
from support.bodies import entity as entity_body
from support.bodies import interaction_changes, new_interaction
from support.editing import set_phrases
from support.encoders import ConceptEncoder
from support.memory import Database
from support.story_service import entity_service, interaction_service, story_service

ACCOUNT = "account-1"


class FlakyVectors(VectorsInMemory):
    """Phrase vectors whose first reads and puts fail, as a database that does not answer
    in time."""

    def __init__(self, failing_reads: int = 0, failing_puts: int = 0) -> None:
        super().__init__()
        self.failing = {"take": failing_reads, "put": failing_puts}

    def _maybe_fail(self, call: str) -> None:
        if self.failing[call]:
            self.failing[call] -= 1
            raise TimeoutError("the database did not answer in time")

    async def take(self, story_id: str, keys: Iterable[str]) -> dict[str, StoredVectors]:
        self._maybe_fail("take")
        return await super().take(story_id, keys)

    async def put(self, model_id: str, story_id: str, vectors: Mapping[str, Vectors]) -> None:
        self._maybe_fail("put")
        await super().put(model_id, story_id, vectors)


class Bot:
    def __init__(self, store: VectorsInMemory | None = None) -> None:
        database = Database()
        feed = ChangeFeed()
        self.encoder = ConceptEncoder()
        self.store = VectorsInMemory() if store is None else store
        self.vectors = PhraseVectorService(
            self.store, Encoders((self.encoder,)), retry_seconds=0.01
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
        feed.handle(Handler.STORY_CACHE, self.cache)
        self.sweeper = VectorSweeper(
            stories=database.stories,
            interactions=database.interactions,
            entities=database.entities,
            store=self.store,
            vectors=self.vectors,
            delay_seconds=0,
        )
        feed.handle(Handler.VECTOR_SWEEPER, self.sweeper)
        self.database = database
        quotas = Quotas.from_config(Config(mongodb_url="", nats_url=""))
        self.entities = entity_service(database, feed, quotas)
        self.stories = story_service(
            database, feed, quotas, vectors=self.store, awaiting_meaning=self.vectors.waiting
        )
        self.interactions = interaction_service(database, feed, quotas)

    async def empty_story(self, name: str) -> str:
        """A new story whose welcome answers no greeting: only the test's phrases count."""
        story_id = await self.stories.create(account_id=ACCOUNT, name=name, description="")
        page, _ = await self.interactions.list_interactions(
            account_id=ACCOUNT, story_id=story_id, page=Page()
        )
        welcome = next(i.id for i in page if i.kind == "welcome")
        await self.edit(story_id, welcome)
        return story_id

    async def new_story(self, *user_says: str) -> tuple[str, str]:
        story_id = await self.empty_story("Bot")
        interaction_id = await self.interactions.create(
            account_id=ACCOUNT,
            story_id=story_id,
            interaction=new_interaction({"name": "Greet", "userSays": [*user_says]}),
        )
        return story_id, interaction_id

    async def settle(self, story_id: str) -> set[str]:
        """Once the story's vectors are encoded and the sweeps done: the keys its
        current phrases use."""
        await self.cache.story(ACCOUNT, story_id)
        await self.vectors.idle()
        await self.sweeper.idle()
        story = await self.cache.story(ACCOUNT, story_id)
        model = self.encoder.model_id
        texts = story.phrase_texts(story.interactions).values()
        return {vector_key(model, t) for phrases in texts for t in phrases}

    async def edit(self, story_id: str, interaction_id: str, *user_says: str) -> None:
        await set_phrases(self.interactions, ACCOUNT, story_id, interaction_id, user_says)

    async def answer(self, story_id: str, query: str) -> str | None:
        story = await self.cache.story(ACCOUNT, story_id)
        _, outcome = respond(story, SessionState(), Turn(query=query), encoder=self.encoder)
        return None if outcome.interaction is None else outcome.interaction.id


@pytest.fixture
async def bot() -> Bot:
    return Bot()


async def test_vectors_land_in_the_background_and_the_next_query_uses_them(bot: Bot) -> None:
    bot.encoder.released.clear()
    story_id, greet = await bot.new_story("hello there", "hi friend")
    story = await bot.cache.story(ACCOUNT, story_id)
    assert story.semantic is not None and greet not in story.semantic
    assert await bot.answer(story_id, "howdy") != greet
    assert REGISTRY.get_sample_value("parley_phrase_vectors_waiting") == 2
    encoded = REGISTRY.get_sample_value("parley_phrase_vectors_encoded_total")
    bot.encoder.released.set()
    await bot.vectors.idle()
    assert {"hello there", "hi friend"} <= set(bot.encoder.encoded)
    assert REGISTRY.get_sample_value("parley_phrase_vectors_waiting") == 0
    assert REGISTRY.get_sample_value("parley_phrase_vectors_encoded_total") == encoded + 2  # type: ignore[operator]
    story = await bot.cache.story(ACCOUNT, story_id)
    assert greet in story.semantic  # type: ignore[operator]
    assert await bot.answer(story_id, "howdy") == greet


async def test_a_storys_read_counts_its_phrases_waiting_for_meaning(bot: Bot) -> None:
    """Counted from the queue of the process that answers the story: no phrase is read
    for it."""
    bot.encoder.released.clear()
    story_id, _ = await bot.new_story("hello there", "hi friend")
    other_id, _ = await bot.new_story("good morning")
    await bot.cache.story(ACCOUNT, story_id)
    await bot.cache.story(ACCOUNT, other_id)

    async def waiting() -> list[int]:
        reads = [
            await bot.stories.read(account_id=ACCOUNT, story_id=s) for s in (story_id, other_id)
        ]
        return [read["phrasesAwaitingMeaning"] for read in reads]

    assert await waiting() == [2, 1]
    bot.encoder.released.set()
    await bot.vectors.idle()
    assert await waiting() == [0, 0]


async def test_a_text_is_encoded_once_and_an_edit_encodes_only_its_new_phrases(bot: Bot) -> None:
    first, _ = await bot.new_story("hello there", "hi friend")
    await bot.cache.story(ACCOUNT, first)
    await bot.vectors.idle()
    second, greet = await bot.new_story("Hello, there!", "greetings all")
    await bot.cache.story(ACCOUNT, second)
    await bot.vectors.idle()
    await bot.interactions.update(
        account_id=ACCOUNT,
        story_id=second,
        interaction_id=greet,
        changes=interaction_changes({"userSays": ["Hello there", "greetings all", "hi folks"]}),
    )
    await bot.cache.story(ACCOUNT, second)
    await bot.vectors.idle()
    assert sorted(bot.encoder.encoded) == ["greetings all", "hello there", "hi folks", "hi friend"]


async def test_vectors_that_could_not_be_stored_are_tried_again_until_they_land() -> None:
    store = FlakyVectors(failing_puts=2)
    bot = Bot(store)
    story_id, greet = await bot.new_story("hello there", "hi friend")
    await bot.cache.story(ACCOUNT, story_id)
    await bot.vectors.idle()
    assert store.failing["put"] == 0
    assert await bot.answer(story_id, "howdy") == greet


async def test_a_story_of_one_phrase_is_encoded_before_a_large_story_queued_first(
    bot: Bot,
) -> None:
    bot.encoder.released.clear()
    large = await bot.empty_story("Large")
    for n in range(10):
        await bot.interactions.create(
            account_id=ACCOUNT,
            story_id=large,
            interaction=new_interaction(
                {"name": f"Topic {n}", "userSays": [f"topic {n} phrase {p}" for p in range(10)]}
            ),
        )
    await bot.cache.story(ACCOUNT, large)
    small, greet = await bot.new_story("hello there")
    await bot.cache.story(ACCOUNT, small)
    bot.encoder.released.set()
    await bot.vectors.idle()
    assert len(bot.encoder.encoded) == 101
    assert bot.encoder.encoded.index("hello there") == CHUNK
    assert await bot.answer(small, "howdy") == greet


class HeldVectors(VectorsInMemory):
    """Phrase vectors whose reads wait while `held` is cleared, as a large story's do."""

    def __init__(self) -> None:
        super().__init__()
        self.released = asyncio.Event()
        self.released.set()

    async def take(self, story_id: str, keys: Iterable[str]) -> dict[str, StoredVectors]:
        await self.released.wait()
        return await super().take(story_id, keys)


async def test_a_story_answers_lexically_while_its_vectors_are_read_then_by_meaning(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The first query waits a twentieth of a second for the held vectors, not a second."""
    monkeypatch.setattr(entries, "SEMANTIC_WAIT_SECONDS", 0.05)
    store = HeldVectors()
    bot = Bot(store)
    story_id, greet = await bot.new_story("hello there", "hi friend")
    stored = ["hello there", "hi friend"]
    vectors = ConceptEncoder()(stored)
    model = bot.encoder.model_id
    await store.put(
        model, story_id, {vector_key(model, t): v for t, v in zip(stored, vectors, strict=True)}
    )
    store.released.clear()
    story = await asyncio.wait_for(bot.cache.story(ACCOUNT, story_id), 5)
    assert story.semantic is None
    assert await bot.answer(story_id, "hello there") == greet
    assert await bot.answer(story_id, "howdy") != greet
    await bot.interactions.update(
        account_id=ACCOUNT,
        story_id=story_id,
        interaction_id=greet,
        changes=interaction_changes({"userSays": ["hi friend", "greetings all"]}),
    )
    assert await bot.answer(story_id, "greetings all") == greet
    store.released.set()
    await bot.cache.idle()
    await bot.vectors.idle()
    story = await bot.cache.story(ACCOUNT, story_id)
    assert story.semantic is not None and greet in story.semantic
    assert await bot.answer(story_id, "howdy") == greet
    assert "greetings all" in bot.encoder.encoded and "hello there" not in bot.encoder.encoded


async def test_a_story_whose_vectors_take_longer_than_the_wait_is_answered_lexically_at_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A story with more phrases than are read while its first query may wait: that
    query does not wait (here the wait is a minute, the vector read held)."""
    monkeypatch.setattr(entries, "SEMANTIC_WAIT_SECONDS", 60.0)
    monkeypatch.setattr(entries, "VECTORS_READ_PER_SECOND", 1 / 60)
    store = HeldVectors()
    bot = Bot(store)
    story_id, greet = await bot.new_story("hello there", "hi friend")
    store.released.clear()
    story = await asyncio.wait_for(bot.cache.story(ACCOUNT, story_id), 5)
    assert story.semantic is None
    assert await asyncio.wait_for(bot.answer(story_id, "hello there"), 5) == greet
    store.released.set()
    await bot.cache.idle()


async def test_edits_and_a_story_delete_shrink_the_vectors_to_what_live_phrases_use(
    bot: Bot,
) -> None:
    story_id, greet = await bot.new_story("hello there", "hi friend")
    await bot.settle(story_id)
    for n in range(30):
        await bot.edit(story_id, greet, f"hello number {n}", "hi friend")
        await bot.settle(story_id)
    assert len(bot.encoder.encoded) == 32
    live = await bot.settle(story_id)
    assert len(live) == 2 and set(bot.store.by_key) == live
    await bot.stories.delete(account_id=ACCOUNT, story_id=story_id)
    await bot.sweeper.idle()
    assert bot.store.by_key == {}


async def test_a_text_two_stories_share_stays_while_one_of_them_uses_it(bot: Bot) -> None:
    first, first_greet = await bot.new_story("hello there", "hi friend")
    second, _ = await bot.new_story("Hello there!", "greetings all")
    await bot.settle(first)
    await bot.settle(second)
    hello = vector_key(bot.encoder.model_id, "hello there")
    await bot.edit(first, first_greet, "hi friend")
    await bot.settle(first)
    assert hello in bot.store.by_key and len(bot.store.by_key) == 3
    await bot.stories.delete(account_id=ACCOUNT, story_id=second)
    await bot.sweeper.idle()
    assert (
        set(bot.store.by_key)
        == await bot.settle(first)
        == {vector_key(bot.encoder.model_id, "hi friend")}
    )
    assert hello not in bot.store.by_key


async def test_a_vector_a_sweep_took_from_a_live_phrase_is_encoded_again(bot: Bot) -> None:
    story_id, greet = await bot.new_story("hello there", "hi friend")
    live = await bot.settle(story_id)
    await bot.store.sweep(story_id, keep=set(), limit=10)  # read before the phrases existed
    assert bot.store.by_key == {}
    bot.encoder.released.clear()
    restarted = StoryCache(
        stories=bot.database.stories,
        interactions=bot.database.interactions,
        entities=bot.database.entities,
        versions=bot.database.versions,
        vectors=bot.vectors,
        budget_bytes=2**30,
    )
    story = await restarted.story(ACCOUNT, story_id)
    _, outcome = respond(story, SessionState(), Turn(query="howdy"), encoder=bot.encoder)
    assert outcome.interaction is None or outcome.interaction.id != greet
    _, outcome = respond(story, SessionState(), Turn(query="hello there"), encoder=bot.encoder)
    assert outcome.interaction is not None and outcome.interaction.id == greet
    bot.encoder.released.set()
    await bot.vectors.idle()
    story = await restarted.story(ACCOUNT, story_id)
    _, outcome = respond(story, SessionState(), Turn(query="howdy"), encoder=bot.encoder)
    assert outcome.interaction is not None and outcome.interaction.id == greet
    assert set(bot.store.by_key) == live
    assert bot.encoder.encoded.count("hello there") == bot.encoder.encoded.count("hi friend") == 2


async def test_an_entity_edit_sweeps_the_vectors_its_old_first_value_gave_slots(
    bot: Bot,
) -> None:
    def sizes(*values: str) -> dict[str, object]:
        return {
            "name": "size",
            "entries": [{"value": v, "synonyms": [{"value": v}]} for v in values],
        }

    size = await bot.entities.create(
        account_id=ACCOUNT, entity=entity_body(sizes("small", "large"))
    )
    story_id, order = await bot.new_story("hello there")
    await bot.interactions.update(
        account_id=ACCOUNT,
        story_id=story_id,
        interaction_id=order,
        changes=interaction_changes(
            {
                "userSays": ["a {{size:size}} pizza", "hello there"],
                "parameters": [{"alias": "size", "entity": "size", "prompts": []}],
            }
        ),
    )
    await bot.settle(story_id)
    await bot.entities.update(
        account_id=ACCOUNT, entity_id=size, entity=entity_body(sizes("large", "small"))
    )
    live = await bot.settle(story_id)
    assert set(bot.store.by_key) == live
    assert {vector_key(bot.encoder.model_id, t) for t in ("a large pizza", "hello there")} == live


async def test_a_semantic_stage_whose_vectors_could_not_be_read_is_tried_again() -> None:
    store = FlakyVectors(failing_reads=2)
    bot = Bot(store)
    story_id, greet = await bot.new_story("hello there", "hi friend")
    await bot.cache.story(ACCOUNT, story_id)
    await bot.cache.idle()
    await bot.vectors.idle()
    assert store.failing["take"] == 0
    assert await bot.answer(story_id, "howdy") == greet
