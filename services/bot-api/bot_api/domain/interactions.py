"""An interaction as a typed value, and the rules it obeys beyond the shape of its fields
(docs/api.md "Interactions").

The schemas check each field's shape and load the body into an `Interaction`; these
functions add what needs the whole interaction, or its previous version, to decide.
"""

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace

from bot_api.domain.errors import Clash, Invalid, Path
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
class Translation:
    """An interaction in one further language of its story (docs/languages.md): what it
    leaves empty is said as in the story's default language."""

    user_says: tuple[str, ...] = ()
    responses: tuple[Block, ...] = ()
    prompts: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """Parameter alias -> its prompts in this language."""


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
    translations: Mapping[str, Translation] = field(default_factory=dict)
    """A further language's ISO 639-1 code (domain/settings.py `LANGUAGE_TAGS`) -> this
    interaction said in it."""

    def parameter(self, alias: str) -> Parameter:
        return next(p for p in self.parameters if p.alias == alias)

    @property
    def phrase_count(self) -> int:
        """Its phrases in every language: what the phrase quota counts, as each is read
        into a match index."""
        return len(self.user_says) + sum(len(t.user_says) for t in self.translations.values())

    def phrases_in(self, language: str) -> tuple[str, ...]:
        """The user-says phrases of `language`, or the default language's where it has
        none."""
        translation = self.translations.get(language)
        return translation.user_says if translation and translation.user_says else self.user_says

    def responses_in(self, language: str) -> tuple[Block, ...]:
        """The responses in `language`, or the default language's where it has none."""
        translation = self.translations.get(language)
        return translation.responses if translation and translation.responses else self.responses

    def prompts_in(self, alias: str, language: str) -> tuple[str, ...]:
        """A parameter's prompts in `language`, or the default language's."""
        translation = self.translations.get(language)
        own = translation.prompts.get(alias, ()) if translation else ()
        return own or self.parameter(alias).prompts


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
    translations = dict(interaction.translations)
    if previous is not None:
        removed = {p.alias for p in previous.parameters} - set(aliases)
        user_says = _stripped(user_says, removed)
        translations = {
            language: replace(t, user_says=tuple(_stripped(t.user_says, removed)))
            for language, t in translations.items()
        }

    entity_of = {p.alias: p.entity for p in parameters}
    said: list[tuple[Path, str]] = [
        (("userSays", index), phrase) for index, phrase in enumerate(user_says)
    ]
    for language, translation in translations.items():
        said += [
            (("translations", language, "userSays", index), phrase)
            for index, phrase in enumerate(translation.user_says)
        ]
    for where, phrase in said:
        for entity, alias in entity_slots(phrase):
            if max(len(entity), len(alias)) > MAX_NAME_LENGTH:
                raise Invalid.at(
                    where,
                    f"an entity or alias in {{{{entity:alias}}}} is longer than {MAX_NAME_LENGTH}",
                )
            bound = entity_of.setdefault(alias, entity)
            if bound == entity and alias not in aliases:
                parameters.append(Parameter(alias, entity))
                aliases.append(alias)
            elif bound != entity:
                raise Invalid.at(
                    where,
                    f"parameter {alias!r} is bound to entity {bound!r}, not {entity!r}",
                )
    if len(parameters) > MAX_PARAMETERS:
        raise Invalid.at(
            ("parameters",),
            f"{len(parameters)} with those used in userSays; at most {MAX_PARAMETERS}",
        )

    _check_blocks(("responses",), interaction.responses)
    for language, translation in interaction.translations.items():
        _check_blocks(("translations", language, "responses"), translation.responses)
        for alias in translation.prompts:
            if alias not in aliases:
                raise Invalid.at(
                    ("translations", language, "parameters"),
                    f"no parameter {alias!r} to prompt for",
                )
    return replace(
        interaction,
        user_says=tuple(user_says),
        translations=translations,
        parameters=tuple(parameters),
        triggers=_checked_triggers(list(interaction.triggers), interaction.kind),
    )


def _check_blocks(where: tuple[str, ...], responses: tuple[Block, ...]) -> None:
    """At most one quick-reply block and one handoff block."""
    quick_replies = [i for i, block in enumerate(responses) if isinstance(block, QuickReplies)]
    if len(quick_replies) > 1:
        raise Invalid.at(
            (*where, quick_replies[1]), "an interaction has at most one quickReply block"
        )
    handoffs = [i for i, block in enumerate(responses) if isinstance(block, Handoff)]
    if len(handoffs) > 1:
        raise Invalid.at((*where, handoffs[1]), "an interaction has at most one handoff block")


def _stripped(phrases: Iterable[str], aliases: set[str]) -> list[str]:
    """The phrases without the slots of `aliases`; a slot alone leaves nothing."""
    return [phrase for phrase in (strip_slots(p, aliases) for p in phrases) if phrase]


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
