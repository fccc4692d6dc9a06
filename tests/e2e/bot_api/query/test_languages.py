# ruff: noqa: RUF001 (Chinese punctuation is meant)
"""Story languages over HTTP: given by name or ISO 639-1 code, read back by name, and a
Chinese story that understands a message phrased otherwise."""

from typing import Any

from support.api import Api, Tenant


async def test_a_language_given_by_its_code_is_read_back_by_name(api: Api) -> None:
    for given, named in (("de", "german"), ("pt-BR", "portuguese"), ("zh-CN", "chinese")):
        story_id = await api.create_story("Shop", settings={"language": given})
        assert (await api.story(story_id))["settings"]["language"] == named
    await api.ok(
        "PUT",
        f"/stories/{story_id}",
        {"name": "Shop", "description": "", "settings": {"language": "ja"}},
    )
    assert (await api.story(story_id))["settings"]["language"] == "japanese"


async def test_an_unknown_language_code_is_refused_saying_how_to_name_one(api: Api) -> None:
    for language in ("xx", "klingon", "german-DE"):
        reply = await api.post(
            "/stories", {"name": "x", "description": "", "settings": {"language": language}}
        )
        assert reply.error == (400, "validation_error"), language
        errors = str(reply.body["status"]["errors"])
        assert "ISO 639-1" in errors and "german" in errors, errors
    assert await api.ok("GET", "/stories") == []


async def ask(api: Api, story_id: str, query: str) -> dict[str, Any]:
    reply = await api.post("/query", {"sessionId": query, "storyId": story_id, "query": query})
    assert reply.status == 200, reply.body
    return dict(reply.body["result"])


async def test_a_chinese_story_matches_a_message_phrased_otherwise(alice: Tenant) -> None:
    api = alice.developer
    await api.ok(
        "POST",
        "/entities",
        {
            "name": "city",
            "entries": [{"value": c, "synonyms": [{"value": c}]} for c in ("北京", "上海")],
        },
    )
    story_id = await api.create_story("航班", settings={"language": "zh-CN"})
    await api.create_interaction(
        story_id,
        "Book",
        userSays=["我想订一张去{{city:to}}的机票", "帮我买机票"],
        parameters=[{"alias": "to", "entity": "city"}],
        responses=[{"type": "text", "messages": ["好的，去{{to}}。"]}],
    )
    await api.create_interaction(story_id, "Weather", userSays=["明天天气怎么样", "今天会下雨吗"])
    booked = await ask(alice.public, story_id, "请帮我预订去上海的机票")
    assert booked["interaction"]["name"] == "Book"
    assert booked["parameters"]["to"] == "上海"
    assert booked["fulfillment"][0]["message"] == "好的，去上海。"
    rain = await ask(alice.public, story_id, "上海明天会下雨吗？")
    assert rain["interaction"]["name"] == "Weather"
    welcome = await ask(alice.public, story_id, "你好")
    assert welcome["interaction"]["type"] == "welcome"
