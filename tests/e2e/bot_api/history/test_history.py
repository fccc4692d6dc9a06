"""The conversation history over HTTP: what /query turns leave behind, listed, read,
exported and erased with the developer token."""

import csv
import io
import json
from typing import Any

from aiohttp import web
from aiohttp.test_utils import TestClient

from bot_api.history.keys import RECORDER, TURN_STORE
from shared import messaging
from shared.config import Config
from shared.events import ChannelTurn, ChannelTurnReply, decode, encode
from support.api import Api, Tenant
from tools.embedded import free_port


async def talk(api: Api, story_id: str, session: str, *messages: str) -> None:
    for message in messages:
        body = {"storyId": story_id, "sessionId": session, "query": message}
        await api.ok("POST", "/query", body)


async def recorded(client: TestClient) -> None:
    await client.server.app[RECORDER].idle()


async def pizza_story(api: Api) -> tuple[str, str]:
    story_id = await api.create_story("Pizza")
    order = await api.create_interaction(
        story_id,
        "Order",
        userSays=["I want a pizza", "order a pizza please"],
        responses=[{"type": "text", "messages": ["One pizza coming."]}],
    )
    return story_id, order


async def test_each_turn_is_recorded_and_the_conversations_list_newest_first(
    alice: Tenant,
) -> None:
    api = alice.developer
    story_id, order = await pizza_story(api)
    await talk(alice.public, story_id, "first", "I want a pizza", "what about the moon")
    await talk(alice.public, story_id, "second", "order a pizza please")
    await recorded(api.client)
    page = await api.ok("GET", f"/stories/{story_id}/conversations")
    assert [(c["sessionId"], c["turns"], c["fallbacks"]) for c in page["items"]] == [
        ("second", 1, 0),
        ("first", 2, 1),
    ]
    assert page["nextCursor"] is None
    first = page["items"][1]
    assert first["started"] <= first["lastAt"]
    transcript = await api.ok("GET", f"/stories/{story_id}/conversations/first")
    assert transcript["sessionId"] == "first"
    matched, missed = transcript["turns"]
    assert matched["query"] == "I want a pizza"
    assert matched["interaction"] == {"id": order, "name": "Order", "type": "standard"}
    assert (matched["score"], matched["threshold"], matched["outcome"]) == (1.0, 0.5, "matched")
    assert matched["candidates"][0] == {"id": order, "name": "Order", "score": 1.0}
    assert matched["fulfillment"] == "One pizza coming."
    assert "vector" not in matched and "trigger" not in matched
    assert matched["at"] <= missed["at"]
    assert (missed["outcome"], missed["interaction"]["type"]) == ("fallback", "fallback")
    assert missed["score"] < 0.5


async def test_filters_and_the_cursor_choose_the_conversations(alice: Tenant) -> None:
    api = alice.developer
    story_id, order = await pizza_story(api)
    await talk(alice.public, story_id, "a", "I want a pizza")
    await talk(alice.public, story_id, "b", "the moon is made of cheese")
    await talk(alice.public, story_id, "c", "order a pizza please")
    await recorded(api.client)
    base = f"/stories/{story_id}/conversations"

    async def sessions(query: str) -> list[str]:
        return [c["sessionId"] for c in (await api.ok("GET", f"{base}?{query}"))["items"]]

    assert await sessions("outcome=fallback") == ["b"]
    assert await sessions(f"interaction={order}") == ["c", "a"]
    assert await sessions("text=MOON") == ["b"]
    assert await sessions("from=2000-01-01T00:00:00Z&to=2001-01-01T00:00:00Z") == []
    seen, cursor = [], ""
    while True:
        page = await api.ok("GET", f"{base}?limit=1{cursor}")
        seen += [c["sessionId"] for c in page["items"]]
        if page["nextCursor"] is None:
            break
        cursor = f"&cursor={page['nextCursor']}"
    assert seen == ["c", "b", "a"]
    for bad in ("outcome=maybe", "limit=0", "limit=101", "cursor=nonsense", "from=yesterday"):
        reply = await api.get(f"{base}?{bad}")
        assert reply.error == (400, "validation_error"), bad


async def test_personal_data_is_redacted_unless_the_story_says_not_to(alice: Tenant) -> None:
    api = alice.developer
    story_id, _ = await pizza_story(api)
    await talk(alice.public, story_id, "v", "mail me at jo@example.com or call +44 20 7946 0958")
    await recorded(api.client)
    turns = (await api.ok("GET", f"/stories/{story_id}/conversations/v"))["turns"]
    assert turns[0]["query"] == "mail me at [email] or call [phone]"
    await api.ok(
        "PUT",
        f"/stories/{story_id}",
        {"name": "Pizza", "description": "", "settings": {"redact": False}},
    )
    await talk(alice.public, story_id, "w", "mail me at jo@example.com")
    await recorded(api.client)
    turns = (await api.ok("GET", f"/stories/{story_id}/conversations/w"))["turns"]
    assert turns[0]["query"] == "mail me at jo@example.com"


