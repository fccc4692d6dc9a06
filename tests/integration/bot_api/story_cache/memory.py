"""VectorsInMemory, the phrase vectors in memory, held to PhraseVectorRepository's
contract by test_phrase_vector_repository.py beside it.
"""

from collections.abc import Iterable, Mapping

import numpy as np

from bot_api.engine.semantic import StoredVectors, Vectors


class VectorsInMemory:
    """Phrase vectors by key and the stories using each, as
    `PhraseVectorRepository` keeps them (float16)."""

    def __init__(self) -> None:
        self.by_key: dict[str, StoredVectors] = {}
        self.stories: dict[str, set[str]] = {}

    async def ensure_indexes(self) -> None:
        """Nothing to index in memory."""

    async def take(self, story_id: str, keys: Iterable[str]) -> dict[str, StoredVectors]:
        found = {k: self.by_key[k] for k in keys if k in self.by_key}
        for key in found:
            self.stories.setdefault(key, set()).add(story_id)
        return found

    async def stored(self, keys: Iterable[str]) -> set[str]:
        return {k for k in keys if k in self.by_key}

    async def put(self, model_id: str, story_id: str, vectors: Mapping[str, Vectors]) -> None:
        for key, vector in vectors.items():
            self.by_key.setdefault(key, vector.astype(np.float16))
            self.stories.setdefault(key, set()).add(story_id)

    async def sweep(self, story_id: str, keep: set[str], limit: int) -> int:
        marked = [k for k, stories in self.stories.items() if story_id in stories]
        unused = [k for k in marked if k not in keep][:limit]
        for key in unused:
            self.stories[key].discard(story_id)
            if not self.stories[key]:
                del self.stories[key], self.by_key[key]
        return len(unused)

    async def delete_for_story(self, story_id: str) -> None:
        await self.sweep(story_id, set(), len(self.stories))
