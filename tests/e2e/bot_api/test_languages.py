# ruff: noqa: RUF001 (Chinese punctuation is meant)
"""Story languages over HTTP: a Chinese story understands a message phrased otherwise."""

from typing import Any

from support.api import Api, Tenant


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
    story_id = await api.create_story("航班", settings={"language": "chinese"})
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