async def test_a_story_with_history_off_records_nothing(alice: Tenant) -> None:
    api = alice.developer
    story_id = await api.create_story("Quiet", settings={"history": False})
    await talk(alice.public, story_id, "v", "hello")
    await recorded(api.client)
    assert (await api.ok("GET", f"/stories/{story_id}/conversations"))["items"] == []
    reply = await api.get(f"/stories/{story_id}/conversations/v")
    assert reply.error == (404, "not_found")


async def test_a_conversation_is_erased_and_another_account_sees_none(
    alice: Tenant, bob: Tenant
) -> None:
    api = alice.developer
    story_id, _ = await pizza_story(api)
    await talk(alice.public, story_id, "gone", "I want a pizza")
    await talk(alice.public, story_id, "kept", "I want a pizza")
    await recorded(api.client)
    path = f"/stories/{story_id}/conversations/gone"
    assert (await bob.developer.get(path)).error == (404, "not_found")
    assert (await bob.developer.delete(path)).error == (404, "not_found")
    assert (await alice.public.get(path)).status == 403
    await api.ok("DELETE", path)
    assert (await api.get(path)).error == (404, "not_found")
    assert (await api.delete(path)).error == (404, "not_found")
    listed = await api.ok("GET", f"/stories/{story_id}/conversations")
    assert [c["sessionId"] for c in listed["items"]] == ["kept"]


async def test_an_erasure_ends_the_session_so_the_next_message_starts_afresh(
    alice: Tenant,
) -> None:
    """Issue 29: the history was erased but the live session kept its parameters, and the
    next message brought them back into the answer and the history."""
    api = alice.developer
    story_id, _ = await pizza_story(api)
    said = {"storyId": story_id, "sessionId": "bunny", "query": "I want a pizza"}
    first = await alice.public.ok("POST", "/query", {**said, "parameters": {"nickname": "Bunny"}})
    assert first["result"]["parameters"]["nickname"] == "Bunny"
    await recorded(api.client)
    await api.ok("DELETE", f"/stories/{story_id}/conversations/bunny")

    after = await alice.public.ok("POST", "/query", said)

    assert "nickname" not in after["result"]["parameters"]
    await recorded(api.client)
    turns = (await api.ok("GET", f"/stories/{story_id}/conversations/bunny"))["turns"]
    assert [("nickname" in t["parameters"]) for t in turns] == [False]


async def test_an_erasure_drops_the_turns_still_waiting_to_be_written(alice: Tenant) -> None:
    """Turns are written in batches about 2 s after their answer: erased before that,
    they used to be written afterwards (docs/history.md said to erase again)."""
    api = alice.developer
    story_id, _ = await pizza_story(api)
    await talk(alice.public, story_id, "hasty", "I want a pizza")
    path = f"/stories/{story_id}/conversations/hasty"
    await api.ok("DELETE", path)
    await recorded(api.client)
    assert (await api.get(path)).error == (404, "not_found")


async def test_a_live_session_without_turns_is_erased_too(alice: Tenant) -> None:
    """A story that keeps no history still holds the session's parameters: erasing it
    answers 200 once, then 404 as for any unknown conversation."""
    api = alice.developer
    story_id = await api.create_story("Quiet", settings={"history": False})
    said = {"storyId": story_id, "sessionId": "quiet", "query": "hello"}
    await alice.public.ok("POST", "/query", {**said, "parameters": {"nickname": "Bunny"}})
    path = f"/stories/{story_id}/conversations/quiet"
    await api.ok("DELETE", path)
    assert (await api.delete(path)).error == (404, "not_found")
    after = await alice.public.ok("POST", "/query", said)
    assert "nickname" not in after["result"]["parameters"]


async def test_an_erasure_ends_a_channel_user_s_session(
    alice: Tenant, bot_api: TestClient, config: Config
) -> None:
    """A channel's turn (over the real NATS) is erased by the session id its turns carry."""
    api = alice.developer
    story_id, _ = await pizza_story(api)
    nats = await messaging.connect(config.nats_url, "erasure-test")
    try:

        async def channel(parameters: dict[str, Any]) -> dict[str, Any]:
            turn = ChannelTurn(
                account_id=alice.tokens.account_id,
                story_id=story_id,
                session_id="channel9:chat9:user9",
                source="telegram",
                query="I want a pizza",
                trigger=None,
                goto=None,
                parameters=parameters,
            )
            message = await nats.request(config.subjects.channel_turn, encode(turn), timeout=5)
            reply = decode(ChannelTurnReply, message.data)
            assert reply.status == 200
            answered: dict[str, Any] = json.loads(reply.body)["result"]["parameters"]
            return answered

        assert (await channel({"nickname": "Bunny"}))["nickname"] == "Bunny"
        await recorded(api.client)
        await api.ok("DELETE", f"/stories/{story_id}/conversations/channel9:chat9:user9")
        assert "nickname" not in await channel({})
    finally:
        await nats.drain()


