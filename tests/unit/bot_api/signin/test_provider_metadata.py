"""What a discovery document gives sign-in (bot_api/signin/provider.py): the configured
issuer's, with endpoints a browser and the keys reach safely, and asymmetric algorithms
only."""

from typing import Any

import pytest

from bot_api.signin.provider import ProviderMetadata, ProviderUnavailable

ISSUER = "https://id.example.com/realms/acme"


def document(**more: Any) -> dict[str, Any]:
    return {
        "issuer": ISSUER,
        "authorization_endpoint": f"{ISSUER}/auth",
        "token_endpoint": f"{ISSUER}/token",
        "jwks_uri": f"{ISSUER}/certs",
        **more,
    }


def test_a_document_without_an_end_session_endpoint_signs_out_of_the_console_alone() -> None:
    metadata = ProviderMetadata.of_document(ISSUER, document())
    assert metadata.token_endpoint == f"{ISSUER}/token"
    assert metadata.end_session_endpoint is None
    assert metadata.signing_algorithms == ("RS256",)


def test_an_end_session_endpoint_is_taken_when_https() -> None:
    given = document(end_session_endpoint=f"{ISSUER}/logout")
    assert ProviderMetadata.of_document(ISSUER, given).end_session_endpoint == f"{ISSUER}/logout"


@pytest.mark.parametrize(
    "changed",
    [
        {"issuer": "https://evil.example.com"},
        {"token_endpoint": "http://id.example.com/token"},
        {"jwks_uri": None},
        {"end_session_endpoint": "http://id.example.com/logout"},
        {"end_session_endpoint": 7},
    ],
)
def test_a_document_the_issuer_would_not_give_is_refused(changed: dict[str, Any]) -> None:
    with pytest.raises(ProviderUnavailable):
        ProviderMetadata.of_document(ISSUER, document(**changed))


def test_only_asymmetric_algorithms_are_taken() -> None:
    given = document(id_token_signing_alg_values_supported=["HS256", "none", "ES256", "RS256"])
    assert ProviderMetadata.of_document(ISSUER, given).signing_algorithms == ("ES256", "RS256")
