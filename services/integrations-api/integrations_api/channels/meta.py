"""What Messenger and WhatsApp share, being Meta's: the webhook's signature, its
verification request, the envelope of its calls, and the Graph API's version.
"""

import hashlib
import hmac
from collections.abc import Callable, Mapping
from typing import Any

from integrations_api.channels.platform import (
    Call,
    Credentials,
    Incoming,
    Reply,
    Request,
    Skipped,
    read_json,
)

Read = list[Incoming | Skipped]

URL_LIMIT = 2000
"""The longest image or link address sent to Graph: Meta documents no limit, and 2,000
characters is what browsers and web servers commonly keep to; a longer one is left out
(answers.sendable)."""

GRAPH_VERSION = "v25.0"
"""The Graph API version the calls name: the one Meta's Messenger and WhatsApp
documentation shows (April 2026). Meta keeps a version for two years after it is
released."""


def signature_valid(credentials: Credentials, request: Request) -> bool:
    """`X-Hub-Signature-256: sha256=<hex>`: the HMAC-SHA256 of the raw body with the
    app secret."""
    signature = request.headers.get("x-hub-signature-256", "")
    key = credentials["appSecret"].encode()
    expected = "sha256=" + hmac.new(key, request.body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected.encode(), signature.encode())


def verification_valid(credentials: Credentials, request: Request) -> bool:
    """Meta's `GET ?hub.mode=subscribe&hub.verify_token=...&hub.challenge=...`, sent
    when the callback URL is saved in the app's dashboard, names the channel's verify
    token."""
    token = request.query.get("hub.verify_token", "")
    return request.query.get("hub.mode") == "subscribe" and hmac.compare_digest(
        token.encode(), credentials["verifyToken"].encode()
    )


def authenticate(credentials: Credentials, request: Request) -> bool:
    """A verification request by its verify token, a webhook call by its signature."""
    if request.method == "GET":
        return verification_valid(credentials, request)
    return signature_valid(credentials, request)


def challenge(credentials: Credentials, request: Request) -> Reply | None:
    """A verification request is answered with its `hub.challenge` when it names the
    verify token; otherwise None, and the call is refused as any call the channel's
    platform did not make (401, as a call to no channel is: Meta needs only the 200)."""
    if request.method != "GET" or not verification_valid(credentials, request):
        return None
    return Reply(200, request.query.get("hub.challenge", ""))


def entries(body: bytes, subscribed_object: str) -> list[Any]:
    """The `entry` list of a webhook call; none when the call is about another `object`
    than the channel's (`page` for Messenger, `whatsapp_business_account`)."""
    call = read_json(body)
    if not isinstance(call, dict) or not isinstance(call.get("entry"), list):
        raise ValueError("a Meta webhook call is an object with entries")
    return list(call["entry"]) if call.get("object") == subscribed_object else []


def each_read(values: Any, read: Callable[[Any], Read]) -> Read:
    """What each of `values` (a list of a call's entries, changes, events or messages:
    objects) holds, read one by one: one that cannot be read (a field missing or of another
    type) is `Skipped("unreadable")` and the others are still answered. Meta sends a
    call again until it gets a 200, so a 400 for one odd event would leave the good
    ones in the call unanswered, and the call come back for a day."""
    if not isinstance(values, list):
        raise TypeError("a list expected")
    found: Read = []
    for value in values:
        try:
            found += read(value) if isinstance(value, dict) else [Skipped("unreadable")]
        except (KeyError, TypeError, AttributeError, ValueError):
            found.append(Skipped("unreadable"))
    return found


def graph_call(path: str, token: str, body: Mapping[str, Any]) -> Call:
    """A Graph API call, its token in the Authorization header (never in the address,
    which logs and proxies keep)."""
    return Call(f"/{GRAPH_VERSION}{path}", body, headers={"Authorization": f"Bearer {token}"})