async def test_export_streams_json_lines_and_csv_of_a_time_range(alice: Tenant) -> None:
    api = alice.developer
    story_id, _ = await pizza_story(api)
    await talk(alice.public, story_id, "x", "I want a pizza", "order a pizza please")
    await recorded(api.client)
    headers = {"Authorization": f"Bearer {api.token}"}
    base = f"/stories/{story_id}/conversations/export"
    async with api.client.get(base, headers=headers) as response:
        assert response.status == 200
        assert response.headers["Content-Type"].startswith("application/x-ndjson")
        lines = [json.loads(line) for line in (await response.text()).splitlines()]
    assert [(t["sessionId"], t["query"]) for t in lines] == [
        ("x", "I want a pizza"),
        ("x", "order a pizza please"),
    ]
    async with api.client.get(f"{base}?format=csv", headers=headers) as response:
        rows = list(csv.DictReader(io.StringIO(await response.text())))
    assert [(r["sessionId"], r["input"], r["interactionName"]) for r in rows] == [
        ("x", "I want a pizza", "Order"),
        ("x", "order a pizza please", "Order"),
    ]
    assert {(r["language"], r["answeredIn"]) for r in rows} == {("", "")}, "one language"
    empty = f"{base}?from=2000-01-01T00:00:00Z&to=2000-01-02T00:00:00Z"
    async with api.client.get(empty, headers=headers) as response:
        assert await response.text() == ""
    reply = await api.get(f"{base}?from=2001-01-01T00:00:00Z&to=2000-01-01T00:00:00Z")
    assert reply.error == (400, "validation_error")
    assert (await api.get(f"{base}?format=xml")).error == (400, "validation_error")
    assert (await api.delete(base)).status == 405, "the export is not a conversation"


async def test_deleting_a_story_deletes_its_history(alice: Tenant) -> None:
    api = alice.developer
    story_id, _ = await pizza_story(api)
    await talk(alice.public, story_id, "x", "I want a pizza")
    await recorded(api.client)
    turns = api.client.server.app[TURN_STORE]
    assert len(await turns.transcript(story_id, "x")) == 1
    await api.ok("DELETE", f"/stories/{story_id}")
    assert await turns.transcript(story_id, "x") == []
    reply = await api.get(f"/stories/{story_id}/conversations")
    assert reply.error == (404, "not_found")


async def test_the_webhook_outcome_of_each_turn_is_recorded(
    alice: Tenant, aiohttp_server: Any
) -> None:
    backend = web.Application()

    async def answer(request: web.Request) -> web.Response:
        return web.json_response({"responses": [{"type": "text", "messages": ["From the hook"]}]})

    backend.router.add_post("/hook", answer)
    server = await aiohttp_server(backend)
    api = alice.developer
    story_id = await api.create_story("Hooks")
    for name, url in (
        ("Status", f"http://127.0.0.1:{server.port}/hook"),
        ("Broken", f"http://127.0.0.1:{free_port()}/hook"),  # nothing listens there
    ):
        await api.create_interaction(story_id, name, userSays=[name.lower()], webhook=url)
    await talk(alice.public, story_id, "v", "status", "broken", "hello")
    await recorded(api.client)
    turns = (await api.ok("GET", f"/stories/{story_id}/conversations/v"))["turns"]
    assert [t["webhook"] for t in turns] == ["ok", "failed", None]
    assert turns[0]["fulfillment"] == "From the hook"


async def test_the_console_test_chat_is_marked_and_filtered_by_source(alice: Tenant) -> None:
    """The console's chat sends its /query with the developer token and `default_source`
    `console` (console/static/console/chat.js): those turns are the test chat's. The
    public key saying `console` is not (it is in every page that embeds the bot)."""
    api = alice.developer
    story_id, _ = await pizza_story(api)

    async def say(client: Api, session: str, source: str) -> None:
        body = {
            "storyId": story_id,
            "sessionId": session,
            "query": "I want a pizza",
            "parameters": {"default_source": source},
        }
        await client.ok("POST", "/query", body)

    await say(api, "tried", "console")
    await say(alice.public, "visitor", "widget")
    await say(alice.public, "pretender", "console")
    await recorded(api.client)
    base = f"/stories/{story_id}/conversations"

    async def sessions(query: str) -> list[str]:
        return [c["sessionId"] for c in (await api.ok("GET", f"{base}?{query}"))["items"]]

    assert await sessions("test=true") == ["tried"]
    assert await sessions("test=false") == ["pretender", "visitor"]
    assert await sessions("source=console") == ["pretender", "tried"]
    assert await sessions("source=widget") == ["visitor"]
    assert await sessions("channel=c-1") == []
    tried = await api.ok("GET", f"{base}/tried")
    assert [(t["defaultSource"], t["channel"], t["test"]) for t in tried["turns"]] == [
        ("console", None, True)
    ]
    assert (await api.get(f"{base}?test=maybe")).status == 400


