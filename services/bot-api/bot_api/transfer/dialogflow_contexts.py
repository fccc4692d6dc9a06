"""Dialogflow ES input and output contexts as a story's tree of interactions.

Part of the Dialogflow ES translator (transfer/dialogflow.py; the mapping:
docs/import-export.md "Dialogflow ES"). An intent that needs input contexts can follow
the intents that set all of them: the first of those owns it (its follow-up parent
first, when it has one) and the others refer to it, so it is asked after any of them,
as in Dialogflow. What forms no tree is reported.
"""

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from bot_api.domain.interactions import STANDARD
from bot_api.domain.settings import Settings
from bot_api.transfer.limits import MAX_CONTEXT_LIST
from bot_api.transfer.report import Unmapped

STORY_LIFESPAN = Settings().lifespan
"""The turns every context of an imported story lasts."""


@dataclass
class IntentNode:
    """An intent's place in the tree, and its interaction to complete with it."""

    path: str
    intent_id: str
    parent_id: str
    needs: tuple[str, ...]
    """Input contexts, lower case (Dialogflow reads context names without case)."""
    sets: dict[str, int]
    """Output contexts and their lifespans, lower case; a lifespan 0 clears the context."""
    interaction: dict[str, Any]
    owner: "IntentNode | None" = None
    followers: list["IntentNode"] = field(default_factory=list)
    """Interactions listed in this one's contextOut: owned ones, then referred ones."""
    referred: list["IntentNode"] = field(default_factory=list)

    @property
    def key(self) -> str:
        return str(self.interaction["key"])

    def descends_from(self, other: "IntentNode") -> bool:
        node: IntentNode | None = self
        while node is not None:
            if node is other:
                return True
            node = node.owner
        return False


def link(nodes: Sequence[IntentNode], unmapped: list[Unmapped]) -> list[dict[str, Any]]:
    """Set `root`, `contextOut` and `references` of every interaction; return them in
    tree order (each root, then what it owns), as export writes a story."""
    by_id = {node.intent_id: node for node in nodes if node.intent_id}
    for node in nodes:
        parent = by_id.get(node.parent_id)
        if node.parent_id and parent is None:
            unmapped.append(
                Unmapped(f"{node.path}: parentId", "follow-up of a missing intent", "a root")
            )
        leaders = [parent] if parent else []
        leaders += [other for other in nodes if other is not parent and _follows(node, other)]
        _place(node, leaders, unmapped)
    _report_contexts(nodes, unmapped)
    for node in nodes:
        node.interaction["root"] = node.owner is None
        node.interaction["contextOut"] = [follower.key for follower in node.followers]
        node.interaction["references"] = [follower.key for follower in node.referred]
    return [node.interaction for node in _tree_order(nodes)]


def _follows(node: IntentNode, other: IntentNode) -> bool:
    return bool(node.needs) and all(other.sets.get(context, 0) > 0 for context in node.needs)


def _place(node: IntentNode, leaders: list[IntentNode], unmapped: list[Unmapped]) -> None:
    """The first leader that can own the node owns it; the others refer to it."""
    if node.needs and not leaders:
        unmapped.append(
            Unmapped(
                f"{node.path}: contexts",
                f"input contexts {', '.join(node.needs)}",
                "set by no intent (a webhook may set them): a root interaction, asked anywhere",
            )
        )
    permanent = node.interaction["type"] != STANDARD
    if permanent and leaders:
        unmapped.append(
            Unmapped(
                f"{node.path}: contexts",
                f"input contexts of the {node.interaction['type']}",
                "the welcome and the fallback are root interactions",
            )
        )
    for leader in leaders:
        if len(leader.followers) >= MAX_CONTEXT_LIST:
            unmapped.append(
                Unmapped(
                    f"{leader.path}: responses[0].affectedContexts",
                    f"followed by {node.interaction['name']!r}",
                    f"an interaction is followed by at most {MAX_CONTEXT_LIST}",
                )
            )
            continue
        leader.followers.append(node)
        if permanent or node.owner or leader is node or leader.descends_from(node):
            leader.referred.append(node)
        else:
            node.owner = leader


def _report_contexts(nodes: Sequence[IntentNode], unmapped: list[Unmapped]) -> None:
    """Output contexts that lead nowhere, clear a context, or last another number of
    turns than a story's contexts do."""
    needed = {context for node in nodes for context in node.needs}
    for node in nodes:
        place = f"{node.path}: responses[0].affectedContexts"
        for context, lifespan in node.sets.items():
            if lifespan <= 0:
                unmapped.append(
                    Unmapped(place, f"context {context!r} cleared", "a story's contexts end alone")
                )
            elif context not in needed:
                unmapped.append(
                    Unmapped(
                        place,
                        f"context {context!r}",
                        "no intent needs it (a webhook may read it): nothing follows from it",
                    )
                )
            elif lifespan != STORY_LIFESPAN:
                unmapped.append(
                    Unmapped(
                        place,
                        f"lifespan {lifespan} of context {context!r}",
                        f"a story's contexts all last its lifespan setting ({STORY_LIFESPAN})",
                    )
                )


def _tree_order(nodes: Sequence[IntentNode]) -> list[IntentNode]:
    ordered: list[IntentNode] = []
    pending = [node for node in reversed(nodes) if node.owner is None]
    while pending:
        node = pending.pop()
        ordered.append(node)
        pending += [f for f in reversed(node.followers) if f.owner is node]
    return ordered
