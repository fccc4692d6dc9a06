"""Built-in entities over HTTP: `sys.*` parameters filled by POST /query in the
conversation's timezone, asked for when required, and their names reserved."""

from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from support.api import Api, Tenant

BOOKING = {
    "userSays": ["a table for {{sys.number:guests}} {{sys.date:when}}", "book a table"],
    "parameters": [
        {"alias": "guests", "entity": "sys.number", "prompts": ["For how many?"]},
        {"alias": "when", "entity": "sys.date", "prompts": ["Which day?"]},
    ],
    "responses": [{"type": "text", "messages": ["{{guests}} on {{when}}."]}],
}


async def booking(api: Api, *user_says: str, **settings: Any) -> str:
    story_id = await api.create_story("Tables", settings=settings)
    await api.create_interaction(
        story_id, "Book", **{**BOOKING, "userSays": [*user_says, *BOOKING["userSays"]]}
    )
    return story_id


def tomorrow(timezone: str) -> str:
    return (datetime.now(ZoneInfo(timezone)) + timedelta(days=1)).date().isoformat()


async def ask(api: Api, story_id: str, session: str, **body: Any) -> dict[str, Any]:
    reply = await api.post("/query", {"sessionId": session, "storyId": story_id, **body})
    assert reply.status == 200, reply.body
    return dict(reply.body["result"])


async def test_a_table_for_4_tomorrow_fills_both_in_the_conversations_timezone(
    alice: Tenant,
) -> None:
    story_id = await booking(alice.developer, timezone="Pacific/Kiritimati")
    for session, timezone, parameters in [
        ("far-east", "Pacific/Kiritimati", {}),
        ("far-west", "Pacific/Pago_Pago", {"default_timezone": "Pacific/Pago_Pago"}),
    ]:
        before = tomorrow(timezone)
        result = await ask(
            alice.public, story_id, session, query="A table for 4 tomorrow", parameters=parameters
        )
        assert result["parameters"]["guests"] == 4
        assert result["parameters"]["when"] in {before, tomorrow(timezone)}
        assert not result["incomplete"]
        assert result["fulfillment"][0]["message"] == f"4 on {result['parameters']['when']}."


async def test_a_required_built_in_parameter_prompts_until_answered(alice: Tenant) -> None:
    story_id = await booking(alice.developer)
    asked = await ask(alice.public, story_id, "s", query="book a table")
    assert (asked["incomplete"], asked["fulfillment"][0]["message"]) == (True, "For how many?")
    asked = await ask(alice.public, story_id, "s", query="we are twelve")
    assert asked["parameters"] == {"guests": 12}
    assert asked["fulfillment"][0]["message"] == "Which day?"
    done = await ask(alice.public, story_id, "s", query="on 2027-01-03")
    assert done["parameters"] == {"guests": 12, "when": "2027-01-03"}
    assert not done["incomplete"]


async def test_a_german_story_reads_german_dates_and_numbers(alice: Tenant) -> None:
    story_id = await booking(
        alice.developer,
        "ein Tisch für {{sys.number:guests}} {{sys.date:when}}",
        language="german",
        timezone="Europe/Berlin",
    )
    result = await ask(alice.public, story_id, "s", query="ein Tisch für zwölf am 24. Dezember")
    assert result["parameters"]["guests"] == 12
    assert result["parameters"]["when"].endswith("-12-24")


async def test_sys_names_are_reserved_and_unknown_built_ins_refused(alice: Tenant) -> None:
    api = alice.developer
    entries = [{"value": "one", "synonyms": [{"value": "one"}]}]
    reply = await api.post("/entities", {"name": "sys.number", "entries": entries})
    assert reply.error == (400, "validation_error")
    assert "reserved for the built-in entities" in reply.details
    story_id = await api.create_story("Tables")
    for entity, message in [
        ("sys.colour", "no built-in entity"),
        ("number", "unknown entity"),
    ]:
        reply = await api.post(
            f"/stories/{story_id}/interactions",
            {"name": "Paint", "parameters": [{"alias": "x", "entity": entity, "prompts": []}]},
        )
        assert reply.error == (400, "validation_error"), reply.body
        assert message in reply.details
    assert await api.ok("GET", "/entities") == []


async def test_the_story_timezone_must_be_an_iana_name(api: Api) -> None:
    reply = await api.post(
        "/stories", {"name": "T", "description": "", "settings": {"timezone": "Mars/Base"}}
    )
    assert reply.error == (400, "validation_error")
    story_id = await api.create_story("T", settings={"timezone": "America/Bogota"})
    assert (await api.story(story_id))["settings"]["timezone"] == "America/Bogota"
