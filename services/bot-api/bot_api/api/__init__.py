"""HTTP handlers of bot-api: parse and validate, call management, render."""
