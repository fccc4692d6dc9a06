"""Knowledge answers through the API (docs/knowledge.md): documents and FAQ pairs written,
read and deleted; a turn no interaction answers answered from them, cited; a question
they do not answer falls back; one account never sees another's."""

from typing import Any

from support.api import Api, Tenant
from support.knowledge_data import HANDBOOK_BYTES
from support.waiting import eventually

SHOP = """# Opening hours

The shop on Main Street opens at nine in the morning and closes at six in the evening.
On Sundays it stays closed all day.

## Returns

Goods bought in the shop may be returned within thirty days with their receipt. A refund is
paid to the card the goods were bought with.
"""


async def ask(api: Api, story_id: str, query: str, **more: Any) -> dict[str, Any]:
    body = {"sessionId": f"s-{len(query)}", "storyId": story_id, "query": query, **more}
    return dict((await api.ok("POST", "/query", body))["result"])


async def upload(api: Api, story_id: str, data: bytes, media_type: str, title: str) -> str:
    reply = await api.send_raw(f"/stories/{story_id}/knowledge?title={title}", data, media_type)
    assert reply.status == 200, reply.body
    return str(reply.body["id"])


async def test_a_markdown_document_answers_the_next_question_with_its_citation(
    alice: Tenant,
) -> None:
    api = alice.developer
    story_id = await api.create_story("Shop")
    document_id = await upload(api, story_id, SHOP.encode(), "text/markdown", "Shop guide")
    result = await ask(api, story_id, "how many days do I have to return goods?")
    knowledge = result["knowledge"]
    assert knowledge["documentId"] == document_id
    assert knowledge["title"] == "Shop guide"
    assert knowledge["heading"] == ["Opening hours", "Returns"]
    assert "thirty days" in knowledge["answer"]
    assert "thirty days" in knowledge["passage"]
    assert result["fulfillment"] == [{"type": "text", "message": knowledge["answer"]}]
    listed = await api.ok("GET", f"/stories/{story_id}/knowledge")
    assert [(d["id"], d["title"], d["kind"]) for d in listed] == [
        (document_id, "Shop guide", "text")
    ]
    assert listed[0]["passages"] >= 2


async def test_interactions_win_and_an_unrelated_question_falls_back(alice: Tenant) -> None:
    api = alice.developer
    story_id = await api.create_story("Shop")
    await api.create_interaction(
        story_id,
        "Hours",
        userSays=["when do you open"],
        responses=[{"type": "text", "messages": ["Nine to six."]}],
    )
    await upload(api, story_id, SHOP.encode(), "text/markdown", "Shop guide")
    matched = await ask(api, story_id, "when do you open")
    assert matched["interaction"]["name"] == "Hours" and "knowledge" not in matched
    unrelated = await ask(api, story_id, "can penguins fly backwards", debug=True)
    assert "knowledge" not in unrelated
    assert unrelated["interaction"]["type"] == "fallback"
    weighed = unrelated["debug"]["knowledge"]
    assert all(p["lexical"] < weighed["threshold"] for p in weighed["passages"])


async def test_faq_pairs_answer_through_the_matcher(alice: Tenant) -> None:
    api = alice.developer
    story_id = await api.create_story("Shop")
    faq = {
        "title": "Delivery",
        "faq": [
            {
                "question": "Do you deliver on Saturdays?",
                "alternatives": ["weekend delivery"],
                "answer": "Yes, every Saturday morning.",
            }
        ],
    }
    faq_id = (await api.ok("POST", f"/stories/{story_id}/knowledge", faq))["id"]
    result = await ask(api, story_id, "do you deliver on saturday")
    assert result["knowledge"]["question"] == "Do you deliver on Saturdays?"
    assert result["fulfillment"][0]["message"] == "Yes, every Saturday morning."
    csv = "question,answer,alternatives\nCan I pay by card?,All cards are taken.,card payment\n"
    await upload(api, story_id, csv.encode(), "text/csv", "Payment")
    paid = await ask(api, story_id, "card payment")
    assert paid["knowledge"]["answer"] == "All cards are taken."
    document = await api.ok("GET", f"/stories/{story_id}/knowledge/{faq_id}")
    assert document["faq"][0]["alternatives"] == ["weekend delivery"]


async def test_a_replaced_document_answers_anew_and_a_deleted_one_no_more(alice: Tenant) -> None:
    api = alice.developer
    story_id = await api.create_story("Shop")
    body = {"title": "Hours", "text": "The shop opens at nine in the morning."}
    document_id = (await api.ok("POST", f"/stories/{story_id}/knowledge", body))["id"]
    assert "nine" in (await ask(api, story_id, "when does the shop open"))["knowledge"]["answer"]
    replaced = {"title": "Hours", "text": "The shop opens at ten in the morning."}
    await api.ok("PUT", f"/stories/{story_id}/knowledge/{document_id}", replaced)
    assert "ten" in (await ask(api, story_id, "when does the shop open"))["knowledge"]["answer"]
    passages = await api.ok("GET", f"/stories/{story_id}/knowledge/{document_id}/passages")
    assert [p["text"] for p in passages] == ["The shop opens at ten in the morning."]
    await api.ok("DELETE", f"/stories/{story_id}/knowledge/{document_id}")
    assert "knowledge" not in await ask(api, story_id, "when does the shop open")
    gone = await api.get(f"/stories/{story_id}/knowledge/{document_id}")
    assert gone.error == (404, "not_found")


