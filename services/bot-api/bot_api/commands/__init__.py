"""The command-line commands of bot-api: `python -m bot_api story` (docs/import-export.md,
docs/tests.md)."""
