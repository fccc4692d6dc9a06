"""Versions: a story frozen as its document, listed, compared, restored and published from."""
