"""Normalising what people type: case, accents, punctuation and spacing do not matter."""

import re
import unicodedata

_WORD = re.compile(r"[^\W_]+")


def tokens(text: str) -> list[str]:
    """Lower-case words without accents: "Où est-ce, S'il vous plaît?" -> ou est ce s il ..."""
    if text.isascii():
        return _WORD.findall(text.lower())  # nothing to decompose: the common case, fast
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    plain = "".join(char for char in decomposed if not unicodedata.combining(char))
    return _WORD.findall(plain)
