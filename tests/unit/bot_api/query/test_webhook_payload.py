"""What a webhook call sends: parameters as the string attributes of SPEC."""

import json

from bot_api.engine.turn import Outcome, Turn
from bot_api.query.webhooks.payload import request_body
from support.stories import interaction


def test_attributes_are_strings_and_built_in_objects_their_json() -> None:
    pay = interaction("pay", "I pay", webhook="https://backend.example/hook")
    money = {"amount": 20, "currency": "EUR"}
    outcome = Outcome(
        story_id="story-1",
        interaction=pay,
        score=1.0,
        threshold=0.5,
        lifespan=2,
        incomplete=False,
        parameters={"price": money, "guests": 4, "note": None, "size": "large"},
        contexts=(),
        fulfillment=(),
    )
    body = request_body("s1", pay, Turn(query="I pay"), outcome, None, "m1")
    assert body["attributes"] == {
        "price": json.dumps(money),
        "guests": "4",
        "note": "",
        "size": "large",
    }
    assert body["result"]["parameters"]["price"] == money
