"""Rasa rules and stories read as turns, and Rasa responses as Parley response blocks
(docs/import-export.md, "The Rasa importer").

A turn is what the user said (an intent, or the alternatives of an `or:`) and the
actions the bot answered with until the next user step. What a turn cannot carry (slot
and entity conditions, checkpoints, custom actions) is reported where it stands.
"""

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from bot_api.transfer.limits import (
    MAX_BUTTON_TITLE,
    MAX_BUTTONS,
    MAX_MESSAGES,
    MAX_REPLIES,
    MAX_TEMPLATE_TITLE,
    MAX_TEXT,
    MAX_TITLE,
    MAX_URL,
)
from bot_api.transfer.report import Unmapped

LISTEN = "action_listen"
DEFAULT_FALLBACK = "action_default_fallback"
NLU_FALLBACK = "nlu_fallback"


SLOT_IN_TEXT = re.compile(r"(?<!\{)\{([\w-]+)\}(?!\})")
"""A slot in a Rasa response, `{name}`: Parley writes `{{name}}`."""
INTENT_PAYLOAD = re.compile(r"^/([^{}\s]+)$")
"""A button payload that sends an intent and nothing else."""


@dataclass(frozen=True)
class Turn:
    intents: tuple[str, ...]
    """What the user said: one intent, the alternatives of an `or:`, or nothing (a
    text-only `user:` step or a break such as a checkpoint: the chain starts over)."""
    actions: tuple[str, ...]
    """The bot's answer, in order: responses, forms, custom actions."""
    place: str
    digression: bool = False
    """Said while a form was asking: a task switch, not the answer the intent has."""


@dataclass(frozen=True)
class Conversation:
    """A rule or story, as the turns Parley can use."""

    kind: str
    place: str
    turns: tuple[Turn, ...]
    conversation_start: bool = False


@dataclass
class _TurnsBuilder:
    """Collects a rule's or story's turns while its steps are read one by one."""

    forms: frozenset[str]
    turns: list[Turn] = field(default_factory=list)
    intents: tuple[str, ...] | None = None
    actions: list[str] = field(default_factory=list)
    place: str = ""
    asking_form: str | None = None
    started_during_form: bool = False

    def user(self, intents: tuple[str, ...], place: str) -> None:
        self.close()
        self.intents, self.place = intents, place
        self.started_during_form = self.asking_form is not None

    def close(self) -> None:
        if self.intents is not None:
            turn = Turn(self.intents, tuple(self.actions), self.place, self.started_during_form)
            self.turns.append(turn)
        self.intents, self.actions = None, []


def read_conversations(
    path: str,
    kind: str,
    items: Sequence[Any],
    forms: frozenset[str],
    unmapped: list[Unmapped],
) -> list[Conversation]:
    """The rules (kind "rules") or stories ("stories") of one file."""
    conversations = []
    for index, item in enumerate(items):
        place = f"{path}: {kind}[{index}]"
        if not isinstance(item, Mapping) or not isinstance(item.get("steps"), list):
            unmapped.append(Unmapped(place, kind[:-1], "no list of steps"))
            continue
        title = f"{kind[:-1]} '{item.get('rule') or item.get('story') or index}'"
        if item.get("condition") and {"active_loop": None} in item["steps"]:
            continue  # a form's end: read_form_ends reads what it says
        if item.get("condition"):
            unmapped.append(
                Unmapped(
                    place,
                    f"conditional {title}",
                    "it applies only when a form or slot is in a given state; Parley "
                    "interactions answer an intent alone",
                )
            )
            continue
        builder = _TurnsBuilder(forms)
        for step_index, step in enumerate(item["steps"]):
            read_step(builder, step, f"{place}.steps[{step_index}]", unmapped)
        builder.close()
        conversations.append(
            Conversation(kind, place, tuple(builder.turns), bool(item.get("conversation_start")))
        )
    return conversations


def read_form_ends(
    items: Sequence[Any], forms: frozenset[str], ends: dict[str, tuple[str, ...]]
) -> None:
    """What each form says once filled, into `ends` (the first found): the actions after
    its `active_loop: null` until the user speaks, in a submit rule (`condition:
    active_loop: f`) or a story."""
    for item in items:
        if not isinstance(item, Mapping) or not isinstance(item.get("steps"), list):
            continue
        condition = item.get("condition")
        conditions = condition if isinstance(condition, list) else []
        form = next(
            (
                str(c["active_loop"])
                for c in conditions
                if isinstance(c, Mapping) and c.get("active_loop") in forms
            ),
            None,
        )
        after: list[str] | None = None
        for step in item["steps"]:
            if not isinstance(step, Mapping) or "slot_was_set" in step:
                continue
            if after is not None and "action" in step:
                after.append(str(step["action"]))
            elif after is not None:
                break  # the user speaks, or the form starts again
            elif step.get("action") in forms or step.get("active_loop") in forms:
                form = str(step.get("action") or step.get("active_loop"))
            elif "active_loop" in step and step["active_loop"] is None and form is not None:
                after = []
        if form is not None and after:
            ends.setdefault(form, tuple(a for a in after if a != LISTEN))


