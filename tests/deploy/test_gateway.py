"""deploy/gateway.conf.template run by nginx in front of two bot-api processes and one
integrations-api: routing by host, the request id, the body limit, /metrics kept
inside, HTTPS only."""

import json
import re

from prometheus_client.parser import text_string_to_metric_families

from bot_api.query.repeats import TURN_KEY_HEADER
from shared.config import DEFAULT_MAX_BODY_BYTES
from support.gateway import Gateway
from tools.gateway import TEMPLATE


def openapi_title(gateway: Gateway, host: str, path: str = "/openapi.json") -> str:
    status, _, body = gateway.call("GET", path, host=host)
    assert status == 200, body
    return str(json.loads(body)["info"]["title"])


def test_the_bot_host_reaches_bot_api(gateway: Gateway) -> None:
    assert openapi_title(gateway, gateway.bot_host) == "Parley bot-api"
    bearer = {"Authorization": f"Bearer {gateway.tokens.developer_token}"}
    status, _, body = gateway.call("GET", "/stories", host=gateway.bot_host, headers=bearer)
    assert status == 200, body


def connections(gateway: Gateway, host: str) -> object:
    bearer = {"Authorization": f"Bearer {gateway.tokens.developer_token}"}
    status, _, body = gateway.call("GET", "/v2/integrations/webhook", host=host, headers=bearer)
    assert status == 200, body  # bot-api would answer 404
    return json.loads(body)


def test_the_integrations_host_reaches_integrations_api_on_every_path(gateway: Gateway) -> None:
    assert openapi_title(gateway, gateway.integrations_host) == "Parley integrations-api"
    for path in ("/healthz", "/readyz"):
        status, _, body = gateway.call("GET", path, host=gateway.integrations_host)
        assert (status, json.loads(body)["status"]) == (200, "ok")
    assert connections(gateway, gateway.integrations_host) == []


def test_the_connection_api_is_reachable_on_the_bot_host_too(gateway: Gateway) -> None:
    assert connections(gateway, gateway.bot_host) == []


def test_the_console_calls_the_connection_api_on_its_own_origin_through_the_gateway(
    gateway: Gateway,
) -> None:
    status, headers, body = gateway.call("GET", "/console/stories", host=gateway.bot_host)
    assert status == 200, body
    assert 'data-integrations=""' in body.decode()  # api.js calls /v2/integrations/ as is
    assert "connect-src 'self';" in headers["content-security-policy"]
    origin = f"https://{gateway.bot_host}"
    bearer = {"Authorization": f"Bearer {gateway.tokens.developer_token}", "Origin": origin}
    status, _, body = gateway.call(
        "POST",
        "/v2/integrations/webhook",
        host=gateway.bot_host,
        body=b"{}",
        headers={**bearer, "Content-Type": "application/json"},
    )
    assert status == 400, body  # integrations-api's answer on the same origin
    assert json.loads(body)["status"]["type"] == "validation_error"


def test_a_clients_request_id_is_kept_and_one_is_made_when_absent(gateway: Gateway) -> None:
    mine = "client-chosen.id_42"
    for host in (gateway.bot_host, gateway.integrations_host):
        _, headers, _ = gateway.call("GET", "/healthz", host=host, headers={"X-Request-Id": mine})
        assert headers["x-request-id"] == mine
    _, first, _ = gateway.call("GET", "/healthz", host=gateway.bot_host)
    _, second, _ = gateway.call("GET", "/healthz", host=gateway.bot_host)
    assert re.fullmatch(r"[0-9a-f]{32}", first["x-request-id"])  # nginx's $request_id
    assert first["x-request-id"] != second["x-request-id"]


def test_a_query_s_turn_is_keyed_by_the_gateway_not_by_the_client(gateway: Gateway) -> None:
    """bot-api refuses a `Parley-Turn-Id` over 128 characters; through the gateway a
    client's never arrives: nginx sends its own id of the request."""

    def post(path: str, token: str, body: object, **headers: str) -> tuple[int, bytes]:
        sent = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
        status, _, answer = gateway.call(
            "POST",
            path,
            host=gateway.bot_host,
            body=json.dumps(body).encode(),
            headers={**sent, **headers},
        )
        return status, answer

    status, story = post(
        "/stories", gateway.tokens.developer_token, {"name": "Keyed", "description": ""}
    )
    assert status == 200, story
    query = {"storyId": json.loads(story)["id"], "sessionId": "keyed", "trigger": "welcome"}
    status, answer = post(
        "/query", gateway.tokens.public_key, query, **{TURN_KEY_HEADER: "k" * 129}
    )
    assert status == 200, answer


def test_the_gateway_refuses_a_body_over_max_body_bytes_with_413(gateway: Gateway) -> None:
    assert "client_max_body_size ${MAX_BODY_BYTES};" in TEMPLATE.read_text()
    bearer = {
        "Authorization": f"Bearer {gateway.tokens.developer_token}",
        "Content-Type": "application/json",
    }
    at_limit = b" " * DEFAULT_MAX_BODY_BYTES
    status, _, body = gateway.call(
        "POST", "/stories", host=gateway.bot_host, body=at_limit, headers=bearer
    )
    assert status == 400, body  # reached bot-api, which finds no JSON in it
    status, headers, _ = gateway.call(
        "POST", "/stories", host=gateway.bot_host, body=at_limit + b" ", headers=bearer
    )
    assert status == 413
    assert headers["server"].startswith("nginx")  # refused before any replica


def test_metrics_are_not_reachable_through_the_gateway(gateway: Gateway) -> None:
    for host in (gateway.bot_host, gateway.integrations_host):
        status, _, _ = gateway.call("GET", "/metrics", host=host)
        assert status == 404
    status, _, _ = gateway.call("GET", "//metrics", host=gateway.bot_host)
    assert status == 404


def test_plain_http_redirects_to_https(gateway: Gateway) -> None:
    status, headers, _ = gateway.call("GET", "/stories?x=1", host=gateway.bot_host, https=False)
    assert status == 301
    assert headers["location"] == f"https://{gateway.bot_host}/stories?x=1"


def requests_served(url: str) -> float:
    import urllib.request

    with urllib.request.urlopen(f"{url}/metrics", timeout=5) as response:
        text = response.read().decode()
    return sum(
        sample.value
        for family in text_string_to_metric_families(text)
        if family.name == "parley_http_requests"
        for sample in family.samples
        if sample.name == "parley_http_requests_total" and sample.labels["route"] == "/stories"
    )


def test_both_bot_api_replicas_serve_requests(gateway: Gateway) -> None:
    before = [requests_served(replica.url) for replica in gateway.bot_apis]
    bearer = {"Authorization": f"Bearer {gateway.tokens.developer_token}"}
    for _ in range(20):
        status, _, body = gateway.call("GET", "/stories", host=gateway.bot_host, headers=bearer)
        assert status == 200, body
    after = [requests_served(replica.url) for replica in gateway.bot_apis]
    served = [a - b for a, b in zip(after, before, strict=True)]
    assert sum(served) == 20
    assert all(count > 0 for count in served), served
