import pytest

from shared.webhook_tokens import UnusableToken, signing_key


@pytest.mark.parametrize(
    "token",
    ["whsec_c2hhcmVkIHdpdGggdGhlIGJhY2tlbmQ=", "whsec_c2hhcmVkIHdpdGggdGhlIGJhY2tlbmQ"],
)
def test_a_whsec_token_keys_with_its_base64_padded_or_not(token: str) -> None:
    assert signing_key(token) == b"shared with the backend"


def test_any_other_token_keys_with_its_own_bytes() -> None:
    assert signing_key("plain secret") == b"plain secret"


@pytest.mark.parametrize("token", ["whsec_", "whsec_not*base64", "whsec_abcde", "whsec_===="])
def test_a_whsec_token_without_a_base64_key_is_unusable(token: str) -> None:
    with pytest.raises(UnusableToken):
        signing_key(token)
