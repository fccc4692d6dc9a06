"""Answering /query: compiled stories kept in memory, sessions kept in MongoDB."""
