"""An account's members and their personal tokens (docs/teams.md)."""
