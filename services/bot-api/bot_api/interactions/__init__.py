"""Interactions: a story's interactions and their response blocks, written through the
story's structure."""
