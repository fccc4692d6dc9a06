"""Stand-in phrase vectors for the generated stories: random unit vectors of the model's
size. What a compile, a search and memory cost does not depend on the values, and
encoding 88,000 phrases for real would take minutes of every bench run."""

from typing import Any

import numpy as np
from pymongo import MongoClient

from bench.stack import Stack
from bot_api.encoding.minilm import MODEL_ID
from bot_api.engine.semantic import PhraseVectors, Vectors, phrase_text, vector_key

DIMENSIONS = 384


def random_vectors(interactions: list[dict[str, Any]], seed: int = 5) -> PhraseVectors:
    texts = list(dict.fromkeys(phrase_text(p, {}) for i in interactions for p in i["userSays"]))
    rows: Vectors = np.random.default_rng(seed).standard_normal(
        (len(texts), DIMENSIONS), dtype=np.float32
    )
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    return PhraseVectors(
        MODEL_ID, {vector_key(MODEL_ID, t): row for t, row in zip(texts, rows, strict=True)}
    )


def store(stack: Stack, vectors: PhraseVectors, story_id: str | None = None) -> None:
    """Put the vectors where bot-api keeps them, as if they had been computed before
    (for `story_id`, when given: then its compile has nothing to mark)."""
    stories = {} if story_id is None else {"stories": [story_id]}
    with MongoClient(stack.config.mongodb_url) as client:
        collection = client[stack.config.bot_database]["phrase_vectors"]
        documents = [
            {
                "_id": key,
                "model": vectors.model_id,
                "vector": row.astype(np.float16).tobytes(),
                **stories,
            }
            for key, row in vectors.by_key.items()
        ]
        for start in range(0, len(documents), 5000):
            collection.insert_many(documents[start : start + 5000], ordered=False)
