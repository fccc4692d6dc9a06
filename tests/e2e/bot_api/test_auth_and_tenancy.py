"""Who may call the management API, and what one account can see of another.

docs/api.md "Accounts and tokens": every management route takes the account's developer
token (401 without a valid one, 403 for the public API key), and a token of account A
never reads, changes or learns the existence of a record of account B: such a record
answers 404, exactly as a missing one, and B's data stays as it was. docs/api.md
"Errors": every response carries an `X-Request-Id`.
"""

import re
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from aiohttp.test_utils import TestClient
from bson import ObjectId

from support.api import Api, Reply, Tenant


@dataclass(frozen=True)
class Records:
    """The ids a route template names: a story, an interaction in it, an entity."""

    story: str
    interaction: str
    entity: str

    @classmethod
    def missing(cls) -> "Records":
        return cls(str(ObjectId()), str(uuid.uuid4()), str(ObjectId()))

    def mask(self, text: str) -> str:
        """`text` with these ids replaced by their role, to compare error details."""
        for role, value in vars(self).items():
            text = text.replace(value, f"<{role}>")
        return text


def _entity(name: str) -> dict[str, Any]:
    return {"name": name, "entries": [{"value": "Paris", "synonyms": [{"value": "Paris"}]}]}


@dataclass(frozen=True)
class Route:
    method: str
    path: str
    body: Callable[[Records], Any] | None = None
    names_a_record: bool = True

    def __str__(self) -> str:
        return f"{self.method} {self.path}"

    async def call(
        self, api: Api, records: Records, headers: dict[str, str] | None = None
    ) -> Reply:
        path = self.path.format(**vars(records))
        if self.body is None:
            return await api.call(self.method, path, headers=headers)
        return await api.call(self.method, path, self.body(records), headers=headers)


def _contexts(records: Records) -> list[dict[str, Any]]:
    return [{"id": records.interaction, "root": True, "references": [], "contextOut": []}]


# Every management route, each with a body its owner's call succeeds with.
ROUTES = [
    Route("GET", "/stories", names_a_record=False),
    Route("POST", "/stories", lambda r: {"name": "New", "description": ""}, names_a_record=False),
    Route("GET", "/stories/{story}"),
    Route("PUT", "/stories/{story}", lambda r: {"name": "Hijacked", "description": "x"}),
    Route("DELETE", "/stories/{story}"),
    Route("GET", "/stories/{story}/interactions"),
    Route("POST", "/stories/{story}/interactions", lambda r: {"name": "Injected"}),
    Route("GET", "/stories/{story}/interactions/{interaction}"),
    Route("PUT", "/stories/{story}/interactions/{interaction}", lambda r: {"name": "Hijacked"}),
    Route("POST", "/stories/{story}/interactions/{interaction}", lambda r: {"name": "Child"}),
    Route("DELETE", "/stories/{story}/interactions", lambda r: [r.interaction]),
    Route("PUT", "/stories/{story}/contexts", _contexts),
    Route("GET", "/entities", names_a_record=False),
    Route("POST", "/entities", lambda r: _entity("created"), names_a_record=False),
    Route("GET", "/entities/{entity}"),
    Route("PUT", "/entities/{entity}", lambda r: _entity("hijacked")),
    Route("DELETE", "/entities/{entity}"),
]
RECORD_ROUTES = [route for route in ROUTES if route.names_a_record]
# Routes that name an interaction, in the path or in the body.
INTERACTION_ROUTES = [
    route
    for route in RECORD_ROUTES
    if "{interaction}" in route.path
    or (route.path.endswith(("/interactions", "/contexts")) and route.method in ("DELETE", "PUT"))
]

every_route = pytest.mark.parametrize("route", ROUTES, ids=str)
every_record_route = pytest.mark.parametrize("route", RECORD_ROUTES, ids=str)
every_interaction_route = pytest.mark.parametrize("route", INTERACTION_ROUTES, ids=str)


