"""Edits made through the management services, as the API's handlers make them."""

from collections.abc import Sequence

from bot_api.interactions.service import InteractionService
from support.bodies import interaction_changes


async def set_phrases(
    interactions: InteractionService,
    account_id: str,
    story_id: str,
    interaction_id: str,
    user_says: Sequence[str],
) -> None:
    """The interaction's phrases become these (its other fields stay)."""
    await interactions.update(
        account_id=account_id,
        story_id=story_id,
        interaction_id=interaction_id,
        changes=interaction_changes({"userSays": list(user_says)}),
    )
