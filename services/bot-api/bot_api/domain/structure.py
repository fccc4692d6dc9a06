"""How a story's interactions hang together: roots, owned children, references.

Contexts (docs/api.md "Contexts"): `contextOut` of X lists what may follow X; the part
of it not in `references` is owned by X. Every interaction is either a root (listed
in `order`) or owned by exactly one other, so ownership forms a forest and the tree
view has no cycles. Every change returns a new, checked `Structure` (an add checks only
what it can break); the caller stores it in one write.
"""

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from bot_api.domain.errors import Invalid, Unknown

MAX_CONTEXT_LIST = 50


@dataclass(frozen=True)
class Context:
    root: bool
    context_out: tuple[str, ...] = ()
    references: tuple[str, ...] = ()

    @property
    def owned(self) -> tuple[str, ...]:
        referenced = set(self.references)
        return tuple(child for child in self.context_out if child not in referenced)


@dataclass(frozen=True)
class ContextChange:
    id: str
    root: bool
    context_out: tuple[str, ...]
    references: tuple[str, ...]


@dataclass(frozen=True)
class Structure:
    order: tuple[str, ...] = ()
    contexts: Mapping[str, Context] = field(default_factory=dict)
    permanent: frozenset[str] = frozenset()

    @classmethod
    def for_new_story(cls, permanent_ids: Iterable[str]) -> "Structure":
        """A story holding only its permanent (welcome and fallback) root interactions."""
        ids = tuple(permanent_ids)
        return cls(ids, {i: Context(root=True) for i in ids}, frozenset(ids)).checked()

    def __contains__(self, interaction_id: object) -> bool:
        return interaction_id in self.contexts

    def owners(self) -> dict[str, str]:
        return {child: owner for owner, context in self.contexts.items() for child in context.owned}

    def add_root(self, interaction_id: str) -> "Structure":
        self._refuse_listed(interaction_id)
        contexts = {**self.contexts, interaction_id: Context(root=True)}
        return replace(self, order=(*self.order, interaction_id), contexts=contexts)

    def add_child(self, parent_id: str, interaction_id: str) -> "Structure":
        parent = self.contexts.get(parent_id)
        if parent is None:
            raise Unknown(f"no interaction {parent_id} in this story")
        self._refuse_listed(interaction_id)
        if len(parent.context_out) >= MAX_CONTEXT_LIST:
            raise Invalid.at(
                (parent_id, "contextOut"), f"more than {MAX_CONTEXT_LIST} interactions"
            )
        contexts = {
            **self.contexts,
            parent_id: replace(parent, context_out=(*parent.context_out, interaction_id)),
            interaction_id: Context(root=False),
        }
        return replace(self, contexts=contexts)

    def _refuse_listed(self, interaction_id: str) -> None:
        """A new interaction, added as a root or as the child its parent owns, keeps every
        invariant of a checked structure but the length of its parent's list: the adds
        check only that, so their cost does not grow with the story."""
        if interaction_id in self.contexts:
            raise Invalid.at((interaction_id,), "is an interaction of this story already")

    def apply(self, changes: Iterable[ContextChange]) -> "Structure":
        contexts = dict(self.contexts)
        seen: set[str] = set()
        for index, change in enumerate(changes):
            if change.id not in contexts:
                raise Unknown(f"[{index}].id: no interaction {change.id} in this story")
            if change.id in seen:
                raise Invalid.at((index, "id"), f"{change.id} is listed twice")
            seen.add(change.id)
            contexts[change.id] = Context(change.root, change.context_out, change.references)
        kept_roots = [i for i in self.order if contexts[i].root]
        new_roots = [i for i in contexts if contexts[i].root and i not in self.order]
        return replace(self, order=(*kept_roots, *new_roots), contexts=contexts).checked()

    def reorder(self, order: Iterable[str]) -> "Structure":
        return replace(self, order=tuple(order)).checked()

    def walk(self) -> list[str]:
        """Every interaction once, roots in order, each followed by what it owns."""
        visited: list[str] = []
        pending = list(reversed(self.order))
        while pending:
            interaction_id = pending.pop()
            visited.append(interaction_id)
            pending.extend(reversed(self.contexts[interaction_id].owned))
        return visited

    def subtree(self, interaction_id: str) -> set[str]:
        found = {interaction_id}
        pending = [interaction_id]
        while pending:
            for child in self.contexts[pending.pop()].owned:
                if child not in found:
                    found.add(child)
                    pending.append(child)
        return found

    def remove(self, interaction_ids: Iterable[str]) -> tuple["Structure", set[str]]:
        """Remove the interactions with every subtree they own; also return all removed ids."""
        requested = list(interaction_ids)
        unknown = [i for i in requested if i not in self.contexts]
        if unknown:
            raise Unknown(f"no interaction {', '.join(unknown)} in this story")
        permanent = [i for i in requested if i in self.permanent]
        if permanent:
            raise Invalid.at(
                (requested.index(permanent[0]),),
                f"the welcome and fallback interactions cannot be deleted: {', '.join(permanent)}",
            )
        removed: set[str] = set()
        for interaction_id in requested:
            removed |= self.subtree(interaction_id)
        contexts = {
            i: replace(
                c,
                context_out=tuple(x for x in c.context_out if x not in removed),
                references=tuple(x for x in c.references if x not in removed),
            )
            for i, c in self.contexts.items()
            if i not in removed
        }
        order = tuple(i for i in self.order if i not in removed)
        return replace(self, order=order, contexts=contexts).checked(), removed

    def tree(self) -> list[dict[str, Any]]:
        def children(interaction_id: str) -> list[dict[str, Any]]:
            context = self.contexts[interaction_id]
            referenced = set(context.references)
            return [
                {"id": child, "ref": True, "childrens": []}
                if child in referenced
                else {"id": child, "ref": False, "childrens": children(child)}
                for child in context.context_out
            ]

        return [{"id": root, "childrens": children(root)} for root in self.order]

    def checked(self) -> "Structure":
        """This structure, if every invariant of the module docstring holds."""
        contexts = self.contexts
        for interaction_id, context in contexts.items():
            for name, ids in (
                ("contextOut", context.context_out),
                ("references", context.references),
            ):
                if len(ids) > MAX_CONTEXT_LIST:
                    raise Invalid.at(
                        (interaction_id, name), f"more than {MAX_CONTEXT_LIST} interactions"
                    )
                if len(set(ids)) != len(ids):
                    raise Invalid.at((interaction_id, name), "an id is listed twice")
                unknown = [i for i in ids if i not in contexts]
                if unknown:
                    raise Invalid.at(
                        (interaction_id, name),
                        f"{', '.join(unknown)} is not an interaction of this story",
                    )
            stray = set(context.references) - set(context.context_out)
            if stray:
                raise Invalid.at(
                    (interaction_id, "references"),
                    f"{', '.join(sorted(stray))} must also be in contextOut",
                )
        owners: dict[str, str] = {}
        for owner, context in contexts.items():
            for child in context.owned:
                if child in owners:
                    raise Invalid.at(
                        (owner, "contextOut"),
                        f"{child} is owned by {owners[child]} already; list it in references",
                    )
                if contexts[child].root:
                    raise Invalid.at(
                        (owner, "contextOut"),
                        f"{child} is a root interaction; list it in references",
                    )
                owners[child] = owner
        for interaction_id in self.permanent:
            if not contexts[interaction_id].root:
                raise Invalid.at(
                    (interaction_id, "root"), "the welcome and fallback interactions stay root"
                )
        for interaction_id, context in contexts.items():
            if not context.root and interaction_id not in owners:
                raise Invalid.at(
                    (interaction_id, "root"),
                    "neither root nor in any contextOut: it would be unreachable",
                )
        for interaction_id in contexts:
            seen = {interaction_id}
            current = interaction_id
            while current in owners:
                current = owners[current]
                if current in seen:
                    raise Invalid.at((interaction_id, "contextOut"), "ownership forms a cycle")
                seen.add(current)
        roots = [i for i, c in contexts.items() if c.root]
        if sorted(self.order) != sorted(roots):
            raise Invalid.at(("order",), "must list every root interaction exactly once")
        return self
