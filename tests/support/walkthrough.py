"""The README's walk-through story, built through the API."""

from support.api import Api


async def pizza_story(api: Api) -> str:
    """The README's walk-through story, less its connection."""
    story_id = await api.create_story("Pizza", description="Takes orders")
    if (await api.get("/entities")).body == []:
        await api.ok(
            "POST",
            "/entities",
            {
                "name": "size",
                "entries": [
                    {"value": "large", "synonyms": [{"value": "large"}, {"value": "big"}]},
                    {"value": "small", "synonyms": [{"value": "small"}, {"value": "little"}]},
                ],
            },
        )
    order = await api.create_interaction(
        story_id,
        "Order",
        action="order",
        userSays=["I want a {{size:size}} pizza", "a pizza please"],
        parameters=[{"alias": "size", "entity": "size", "prompts": ["Which size?"]}],
        responses=[
            {"type": "text", "messages": ["One {{size}} pizza coming up!"]},
            {"type": "quickReply", "title": "Anything else?", "replies": ["Drinks", "No"]},
        ],
    )
    await api.create_interaction(
        story_id,
        "Drinks",
        parent=order,
        userSays=["drinks", "something to drink"],
        responses=[{"type": "text", "messages": ["Cola or water?"]}],
    )
    return story_id
