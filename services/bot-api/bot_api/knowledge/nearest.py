"""The passages nearest a message, for a person to see beside a miss (the inbox, docs/
knowledge.md): the best of the ranking a question gets, whether or not good enough to
answer, so that a passage that nearly answered can be turned into an FAQ pair."""

from collections.abc import Sequence
from typing import Any

from bot_api.knowledge.index import KnowledgeIndex


def nearest_passages(
    index: KnowledgeIndex, texts: Sequence[str], count: int
) -> list[list[dict[str, Any]]]:
    """For each text, its `count` nearest passages as the API shows them (CPU: call it off
    the event loop)."""
    nearest = []
    for text in texts:
        ranked = index.answer(text, confidence=1.0, debug=True).ranked[:count]
        nearest.append(
            [
                {
                    "id": p.passage_id,
                    "documentId": p.document_id,
                    "text": p.text,
                    "score": p.lexical,
                }
                for p in ranked
            ]
        )
    return nearest
