"""Request bodies as the API gives them, loaded by its schemas into the values the
management services take: what a handler passes them."""

from typing import Any

from bot_api.domain.entities import Entity
from bot_api.domain.interactions import Interaction
from bot_api.entities.schemas import EntityWriteSchema
from bot_api.interactions.schemas import InteractionUpdateSchema, InteractionWriteSchema


def new_interaction(body: dict[str, Any]) -> Interaction:
    """A create's body (omitted fields empty)."""
    loaded: Interaction = InteractionWriteSchema().load(body)
    return loaded


def interaction_changes(body: dict[str, Any]) -> dict[str, Any]:
    """An update's body: the fields it gives, by their names in `Interaction`."""
    loaded: dict[str, Any] = InteractionUpdateSchema().load(body)
    return loaded


def entity(body: dict[str, Any]) -> Entity:
    loaded: Entity = EntityWriteSchema().load(body)
    return loaded
