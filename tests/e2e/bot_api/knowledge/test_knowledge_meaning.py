"""Knowledge answers by meaning over HTTP, with the real multilingual-e5-small model
(docs/knowledge.md "Answers by meaning"): an upload answers lexically at once while its passages'
vectors are computed in the background (`vectorsPending` counts down to 0), then a
paraphrase sharing no word with the document is answered by meaning, and a German
question of an English story answering any language is answered from its English
passage; without the semantic stage nothing waits."""

import dataclasses
from typing import Any

import pytest

from shared.config import Config
from support.api import Api
from support.waiting import eventually

VECTORS_SECONDS = 120.0
"""The shop guide's few passages take about a second to encode; the machine may be busy."""
SHOP = """# Opening hours

The shop on Main Street opens at nine in the morning and closes at six in the evening.
On Sundays it stays closed all day.

## Returns

Goods bought in the shop may be returned within thirty days with their receipt. A refund is
paid to the card the goods were bought with.

## Delivery

Parcels are delivered by courier within two working days. Delivery is free for orders
above fifty euros.
"""


@pytest.fixture
def config(config: Config) -> Config:
    return dataclasses.replace(config, semantic_matching=True)


async def ask(api: Api, story_id: str, query: str) -> dict[str, Any]:
    body = {"sessionId": f"s-{len(query)}", "storyId": story_id, "query": query, "debug": True}
    return dict((await api.ok("POST", "/query", body))["result"])


async def upload(api: Api, story_id: str) -> str:
    reply = await api.send_raw(
        f"/stories/{story_id}/knowledge?title=Shop guide", SHOP.encode(), "text/markdown"
    )
    assert reply.status == 200, reply.body
    return str(reply.body["id"])


async def vectors_landed(api: Api, story_id: str, document_id: str) -> None:
    async def landed() -> bool:
        read = await api.ok("GET", f"/stories/{story_id}/knowledge/{document_id}")
        return bool(read["vectorsPending"] == 0)

    await eventually(landed, VECTORS_SECONDS)


async def test_an_upload_answers_lexically_then_by_meaning(api: Api) -> None:
    story_id = await api.create_story("Shop")
    document_id = await upload(api, story_id)
    read = await api.ok("GET", f"/stories/{story_id}/knowledge/{document_id}")
    assert read["passages"] >= 1 and 0 <= read["vectorsPending"] <= read["passages"]
    lexical = await ask(api, story_id, "how many days do I have to return goods?")
    assert "thirty days" in lexical["knowledge"]["answer"]
    await vectors_landed(api, story_id, document_id)
    result = await ask(api, story_id, "can I bring back something I purchased?")
    knowledge = result["knowledge"]
    assert "thirty days" in knowledge["passage"]
    weighed = result["debug"]["knowledge"]["passages"]
    assert weighed[0]["lexical"] == 0 and weighed[0]["meaning"] > 0


async def test_a_german_question_of_an_english_story_answering_any_language(api: Api) -> None:
    story_id = await api.create_story(
        "Shop", settings={"language": "english", "answerAnyLanguage": True}
    )
    document_id = await upload(api, story_id)
    await vectors_landed(api, story_id, document_id)
    result = await ask(api, story_id, "Wie lange dauert die Lieferung eines Pakets?")
    assert "two working days" in result["knowledge"]["answer"]


async def test_a_replaced_document_waits_for_its_new_passages_only(api: Api) -> None:
    story_id = await api.create_story("Shop")
    document_id = await upload(api, story_id)
    replaced = {"title": "Hours", "text": "The shop opens at nine in the morning."}
    await api.ok("PUT", f"/stories/{story_id}/knowledge/{document_id}", replaced)
    read = await api.ok("GET", f"/stories/{story_id}/knowledge/{document_id}")
    assert read["passages"] == 1 and read["vectorsPending"] in (0, 1)
    await vectors_landed(api, story_id, document_id)
    result = await ask(api, story_id, "when does the shop open")
    weighed = result["debug"]["knowledge"]["passages"]
    assert [p["text"] for p in weighed] == ["The shop opens at nine in the morning."]
    assert weighed[0]["meaning"] is not None
