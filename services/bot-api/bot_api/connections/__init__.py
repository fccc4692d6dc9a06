"""The connection view: integrations-api's connections as bot-api last heard of them
(docs/events.md)."""