async def seed(api: Api, entity: str = "city", use_entity: bool = False) -> Records:
    """An entity, and a story holding a root interaction (the one routes name) and a
    second root interaction that owns a child."""
    entity_id = await api.create_entity(entity, "Paris")
    story_id = await api.create_story("Pizza")
    parameters = [{"alias": "town", "entity": entity, "prompts": []}] if use_entity else []
    order = await api.create_interaction(
        story_id, "Order", userSays=["I want a pizza"], parameters=parameters
    )
    drinks = await api.create_interaction(story_id, "Drinks", userSays=["a drink"])
    await api.create_interaction(story_id, "Size", parent=drinks, userSays=["large"])
    return Records(story_id, order, entity_id)


async def snapshot(api: Api, records: Records) -> dict[str, Any]:
    """Everything an account can read about its records."""
    return {
        "stories": await api.ok("GET", "/stories"),
        "story": await api.ok("GET", f"/stories/{records.story}"),
        "interactions": await api.ok("GET", f"/stories/{records.story}/interactions"),
        "entities": await api.ok("GET", "/entities"),
    }


@pytest.fixture
async def alices(alice: Tenant) -> Records:
    return await seed(alice.developer)


@pytest.fixture
async def bobs(bob: Tenant) -> Records:
    """Bob's records; his entity is in use, so a leaky check would answer 409, not 404."""
    return await seed(bob.developer, use_entity=True)


# -- Rule 0: the route table is honest: the owner's own call succeeds on every route.


@every_route
async def test_the_owner_with_the_developer_token_succeeds_on(
    route: Route, alice: Tenant, alices: Records
) -> None:
    reply = await route.call(alice.developer, alices)
    assert reply.status == 200, (reply.status, reply.body)
    if route.method != "GET":
        assert reply.body["status"] == {"code": 200, "errorType": "success"}


# -- Rule 1: no valid developer token: 401, before anything else happens.

BAD_AUTHORIZATION = {
    "missing header": lambda token: None,
    "Basic scheme": lambda token: "Basic abc",
    "Token scheme with a valid token": lambda token: f"Token {token}",
    "the token with no scheme": lambda token: token,
    "Bearer with nothing after it": lambda token: "Bearer",
    "Bearer and blanks": lambda token: "Bearer    ",
    "unknown Bearer token": lambda token: "Bearer pdt_" + "x" * 43,
    "developer token with one character changed": lambda token: f"Bearer {token[:-1]}!",
}


@every_route
@pytest.mark.parametrize("authorization", list(BAD_AUTHORIZATION), ids=str)
async def test_a_request_without_a_valid_developer_token_is_unauthorized(
    route: Route, authorization: str, alice: Tenant, alices: Records
) -> None:
    before = await snapshot(alice.developer, alices)
    header = BAD_AUTHORIZATION[authorization](alice.tokens.developer_token)
    anonymous = alice.developer.as_token(None)
    reply = await route.call(
        anonymous, alices, None if header is None else {"Authorization": header}
    )
    assert reply.error == (401, "unauthorized"), reply.body
    assert reply.body["status"]["code"] == 401
    assert await snapshot(alice.developer, alices) == before


async def test_authentication_comes_before_reading_the_body(alice: Tenant) -> None:
    anonymous = alice.developer.as_token(None)
    async with anonymous.client.post(
        "/stories", data="{not json", headers={"Content-Type": "application/json"}
    ) as response:
        assert response.status == 401
        assert (await response.json())["status"]["errorType"] == "unauthorized"
    reply = await alice.public.post("/stories", {"name": ""})
    assert reply.error == (403, "forbidden")


async def test_the_bearer_scheme_is_case_insensitive(alice: Tenant, alices: Records) -> None:
    headers = {"Authorization": f"bearer {alice.tokens.developer_token}"}
    reply = await alice.developer.call("GET", f"/stories/{alices.story}", headers=headers)
    assert reply.status == 200
    assert reply.body["id"] == alices.story


