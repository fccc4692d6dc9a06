"""Generated stories of any size, the same every run (fixed seed)."""

import random
import uuid
from dataclasses import replace
from typing import Any

from bot_api.domain.interactions import default_interactions
from bot_api.domain.settings import Settings
from bot_api.domain.structure import Context, Structure
from bot_api.interactions.repository import InteractionRepository
from bot_api.interactions.schemas import InteractionWriteSchema
from bot_api.stories.repository import StoryRepository
from shared import mongo
from shared.config import Config
from shared.ids import new_object_id

SYLLABLES = ["ka", "lo", "mi", "ne", "ru", "ta", "vo", "zi", "pe", "su", "do", "fa", "gi", "hu"]
FRAMES = [
    "i want to {a} the {b}",
    "can you {a} my {b} please",
    "how do i {a} a {b}",
    "{a} the {b} for me",
    "is it possible to {a} {b} today",
    "please help me {a} the {b} {c}",
    "where can i {a} {b}",
    "i need the {b} to {a} now",
    "what is the best way to {a} my {b} and {c}",
]


def _word(rng: random.Random) -> str:
    return "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4)))


def story_interactions(count: int, phrases: int = 99, seed: int = 7) -> list[dict[str, Any]]:
    """`count` interactions of `phrases` user-says phrases each; each interaction has its
    own topic words mixed into common sentence frames."""
    rng = random.Random(seed)
    shared = [_word(rng) for _ in range(300)]
    interactions = []
    for number in range(count):
        topic = [_word(rng) for _ in range(6)]
        says = []
        for _ in range(phrases):
            frame = rng.choice(FRAMES)
            says.append(
                frame.format(a=rng.choice(topic), b=rng.choice(topic), c=rng.choice(shared))
            )
        interactions.append({"name": f"Intent {number}", "userSays": list(dict.fromkeys(says))})
    return interactions


def queries(interactions: list[dict[str, Any]], count: int, seed: int = 11) -> list[str]:
    """Mostly reworded phrases of random interactions (a word dropped, a typo), some noise."""
    rng = random.Random(seed)
    result = []
    for _ in range(count):
        if rng.random() < 0.2:
            result.append(" ".join(_word(rng) for _ in range(rng.randint(3, 8))))
            continue
        words = rng.choice(rng.choice(interactions)["userSays"]).split()
        if len(words) > 3:
            words.pop(rng.randrange(len(words)))
        position = rng.randrange(len(words))
        word = words[position]
        if len(word) > 4:
            cut = rng.randrange(1, len(word) - 1)
            words[position] = word[:cut] + word[cut + 1 :]
        result.append(" ".join(words))
    return result


INSERTED_AT_ONCE = 500
"""Interactions written in one insert: 5,000 at once outlasted the client's 10 s socket
timeout on the embedded server of a loaded machine."""


async def stored_story(
    config: Config, account_id: str, interactions: list[dict[str, Any]], name: str = "limits"
) -> str:
    """A story of these interactions (API bodies) written straight to the database, as
    the API would have stored it (the API takes minutes to add 5,000 interactions one by
    one); its id."""
    schema = InteractionWriteSchema()
    contents = [
        *(replace(d, id=str(uuid.uuid4())) for d in default_interactions()),
        *(replace(schema.load(i), id=str(uuid.uuid4())) for i in interactions),
    ]
    ids = tuple(c.id for c in contents)
    structure = Structure(ids, {i: Context(root=True) for i in ids}, frozenset(ids[:2]))
    story_id = new_object_id()
    client = mongo.open_client(config.mongodb_url)
    try:
        database = client[config.bot_database]
        repository = InteractionRepository(database)
        for start in range(0, len(contents), INSERTED_AT_ONCE):
            chunk = contents[start : start + INSERTED_AT_ONCE]
            await repository.insert_many(account_id, story_id, chunk)
        phrases = sum(len(c.user_says) for c in contents)
        await StoryRepository(database).insert(
            story_id, account_id, name, "", Settings(), structure, phrases
        )
    finally:
        await client.close()
    return story_id
