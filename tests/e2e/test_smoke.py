from support.api import Api


async def test_a_new_story_lists_its_welcome_and_fallback(api: Api) -> None:
    story_id = await api.create_story("Pizza")
    story = await api.story(story_id)
    names = [story["interactions"][i]["name"] for i in story["order"]]
    assert names == ["Welcome", "Fallback"]
