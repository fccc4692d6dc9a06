"""The misses inbox: the turns a story fell back on or matched weakly, clustered for review
(docs/history.md)."""
