"""The ID token's checks (OpenID Connect Core §3.1.3.7), with `joserfc`: signed by one of
the provider's keys with an asymmetric algorithm it announces, issued by it for this
client, not expired (a small leeway for clocks apart), and carrying the nonce of the
sign-in it answers."""

import time
from collections.abc import Callable
from dataclasses import dataclass

from joserfc import jws, jwt
from joserfc.errors import JoseError
from joserfc.jwt import JWTClaimsRegistry

from bot_api.signin.provider import Provider

LEEWAY_SECONDS = 60


class TokenRefused(Exception):
    """The ID token is not one to sign in with; the message says which check failed."""


@dataclass(frozen=True)
class Identity:
    """The person an ID token names."""

    issuer: str
    subject: str
    email: str | None
    """Only an address the provider says it verified."""
    name: str


class IdTokenVerifier:
    def __init__(
        self,
        provider: Provider,
        client_id: str,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._provider = provider
        self._client_id = client_id
        self._clock = clock

    async def verify(self, id_token: str, nonce: str) -> Identity:
        metadata = await self._provider.metadata()
        try:
            header = jws.extract_compact(id_token.encode()).protected
        except (JoseError, ValueError, UnicodeError) as error:
            raise TokenRefused("the ID token is not a signed JWT") from error
        if header.get("alg") not in metadata.signing_algorithms:
            raise TokenRefused("the ID token is not signed with an algorithm of the provider")
        key_id = header.get("kid")
        keys = await self._provider.keys(key_id if isinstance(key_id, str) else None)
        try:
            token = jwt.decode(id_token, keys, algorithms=list(metadata.signing_algorithms))
        except (JoseError, ValueError) as error:
            raise TokenRefused("the ID token's signature is not the provider's") from error
        claims = token.claims
        registry = JWTClaimsRegistry(
            now=int(self._clock()),
            leeway=LEEWAY_SECONDS,
            iss={"essential": True, "value": metadata.issuer},
            aud={"essential": True, "value": self._client_id},
            sub={"essential": True},
            exp={"essential": True},
            iat={"essential": True},
            nonce={"essential": True, "value": nonce},
        )
        try:
            registry.validate(claims)
        except JoseError as error:
            raise TokenRefused(f"the ID token's {_claim_of(error)} is not valid") from error
        audiences = claims["aud"] if isinstance(claims["aud"], list) else [claims["aud"]]
        party = claims.get("azp", self._client_id if len(audiences) == 1 else None)
        if party != self._client_id:
            raise TokenRefused("the ID token was issued to another client (azp)")
        verified = claims.get("email_verified") in (True, "true")
        email = claims.get("email") if verified else None
        name = next(
            (claims[c] for c in ("name", "preferred_username", "email") if claims.get(c)),
            claims["sub"],
        )
        return Identity(
            issuer=metadata.issuer,
            subject=str(claims["sub"]),
            email=email if isinstance(email, str) else None,
            name=str(name)[:200],
        )


def _claim_of(error: JoseError) -> str:
    """The claim a joserfc claim error names (`exp`, `aud`, ...), for the refusal."""
    return str(getattr(error, "claim", "") or error.error or "claims")
