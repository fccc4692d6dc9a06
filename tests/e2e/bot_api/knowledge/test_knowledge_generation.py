"""Generated knowledge answers through /query (docs/knowledge-generation.md), against a
stand-in of an OpenAI-compatible `/v1/chat/completions`: an answer the LLM wrote citing
the passages it was given replaces the extractive one; any other answer, an error or a
timeout sends the extractive answer; the question leaves redacted; a story with the
setting off, an FAQ answer and a deployment with no LLM never ask it."""

import dataclasses
import json
import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import pytest
from aiohttp.test_utils import TestClient
from e2e.bot_api.versions.test_versions import freeze, publish

from bot_api.app import create_app
from bot_api.history.keys import RECORDER
from shared.auth import AccountRepository
from shared.config import Config
from support.api import Api, Tenant
from support.llm_standin import KEY, MODEL, LlmStandIn, served
from support.metrics import sample
from tools.embedded import free_port

SHOP = """# Opening hours

The shop on Main Street opens at nine in the morning and closes at six in the evening.
On Sundays it stays closed all day, and on public holidays it opens for half a day.

## Returns

Goods bought in the shop may be returned within thirty days with their receipt. A refund is
paid to the card the goods were bought with.

## Exchanges

Goods may be exchanged for others within sixty days, receipt or not, on any day the shop
opens.
"""
QUESTION = "how many days do I have to return goods?"
GENERATING = {"generateKnowledgeAnswers": True}


@dataclass
class Shop:
    client: TestClient
    api: Api
    public: Api
    story_id: str
    """A story generating its knowledge answers."""
    extractive_id: str
    """The same document, in a story that does not."""


async def upload(api: Api, story_id: str, text: str = SHOP) -> str:
    path = f"/stories/{story_id}/knowledge?title=Shop guide"
    reply = await api.send_raw(path, text.encode(), "text/markdown")
    assert reply.status == 200, reply.body
    return str(reply.body["id"])


async def ask(api: Api, story_id: str, query: str = QUESTION, **more: Any) -> dict[str, Any]:
    body = {"sessionId": "s-1", "storyId": story_id, "query": query, **more}
    return dict((await api.ok("POST", "/query", body))["result"])


async def generations(client: TestClient, outcome: str) -> float:
    async with client.get("/metrics") as response:
        page = await response.text()
    return sample(page, "parley_knowledge_generations_total", outcome=outcome)


@pytest.fixture
async def llm() -> AsyncIterator[LlmStandIn]:
    standin = LlmStandIn()
    yield standin
    standin.released.set()


@pytest.fixture
async def shop(
    aiohttp_client: Any,
    aiohttp_server: Any,
    config: Config,
    accounts: AccountRepository,
    llm: LlmStandIn,
) -> Shop:
    with_llm = dataclasses.replace(
        config,
        llm_base_url=await served(llm, aiohttp_server),
        llm_api_key=KEY,
        llm_model=MODEL,
        llm_timeout_seconds=0.3,
    )
    client: TestClient = await aiohttp_client(create_app(with_llm))
    tokens = await accounts.create("carol")
    api = Api(client, tokens.developer_token)
    story_id = await api.create_story("Shop", settings=GENERATING)
    extractive_id = await api.create_story("Plain shop")
    await upload(api, story_id)
    await upload(api, extractive_id)
    return Shop(client, api, api.as_token(tokens.public_key), story_id, extractive_id)


async def recorded_generation(shop: Shop) -> Any:
    """The `generation` of the story's last turn, as the history keeps it."""
    await shop.client.server.app[RECORDER].idle()
    transcript = await shop.api.ok("GET", f"/stories/{shop.story_id}/conversations/s-1")
    return transcript["turns"][-1].get("generation")


def given(llm: LlmStandIn) -> list[str]:
    """The passages of the last request, as numbered in its user message."""
    return [line for line in llm.user_message().splitlines() if line.startswith("[")]


@pytest.mark.parametrize("shape", ["stream", "json"])
async def test_a_generated_answer_citing_its_passages_is_sent(
    shop: Shop, llm: LlmStandIn, shape: str
) -> None:
    llm.shape = shape
    before = await generations(shop.client, "generated")
    result = await ask(shop.api, shop.story_id)
    knowledge = result["knowledge"]
    assert knowledge["generated"] is True
    assert knowledge["answer"] == llm.reply
    assert result["fulfillment"] == [{"type": "text", "message": llm.reply}]
    assert "thirty days" in knowledge["passage"] and knowledge["heading"] == [
        "Opening hours",
        "Returns",
    ]
    assert knowledge["cites"] == [knowledge["passageId"]]
    generation = knowledge["generation"]
    assert (generation["outcome"], generation["promptTokens"], generation["completionTokens"]) == (
        "generated",
        321,
        17,
    )
    assert llm.problems == []
    [request] = llm.asked
    assert "[1] or [2]" in request["messages"][0]["content"]
    assert llm.user_message().startswith(f"Question: {QUESTION}")
    passages = given(llm)
    assert 2 <= len(passages) <= 3
    assert passages[0].startswith("[1] (Shop guide > Opening hours > Returns) Goods bought")
    assert await generations(shop.client, "generated") == before + 1
    assert await recorded_generation(shop) == generation


async def test_the_marks_are_numbered_in_the_order_the_answer_cites_them(
    shop: Shop, llm: LlmStandIn
) -> None:
    returns_id = (await ask(shop.api, shop.story_id))["knowledge"]["passageId"]
    exchanges = next(n for n, line in enumerate(given(llm), 1) if "sixty days" in line)
    assert exchanges != 1
    llm.reply = (
        f"Sixty days to exchange them [{exchanges}], thirty to return them [1, {exchanges}]."
    )
    knowledge = (await ask(shop.api, shop.story_id, debug=True))["knowledge"]
    assert knowledge["answer"] == "Sixty days to exchange them [1], thirty to return them [2][1]."
    exchanges_id, cited_returns = knowledge["cites"]
    assert cited_returns == returns_id and knowledge["passageId"] == exchanges_id
    assert "sixty days" in knowledge["passage"] and knowledge["heading"][-1] == "Exchanges"