async def test_a_story_of_several_languages_records_and_filters_each_turn_s_language(
    alice: Tenant, bob: Tenant
) -> None:
    """Each turn keeps the language it was read in and its answer's (docs/languages.md);
    the listing filters by it, with the other filters; a story of one language shows its
    turns as before, and a language that is none is a 400."""
    api = alice.developer
    story_id = await api.create_story("Pizza", settings={"languages": ["de", "fr"]})
    await api.create_interaction(
        story_id,
        "Order",
        userSays=["I want a pizza"],
        responses=[{"type": "text", "messages": ["One pizza coming."]}],
        translations={
            "de": {
                "userSays": ["Ich möchte eine Pizza"],
                "responses": [{"type": "text", "messages": ["Eine Pizza kommt."]}],
            }
        },
    )

    async def say(session: str, query: str, language: str) -> None:
        body = {
            "storyId": story_id,
            "sessionId": session,
            "query": query,
            "parameters": {"default_language": language},
        }
        await alice.public.ok("POST", "/query", body)

    await say("anna", "Ich möchte eine Pizza", "de")
    await say("bert", "I want a pizza", "en")
    await say("chloe", "I want a pizza", "fr")
    await say("dirk", "der Mond ist aus Käse", "de")
    await recorded(api.client)
    base = f"/stories/{story_id}/conversations"

    async def sessions(query: str) -> list[str]:
        return [c["sessionId"] for c in (await api.ok("GET", f"{base}?{query}"))["items"]]

    assert await sessions("language=de") == ["dirk", "anna"]
    assert await sessions("language=german") == ["dirk", "anna"]
    assert await sessions("language=fr") == ["chloe"]
    assert await sessions("language=it") == []
    assert await sessions("language=de&outcome=fallback") == ["dirk"]
    first = await api.ok("GET", f"{base}?language=de&limit=1")
    assert [c["sessionId"] for c in first["items"]] == ["dirk"]
    rest = await api.ok("GET", f"{base}?language=de&limit=1&cursor={first['nextCursor']}")
    assert ([c["sessionId"] for c in rest["items"]], rest["nextCursor"]) == (["anna"], None)

    (anna,) = (await api.ok("GET", f"{base}/anna"))["turns"]
    assert (anna["language"], anna["answeredIn"], anna["defaultLanguage"]) == ("de", "de", "de")
    assert anna["fulfillment"] == "Eine Pizza kommt."
    (chloe,) = (await api.ok("GET", f"{base}/chloe"))["turns"]
    assert (chloe["language"], chloe["answeredIn"]) == ("fr", "en")
    headers = {"Authorization": f"Bearer {api.token}"}
    async with api.client.get(f"{base}/export", headers=headers) as response:
        lines = [json.loads(line) for line in (await response.text()).splitlines()]
    assert [(t["sessionId"], t["language"], t["answeredIn"]) for t in lines] == [
        ("anna", "de", "de"),
        ("bert", "en", "en"),
        ("chloe", "fr", "en"),
        ("dirk", "de", "en"),
    ]
    async with api.client.get(f"{base}/export?format=csv", headers=headers) as response:
        rows = list(csv.DictReader(io.StringIO(await response.text())))
    assert [(r["sessionId"], r["language"], r["answeredIn"]) for r in rows] == [
        (t["sessionId"], t["language"], t["answeredIn"]) for t in lines
    ]

    for bad in ("language=xx", "language=", "language=klingon"):
        reply = await api.get(f"{base}?{bad}")
        assert reply.error == (400, "validation_error"), bad
        assert "language" in reply.body["status"]["errors"], reply.body
    assert (await bob.developer.get(f"{base}?language=de")).error == (404, "not_found")

    one_language, _ = await pizza_story(api)
    await alice.public.ok(
        "POST",
        "/query",
        {
            "storyId": one_language,
            "sessionId": "v",
            "query": "I want a pizza",
            "parameters": {"default_language": "en"},
        },
    )
    await recorded(api.client)
    (turn,) = (await api.ok("GET", f"/stories/{one_language}/conversations/v"))["turns"]
    assert "language" not in turn and "answeredIn" not in turn
    assert turn["defaultLanguage"] == "en"
    listed = await api.ok("GET", f"/stories/{one_language}/conversations?language=en")
    assert listed["items"] == []
