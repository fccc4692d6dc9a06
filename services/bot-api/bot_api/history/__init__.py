"""The conversation history: recorded turns, written in batches behind /query, read and
erased (docs/history.md)."""
