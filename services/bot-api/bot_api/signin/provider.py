"""The identity provider over HTTP: its discovery document, its signing keys and its
token endpoint (OpenID Connect Discovery 1.0, Core 1.0 §3.1.3).

What the provider answers is bounded (size, time) and cached: the discovery document for
`DISCOVERY_SECONDS`, the keys until an ID token names a key id they lack, then fetched
again at most once every `KEYS_REFRESH_SECONDS`, so tokens with made-up key ids cannot
make bot-api call the provider at their rate. No code, token nor secret is logged.
"""

import asyncio
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

import aiohttp
from joserfc.errors import JoseError
from joserfc.jwk import KeySet

from shared.config import Config
from shared.setting_reader import is_secure_or_loopback

DISCOVERY_SECONDS = 3600.0
KEYS_REFRESH_SECONDS = 60.0
MAX_ANSWER_BYTES = 256 * 1024
"""Discovery documents and key sets are a few KiB; Google's and Keycloak's under 10."""
REQUEST_SECONDS = 5.0


class ProviderUnavailable(Exception):
    """The identity provider did not answer, or answered what no provider would."""


class CodeRefused(Exception):
    """The token endpoint refused the authorization code."""


@dataclass(frozen=True)
class ProviderMetadata:
    issuer: str
    authorization_endpoint: str
    token_endpoint: str
    jwks_uri: str
    signing_algorithms: tuple[str, ...]
    end_session_endpoint: str | None = None
    """Where the browser signs out of the provider (RP-Initiated Logout 1.0), if it says."""

    @classmethod
    def of_document(cls, expected_issuer: str, document: Any) -> "ProviderMetadata":
        """The metadata a discovery document gives, which must be the configured issuer's
        (Discovery §4.3) with endpoints that browsers and keys reach safely."""
        if not isinstance(document, dict) or document.get("issuer") != expected_issuer:
            raise ProviderUnavailable("the discovery document is not the configured issuer's")
        endpoints: dict[str, str] = {}
        for name in _ENDPOINTS:
            url = document.get(name)
            if not (isinstance(url, str) and is_secure_or_loopback(url)):
                raise ProviderUnavailable(f"the discovery document's {name} is not https")
            endpoints[name] = url
        end_session = document.get("end_session_endpoint")
        if end_session is not None and not (
            isinstance(end_session, str) and is_secure_or_loopback(end_session)
        ):
            raise ProviderUnavailable("the discovery document's end_session_endpoint is not https")
        algorithms = document.get("id_token_signing_alg_values_supported", ["RS256"])
        signing = tuple(a for a in algorithms if a in ASYMMETRIC_ALGORITHMS) or ("RS256",)
        return cls(
            issuer=expected_issuer,
            authorization_endpoint=endpoints["authorization_endpoint"],
            token_endpoint=endpoints["token_endpoint"],
            jwks_uri=endpoints["jwks_uri"],
            signing_algorithms=signing,
            end_session_endpoint=end_session,
        )


_ENDPOINTS = ("authorization_endpoint", "token_endpoint", "jwks_uri")
ASYMMETRIC_ALGORITHMS = frozenset(
    {"RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"}
)
"""What an ID token may be signed with: the provider's private keys, never a shared secret
(HS256 would take our client secret as the key) nor `none`."""


