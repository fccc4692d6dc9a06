"""/query: a turn answered from the compiled story and the session, its webhooks, and a
channel's turn."""
