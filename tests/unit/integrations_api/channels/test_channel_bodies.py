"""A platform's call nested too deep, or holding too much, is a call the platform never
sends: each platform's reader refuses it (ValueError, which the channel answers 400),
never letting the decoder's RecursionError out as a 500."""

import pytest

from integrations_api.channels.platform import Request
from integrations_api.channels.platforms import PLATFORMS
from shared.json_body import MAX_MEMBERS

CREDENTIALS = {"botToken": "1:x", "signingSecret": "s", "webhookSecret": "w",
               "pageAccessToken": "p", "accessToken": "a", "phoneNumberId": "1",
               "appSecret": "s", "verifyToken": "v"}  # fmt: skip
DEEP = b"[" * 100_000 + b"]" * 100_000
DEEP_IN_AN_OBJECT = b'{"entry": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
TOO_MANY = b'{"entry": [' + b",".join([b"{}"] * (MAX_MEMBERS + 1)) + b"]}"


@pytest.mark.parametrize("platform", sorted(PLATFORMS))
@pytest.mark.parametrize("body", [DEEP, DEEP_IN_AN_OBJECT, TOO_MANY], ids=["deep", "in", "many"])
def test_a_body_beyond_the_json_bounds_is_unreadable_on_every_platform(
    platform: str, body: bytes
) -> None:
    with pytest.raises(ValueError, match=rf"nested deeper than 32|more than {MAX_MEMBERS} members"):
        PLATFORMS[platform].read(CREDENTIALS, body)


def test_slacks_form_payload_is_held_to_the_same_bounds() -> None:
    with pytest.raises(ValueError, match="nested deeper than 32"):
        PLATFORMS["slack"].read(CREDENTIALS, b"payload=" + DEEP)


def test_a_deep_body_is_no_slack_url_verification() -> None:
    request = Request("POST", {}, {}, b"{" + DEEP_IN_AN_OBJECT[1:])
    assert PLATFORMS["slack"].challenge(CREDENTIALS, request) is None
