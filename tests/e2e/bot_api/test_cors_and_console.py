"""CORS of bot-api (docs/console.md "CORS") and the headers of the console's pages."""

from aiohttp.test_utils import TestClient

OTHER = "https://shop.example"
PREFLIGHT = {"Origin": OTHER, "Access-Control-Request-Method": "POST",
             "Access-Control-Request-Headers": "authorization, content-type"}  # fmt: skip


async def test_query_answers_a_preflight_from_any_origin_by_default(bot_api: TestClient) -> None:
    async with bot_api.options("/query", headers=PREFLIGHT) as response:
        assert response.status == 204
        assert response.headers["Access-Control-Allow-Origin"] == OTHER
        assert "Authorization" in response.headers["Access-Control-Allow-Headers"]
        assert response.headers["Access-Control-Allow-Methods"] == "POST"


async def test_a_query_error_is_readable_from_another_origin(bot_api: TestClient) -> None:
    async with bot_api.post("/query", json={}, headers={"Origin": OTHER}) as response:
        assert response.status == 401
        assert response.headers["Access-Control-Allow-Origin"] == OTHER
        # the widget on another origin waits out a 429 by its Retry-After
        assert "Retry-After" in response.headers["Access-Control-Expose-Headers"]


async def test_the_management_api_is_closed_to_other_origins(bot_api: TestClient) -> None:
    async with bot_api.options("/stories", headers=PREFLIGHT) as response:
        assert response.status == 403
        assert "Access-Control-Allow-Origin" not in response.headers
    async with bot_api.get("/stories", headers={"Origin": OTHER}) as response:
        assert "Access-Control-Allow-Origin" not in response.headers


async def test_console_pages_carry_a_content_security_policy(bot_api: TestClient) -> None:
    for path in ("/console/", "/console/stories", "/console/entities", "/console/import",
                 f"/console/stories/{'a' * 24}", f"/console/stories/{'a' * 24}/channels",
                 f"/console/stories/{'a' * 24}/knowledge",
                 f"/chat/{'a' * 24}"):  # fmt: skip
        async with bot_api.get(path) as response:
            assert response.status == 200, path
            policy = response.headers["Content-Security-Policy"]
            assert "script-src 'self'" in policy and "default-src 'none'" in policy, path


async def test_the_widget_script_holds_the_fulfillment_renderer(bot_api: TestClient) -> None:
    async with bot_api.get("/widget.js") as response:
        assert response.headers["Content-Type"].startswith("text/javascript")
        script = await response.text()
    assert "window.ParleyFulfillment" in script and "default_source" in script


async def test_the_demo_page_gives_the_widget_the_language_asked_for(bot_api: TestClient) -> None:
    demo = f"/chat/{'a' * 24}?key=ppk_k"
    async with bot_api.get(demo) as response:
        assert "data-language" not in await response.text()  # the widget takes the browser's
    async with bot_api.get(demo, params={"language": "de"}) as response:
        assert 'data-key="ppk_k" data-language="de"></script>' in await response.text()
    async with bot_api.get(demo, params={"language": '"><script>alert(1)</script>'}) as response:
        page = await response.text()
    assert "<script>alert" not in page
    assert 'data-language="&#34;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"' in page