async def test_a_pdf_is_cited_by_page(alice: Tenant) -> None:
    api = alice.developer
    story_id = await api.create_story("Handbook")
    await upload(api, story_id, HANDBOOK_BYTES, "application/pdf", "Handbook")
    result = await ask(api, story_id, "how do I log in to the labelling tool", debug=True)
    knowledge = result["knowledge"]
    assert knowledge["title"] == "Handbook"
    assert isinstance(knowledge["page"], int) and 1 <= knowledge["page"] <= 13


async def test_another_account_sees_nothing_of_the_documents(alice: Tenant, bob: Tenant) -> None:
    story_id = await alice.developer.create_story("Shop")
    document_id = await upload(alice.developer, story_id, SHOP.encode(), "text/markdown", "Guide")
    for path in (
        f"/stories/{story_id}/knowledge",
        f"/stories/{story_id}/knowledge/{document_id}",
    ):
        assert (await bob.developer.get(path)).error == (404, "not_found")
    assert (
        await bob.developer.delete(f"/stories/{story_id}/knowledge/{document_id}")
    ).status == 404
    assert len(await alice.developer.ok("GET", f"/stories/{story_id}/knowledge")) == 1


async def test_bad_documents_are_refused_with_their_reason(alice: Tenant) -> None:
    api = alice.developer
    story_id = await api.create_story("Shop")
    base = f"/stories/{story_id}/knowledge"
    unsupported = await api.send_raw(f"{base}?title=x", b"GIF89a", "image/gif")
    assert unsupported.status == 415
    empty = await api.send_raw(f"{base}?title=x", b"   \n\n  ", "text/plain")
    assert empty.error == (400, "validation_error")
    broken = await api.send_raw(f"{base}?title=x", b"%PDF-1.7 garbage", "application/pdf")
    assert broken.error == (400, "validation_error")
    both = await api.post(
        base, {"title": "x", "text": "a", "faq": [{"question": "q", "answer": "a"}]}
    )
    assert both.error == (400, "validation_error")
    headless = await api.send_raw(f"{base}?title=x", b"q,a\n1,2\n", "text/csv")
    assert headless.error == (400, "validation_error")
    assert await api.ok("GET", base) == []


async def test_deleting_the_story_deletes_its_documents(alice: Tenant) -> None:
    api = alice.developer
    story_id = await api.create_story("Shop")
    await upload(api, story_id, SHOP.encode(), "text/markdown", "Guide")
    await api.ok("DELETE", f"/stories/{story_id}")
    assert (await api.get(f"/stories/{story_id}/knowledge")).error == (404, "not_found")


async def test_the_history_shows_a_knowledge_answer_with_its_source(alice: Tenant) -> None:
    api = alice.developer
    story_id = await api.create_story("Shop")
    document_id = await upload(api, story_id, SHOP.encode(), "text/markdown", "Guide")
    await ask(api, story_id, "how many days do I have to return goods?")

    async def recorded() -> Any:
        reply = await api.get(f"/stories/{story_id}/conversations/s-40")
        return reply.body["turns"] if reply.status == 200 else None

    [turn] = await eventually(recorded, seconds=5)
    assert turn["outcome"] == "knowledge"
    assert turn["knowledge"]["documentId"] == document_id
    assert turn["knowledge"]["title"] == "Guide"
    assert "thirty days" in turn["fulfillment"]


async def test_faq_pairs_travel_in_the_story_document_and_files_are_summed_up(
    alice: Tenant,
) -> None:
    api = alice.developer
    story_id = await api.create_story("Shop")
    faq = {
        "title": "Delivery",
        "faq": [{"question": "Do you deliver on Saturdays?", "answer": "Yes, every Saturday."}],
    }
    await api.ok("POST", f"/stories/{story_id}/knowledge", faq)
    await upload(api, story_id, SHOP.encode(), "text/markdown", "Guide")
    exported = await api.ok("GET", f"/stories/{story_id}/export")
    assert exported["knowledge"][0] == {
        "title": "Delivery",
        "kind": "faq",
        "faq": [
            {
                "question": "Do you deliver on Saturdays?",
                "alternatives": [],
                "answer": "Yes, every Saturday.",
            }
        ],
    }
    summary = exported["knowledge"][1]
    assert summary["kind"] == "text" and summary["mediaType"] == "text/markdown"
    assert summary["passages"] >= 2 and len(summary["sha256"]) == 64

    imported = await api.ok("POST", "/stories/import", exported)
    copy = imported["id"]
    assert [(r["place"], r["element"]) for r in imported["report"]["unmapped"]] == [
        ("knowledge[1]", "document 'Guide'")
    ]
    [document] = await api.ok("GET", f"/stories/{copy}/knowledge")
    assert (
        document["title"] == "Delivery" and document["faq"][0]["answer"] == "Yes, every Saturday."
    )
    answer = await ask(api, copy, "do you deliver on saturday")
    assert answer["knowledge"]["answer"] == "Yes, every Saturday."
    again = await api.ok("GET", f"/stories/{copy}/export")
    assert again["knowledge"] == exported["knowledge"][:1]
