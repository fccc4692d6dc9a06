"""Conversation tests through the API (docs/tests.md): kept per story, run on demand,
run after every edit (whose answer links to the result), and carried by the story
document."""

from typing import Any

from bot_api.story_tests.keys import CONVERSATION_TESTS
from support import languages
from support.api import Api, Tenant
from support.waiting import eventually
from support.walkthrough import pizza_story

ORDER_TEST = {
    "name": "orders a large pizza",
    "turns": [
        {"query": "a pizza please", "expect": {"interaction": "Order", "incomplete": True}},
        {
            "query": "big",
            "expect": {
                "parameters": {"size": "large"},
                "incomplete": False,
                "textContains": "large pizza",
            },
        },
        {
            "query": "something to drink",
            "expect": {"interaction": "Drinks", "text": "Cola or water?"},
        },
    ],
}
WELCOME_TEST = {
    "name": "greets",
    "turns": [{"trigger": "welcome", "expect": {"interaction": "Welcome", "fallback": False}}],
}


async def last_run_after(api: Api, story_id: str, earlier: str | None) -> dict[str, Any]:
    async def newer() -> Any:
        reply = await api.get(f"/stories/{story_id}/tests/last")
        return reply.body if reply.status == 200 and reply.body["ranAt"] != earlier else None

    return dict(await eventually(newer, seconds=5))


async def runs_after_edits(api: Api) -> None:
    """Waits until the runs the edits so far started have landed: a run asked for while
    one runs is the account's second at a time (a 409)."""
    await api.client.server.app[CONVERSATION_TESTS].idle()


async def test_tests_are_created_read_replaced_listed_and_deleted(api: Api, bob: Tenant) -> None:
    story_id = await pizza_story(api)
    base = f"/stories/{story_id}/tests"
    order_id = (await api.ok("POST", base, ORDER_TEST))["id"]
    welcome_id = (await api.ok("POST", base, WELCOME_TEST))["id"]
    assert await api.ok("GET", f"{base}/{order_id}") == {"id": order_id, **ORDER_TEST}
    assert [t["id"] for t in await api.ok("GET", base)] == [order_id, welcome_id]

    renamed = {**WELCOME_TEST, "name": "says hello"}
    await api.ok("PUT", f"{base}/{welcome_id}", renamed)
    assert (await api.ok("GET", f"{base}/{welcome_id}"))["name"] == "says hello"
    for method, body in (("GET", None), ("PUT", renamed), ("DELETE", None)):
        reply = await bob.developer.call(method, f"{base}/{welcome_id}", *([body] if body else []))
        assert reply.error == (404, "not_found"), (method, reply.body)
    assert (await bob.developer.get(base)).error == (404, "not_found")

    await api.ok("DELETE", f"{base}/{welcome_id}")
    assert (await api.get(f"{base}/{welcome_id}")).error == (404, "not_found")
    assert [t["id"] for t in await api.ok("GET", base)] == [order_id]


async def test_a_test_that_checks_nothing_or_says_two_things_is_refused(api: Api) -> None:
    story_id = await pizza_story(api)
    bad_turns = [
        {"query": "hi", "expect": {}},
        {"query": "hi", "trigger": "welcome", "expect": {"fallback": False}},
        {"expect": {"fallback": False}},
        {"query": "hi"},
        {"query": "hi", "expect": {"fallback": "no"}},
        {"query": "hi", "expect": {"parameters": {"a.b": 1}}},
    ]
    for turn in bad_turns:
        reply = await api.post(f"/stories/{story_id}/tests", {"name": "bad", "turns": [turn]})
        assert reply.error == (400, "validation_error"), turn
        assert "turns" in reply.body["status"]["errors"], reply.body
    too_long = {"name": "long", "turns": [WELCOME_TEST["turns"][0]] * 21}
    assert (await api.post(f"/stories/{story_id}/tests", too_long)).error == (
        400,
        "validation_error",
    )


async def test_a_run_says_which_tests_failed_where_and_how(api: Api) -> None:
    story_id = await pizza_story(api)
    base = f"/stories/{story_id}/tests"
    await api.ok("POST", base, ORDER_TEST)
    wrong = {
        "name": "expects drinks first",
        "turns": [
            {"query": "a pizza please", "expect": {"interaction": "Order"}},
            {"query": "what's the weather", "expect": {"interaction": "Drinks"}},
        ],
    }
    wrong_id = (await api.ok("POST", base, wrong))["id"]
    run = await api.ok("POST", f"{base}/run", {})
    assert (run["passed"], run["failed"], run["turns"]) == (1, 1, 5)
    failed = run["results"][1]
    assert failed == {
        "id": wrong_id,
        "name": "expects drinks first",
        "passed": False,
        "broken": False,
        "turn": 1,
        "expected": {"interaction": "Drinks"},
        "got": {"interaction": "Order"},
    }