def read_step(builder: _TurnsBuilder, step: Any, place: str, unmapped: list[Unmapped]) -> None:
    if not isinstance(step, Mapping):
        unmapped.append(Unmapped(place, "step", "not a mapping"))
    elif "intent" in step:
        builder.user((str(step["intent"]),), place)
        if step.get("entities"):
            unmapped.append(
                Unmapped(
                    place,
                    f"entities of intent '{step['intent']}'",
                    "a story's path does not depend on entity values in Parley",
                )
            )
    elif "or" in step:
        alternatives = step["or"] if isinstance(step["or"], list) else []
        intents = tuple(
            str(a["intent"]) for a in alternatives if isinstance(a, Mapping) and "intent" in a
        )
        if len(intents) < len(alternatives) or not intents:
            unmapped.append(Unmapped(place, "or: step", "only its intents are kept"))
        builder.user(intents, place)
    elif "action" in step:
        read_action(builder, str(step["action"]), place, unmapped)
    elif "active_loop" in step:
        form = step["active_loop"]
        if form is None:
            builder.asking_form = None  # the form's end: what follows is said (read_form_ends)
        elif builder.actions[-1:] == [form]:
            builder.asking_form = str(form)  # the echo of the form's own activation
        else:
            builder.asking_form = str(form)
            unmapped.append(
                Unmapped(
                    place,
                    f"active_loop: {form or 'null'}",
                    "what a form does once filled or switched is Rasa's policy, not a "
                    "Parley interaction",
                )
            )
    elif "user" in step:
        builder.user((), place)
        unmapped.append(Unmapped(place, "user text step", "stories are read by intent only"))
    elif "checkpoint" in step:
        builder.close()
        builder.turns.append(Turn((), (), place))
        unmapped.append(
            Unmapped(
                place,
                f"checkpoint '{step['checkpoint']}'",
                "stories are not joined; the turns after it start a new path",
            )
        )
    elif "slot_was_set" in step:
        unmapped.append(
            Unmapped(place, "slot_was_set", "Parley's answers do not depend on slot values")
        )
    else:
        unmapped.append(Unmapped(place, "step", f"unknown keys {sorted(step)}"))


def read_action(builder: _TurnsBuilder, action: str, place: str, unmapped: list[Unmapped]) -> None:
    if action == LISTEN:
        return
    if builder.intents is None:
        unmapped.append(
            Unmapped(
                place, f"action '{action}'", "the bot speaks before the user: no intent answers it"
            )
        )
        return
    builder.actions.append(action)
    if action in builder.forms or action.startswith("utter_"):
        return
    if action == DEFAULT_FALLBACK and builder.intents == (NLU_FALLBACK,):
        return  # the fallback interaction says utter_default
    unmapped.append(
        Unmapped(
            place,
            f"custom action '{action}'",
            "its code is not imported; a webhook on the interaction could do its work",
        )
    )


def with_slots(text: str) -> str:
    """Rasa's `{slot}` as Parley's `{{slot}}`."""
    return SLOT_IN_TEXT.sub(r"{{\1}}", text)


