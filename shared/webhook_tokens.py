"""A webhook connection's `token` keys the Standard Webhooks signature of each call
(docs/webhooks.md): the key is the base64-decoded rest of a `whsec_` token (so the public
`standardwebhooks` verifiers accept it as is), else the token's UTF-8 bytes.

Written once for both services: integrations-api refuses a token with no usable key, and
bot-api signs with the same key (a stored token without one fails the delivery)."""

import base64
import binascii

SECRET_PREFIX = "whsec_"


class UnusableToken(ValueError):
    """A `whsec_` token whose rest is not base64 of at least one byte."""


def signing_key(token: str) -> bytes:
    if not token.startswith(SECRET_PREFIX):
        return token.encode()
    # Padding is optional, as in the standardwebhooks libraries. A character outside
    # base64's is refused rather than skipped, so a typo cannot change the key, and so is
    # an empty rest.
    rest = token[len(SECRET_PREFIX) :]
    try:
        key = base64.b64decode(rest + "=" * (-len(rest) % 4), validate=True)
    except binascii.Error:
        key = b""
    if not key:
        raise UnusableToken(
            f"After {SECRET_PREFIX} a token must be base64 of its key (A-Z, a-z, 0-9, +, /)."
        )
    return key
