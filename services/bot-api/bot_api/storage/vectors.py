"""The `phrase_vectors` collection: one sentence vector per phrase text and model.

`_id` is `engine.semantic.vector_key` (a hash of the model id and the normalised text),
so the same text is encoded once for every story and account that uses it; the vector
is stored as float16 bytes. A key's vector never changes (the same model reads the same
text the same way), so a put inserts and leaves the vectors already stored: inserts are
what the embedded server writes fastest (docs/mongodb-compatibility.md).
"""

from collections.abc import Iterable, Mapping

import numpy as np
from pymongo.errors import BulkWriteError

from bot_api.engine.semantic import Vectors
from shared.mongo import Database

DUPLICATE_KEY = 11000


class PhraseVectorRepository:
    def __init__(self, database: Database) -> None:
        self.collection = database["phrase_vectors"]

    async def ensure_indexes(self) -> None:
        """`_id` is the only key it is read by."""

    async def find(self, keys: Iterable[str]) -> dict[str, Vectors]:
        wanted = list(dict.fromkeys(keys))
        if not wanted:
            return {}
        cursor = self.collection.find({"_id": {"$in": wanted}})
        return {
            document["_id"]: np.frombuffer(document["vector"], dtype=np.float16).astype(np.float32)
            async for document in cursor
        }

    async def put(self, model_id: str, vectors: Mapping[str, Vectors]) -> None:
        if not vectors:
            return
        documents = [
            {"_id": key, "model": model_id, "vector": vector.astype(np.float16).tobytes()}
            for key, vector in vectors.items()
        ]
        try:
            await self.collection.insert_many(documents, ordered=False)
        except BulkWriteError as error:
            details = error.details
            stored_already = all(e["code"] == DUPLICATE_KEY for e in details["writeErrors"])
            if not stored_already or details.get("writeConcernErrors"):
                raise