# -- Rule 2: the public API key is for /query only.


@every_route
async def test_the_public_api_key_is_forbidden_on(
    route: Route, alice: Tenant, alices: Records
) -> None:
    before = await snapshot(alice.developer, alices)
    reply = await route.call(alice.public, alices)
    assert reply.error == (403, "forbidden"), reply.body
    assert reply.body["status"]["code"] == 403
    assert await snapshot(alice.developer, alices) == before


# -- Rule 3: another account's records do not exist for you.


@every_record_route
async def test_another_accounts_record_answers_exactly_like_a_missing_one(
    route: Route, alice: Tenant, bob: Tenant, alices: Records, bobs: Records
) -> None:
    before = await snapshot(bob.developer, bobs)
    mine_before = await snapshot(alice.developer, alices)

    theirs = await route.call(alice.developer, bobs)
    missing_records = Records.missing()
    missing = await route.call(alice.developer, missing_records)

    assert theirs.error == (404, "not_found"), theirs.body
    assert missing.error == (404, "not_found"), missing.body
    assert bobs.mask(theirs.details) == missing_records.mask(missing.details)
    assert set(theirs.body["status"]) == set(missing.body["status"])
    assert await snapshot(bob.developer, bobs) == before
    assert await snapshot(alice.developer, alices) == mine_before


@every_interaction_route
async def test_another_accounts_interaction_in_your_own_story_is_not_found(
    route: Route, alice: Tenant, bob: Tenant, alices: Records, bobs: Records
) -> None:
    before = await snapshot(bob.developer, bobs)
    mine_before = await snapshot(alice.developer, alices)

    borrowed = Records(alices.story, bobs.interaction, alices.entity)
    unknown = Records(alices.story, str(uuid.uuid4()), alices.entity)
    theirs = await route.call(alice.developer, borrowed)
    missing = await route.call(alice.developer, unknown)

    assert theirs.error == (404, "not_found"), theirs.body
    assert borrowed.mask(theirs.details) == unknown.mask(missing.details)
    assert missing.error == theirs.error
    assert await snapshot(bob.developer, bobs) == before
    assert await snapshot(alice.developer, alices) == mine_before


@pytest.mark.parametrize("field", ["contextOut", "references"])
async def test_another_accounts_interaction_in_your_contexts_is_rejected_like_an_unknown_id(
    field: str, alice: Tenant, bob: Tenant, alices: Records, bobs: Records
) -> None:
    before = await snapshot(bob.developer, bobs)
    mine_before = await snapshot(alice.developer, alices)

    async def link(target: str) -> Reply:
        item = {"id": alices.interaction, "root": True, "references": [], "contextOut": [target]}
        if field == "references":
            item["references"] = [target]
        return await alice.developer.put(f"/stories/{alices.story}/contexts", [item])

    unknown_id = str(uuid.uuid4())
    theirs, missing = await link(bobs.interaction), await link(unknown_id)

    assert 400 <= theirs.status < 500, theirs.body
    assert theirs.error == missing.error
    assert theirs.details.replace(bobs.interaction, "<id>") == missing.details.replace(
        unknown_id, "<id>"
    )
    assert await snapshot(bob.developer, bobs) == before
    assert await snapshot(alice.developer, alices) == mine_before


async def test_another_accounts_interaction_cannot_enter_your_story_order(
    alice: Tenant, bob: Tenant, alices: Records, bobs: Records
) -> None:
    before = await snapshot(bob.developer, bobs)
    mine_before = await snapshot(alice.developer, alices)
    order = mine_before["story"]["order"]

    async def append(target: str) -> Reply:
        body = {"name": "Pizza", "description": "", "order": [*order, target]}
        return await alice.developer.put(f"/stories/{alices.story}", body)

    unknown_id = str(uuid.uuid4())
    theirs, missing = await append(bobs.interaction), await append(unknown_id)

    assert 400 <= theirs.status < 500 and theirs.status != 409, theirs.body
    assert theirs.error == missing.error
    assert theirs.details.replace(bobs.interaction, "<id>") == missing.details.replace(
        unknown_id, "<id>"
    )
    assert await snapshot(alice.developer, alices) == mine_before
    assert await snapshot(bob.developer, bobs) == before


