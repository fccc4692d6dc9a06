"""`make run`'s banner says where webhooks may call (tools/local_stack.py), never a
blank list."""

from shared.config import Config
from tools.local_stack import LOOPBACK, webhooks_reach


def said(allow: str) -> str:
    return webhooks_reach(Config.from_env_mapping({"WEBHOOK_ALLOW": allow}))


def test_an_empty_allow_list_says_only_public_addresses_and_how_to_allow_this_machine() -> None:
    assert said("") == (
        "Webhooks may call: public addresses only (WEBHOOK_ALLOW is empty: nothing on\n"
        f"  this machine or its networks; WEBHOOK_ALLOW={LOOPBACK} make run allows this machine)."
    )


def test_the_default_names_loopback_and_another_list_its_setting() -> None:
    assert said(LOOPBACK) == (
        "Webhooks may call: public addresses and 127.0.0.0/8, ::1/128 (loopback on your own "
        "machine)."
    )
    assert (
        said("10.0.0.0/8") == "Webhooks may call: public addresses and 10.0.0.0/8 (WEBHOOK_ALLOW)."
    )
