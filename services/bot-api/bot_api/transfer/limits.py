"""The limits of a story's fields (docs/api.md) that a translation keeps within, so what
it makes passes the API's schemas, which check the same numbers."""

from bot_api.domain.interactions import MAX_PARAMETERS, MAX_USER_SAYS
from bot_api.domain.structure import MAX_CONTEXT_LIST

MAX_PHRASE = 2048
MAX_PROMPTS = 99
MAX_PROMPT = 1024
MAX_ALIAS = 128
MAX_BLOCKS = 11
MAX_MESSAGES = 20
MAX_TEXT = 2048
MAX_TITLE = 80
"""Of a card or a set of quick replies."""
MAX_TEMPLATE_TITLE = 640
MAX_BUTTONS = 3
MAX_BUTTON_TITLE = 20
MAX_REPLIES = 11
MAX_REPLY = 20
MAX_URL = 2048
MAX_ENTRIES = 2000
MAX_SYNONYMS = 99
MAX_VALUE = 1024
MAX_DESCRIPTION = 2048
MAX_KEY_BASE = 120
"""Room for a `-2` suffix within the 128 characters of a key."""

__all__ = [
    "MAX_ALIAS",
    "MAX_BLOCKS",
    "MAX_BUTTONS",
    "MAX_BUTTON_TITLE",
    "MAX_CONTEXT_LIST",
    "MAX_DESCRIPTION",
    "MAX_ENTRIES",
    "MAX_KEY_BASE",
    "MAX_MESSAGES",
    "MAX_PARAMETERS",
    "MAX_PHRASE",
    "MAX_PROMPT",
    "MAX_PROMPTS",
    "MAX_REPLIES",
    "MAX_REPLY",
    "MAX_SYNONYMS",
    "MAX_TEMPLATE_TITLE",
    "MAX_TEXT",
    "MAX_TITLE",
    "MAX_URL",
    "MAX_USER_SAYS",
    "MAX_VALUE",
]
