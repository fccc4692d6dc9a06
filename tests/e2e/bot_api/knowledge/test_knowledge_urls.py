"""Documents fetched from a URL (docs/knowledge.md): read by the page's media type,
redirects followed and each checked by the address guard, fetched again on request and
written again only when the content changed."""

from typing import Any

import pytest
from aiohttp import web
from aiohttp.test_utils import TestServer

from support.api import Tenant

PAGE = """<html lang="en"><head><title>Returns policy</title></head><body>
<nav><a href="/">Home</a> <a href="/shop">Shop</a></nav>
<article><h1>Returns</h1>
<p>Goods bought in the shop may be returned within {days} days with their receipt, and the
refund is paid to the card the goods were bought with. This is the returns policy.</p>
</article><footer>Copyright shop</footer></body></html>"""


class Site:
    def __init__(self) -> None:
        self.days = "thirty"
        self.fetches = 0

    async def page(self, request: web.Request) -> web.Response:
        self.fetches += 1
        return web.Response(text=PAGE.format(days=self.days), content_type="text/html")

    async def moved(self, request: web.Request) -> web.Response:
        raise web.HTTPFound("/policy")

    async def loop(self, request: web.Request) -> web.Response:
        raise web.HTTPFound("/loop")

    async def picture(self, request: web.Request) -> web.Response:
        return web.Response(body=b"GIF89a", content_type="image/gif")


@pytest.fixture
async def site(aiohttp_server: Any) -> tuple[Site, TestServer]:
    site = Site()
    app = web.Application()
    app.router.add_get("/policy", site.page)
    app.router.add_get("/moved", site.moved)
    app.router.add_get("/loop", site.loop)
    app.router.add_get("/picture", site.picture)
    return site, await aiohttp_server(app)


async def test_a_page_is_fetched_read_without_its_navigation_and_fetched_again(
    alice: Tenant, site: tuple[Site, TestServer]
) -> None:
    recorder, server = site
    api = alice.developer
    story_id = await api.create_story("Shop")
    base = f"/stories/{story_id}/knowledge"
    url = str(server.make_url("/moved"))
    document_id = (await api.ok("POST", base, {"title": "Policy", "url": url}))["id"]
    document = await api.ok("GET", f"{base}/{document_id}")
    assert document["url"] == url and document["mediaType"] == "text/html"
    passages = await api.ok("GET", f"{base}/{document_id}/passages")
    text = " ".join(p["text"] for p in passages)
    assert "thirty days" in text and "Home" not in text and "Copyright" not in text
    query = {"sessionId": "s", "storyId": story_id, "query": "how long can goods be returned"}
    answer = (await api.ok("POST", "/query", query))["result"]["knowledge"]
    assert answer["url"] == url and "thirty" in answer["answer"]

    unchanged = await api.ok("POST", f"{base}/{document_id}/fetch")
    assert unchanged["changed"] is False
    assert (await api.ok("GET", f"{base}/{document_id}"))["revision"] == document["revision"]
    recorder.days = "fourteen"
    assert (await api.ok("POST", f"{base}/{document_id}/fetch"))["changed"] is True
    answer = (await api.ok("POST", "/query", query))["result"]["knowledge"]
    assert "fourteen" in answer["answer"]
    assert recorder.fetches == 3


async def test_bad_urls_are_refused_with_their_reason(
    alice: Tenant, site: tuple[Site, TestServer]
) -> None:
    _, server = site
    api = alice.developer
    story_id = await api.create_story("Shop")
    base = f"/stories/{story_id}/knowledge"
    looping = await api.post(base, {"title": "x", "url": str(server.make_url("/loop"))})
    assert looping.error == (400, "validation_error") and "redirects" in looping.details
    picture = await api.post(base, {"title": "x", "url": str(server.make_url("/picture"))})
    assert picture.status == 415
    metadata = await api.post(base, {"title": "x", "url": "http://169.254.169.254/latest"})
    assert metadata.error == (400, "validation_error") and "refused" in metadata.details
    assert await api.ok("GET", base) == []
