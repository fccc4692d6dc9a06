"""The ID token's checks against a real local provider (oidc-provider-mock): its own tokens
pass; forged, expired, wrong-audience, wrong-issuer and wrong-nonce ones are refused; its
keys are fetched again for an unknown key id, at most once a minute."""

import base64
import json
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass

import aiohttp
import pytest
from joserfc import jws, jwt
from joserfc.jwk import OctKey, RSAKey

from bot_api.signin.provider import KEYS_REFRESH_SECONDS, Provider
from bot_api.signin.verifier import LEEWAY_SECONDS, IdTokenVerifier, TokenRefused
from shared.config import Config
from support.oidc import CLIENT_ID, add_person, id_token_of, identity_provider

ADA = "ada"


@pytest.fixture(scope="module")
def issuer() -> Iterator[str]:
    with identity_provider() as issuer:
        add_person(issuer, ADA, email="ada@example.com", email_verified=True, name="Ada L.")
        add_person(issuer, "bea", email="bea@example.com", email_verified=False)
        yield issuer


def read(token: str) -> tuple[dict[str, object], dict[str, object]]:
    """The header and claims of a token, unverified (to forge another like it)."""
    signed = jws.extract_compact(token.encode())
    return dict(signed.protected), json.loads(signed.payload)


@dataclass
class Clock:
    now: float

    def __call__(self) -> float:
        return self.now


@dataclass
class Checks:
    verifier: IdTokenVerifier
    wall: Clock
    """What the verifier takes for the time (exp, iat)."""
    monotonic: Clock
    """What the provider's caches take for the time."""
    fetched: list[str]
    """The URLs asked of the provider."""


@pytest.fixture
async def checks(issuer: str) -> AsyncIterator[Checks]:
    fetched: list[str] = []
    tracing = aiohttp.TraceConfig()

    async def record(_: object, __: object, params: aiohttp.TraceRequestStartParams) -> None:
        fetched.append(str(params.url))

    tracing.on_request_start.append(record)
    config = Config(mongodb_url="", nats_url="", oidc_issuer=issuer, oidc_client_id=CLIENT_ID)
    wall, monotonic = Clock(time.time()), Clock(1000.0)
    async with aiohttp.ClientSession(trace_configs=[tracing]) as http:
        provider = Provider(config, http, clock=monotonic)
        yield Checks(IdTokenVerifier(provider, CLIENT_ID, clock=wall), wall, monotonic, fetched)


async def test_the_providers_own_token_names_the_person(issuer: str, checks: Checks) -> None:
    token = await id_token_of(issuer, ADA, nonce="n-42")
    identity = await checks.verifier.verify(token, "n-42")
    assert (identity.issuer, identity.subject) == (issuer, ADA)
    assert (identity.email, identity.name) == ("ada@example.com", "Ada L.")


async def test_an_address_the_provider_did_not_verify_is_not_used(
    issuer: str, checks: Checks
) -> None:
    identity = await checks.verifier.verify(await id_token_of(issuer, "bea"), "n-1")
    assert (identity.subject, identity.email) == ("bea", None)


async def test_a_token_signed_with_another_key_is_refused(issuer: str, checks: Checks) -> None:
    header, claims = read(await id_token_of(issuer, ADA))
    mine = RSAKey.generate_key(2048)
    # the provider's own header, so only the signature tells the forgery
    forged = jwt.encode(header, {**claims, "sub": "mallory"}, mine)
    with pytest.raises(TokenRefused, match="signature"):
        await checks.verifier.verify(forged, "n-1")


async def test_a_token_signed_with_a_shared_secret_or_none_is_refused(
    issuer: str, checks: Checks
) -> None:
    token = await id_token_of(issuer, ADA)
    _, claims = read(token)
    secret = OctKey.import_key(b"s3cret-of-the-console-client-padded-to-32-bytes")
    forged = jwt.encode({"alg": "HS256"}, claims, secret, algorithms=["HS256"])
    with pytest.raises(TokenRefused, match="algorithm"):
        await checks.verifier.verify(forged, "n-1")
    none = base64.urlsafe_b64encode(b'{"alg":"none"}').rstrip(b"=").decode()
    with pytest.raises(TokenRefused, match="algorithm"):
        await checks.verifier.verify(f"{none}.{token.split('.')[1]}.", "n-1")


async def test_an_expired_token_is_refused(issuer: str, checks: Checks) -> None:
    token = await id_token_of(issuer, ADA)
    await checks.verifier.verify(token, "n-1")
    checks.wall.now += 3600 + LEEWAY_SECONDS + 1  # the provider's tokens last an hour
    with pytest.raises(TokenRefused, match="exp"):
        await checks.verifier.verify(token, "n-1")


async def test_a_token_issued_in_the_future_is_refused(issuer: str, checks: Checks) -> None:
    token = await id_token_of(issuer, ADA)
    checks.wall.now -= LEEWAY_SECONDS + 5
    with pytest.raises(TokenRefused, match="iat"):
        await checks.verifier.verify(token, "n-1")


async def test_a_token_for_another_client_is_refused(issuer: str, checks: Checks) -> None:
    token = await id_token_of(issuer, ADA, client_id="someone-else")
    with pytest.raises(TokenRefused, match="aud"):
        await checks.verifier.verify(token, "n-1")


async def test_a_token_of_another_issuer_is_refused(issuer: str, checks: Checks) -> None:
    # the same provider's keys, called by another name: only `iss` differs
    other_name = issuer.replace("localhost", "127.0.0.1")
    token = await id_token_of(other_name, ADA)
    with pytest.raises(TokenRefused, match="iss"):
        await checks.verifier.verify(token, "n-1")


async def test_a_token_of_another_sign_in_is_refused(issuer: str, checks: Checks) -> None:
    token = await id_token_of(issuer, ADA, nonce="n-of-another")
    with pytest.raises(TokenRefused, match="nonce"):
        await checks.verifier.verify(token, "n-1")


async def test_an_unknown_key_id_fetches_the_keys_again_once_a_minute(
    issuer: str, checks: Checks
) -> None:
    token = await id_token_of(issuer, ADA)
    await checks.verifier.verify(token, "n-1")
    keys = f"{issuer}/jwks"
    assert checks.fetched.count(keys) == 1
    _, claims = read(token)
    rotated = jwt.encode({"alg": "RS256", "kid": "k-2"}, claims, RSAKey.generate_key(2048))
    for _ in range(3):
        with pytest.raises(TokenRefused):
            await checks.verifier.verify(rotated, "n-1")
    assert checks.fetched.count(keys) == 1, "asked again within the minute"
    checks.monotonic.now += KEYS_REFRESH_SECONDS
    with pytest.raises(TokenRefused):
        await checks.verifier.verify(rotated, "n-1")
    assert checks.fetched.count(keys) == 2
    await checks.verifier.verify(token, "n-1")
    assert checks.fetched.count(f"{issuer}/.well-known/openid-configuration") == 1