class Provider:
    def __init__(
        self,
        config: Config,
        http: aiohttp.ClientSession,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._issuer = config.oidc_issuer
        self._client_id = config.oidc_client_id
        self._client_secret = config.oidc_client_secret
        self._http = http
        self._clock = clock
        self._lock = asyncio.Lock()
        self._metadata: tuple[ProviderMetadata, float] | None = None
        self._keys: KeySet | None = None
        self._keys_fetched_at = float("-inf")

    async def metadata(self) -> ProviderMetadata:
        async with self._lock:
            now = self._clock()
            if self._metadata is None or self._metadata[1] <= now:
                url = f"{self._issuer}/.well-known/openid-configuration"
                document = await self._get_json(url)
                metadata = ProviderMetadata.of_document(self._issuer, document)
                self._metadata = (metadata, now + DISCOVERY_SECONDS)
            return self._metadata[0]

    async def keys(self, key_id: str | None) -> KeySet:
        """The provider's signing keys, fetched again when they lack `key_id` (the provider
        rotated its keys) unless they were fetched in the last `KEYS_REFRESH_SECONDS`."""
        metadata = await self.metadata()
        async with self._lock:
            now = self._clock()
            stale = self._keys is None or not _has_key(self._keys, key_id)
            if stale and now - self._keys_fetched_at >= KEYS_REFRESH_SECONDS:
                document = await self._get_json(metadata.jwks_uri)
                try:
                    self._keys = KeySet.import_key_set(document)  # type: ignore[arg-type]
                except (JoseError, ValueError, TypeError, KeyError) as error:
                    raise ProviderUnavailable("the provider's key set is not valid") from error
                self._keys_fetched_at = now
            if self._keys is None:
                raise ProviderUnavailable("the provider's key set could not be read")
            return self._keys

    async def exchange(self, code: str, verifier: str, redirect_uri: str) -> str:
        """The ID token the token endpoint gives for `code` (client_secret_basic when the
        client has a secret, as Core §9 makes the default; else a public client's PKCE)."""
        metadata = await self.metadata()
        form = {
            "grant_type": "authorization_code",
            "code": code,
            "redirect_uri": redirect_uri,
            "code_verifier": verifier,
            "client_id": self._client_id,
        }
        headers = {}
        if self._client_secret:
            # RFC 6749 §2.3.1: both form-encoded before the Basic scheme's base64
            login, password = (quote(s, safe="") for s in (self._client_id, self._client_secret))
            headers["Authorization"] = aiohttp.encode_basic_auth(login, password)
        try:
            async with self._http.post(
                metadata.token_endpoint, data=form, headers=headers, timeout=_TIMEOUT
            ) as answer:
                body = await _bounded(answer)
                if answer.status >= 500:
                    raise ProviderUnavailable(f"the token endpoint answered {answer.status}")
                if answer.status != 200:
                    raise CodeRefused(f"the token endpoint answered {answer.status}")
        except (aiohttp.ClientError, TimeoutError) as error:
            raise ProviderUnavailable("the token endpoint did not answer") from error
        id_token = _json(body).get("id_token")
        if not isinstance(id_token, str):
            raise CodeRefused("the token endpoint gave no ID token")
        return id_token

    async def _get_json(self, url: str) -> dict[str, Any]:
        try:
            async with self._http.get(url, timeout=_TIMEOUT) as answer:
                body = await _bounded(answer)
                if answer.status != 200:
                    raise ProviderUnavailable(f"{url} answered {answer.status}")
        except (aiohttp.ClientError, TimeoutError) as error:
            raise ProviderUnavailable(f"{url} did not answer") from error
        return _json(body)


_TIMEOUT = aiohttp.ClientTimeout(total=REQUEST_SECONDS)


def _has_key(keys: KeySet, key_id: str | None) -> bool:
    return key_id is None or any(key.kid == key_id for key in keys)


async def _bounded(answer: aiohttp.ClientResponse) -> bytes:
    body = await answer.content.read(MAX_ANSWER_BYTES + 1)
    if len(body) > MAX_ANSWER_BYTES:
        raise ProviderUnavailable(f"the provider answered more than {MAX_ANSWER_BYTES} bytes")
    return body


def _json(body: bytes) -> dict[str, Any]:
    try:
        document = json.loads(body)
    except ValueError as error:
        raise ProviderUnavailable("the provider answered something else than JSON") from error
    if not isinstance(document, dict):
        raise ProviderUnavailable("the provider answered something else than a JSON object")
    return document