async def test_each_account_lists_only_its_own_stories_and_entities(
    alice: Tenant, bob: Tenant, alices: Records, bobs: Records
) -> None:
    for tenant, mine, theirs in ((alice, alices, bobs), (bob, bobs, alices)):
        stories = await tenant.developer.ok("GET", "/stories")
        entities = await tenant.developer.ok("GET", "/entities")
        assert [story["id"] for story in stories] == [mine.story]
        assert [entity["id"] for entity in entities] == [mine.entity]
        interactions = await tenant.developer.ok("GET", f"/stories/{mine.story}/interactions")
        ids = {interaction["id"] for interaction in interactions}
        assert mine.interaction in ids and theirs.interaction not in ids


@pytest.mark.parametrize("where", ["new root", "new child", "update"])
async def test_a_parameter_cannot_name_an_entity_of_another_account(
    where: str, alice: Tenant, bob: Tenant, alices: Records, bobs: Records
) -> None:
    await bob.developer.create_entity("pizzeria", "Luigi")
    mine_before = await snapshot(alice.developer, alices)
    body = {"name": "Where", "parameters": [{"alias": "shop", "entity": "pizzeria", "prompts": []}]}
    path = {
        "new root": f"/stories/{alices.story}/interactions",
        "new child": f"/stories/{alices.story}/interactions/{alices.interaction}",
        "update": f"/stories/{alices.story}/interactions/{alices.interaction}",
    }[where]
    reply = await alice.developer.call("PUT" if where == "update" else "POST", path, body)
    assert reply.error == (400, "validation_error"), reply.body
    assert "unknown entity" in reply.details and "pizzeria" in reply.details
    assert await snapshot(alice.developer, alices) == mine_before


async def test_entity_names_are_unique_per_account_only(alice: Tenant, bob: Tenant) -> None:
    mine = await alice.developer.create_entity("city", "Paris")
    theirs = await bob.developer.create_entity("city", "Rome")
    assert mine != theirs

    again = await alice.developer.post("/entities", _entity("city"))
    assert again.error == (409, "conflict"), again.body
    other = await alice.developer.create_entity("town", "Lyon")
    renamed = await alice.developer.put(f"/entities/{other}", _entity("city"))
    assert renamed.error == (409, "conflict"), renamed.body

    assert [e["name"] for e in await alice.developer.ok("GET", "/entities")] == ["city", "town"]
    bobs_city = await bob.developer.ok("GET", f"/entities/{theirs}")
    assert bobs_city["entries"][0]["value"] == "Rome"


async def test_another_accounts_use_of_an_entity_name_neither_blocks_nor_shows(
    alice: Tenant, bob: Tenant, alices: Records, bobs: Records
) -> None:
    """Bob's interaction uses his `city`; Alice's unused `city` is hers to change."""
    before = await snapshot(bob.developer, bobs)
    renamed = await alice.developer.put(f"/entities/{alices.entity}", _entity("town"))
    assert renamed.status == 200, renamed.body
    await alice.developer.ok("PUT", f"/entities/{alices.entity}", _entity("city"))
    await alice.developer.ok("DELETE", f"/entities/{alices.entity}")
    assert await snapshot(bob.developer, bobs) == before

    # And when her own interaction uses one, the conflict names only her interactions.
    entity = await alice.developer.create_entity("city", "Paris")
    parameter = {"alias": "town", "entity": "city", "prompts": []}
    used_by = await alice.developer.create_interaction(
        alices.story, "Deliver", parameters=[parameter]
    )
    refused = await alice.developer.delete(f"/entities/{entity}")
    assert refused.error == (409, "conflict"), refused.body
    assert bobs.interaction not in str(refused.body)
    assert used_by in refused.details


