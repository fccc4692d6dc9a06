"""A published version answers from the documents it was frozen with (docs/knowledge.md):
the draft answers from the documents as they are, and a version deleted lets its
documents go."""

from e2e.bot_api.versions.test_versions import freeze, publish

from support.api import Tenant

HOURS = "The shop opens at {hour} in the morning and closes at six in the evening."


async def test_the_published_version_answers_from_the_documents_it_froze(alice: Tenant) -> None:
    developer, public = alice.developer, alice.public
    story_id = await developer.create_story("Shop")
    base = f"/stories/{story_id}/knowledge"
    body = {"title": "Hours", "text": HOURS.format(hour="nine")}
    document_id = (await developer.ok("POST", base, body))["id"]
    faq = {"title": "Cards", "faq": [{"question": "Can I pay by card?", "answer": "Yes."}]}
    faq_id = (await developer.ok("POST", base, faq))["id"]
    version_id = await freeze(developer, story_id, "nine o'clock")
    assert (await publish(developer, story_id, version_id)).status == 200

    replaced = {"title": "Hours", "text": HOURS.format(hour="ten")}
    await developer.ok("PUT", f"{base}/{document_id}", replaced)
    await developer.ok("DELETE", f"{base}/{faq_id}")

    async def answered(api_query: str, token_is_public: bool) -> str | None:
        api = public if token_is_public else developer
        body = {"storyId": story_id, "sessionId": "s", "query": api_query}
        knowledge = (await api.ok("POST", "/query", body))["result"].get("knowledge")
        return None if knowledge is None else str(knowledge["answer"])

    opening = "at what hour does the shop open"
    assert "nine" in (await answered(opening, True) or "")
    assert "ten" in (await answered(opening, False) or "")
    assert await answered("can I pay by card", True) == "Yes."
    assert await answered("can I pay by card", False) is None

    assert (await publish(developer, story_id, None)).status == 200
    await developer.ok("DELETE", f"/stories/{story_id}/versions/{version_id}")
    assert "ten" in (await answered(opening, True) or "")
