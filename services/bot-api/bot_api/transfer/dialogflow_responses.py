"""A Dialogflow ES intent's messages and texts as Parley response blocks.

Part of the Dialogflow ES translator (transfer/dialogflow.py; the mapping:
docs/import-export.md "Dialogflow ES"). Dialogflow sends each message of the default
platform in turn; a story sends its blocks in turn, so each message becomes one block,
cut to the limits a story keeps (docs/api.md "Stored responses").
"""

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from bot_api.transfer.limits import (
    MAX_BLOCKS,
    MAX_BUTTON_TITLE,
    MAX_BUTTONS,
    MAX_MESSAGES,
    MAX_REPLIES,
    MAX_REPLY,
    MAX_TEXT,
    MAX_TITLE,
    MAX_URL,
)
from bot_api.transfer.report import Unmapped

GOOGLE = "google"

OWN_PARAMETER = re.compile(r"\$([A-Za-z_][\w-]*)(\.original)?")
"""`$unit` (the intent's parameter) or `$unit.original` (the words the user said)."""
CONTEXT_PARAMETER = re.compile(r"#([A-Za-z][\w-]*)\.([A-Za-z_][\w-]*)(\.original)?")
"""`#context.parameter`: a value an output context carries."""


@dataclass
class IntentTexts:
    """What the texts of one intent may refer to, and where its losses are written."""

    path: str
    aliases: set[str]
    """The intent's parameters, which `$parameter` may name."""
    context_aliases: Mapping[str, set[str]]
    """Each output context (lower case) with the parameters of the intents that set it."""
    unmapped: list[Unmapped] = field(default_factory=list)

    def note(self, where: str, element: str, reason: str) -> None:
        self.unmapped.append(Unmapped(f"{self.path}: {where}", element, reason))

    def text(self, template: str, where: str) -> str:
        """The text with the intent's `$parameter` and every `#context.parameter` written
        `{{parameter}}`: a story's parameters outlive a turn, so a value a parent collected
        is still there when its follow-up answers."""

        def own(match: re.Match[str]) -> str:
            alias, original = match.group(1), match.group(2)
            if alias not in self.aliases:
                self.note(where, f"reference {match.group(0)!r}", "no parameter of the intent")
                return match.group(0)
            if original:
                self.note(where, f"{match.group(0)!r}", "read as the value, not the words said")
            return "{{" + alias + "}}"

        def of_context(match: re.Match[str]) -> str:
            context, alias = match.group(1), match.group(2)
            collected = alias in self.context_aliases.get(context.lower(), set())
            self.note(
                where,
                f"context reference {match.group(0)!r}",
                f"read as {{{{{alias}}}}}: "
                + (
                    f"the value an intent setting {context!r} collects, kept by the conversation"
                    if collected
                    else "no intent collects it; empty unless a webhook or the client sets it"
                ),
            )
            return "{{" + alias + "}}"

        return CONTEXT_PARAMETER.sub(of_context, OWN_PARAMETER.sub(own, template))

    def cut(self, value: str, limit: int, where: str, what: str) -> str:
        if len(value) <= limit:
            return value
        self.note(where, f"{what} of {len(value)} characters", f"cut to {limit}")
        return value[:limit]


def response_blocks(
    messages: Sequence[Mapping[str, Any]], language: str, texts: IntentTexts
) -> list[dict[str, Any]]:
    """The blocks of the default platform's messages in the agent's language; an intent
    with none for the default platform takes Google's. Other platforms' messages are
    reported once."""
    ours = [
        (index, message)
        for index, message in enumerate(messages)
        if message.get("lang", language) == language
    ]
    platforms = {str(message.get("platform") or "") for _, message in ours}
    chosen = "" if "" in platforms or not platforms else GOOGLE if GOOGLE in platforms else None
    others = sorted(platforms - {chosen, ""})
    if others:
        texts.note(
            "responses[0].messages",
            f"messages for {', '.join(others)}",
            "a story answers every client alike: the default platform's messages are kept",
        )
    blocks: list[dict[str, Any]] = []
    for index, message in ours:
        if str(message.get("platform") or "") == chosen:
            where = f"responses[0].messages[{index}]"
            if message.get("condition"):
                texts.note(where, "condition", "a story's responses are always sent")
            _add_block(blocks, message, where, texts)
    if len(blocks) > MAX_BLOCKS:
        texts.note(
            "responses[0].messages",
            f"{len(blocks) - MAX_BLOCKS} messages past the {MAX_BLOCKS}th",
            f"a story answers with at most {MAX_BLOCKS} blocks",
        )
    return blocks[:MAX_BLOCKS]