def response_blocks(
    name: str,
    variants: Any,
    goto_keys: Mapping[str, str],
    unmapped: list[Unmapped],
) -> list[dict[str, Any]]:
    """A Rasa response as Parley blocks: the texts of its variants as one text block
    (Parley picks one at random, as Rasa picks a variant), its image as an image block,
    its buttons as a button template (up to 3) or quick replies."""
    place = f"domain: responses.{name}"
    texts: list[str] = []
    images: list[str] = []
    buttoned: list[tuple[str, list[Any], str]] = []
    for index, variant in enumerate(variants if isinstance(variants, list) else []):
        variant_place = f"{place}[{index}]"
        if not isinstance(variant, Mapping):
            unmapped.append(Unmapped(variant_place, "response variant", "not a mapping"))
            continue
        skipped = [key for key in ("condition", "channel") if variant.get(key)]
        if skipped:
            unmapped.append(
                Unmapped(
                    variant_place,
                    f"{skipped[0]} variant",
                    "Parley's responses depend neither on slots nor on the channel",
                )
            )
            continue
        for key in ("custom", "attachment", "elements", "quick_replies"):
            if key in variant:
                unmapped.append(
                    Unmapped(variant_place, key, "a channel-specific payload Parley does not store")
                )
        text = with_slots(str(variant["text"])) if variant.get("text") is not None else ""
        if variant.get("image"):
            images.append(str(variant["image"]))
        if isinstance(variant.get("buttons"), list) and variant["buttons"]:
            buttoned.append((text, variant["buttons"], variant_place))
        elif text:
            texts.append(text)
    blocks = text_blocks(texts, place, unmapped)
    for image in images[:1]:
        if len(image) <= MAX_URL:
            blocks.append({"type": "image", "imageUrl": image})
    if len(images) > 1 or any(len(image) > MAX_URL for image in images[:1]):
        unmapped.append(
            Unmapped(place, "images", "one image per response, of at most 2048 characters")
        )
    for index, (text, buttons, button_place) in enumerate(buttoned):
        if index == 0:
            blocks.extend(button_blocks(text, buttons, button_place, goto_keys, unmapped))
        else:
            unmapped.append(
                Unmapped(
                    button_place, "buttons of a second variant", "one set of buttons per response"
                )
            )
    return blocks


def text_blocks(texts: list[str], place: str, unmapped: list[Unmapped]) -> list[dict[str, Any]]:
    kept = [text for text in texts if len(text) <= MAX_TEXT][:MAX_MESSAGES]
    if len(kept) < len(texts):
        unmapped.append(
            Unmapped(
                place,
                f"{len(texts) - len(kept)} text variants",
                f"a text block holds {MAX_MESSAGES} messages of at most {MAX_TEXT}",
            )
        )
    return [{"type": "text", "messages": kept}] if kept else []


def button_blocks(
    text: str,
    buttons: list[Any],
    place: str,
    goto_keys: Mapping[str, str],
    unmapped: list[Unmapped],
) -> list[dict[str, Any]]:
    """Up to 3 buttons: a button template titled with the text; more: quick replies,
    whose replies are the titles the user sends, titled with the text if it fits (else
    the text comes first, in a text block)."""
    parsed = [
        (str(b.get("title") or ""), str(b.get("payload") or ""))
        for b in buttons
        if isinstance(b, Mapping) and b.get("title")
    ]
    if len(parsed) < len(buttons):
        unmapped.append(Unmapped(place, "buttons without a title", "a button needs a title"))
    if any(len(title) > MAX_BUTTON_TITLE for title, _ in parsed):
        unmapped.append(
            Unmapped(
                place, "button titles", f"cut to {MAX_BUTTON_TITLE} characters, Parley's limit"
            )
        )
    if len(parsed) <= MAX_BUTTONS and len(text) <= MAX_TEMPLATE_TITLE:
        return [
            {
                "type": "buttonTemplate",
                "title": text or "Choose one",
                "buttons": [stored_button(title, payload, goto_keys) for title, payload in parsed],
            }
        ]
    fits_title = 0 < len(text) <= MAX_TITLE
    blocks = [] if fits_title or not text else text_blocks([text], place, unmapped)
    replies = [title[:MAX_BUTTON_TITLE] for title, _ in parsed]
    if len(replies) > MAX_REPLIES:
        unmapped.append(
            Unmapped(place, f"{len(replies) - MAX_REPLIES} buttons", "quick replies hold 11")
        )
    title = text if fits_title else "Choose one"
    blocks.append({"type": "quickReply", "title": title, "replies": replies[:MAX_REPLIES]})
    return blocks


def intent_buttons(variants: Any) -> list[tuple[str, str]]:
    """The (title, intent) of each button of a response whose payload sends an intent
    alone (`/affirm`)."""
    found = []
    for variant in variants if isinstance(variants, list) else []:
        buttons = variant.get("buttons") if isinstance(variant, Mapping) else None
        for button in buttons if isinstance(buttons, list) else []:
            if isinstance(button, Mapping) and button.get("title"):
                intent = INTENT_PAYLOAD.match(str(button.get("payload") or ""))
                if intent:
                    found.append((str(button["title"]), intent[1]))
    return found


def stored_button(title: str, payload: str, goto_keys: Mapping[str, str]) -> dict[str, str]:
    """A payload sending an intent alone (`/affirm`) jumps to its interaction, as Rasa
    takes it for that intent; any other (with entities, or text) sends the title, which
    the user could have said."""
    intent = INTENT_PAYLOAD.match(payload)
    if intent and intent[1] in goto_keys:
        return {"title": title[:MAX_BUTTON_TITLE], "goto": goto_keys[intent[1]]}
    return {"title": title[:MAX_BUTTON_TITLE], "postback": title}
