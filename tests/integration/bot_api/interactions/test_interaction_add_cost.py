"""Adding an interaction (with a trigger and a phrase) costs about the same at 2,000
interactions as at 10: the trigger check reads only the interactions sharing a trigger,
the phrase quota reads the story's counter, and the story is read once and written as
a change of it. The figures go to docs/reliability.md; no time is asserted."""

import statistics
import time
import uuid

from aiohttp.test_utils import TestClient
from pymongo import AsyncMongoClient

from bot_api.domain.interactions import STANDARD, Interaction
from bot_api.interactions.repository import InteractionRepository
from bot_api.stories.repository import StoryRepository
from shared.config import Config
from support.api import Api, Tenant

ADDS = 5


async def grown_story(api: Api, account_id: str, database: object, size: int) -> str:
    """A story of `size` interactions (each with a trigger of its own), written directly."""
    story_id = await api.create_story(f"Story of {size}")
    stories = StoryRepository(database)  # type: ignore[arg-type]
    interactions = InteractionRepository(database)  # type: ignore[arg-type]
    ids = [str(uuid.uuid4()) for _ in range(size - 2)]
    await interactions.insert_many(
        account_id,
        story_id,
        [
            Interaction(id=i, kind=STANDARD, name=f"I{n}", triggers=(f"t{n}",))
            for n, i in enumerate(ids)
        ],
    )
    story = await stories.get(account_id, story_id)
    assert story is not None
    structure = story.structure
    for i in ids:
        structure = structure.add_root(i)
    assert await stories.update(story, None, structure)
    return story_id


async def test_adding_an_interaction_costs_the_same_at_2000_as_at_10(
    alice: Tenant, config: Config, mongo_client: AsyncMongoClient, bot_api: TestClient
) -> None:
    database = mongo_client[config.bot_database]
    medians = {}
    for size in (10, 2000):
        story_id = await grown_story(alice.developer, alice.tokens.account_id, database, size)
        seconds = []
        for n in range(ADDS):
            started = time.perf_counter()
            await alice.developer.create_interaction(
                story_id, f"New {n}", triggers=[f"new{n}"], userSays=[f"new phrase {n}"]
            )
            seconds.append(time.perf_counter() - started)
        medians[size] = statistics.median(seconds)
        clash = await alice.developer.post(
            f"/stories/{story_id}/interactions", {"name": "x", "triggers": [f"T{size - 3}"]}
        )
        assert clash.error == (409, "conflict")
        listed = await alice.developer.ok("GET", f"/stories/{story_id}/interactions")
        assert len(listed) == size + ADDS
    print(
        "interaction add, median of", ADDS, ":",
        ", ".join(f"{size}: {1000 * s:.1f} ms" for size, s in medians.items()),
    )  # fmt: skip
