"""An interaction as a typed value, and the rules it obeys beyond the shape of its fields
(docs/api.md "Interactions").

The schemas check each field's shape and load the body into an `Interaction`; these
functions add what needs the whole interaction, or its previous version, to decide.
"""

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace

from bot_api.domain.errors import Clash, Invalid
from bot_api.domain.greetings import texts_for
from bot_api.domain.responses import Block, Handoff, QuickReplies, TextChoice

WELCOME = "welcome"
FALLBACK = "fallback"
STANDARD = "standard"
WELCOME_TRIGGER = "welcome"
MAX_PARAMETERS = 99
MAX_USER_SAYS = 99
MAX_TRIGGERS = 1024
MAX_NAME_LENGTH = 128

ENTITY_SLOT = re.compile(r"\{\{\s*((?:sys\.)?[\w-]+)\s*:\s*([\w-]+)\s*\}\}")
"""`{{entity:alias}}`; a built-in entity's name begins with `sys.` (domain/entities.py)."""


@dataclass(frozen=True)
class Parameter:
    alias: str
    entity: str
    prompts: tuple[str, ...] = ()
    prompt_replies: tuple[str, ...] = ()
    """Quick replies shown with each prompt (docs/query.md "Prompts"): a click sends the
    reply's text, which fills the parameter as any answer does."""

    @property
    def required(self) -> bool:
        """A parameter is required exactly when it has prompts to ask for it."""
        return bool(self.prompts)


@dataclass(frozen=True)
class Interaction:
    """An interaction as it is written, stored and read by the conversation engine; the
    fields a body omits on create are empty."""

    id: str
    kind: str
    name: str
    action: str = ""
    triggers: tuple[str, ...] = ()
    user_says: tuple[str, ...] = ()
    parameters: tuple[Parameter, ...] = ()
    responses: tuple[Block, ...] = ()
    webhook: str = ""

    def parameter(self, alias: str) -> Parameter:
        return next(p for p in self.parameters if p.alias == alias)


def default_interactions(language: str = "english") -> list[Interaction]:
    """The welcome and fallback interactions every new story starts with, answering
    greetings and speaking in the story's language (domain/greetings.py). Their ids are
    left empty for the caller to give."""
    texts = texts_for(language)
    return [
        Interaction(
            id="",
            kind=WELCOME,
            name="Welcome",
            action="welcome",
            triggers=(WELCOME_TRIGGER,),
            user_says=texts.greetings,
            responses=(TextChoice((texts.welcome,)),),
        ),
        Interaction(
            id="",
            kind=FALLBACK,
            name="Fallback",
            action="fallback",
            responses=(TextChoice(tuple(texts.fallback)),),
        ),
    ]


def entity_slots(phrase: str) -> list[tuple[str, str]]:
    """The (entity, alias) pairs a user-says phrase refers to, in order."""
    return ENTITY_SLOT.findall(phrase)


def prepare(interaction: Interaction, previous: Interaction | None = None) -> Interaction:
    """Apply rules 2 and 3 (docs/api.md) and check the whole-interaction rules; return
    what to store."""
    parameters = list(interaction.parameters)
    aliases = [p.alias for p in parameters]
    for index, alias in enumerate(aliases):
        if alias in aliases[:index]:
            raise Invalid.at(("parameters", index, "alias"), f"{alias!r} is used twice")

    user_says = list(interaction.user_says)
    if previous is not None:
        removed = {p.alias for p in previous.parameters} - set(aliases)
        stripped = (strip_slots(phrase, removed) for phrase in user_says)
        user_says = [phrase for phrase in stripped if phrase]  # a slot alone leaves nothing

    entity_of = {p.alias: p.entity for p in parameters}
    for index, phrase in enumerate(user_says):
        for entity, alias in entity_slots(phrase):
            if max(len(entity), len(alias)) > MAX_NAME_LENGTH:
                raise Invalid.at(
                    ("userSays", index),
                    f"an entity or alias in {{{{entity:alias}}}} is longer than {MAX_NAME_LENGTH}",
                )
            bound = entity_of.setdefault(alias, entity)
            if bound == entity and alias not in aliases:
                parameters.append(Parameter(alias, entity))
                aliases.append(alias)
            elif bound != entity:
                raise Invalid.at(
                    ("userSays", index),
                    f"parameter {alias!r} is bound to entity {bound!r}, not {entity!r}",
                )
    if len(parameters) > MAX_PARAMETERS:
        raise Invalid.at(
            ("parameters",),
            f"{len(parameters)} with those used in userSays; at most {MAX_PARAMETERS}",
        )

    quick_replies = [
        i for i, block in enumerate(interaction.responses) if isinstance(block, QuickReplies)
    ]
    if len(quick_replies) > 1:
        raise Invalid.at(
            ("responses", quick_replies[1]), "an interaction has at most one quickReply block"
        )
    handoffs = [i for i, block in enumerate(interaction.responses) if isinstance(block, Handoff)]
    if len(handoffs) > 1:
        raise Invalid.at(("responses", handoffs[1]), "an interaction has at most one handoff block")
    return replace(
        interaction,
        user_says=tuple(user_says),
        parameters=tuple(parameters),
        triggers=_checked_triggers(list(interaction.triggers), interaction.kind),
    )


def strip_slots(phrase: str, aliases: set[str]) -> str:
    """Remove the slots of the given aliases from a phrase (rule 3)."""
    if not aliases:
        return phrase
    stripped = ENTITY_SLOT.sub(
        lambda match: "" if match.group(2) in aliases else match.group(0), phrase
    )
    return " ".join(stripped.split())


def _checked_triggers(triggers: list[str], kind: str) -> tuple[str, ...]:
    """Triggers are case-insensitive; the welcome interaction always keeps `welcome`."""
    seen: set[str] = set()
    for index, trigger in enumerate(triggers):
        folded = trigger.lower()
        if folded in seen:
            raise Invalid.at(("triggers", index), f"{trigger!r} is listed twice")
        if folded == WELCOME_TRIGGER and kind != WELCOME:
            raise Invalid.at(
                ("triggers", index), f"{trigger!r} is reserved for the welcome interaction"
            )
        seen.add(folded)
    if kind == WELCOME and WELCOME_TRIGGER not in seen:
        triggers.insert(0, WELCOME_TRIGGER)
    if len(triggers) > MAX_TRIGGERS:
        raise Invalid.at(
            ("triggers",), f"at most {MAX_TRIGGERS}, the welcome interaction's 'welcome' included"
        )
    return tuple(triggers)


def referenced_entities(interaction: Interaction) -> set[str]:
    return {p.entity for p in interaction.parameters}


def check_unique_triggers(
    interaction_id: str | None,
    triggers: Iterable[str],
    triggers_of_others: Mapping[str, Iterable[str]],
) -> None:
    """A trigger starts exactly one interaction of a story."""
    wanted = {t.lower() for t in triggers}
    for other_id, other_triggers in triggers_of_others.items():
        if other_id == interaction_id:
            continue
        clash = wanted & {t.lower() for t in other_triggers}
        if clash:
            raise Clash(f"trigger {sorted(clash)[0]!r} is already used by interaction {other_id}")


def handoff_block(responses: tuple[Block, ...]) -> tuple[int, Handoff] | None:
    """The handoff block among `responses` and its place, or None."""
    return next(
        ((i, block) for i, block in enumerate(responses) if isinstance(block, Handoff)), None
    )


def handoff_connection(interaction: Interaction) -> str:
    """The id of the connection the interaction hands over to; "" without a handoff."""
    handoff = handoff_block(interaction.responses)
    return "" if handoff is None else handoff[1].connection
