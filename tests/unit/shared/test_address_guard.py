"""The SSRF guard: which addresses a webhook may reach."""

import ipaddress

import pytest

from shared.address_guard import refused

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


@pytest.mark.parametrize(
    "address",
    [
        "64:ff9b::a9fe:a9fe",  # NAT64 of the metadata address 169.254.169.254
        "64:ff9b::7f00:1",  # NAT64 of 127.0.0.1
        "64:ff9b::a00:1",  # NAT64 of 10.0.0.1
        "64:ff9b:1::a9fe:a9fe",  # local-use NAT64: refused whatever it embeds
        "64:ff9b:1:5db8:d822::",
        "2002:a9fe:a9fe::1",  # 6to4 of 169.254.169.254
        "2002:7f00:1::",  # 6to4 of 127.0.0.1
        "2002:c0a8:101::1",  # 6to4 of 192.168.1.1
        "::a9fe:a9fe",  # IPv4-compatible 169.254.169.254
        "::7f00:1",  # IPv4-compatible 127.0.0.1
        "::c0a8:101",  # IPv4-compatible 192.168.1.1
        "2001:0:4136:e378:8000:63bf:80ff:fffe",  # Teredo, client 127.0.0.1
        "2001:0:a9fe:a9fe:8000:63bf:3fff:fdd2",  # Teredo, server 169.254.169.254
    ],
)
def test_ipv6_forms_that_embed_a_refused_ipv4_are_refused(address: str) -> None:
    assert refused(address, ())


@pytest.mark.parametrize(
    "address",
    [
        "64:ff9b::808:808",  # NAT64 of 8.8.8.8
        "2002:5db8:d822::1",  # 6to4 of 93.184.216.34
        "2001:0:4136:e378:8000:63bf:a247:27dd",  # Teredo, server and client public
    ],
)
def test_ipv6_forms_that_embed_a_public_ipv4_are_judged_as_that_ipv4(address: str) -> None:
    assert not refused(address, ())


def test_the_allow_list_applies_to_the_embedded_ipv4() -> None:
    assert not refused("64:ff9b::7f00:1", LOOPBACK)
    assert not refused("2002:7f00:1::", LOOPBACK)
    assert refused("64:ff9b::a9fe:a9fe", LOOPBACK)
    assert refused("64:ff9b:1::7f00:1", LOOPBACK)
