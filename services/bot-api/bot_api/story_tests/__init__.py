"""Conversation tests: a story's tests, run on demand and after each edit (docs/tests.md)."""
