"""Bytes of text in an unknown encoding decoded, for plain text, Markdown and an HTML page
that declares no charset."""

from charset_normalizer import from_bytes

from bot_api.knowledge.blocks import DocumentRefused

NEAR_CHAOS = 0.05
"""How much more mess (charset_normalizer's chaos, 0 to 1) windows-1252 may show and still
be preferred."""


def decode(content: bytes) -> str:
    """The text of `content`: UTF-8 when it is (most files, and charset_normalizer's guess
    on short UTF-8 text can be wrong), else charset_normalizer's best guess, except that
    windows-1252 is taken when it is within NEAR_CHAOS of the best: on a French paragraph
    in windows-1252 charset_normalizer ranks cp1257 first (è read as č) at a chaos of 0.0
    against cp1252's 0.027. A file with no text encoding is `unreadable`."""
    if content.startswith(b"\xef\xbb\xbf"):
        content = content[3:]
    try:
        return content.decode("utf-8")
    except UnicodeDecodeError:
        pass
    matches = list(from_bytes(content))
    if not matches:
        raise DocumentRefused("unreadable", "the file is not text in any known encoding")
    best = matches[0]
    for match in matches:
        if match.encoding == "cp1252" and match.chaos - best.chaos <= NEAR_CHAOS:
            best = match
    return str(best)
