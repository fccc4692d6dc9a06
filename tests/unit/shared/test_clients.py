from aiohttp.test_utils import make_mocked_request

from shared.clients import client_address, trusted_networks

LOOPBACK = trusted_networks(["127.0.0.0/8", "::1/128"])


def request_from(peer: str, forwarded: str | None = None):  # type: ignore[no-untyped-def]
    headers = {"X-Forwarded-For": forwarded} if forwarded is not None else {}
    request = make_mocked_request("GET", "/", headers=headers)
    return request.clone(remote=peer)


def test_an_untrusted_peer_is_the_client_whatever_it_forwards() -> None:
    assert client_address(request_from("203.0.113.7", "198.51.100.1"), LOOPBACK) == "203.0.113.7"


def test_a_trusted_proxy_is_believed_for_the_address_it_appended() -> None:
    request = request_from("127.0.0.1", "10.9.9.9, 198.51.100.1")
    assert client_address(request, LOOPBACK) == "198.51.100.1"


def test_a_chain_of_trusted_proxies_is_walked_from_the_right() -> None:
    request = request_from("127.0.0.1", "198.51.100.1, 127.0.0.5")
    assert client_address(request, LOOPBACK) == "198.51.100.1"


def test_a_trusted_peer_without_forwarding_is_the_client() -> None:
    assert client_address(request_from("127.0.0.1"), LOOPBACK) == "127.0.0.1"


def test_no_trusted_proxies_means_the_peer_always() -> None:
    request = request_from("127.0.0.1", "198.51.100.1")
    assert client_address(request, ()) == "127.0.0.1"
