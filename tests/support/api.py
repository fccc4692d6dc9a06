"""A thin client for the HTTP API, so tests read like its documentation."""

import json
from dataclasses import dataclass
from typing import Any

from aiohttp.test_utils import TestClient
from multidict import CIMultiDictProxy

from shared.auth import IssuedTokens

_NO_BODY = object()


@dataclass
class Reply:
    status: int
    body: Any
    headers: CIMultiDictProxy[str]

    @property
    def error(self) -> tuple[int, str]:
        """(HTTP status, errorType or type) of an error reply."""
        status = self.body["status"]
        return self.status, status.get("errorType", status.get("type"))

    @property
    def details(self) -> str:
        return str(self.body["status"].get("errorDetails", ""))


class Api:
    def __init__(self, client: TestClient, token: str | None) -> None:
        self.client = client
        self.token = token

    def as_token(self, token: str | None) -> "Api":
        return Api(self.client, token)

    def with_client(self, client: TestClient) -> "Api":
        """The same token at another app: another replica of the service."""
        return Api(client, self.token)

    async def call(
        self, method: str, path: str, body: Any = _NO_BODY, headers: dict[str, str] | None = None
    ) -> Reply:
        sent = dict(headers or {})
        if self.token is not None:
            sent.setdefault("Authorization", f"Bearer {self.token}")
        kwargs: dict[str, Any] = {"headers": sent}
        if body is not _NO_BODY:
            kwargs["json"] = body
        async with self.client.request(method, path, **kwargs) as response:
            text = await response.text()
            return Reply(response.status, json.loads(text) if text else None, response.headers)

    async def send_raw(self, path: str, data: bytes, content_type: str) -> Reply:
        """POST bytes as they are, for bodies a JSON encoder would never produce."""
        headers = {"Content-Type": content_type}
        if self.token is not None:
            headers["Authorization"] = f"Bearer {self.token}"
        async with self.client.post(path, data=data, headers=headers) as response:
            return Reply(response.status, await response.json(), response.headers)

    async def get(self, path: str) -> Reply:
        return await self.call("GET", path)

    async def post(self, path: str, body: Any) -> Reply:
        return await self.call("POST", path, body)

    async def put(self, path: str, body: Any) -> Reply:
        return await self.call("PUT", path, body)

    async def delete(self, path: str, body: Any = _NO_BODY) -> Reply:
        return await self.call("DELETE", path, body)

    async def ok(self, method: str, path: str, body: Any = _NO_BODY) -> Any:
        """Call and insist on success; return the body."""
        reply = await self.call(method, path, body)
        assert reply.status == 200, (reply.status, reply.body)
        return reply.body

    async def create_story(self, name: str = "Pizza", **fields: Any) -> str:
        body = {"name": name, "description": fields.pop("description", ""), **fields}
        return str((await self.ok("POST", "/stories", body))["id"])

    async def create_entity(self, name: str, *values: str) -> str:
        entries = [{"value": v, "synonyms": [{"value": v}]} for v in values or ("one",)]
        return str((await self.ok("POST", "/entities", {"name": name, "entries": entries}))["id"])

    async def create_interaction(
        self, story_id: str, name: str, parent: str | None = None, **fields: Any
    ) -> str:
        path = f"/stories/{story_id}/interactions" + (f"/{parent}" if parent else "")
        return str((await self.ok("POST", path, {"name": name, **fields}))["id"])

    async def story(self, story_id: str) -> dict[str, Any]:
        return dict(await self.ok("GET", f"/stories/{story_id}"))


@dataclass
class Tenant:
    """An account and clients holding each of its tokens."""

    tokens: IssuedTokens
    developer: Api
    public: Api
