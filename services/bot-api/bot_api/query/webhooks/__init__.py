"""Calling a matched interaction's webhook during a /query turn (docs/webhooks.md):
where a call may go (`guard`), how it is made and signed (`caller`), what is sent
(`payload`), what a backend may answer (`answers`), and the whole delivery with its
report to integrations-api (`delivery`)."""
