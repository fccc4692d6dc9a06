"""With one bot-api replica killed, every request through the gateway still succeeds
(a gateway of its own: this one loses a replica)."""

import json
import signal

from support.gateway import Gateway


def test_every_request_succeeds_with_one_replica_killed(gateway: Gateway) -> None:
    developer = {
        "Authorization": f"Bearer {gateway.tokens.developer_token}",
        "Content-Type": "application/json",
    }
    status, _, body = gateway.call(
        "POST",
        "/stories",
        host=gateway.bot_host,
        body=json.dumps({"name": "Failover", "description": ""}).encode(),
        headers=developer,
    )
    assert status == 200, body
    story_id = json.loads(body)["id"]
    public = {**developer, "Authorization": f"Bearer {gateway.tokens.public_key}"}

    victim = gateway.bot_apis[0].process
    victim.send_signal(signal.SIGKILL)
    victim.wait(10)

    statuses = []
    for turn in range(30):
        query = {"storyId": story_id, "sessionId": f"s{turn % 3}", "query": "hello"}
        statuses.append(
            gateway.call(
                "POST", "/query", host=gateway.bot_host, body=json.dumps(query).encode(),
                headers=public,
            )[0]
        )  # fmt: skip
        statuses.append(
            gateway.call("GET", f"/stories/{story_id}", host=gateway.bot_host, headers=developer)[0]
        )
    assert statuses == [200] * 60
