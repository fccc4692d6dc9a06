"""A walk over bot-api's audited routes: each successful call leaves exactly one new
record, of the kind its route declares (docs/teams.md "Audit log"). A route the walk
does not take is listed with why, so a new audited route joins one or the other."""

from typing import Any

from aiohttp.test_utils import TestClient

from shared.endpoints import EndpointSpec
from support.api import Api, Reply, Tenant

NOT_WALKED = {
    ("POST", "/stories/{story}/inbox/{cluster}/assign"): "needs clustered misses",
    ("POST", "/stories/{story}/inbox/{cluster}/interaction"): "needs clustered misses",
    ("POST", "/stories/{story}/inbox/{cluster}/ignore"): "needs clustered misses",
    ("POST", "/stories/{story}/inbox/reopen"): "needs clustered misses",
    ("POST", "/stories/{story}/handoffs/{session}/messages"): "needs an open handoff",
    ("POST", "/stories/{story}/handoffs/{session}/take-over"): "needs an open handoff",
    ("DELETE", "/stories/{story}/handoffs/{session}"): "needs an open handoff",
    ("POST", "/stories/{story}/knowledge/{document}/fetch"): "needs a web page to fetch",
}
"""Each is declared like the others (test_audited_routes.py) and recorded by the same
wrapper; what they need is built by their own features' tests."""

TEST = {"name": "hello", "turns": [{"query": "hello", "expect": {"interaction": "Welcome"}}]}
SMALL = {
    "format": "parley.story",
    "version": 1,
    "name": "Small",
    "interactions": [{"key": "hours", "name": "Hours", "userSays": ["when are you open"]}],
}


class Walk:
    def __init__(self, api: Api, app_routes: dict[tuple[str, str], str]) -> None:
        self.api = api
        self.declared = app_routes
        self.walked: set[tuple[str, str]] = set()

    async def records(self) -> list[dict[str, Any]]:
        return list((await self.api.ok("GET", "/audit?limit=200"))["items"])

    async def raw(self, method: str, path: str, data: bytes) -> Reply:
        headers = {"Content-Type": "text/markdown", "Authorization": f"Bearer {self.api.token}"}
        async with self.api.client.request(method, path, data=data, headers=headers) as answer:
            return Reply(answer.status, await answer.json(), answer.headers)

    async def call(self, method: str, template: str, path: str, body: Any = None) -> Reply:
        before = await self.records()
        if isinstance(body, bytes):
            reply = await self.raw(method, path, body)
        elif body is None:
            reply = await self.api.call(method, path)
        else:
            reply = await self.api.call(method, path, body)
        assert reply.status in (200, 201), (method, path, reply.body)
        after = await self.records()
        assert len(after) == len(before) + 1, (method, template)
        assert after[0]["kind"].split(".")[0] == self.declared[method, template].split(".")[0]
        assert after[0]["confirmed"]
        self.walked.add((method, template))
        return reply


def audited_routes(client: TestClient) -> dict[tuple[str, str], str]:
    found = {}
    for route in client.app.router.routes():
        spec = getattr(route.handler, "__endpoint__", None)
        if isinstance(spec, EndpointSpec) and spec.audit is not None:
            assert route.resource is not None
            found[route.method, route.resource.canonical] = spec.audit.kind
    return found


async def test_every_audited_route_walked_leaves_exactly_one_record(
    alice: Tenant, bot_api: TestClient
) -> None:
    walk = Walk(alice.developer, audited_routes(bot_api))
    call = walk.call
    story = (await call("POST", "/stories", "/stories", {"name": "Pizza", "description": ""})).body
    s = story["id"]
    base = f"/stories/{s}"
    await call("PUT", "/stories/{story}", base, {"name": "Pasta", "description": ""})
    order = (
        await call(
            "POST",
            "/stories/{story}/interactions",
            f"{base}/interactions",
            {"name": "Order", "userSays": ["a pizza"]},
        )
    ).body["id"]
    child = (
        await call(
            "POST",
            "/stories/{story}/interactions/{id}",
            f"{base}/interactions/{order}",
            {"name": "Size"},
        )
    ).body["id"]
    await call(
        "PUT",
        "/stories/{story}/interactions/{id}",
        f"{base}/interactions/{order}",
        {"name": "Order", "userSays": ["a pizza please"]},
    )
    contexts = [{"id": order, "root": True, "references": [], "contextOut": [child]}]
    await call("PUT", "/stories/{story}/contexts", f"{base}/contexts", contexts)
    await call("DELETE", "/stories/{story}/interactions", f"{base}/interactions", [child])
    entity = {"name": "size", "entries": [{"value": "large", "synonyms": [{"value": "large"}]}]}
    e = (await call("POST", "/entities", "/entities", entity)).body["id"]
    await call("PUT", "/entities/{id}", f"/entities/{e}", {**entity, "name": "sizes"})
    await call("DELETE", "/entities/{id}", f"/entities/{e}")
    t = (await call("POST", "/stories/{story}/tests", f"{base}/tests", TEST)).body["id"]
    await call("PUT", "/stories/{story}/tests/{test}", f"{base}/tests/{t}", TEST)
    await call("POST", "/stories/{story}/tests/run", f"{base}/tests/run", {})
    await call("DELETE", "/stories/{story}/tests/{test}", f"{base}/tests/{t}")
    knowledge = "{story}/knowledge"
    d = (
        await call(
            "POST",
            "/stories/" + knowledge,
            f"{base}/knowledge?title=Guide",
            b"# Hours\n\nWe open at nine.",
        )
    ).body["id"]
    await call(
        "PUT",
        "/stories/" + knowledge + "/{document}",
        f"{base}/knowledge/{d}?title=G",
        b"# Hours\n\nWe open at ten.",
    )
    await call("DELETE", "/stories/" + knowledge + "/{document}", f"{base}/knowledge/{d}")
    v = (await call("POST", "/stories/{story}/versions", f"{base}/versions", {})).body["id"]
    version = "/stories/{story}/versions/{version}"
    await call("POST", version + "/restore", f"{base}/versions/{v}/restore")
    await call("DELETE", version, f"{base}/versions/{v}")
    said = {"storyId": s, "sessionId": "visitor-1", "query": "hello"}
    await alice.public.ok("POST", "/query", said)
    await call(
        "DELETE", "/stories/{story}/conversations/{session}", f"{base}/conversations/visitor-1"
    )
    await call("POST", "/stories/import", "/stories/import", SMALL)
    await call("DELETE", "/stories/{story}", base)
    person = {"email": "ana@example.com", "name": "Ana", "role": "editor"}
    m = (await call("POST", "/account/members", "/account/members", person)).body["id"]
    one = "/account/members/{id}"
    await call("PUT", one, f"/account/members/{m}", {**person, "role": "viewer"})
    tokens = one + "/tokens"
    made = await call("POST", tokens, f"/account/members/{m}/tokens", {"name": "ci"})
    token = made.body["id"]
    await call("DELETE", tokens + "/{token}", f"/account/members/{m}/tokens/{token}")
    await call("DELETE", one, f"/account/members/{m}")
    summaries = " ".join(r["summary"] for r in await walk.records())
    assert made.body["token"] not in summaries, "a token is never in the log"

    assert walk.walked | set(NOT_WALKED) == set(walk.declared)
    assert not walk.walked & set(NOT_WALKED)