# -- Rule 4: every response carries a request id.

VALID_REQUEST_ID = re.compile(r"^[A-Za-z0-9._-]{1,64}$")

RESPONSES: dict[str, Callable[[Tenant, Records], tuple[str, str, dict[str, Any]]]] = {
    "200 success": lambda t, r: ("GET", f"/stories/{r.story}", {}),
    "200 create": lambda t, r: ("POST", "/stories", {"json": {"name": "x", "description": ""}}),
    "401 no token": lambda t, r: ("GET", "/stories", {"auth": None}),
    "403 public key": lambda t, r: ("GET", "/stories", {"auth": t.tokens.public_key}),
    "404 missing story": lambda t, r: ("GET", f"/stories/{ObjectId()}", {}),
    "404 unknown route": lambda t, r: ("GET", "/nowhere", {}),
    "405 wrong method": lambda t, r: ("PATCH", "/stories", {}),
    "400 malformed JSON": lambda t, r: ("POST", "/stories", {"data": "{"}),
    "400 validation error": lambda t, r: ("POST", "/stories", {"json": {"name": ""}}),
    "409 conflict": lambda t, r: ("POST", "/entities", {"json": _entity("city")}),
    "415 wrong content type": lambda t, r: ("POST", "/stories", {"text": "name=x"}),
}


async def _raw(
    client: TestClient, tenant: Tenant, records: Records, kind: str, request_id: str | None
) -> tuple[int, str | None]:
    method, path, options = RESPONSES[kind](tenant, records)
    token = options.get("auth", tenant.tokens.developer_token)
    headers = {} if token is None else {"Authorization": f"Bearer {token}"}
    if request_id is not None:
        headers["X-Request-Id"] = request_id
    kwargs: dict[str, Any] = {"headers": headers}
    if "json" in options:
        kwargs["json"] = options["json"]
    elif "data" in options:
        kwargs["data"] = options["data"]
        headers["Content-Type"] = "application/json"
    elif "text" in options:
        kwargs["data"] = options["text"]
        headers["Content-Type"] = "text/plain"
    async with client.request(method, path, **kwargs) as response:
        await response.read()
        return response.status, response.headers.get("X-Request-Id")


every_kind_of_response = pytest.mark.parametrize("kind", list(RESPONSES), ids=str)


@every_kind_of_response
async def test_every_response_carries_a_request_id(
    kind: str, bot_api: TestClient, alice: Tenant, alices: Records
) -> None:
    status, request_id = await _raw(bot_api, alice, alices, kind, None)
    assert status == int(kind.split()[0])
    assert request_id is not None and VALID_REQUEST_ID.match(request_id), request_id
    _, another = await _raw(bot_api, alice, alices, kind, None)
    assert another != request_id


@every_kind_of_response
@pytest.mark.parametrize("sent", ["abc", "Req.42_x-Y", "7" * 64], ids=["short", "mixed", "64"])
async def test_a_valid_incoming_request_id_is_echoed(
    kind: str, sent: str, bot_api: TestClient, alice: Tenant, alices: Records
) -> None:
    status, request_id = await _raw(bot_api, alice, alices, kind, sent)
    assert status == int(kind.split()[0])
    assert request_id == sent


@every_kind_of_response
@pytest.mark.parametrize(
    "sent", ["", "x" * 65, "has space", "semi;colon", "a/b", "<script>"], ids=repr
)
async def test_a_junk_incoming_request_id_is_replaced(
    kind: str, sent: str, bot_api: TestClient, alice: Tenant, alices: Records
) -> None:
    status, request_id = await _raw(bot_api, alice, alices, kind, sent)
    assert status == int(kind.split()[0])
    assert request_id is not None and request_id != sent
    assert VALID_REQUEST_ID.match(request_id), request_id
