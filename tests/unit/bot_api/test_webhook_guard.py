"""The SSRF guard: which addresses a webhook may reach."""

import ipaddress

import pytest

from bot_api.webhooks.guard import refused

LOOPBACK = (ipaddress.ip_network("127.0.0.0/8"), ipaddress.ip_network("::1/128"))


@pytest.mark.parametrize(
    "address",
    ["127.0.0.1", "10.1.2.3", "172.16.0.9", "192.168.1.1", "169.254.169.254", "0.0.0.0",
     "::1", "fe80::1", "fd00::5", "::ffff:127.0.0.1", "::ffff:10.0.0.1", "224.0.0.1"],
)  # fmt: skip
def test_local_private_link_local_metadata_and_mapped_addresses_are_refused(address: str) -> None:
    assert refused(address, ())


@pytest.mark.parametrize("address", ["93.184.216.34", "2606:4700::1111", "8.8.8.8"])
def test_public_addresses_are_allowed(address: str) -> None:
    assert not refused(address, ())


def test_the_allow_list_opens_exactly_its_networks() -> None:
    assert not refused("127.0.0.1", LOOPBACK)
    assert not refused("::ffff:127.0.0.1", LOOPBACK)
    assert not refused("::1", LOOPBACK)
    assert refused("10.0.0.1", LOOPBACK)
