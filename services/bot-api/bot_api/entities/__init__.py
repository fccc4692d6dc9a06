"""Entities: an account's own entities and their entries."""