@pytest.mark.parametrize(
    ("shape", "reply", "reason"),
    [
        ("429", None, "rate_limited"),
        ("500", None, "http_error"),
        ("malformed", None, "malformed"),
        ("slow", None, "timeout"),
        ("stream", "Thirty days, with the receipt.", "uncited"),
        ("json", "Thirty days [1], or ninety [7].", "miscited"),
        ("json", "  ", "empty"),
    ],
)
async def test_any_other_answer_sends_the_extractive_one(
    shop: Shop, llm: LlmStandIn, shape: str, reply: str | None, reason: str
) -> None:
    llm.shape = shape
    if reply is not None:
        llm.reply = reply
    before = await generations(shop.client, reason)
    result = await ask(shop.api, shop.story_id)
    extractive = await ask(shop.api, shop.extractive_id)
    knowledge = result["knowledge"]
    assert knowledge["generated"] is False and knowledge["cites"] == []
    assert knowledge["generation"]["outcome"] == reason
    assert knowledge["answer"] == extractive["knowledge"]["answer"]
    assert "thirty days" in knowledge["answer"]
    assert result["fulfillment"] == extractive["fulfillment"]
    assert len(llm.asked) == 1 and llm.problems == []  # the plain story never asked
    assert "generation" not in extractive["knowledge"]
    assert await generations(shop.client, reason) == before + 1
    assert await recorded_generation(shop) == knowledge["generation"]


async def test_the_published_version_gives_the_llm_the_passages_it_froze(
    shop: Shop, llm: LlmStandIn
) -> None:
    version_id = await freeze(shop.api, shop.story_id, "thirty days")
    assert (await publish(shop.api, shop.story_id, version_id)).status == 200
    [document] = await shop.api.ok("GET", f"/stories/{shop.story_id}/knowledge")
    await shop.api.ok("DELETE", f"/stories/{shop.story_id}/knowledge/{document['id']}")
    await upload(shop.api, shop.story_id, SHOP.replace("thirty days", "ninety days"))
    published = (await ask(shop.public, shop.story_id))["knowledge"]
    assert published["generated"] is True and "thirty days" in published["passage"]
    assert "thirty days" in given(llm)[0]
    draft = (await ask(shop.api, shop.story_id))["knowledge"]
    assert draft["generated"] is True and "ninety days" in draft["passage"]
    assert "ninety days" in given(llm)[0]


async def test_an_llm_nobody_listens_for_sends_the_extractive_answer(
    aiohttp_client: Any, config: Config, accounts: AccountRepository
) -> None:
    nowhere = dataclasses.replace(
        config, llm_base_url=f"http://127.0.0.1:{free_port()}", llm_model=MODEL
    )
    client: TestClient = await aiohttp_client(create_app(nowhere))
    api = Api(client, (await accounts.create("dave")).developer_token)
    story_id = await api.create_story("Shop", settings=GENERATING)
    await upload(api, story_id)
    result = await ask(api, story_id)
    knowledge = result["knowledge"]
    assert (knowledge["generated"], knowledge["generation"]["outcome"]) == (False, "unreachable")
    assert result["fulfillment"] == [{"type": "text", "message": knowledge["answer"]}]
    assert "thirty days" in knowledge["answer"]


async def test_the_question_leaves_redacted_and_the_key_is_nowhere(
    shop: Shop, llm: LlmStandIn, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    query = (
        "within how many days may goods bought in the shop be returned with their receipt? "
        "mail me at jane.doe@example.com"
    )
    result = await ask(shop.api, shop.story_id, query)
    assert result["knowledge"]["generated"] is True
    sent = llm.user_message()
    assert "jane.doe@example.com" not in sent and "how many days" in sent
    assert "jane.doe@example.com" not in json.dumps(llm.asked)
    llm.shape = "500"
    failed = await ask(shop.api, shop.story_id, query)
    assert failed["knowledge"]["generation"]["outcome"] == "http_error"
    assert KEY not in json.dumps([result, failed]) and KEY not in caplog.text


async def test_an_faq_answer_is_sent_as_its_author_wrote_it(shop: Shop, llm: LlmStandIn) -> None:
    faq = {
        "title": "Delivery",
        "faq": [{"question": "do you deliver on saturdays", "answer": "Yes, until noon."}],
    }
    await shop.api.ok("POST", f"/stories/{shop.story_id}/knowledge", faq)
    knowledge = (await ask(shop.api, shop.story_id, "do you deliver on saturdays"))["knowledge"]
    assert (knowledge["answer"], knowledge["generated"]) == ("Yes, until noon.", False)
    assert "generation" not in knowledge and llm.asked == []


async def test_with_no_llm_configured_the_setting_is_kept_and_answers_stay_extractive(
    alice: Tenant,
) -> None:
    api = alice.developer
    story_id = await api.create_story("Shop", settings=GENERATING)
    await upload(api, story_id)
    assert (await api.story(story_id))["settings"]["generateKnowledgeAnswers"] is True
    knowledge = (await ask(api, story_id))["knowledge"]
    assert knowledge["generated"] is False and "generation" not in knowledge
    assert "thirty days" in knowledge["answer"]
    refused = await api.put(
        f"/stories/{story_id}",
        {"name": "Shop", "description": "", "settings": {"generateKnowledgeAnswers": "yes"}},
    )
    assert refused.status == 400