def _add_block(
    blocks: list[dict[str, Any]], message: Mapping[str, Any], where: str, texts: IntentTexts
) -> None:
    kind = str(message.get("type"))
    if kind == "0":
        speech = message.get("speech", [])
        _add_text(blocks, [speech] if isinstance(speech, str) else list(speech), where, texts)
    elif kind == "simple_response":
        _add_text(
            blocks, [message.get("displayText") or message.get("textToSpeech", "")], where, texts
        )
    elif kind == "1":
        buttons = [(b.get("text", ""), b.get("postback", "")) for b in message.get("buttons", [])]
        _add_card(blocks, message, message.get("imageUrl", ""), buttons, where, texts)
    elif kind == "basic_card":
        image = message.get("image", {}).get("url", "")
        buttons = [
            (b.get("title", ""), b.get("openUrlAction", {}).get("url", ""))
            for b in message.get("buttons", [])
        ]
        _add_card(blocks, message, image, buttons, where, texts)
    elif kind == "2":
        _add_quick_replies(
            blocks, message.get("title", ""), message.get("replies", []), where, texts
        )
    elif kind == "suggestion_chips":
        chips = [chip.get("title", "") for chip in message.get("suggestions", [])]
        _add_quick_replies(blocks, "", chips, where, texts)
    elif kind == "3" and message.get("imageUrl"):
        url = texts.cut(message["imageUrl"], MAX_URL, where, "image URL")
        blocks.append({"type": "image", "imageUrl": url})
    elif kind == "3":
        texts.note(where, "image without a URL", "an image block needs one")
    elif kind == "4":
        texts.note(where, "custom payload", "a story stores no payloads; a webhook can answer one")
    else:
        texts.note(where, f"message of type {kind!r}", "no block of a story holds it")


def _add_text(
    blocks: list[dict[str, Any]], said: list[str], where: str, texts: IntentTexts
) -> None:
    """One text block: a story picks one of its messages at random, as Dialogflow picks
    one of a message's variants."""
    variants = [texts.cut(texts.text(s, where), MAX_TEXT, where, "text") for s in said if s.strip()]
    if len(variants) > MAX_MESSAGES:
        texts.note(
            where,
            f"{len(variants) - MAX_MESSAGES} variants past the {MAX_MESSAGES}th",
            "a text block holds at most 20",
        )
    if variants:
        blocks.append({"type": "text", "messages": variants[:MAX_MESSAGES]})


def _add_card(
    blocks: list[dict[str, Any]],
    message: Mapping[str, Any],
    image_url: str,
    buttons: list[tuple[str, str]],
    where: str,
    texts: IntentTexts,
) -> None:
    title = texts.text(message.get("title", ""), where)
    if not title:
        texts.note(where, "card without a title", "a story's card needs one")
        return
    kept = [
        {
            "title": texts.cut(button_title, MAX_BUTTON_TITLE, where, "button title"),
            "postback": texts.cut(postback, MAX_URL, where, "button postback"),
        }
        for button_title, postback in buttons
        if button_title
    ]
    if len(kept) > MAX_BUTTONS:
        texts.note(
            where, f"{len(kept) - MAX_BUTTONS} buttons past the 3rd", "a card holds at most 3"
        )
    blocks.append(
        {
            "type": "card",
            "title": texts.cut(title, MAX_TITLE, where, "card title"),
            "subtitle": texts.cut(
                texts.text(message.get("subtitle", ""), where), MAX_TITLE, where, "card subtitle"
            ),
            "imageUrl": texts.cut(image_url, MAX_URL, where, "card image URL"),
            "buttons": kept[:MAX_BUTTONS],
        }
    )


def _add_quick_replies(
    blocks: list[dict[str, Any]], title: str, replies: list[str], where: str, texts: IntentTexts
) -> None:
    """A quick reply block needs a title: without one (Google's suggestion chips never
    have one) the short text just before it becomes the title, as the text the replies
    answer."""
    if any(block["type"] == "quickReply" for block in blocks):
        texts.note(
            where, "a second set of quick replies", "an interaction has one quickReply block"
        )
        return
    title = texts.text(title, where)
    kept = [texts.cut(reply, MAX_REPLY, where, "quick reply") for reply in replies if reply]
    said_before = blocks[-1]["messages"] if blocks and blocks[-1]["type"] == "text" else []
    if kept and not title and len(said_before) == 1 and len(said_before[0]) <= MAX_TITLE:
        title = blocks.pop()["messages"][0]
    if not title or not kept:
        texts.note(
            where,
            "quick replies without a title or replies",
            "a quickReply block needs both; a title is taken from one short text just before",
        )
        return
    if len(kept) > MAX_REPLIES:
        texts.note(
            where,
            f"{len(kept) - MAX_REPLIES} quick replies past the 11th",
            "a block holds at most 11",
        )
    blocks.append(
        {
            "type": "quickReply",
            "title": texts.cut(title, MAX_TITLE, where, "quick reply title"),
            "replies": kept[:MAX_REPLIES],
        }
    )