async def test_a_run_against_a_version_is_not_found_while_there_are_no_versions(
    api: Api, bob: Tenant
) -> None:
    story_id = await pizza_story(api)
    reply = await api.post(f"/stories/{story_id}/tests/run", {"version": "a" * 24})
    assert reply.error == (404, "not_found")
    assert (await api.post(f"/stories/{story_id}/tests/run", {"version": "x"})).error == (
        400,
        "validation_error",
    )
    assert (await bob.developer.post(f"/stories/{story_id}/tests/run", {})).error == (
        404,
        "not_found",
    )


async def test_an_edit_runs_the_tests_and_links_to_what_it_broke(api: Api) -> None:
    story_id = await pizza_story(api)
    base = f"/stories/{story_id}/tests"
    created = await api.post(base, ORDER_TEST)
    link = f'</stories/{story_id}/tests/last>; rel="tests"'
    assert created.headers.getall("Link") == [link]
    first = await last_run_after(api, story_id, None)
    assert (first["passed"], first["failed"]) == (1, 0)

    story = await api.story(story_id)
    drinks = next(i for i, v in story["interactions"].items() if v["name"] == "Drinks")
    edit = await api.put(
        f"/stories/{story_id}/interactions/{drinks}",
        {"responses": [{"type": "text", "messages": ["Just water."]}]},
    )
    assert edit.status == 200 and edit.headers.getall("Link") == [link]
    assert edit.body["status"] == {"code": 200, "errorType": "success"}
    after = await last_run_after(api, story_id, first["ranAt"])
    assert after["results"][0]["broken"] is True
    assert after["results"][0]["expected"] == {"text": "Cola or water?"}
    assert after["results"][0]["got"] == {"text": "Just water."}

    read = await api.get(f"/stories/{story_id}")
    assert "Link" not in read.headers


async def imported_unchanged(api: Api, document: dict[str, Any]) -> str:
    """The new story the document makes, which exports as the same document, once the run
    of its tests that the import started has landed."""
    imported = await api.call("POST", "/stories/import", document)
    assert imported.status == 200, imported.body
    new_id = str(imported.body["id"])
    assert await api.ok("GET", f"/stories/{new_id}/export") == document
    await runs_after_edits(api)
    return new_id


async def test_tests_travel_in_the_story_document(api: Api) -> None:
    story_id = await pizza_story(api)
    await api.ok("POST", f"/stories/{story_id}/tests", ORDER_TEST)
    await api.ok("POST", f"/stories/{story_id}/tests", WELCOME_TEST)
    document = await api.ok("GET", f"/stories/{story_id}/export")
    assert document["tests"] == [ORDER_TEST, WELCOME_TEST]

    new_id = await imported_unchanged(api, document)
    run = await api.ok("POST", f"/stories/{new_id}/tests/run", {})
    assert (run["passed"], run["failed"]) == (2, 0)


async def test_a_story_without_tests_exports_no_tests_and_a_bad_test_refuses_the_import(
    api: Api,
) -> None:
    document = await api.ok("GET", f"/stories/{await pizza_story(api)}/export")
    assert "tests" not in document
    bad = {**document, "tests": [{"name": "bad", "turns": [{"query": "hi", "expect": {}}]}]}
    reply = await api.call("POST", "/stories/import", bad)
    assert reply.error == (400, "validation_error")
    assert "tests" in reply.body["status"]["errors"]


LANGUAGES_TEST = {
    "name": "asks in German, then in English",
    "turns": [
        {
            "query": "wann habt ihr geöffnet",
            "language": "de",
            "expect": {"interaction": "Hours", "text": "9 bis 17 Uhr.", "answeredIn": "de"},
        },
        {"query": "when are you open", "language": "en", "expect": {"answeredIn": "en"}},
    ],
}


async def shop_of_three_languages(api: Api) -> str:
    story_id = await api.create_story("Shop", settings={"languages": ["de", "fr"]})
    await api.create_interaction(story_id, **languages.HOURS)
    return story_id


