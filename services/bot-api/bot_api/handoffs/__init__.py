"""Handoffs: the person's side of a conversation handed over (docs/api.md "Handoffs")."""
