"""Management operations: what the HTTP handlers (and later event consumers) call."""