async def test_a_turn_names_its_language_and_an_expectation_the_answer_s(api: Api) -> None:
    """The language is sent as `parameters.default_language` and read as a story's
    languages are; the answer's is checked; a language the story does not speak is a 400
    when the test is saved or replaced, at its place; an edit dropping one a test uses
    breaks that test, saying so."""
    story_id = await shop_of_three_languages(api)
    base = f"/stories/{story_id}/tests"
    test_id = (await api.ok("POST", base, LANGUAGES_TEST))["id"]
    assert await api.ok("GET", f"{base}/{test_id}") == {"id": test_id, **LANGUAGES_TEST}
    by_name = {**LANGUAGES_TEST, "turns": [{**LANGUAGES_TEST["turns"][0], "language": "German"}]}
    named_id = (await api.ok("POST", base, by_name))["id"]
    assert (await api.ok("GET", f"{base}/{named_id}"))["turns"][0]["language"] == "de"

    french = {
        "name": "asks in French",
        "turns": [
            {"query": "quand êtes-vous ouverts", "language": "fr", "expect": {"answeredIn": "fr"}}
        ],
    }
    await api.ok("POST", base, french)
    await runs_after_edits(api)
    run = await api.ok("POST", f"{base}/run", {})
    assert [(r["name"], r["passed"]) for r in run["results"]] == [
        ("asks in German, then in English", True),
        ("asks in German, then in English", True),
        ("asks in French", False),
    ]
    assert (run["results"][2]["expected"], run["results"][2]["got"]) == (
        {"answeredIn": "fr"},
        {"answeredIn": "en"},
    ), "the French variant has no responses: it answers in the default language"

    italian = {
        "name": "asks in Italian",
        "turns": [{"query": "quando aprite", "language": "it", "expect": {"answeredIn": "es"}}],
    }
    for method, path in (("POST", base), ("PUT", f"{base}/{test_id}")):
        reply = await api.call(method, path, italian)
        assert reply.error == (400, "validation_error"), reply.body
        assert reply.body["status"]["errors"]["turns"]["0"] == {
            "language": ["'it' is not a language of this story: it speaks en, de, fr."],
            "expect": {
                "answeredIn": ["'es' is not a language of this story: it speaks en, de, fr."]
            },
        }
    klingon = {"name": "k", "turns": [{"query": "x", "language": "klingon", "expect": {}}]}
    assert (await api.post(base, klingon)).error == (400, "validation_error")
    assert len(await api.ok("GET", base)) == 3
    assert await api.ok("GET", f"{base}/{test_id}") == {"id": test_id, **LANGUAGES_TEST}

    await api.ok(
        "PUT",
        f"/stories/{story_id}",
        {"name": "Shop", "description": "", "settings": {"languages": ["fr"]}},
    )
    await runs_after_edits(api)
    last = await api.ok("GET", f"/stories/{story_id}/tests/last")
    first = last["results"][0]
    assert (first["passed"], first["broken"], first["turn"]) == (False, True, 0)
    assert (first["expected"], first["got"]) == ({"language": "de"}, {"language": "en"})


async def test_a_story_of_one_language_takes_its_default_as_a_turn_s_language(api: Api) -> None:
    story_id = await pizza_story(api)
    english = {
        "name": "in English",
        "turns": [
            {
                "query": "a pizza please",
                "language": "en",
                "expect": {"interaction": "Order", "answeredIn": "en"},
            }
        ],
    }
    await api.ok("POST", f"/stories/{story_id}/tests", english)
    await runs_after_edits(api)
    run = await api.ok("POST", f"/stories/{story_id}/tests/run", {})
    assert (run["passed"], run["failed"]) == (1, 0)
    german = {**english, "turns": [{**english["turns"][0], "language": "de"}]}
    reply = await api.post(f"/stories/{story_id}/tests", german)
    assert reply.error == (400, "validation_error")
    assert "it speaks en." in reply.details


async def test_tests_in_several_languages_travel_in_the_story_document(api: Api) -> None:
    story_id = await shop_of_three_languages(api)
    await api.ok("POST", f"/stories/{story_id}/tests", LANGUAGES_TEST)
    document = await api.ok("GET", f"/stories/{story_id}/export")
    assert document["tests"] == [LANGUAGES_TEST]
    new_id = await imported_unchanged(api, document)
    run = await api.ok("POST", f"/stories/{new_id}/tests/run", {})
    assert (run["passed"], run["failed"]) == (1, 0)

    headers = {"Authorization": f"Bearer {api.token}"}
    async with api.client.get(f"/stories/{new_id}/export?format=yaml", headers=headers) as reply:
        as_yaml = await reply.read()
    again = await api.send_raw("/stories/import", as_yaml, "application/yaml")
    assert again.status == 200, again.body
    assert await api.ok("GET", f"/stories/{again.body['id']}/export") == document

    fewer = {**document, "settings": {**document["settings"], "languages": ["fr"]}}
    reply = await api.call("POST", "/stories/import", fewer)
    assert reply.error == (400, "validation_error")
    assert reply.body["status"]["errors"]["tests"]["0"]["turns"]["0"] == {
        "language": ["'de' is not a language of this story: it speaks en, fr."],
        "expect": {"answeredIn": ["'de' is not a language of this story: it speaks en, fr."]},
    }
