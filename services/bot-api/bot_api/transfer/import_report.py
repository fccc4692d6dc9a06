"""The interactions an import makes that would answer nothing of their own, grouped by
why: an intent a Dialogflow webhook or Rasa custom code answered comes with no response,
and a report lists these first (docs/import-export.md "The report")."""

from collections.abc import Mapping
from dataclasses import dataclass

from bot_api.domain.interactions import Interaction
from bot_api.transfer.report import ReasonGroup, by_reason

NO_RESPONSE_IN_SOURCE = {
    "dialogflow": "the intent has no message in the agent's language: a webhook, not "
    "imported, answered it, or nothing did",
    "rasa": "no rule or story answers the intent with a response: custom code (an action), "
    "not imported, answered it, or nothing did",
    "parley": "the document gives it no response",
}


@dataclass(frozen=True)
class Silent:
    by_reason: list[ReasonGroup[dict[str, str]]]
    """Each group's rows: the interactions' `key` and `name`."""

    @property
    def count(self) -> int:
        return sum(group.count for group in self.by_reason)


def silent_interactions(
    source: str,
    interactions: Mapping[str, Interaction],
    keys: Mapping[str, str],
    connections: Mapping[str, str],
    handoffs: Mapping[str, str],
) -> Silent:
    """Those with no response and no webhook URL (a webhook's answer is its own), by id;
    one awaiting a connection answers once the story has it."""
    silent = []
    for interaction_id, interaction in interactions.items():
        if interaction.responses or interaction.webhook:
            continue
        if interaction_id in connections:
            reason = (
                f"its webhook connection {connections[interaction_id]!r} is to answer: "
                "the story has none of that name yet"
            )
        elif interaction_id in handoffs:
            reason = (
                f"it hands over to connection {handoffs[interaction_id]!r}: the story has "
                "none of that name yet"
            )
        else:
            reason = NO_RESPONSE_IN_SOURCE.get(source, NO_RESPONSE_IN_SOURCE["parley"])
        row = {"key": keys.get(interaction_id, interaction.kind), "name": interaction.name}
        silent.append((row, reason))
    groups = by_reason(silent, lambda item: item[1])
    return Silent([ReasonGroup(g.reason, tuple(row for row, _ in g.rows)) for g in groups])
