"""`make run`'s banner says how the messaging platforms reach a laptop's
integrations-api (tools/local_stack.py)."""

import dataclasses

from shared.config import Config
from tools.local_stack import channels_reach


def test_without_a_public_url_the_banner_says_how_to_give_telegram_an_https_tunnel() -> None:
    config = dataclasses.replace(Config.from_env_mapping({}), integrations_api_port=8091)

    said = channels_reach(config)

    assert "Telegram takes only https://" in said
    assert "cloudflared tunnel --url http://127.0.0.1:8091" in said
    assert "INTEGRATIONS_PUBLIC_URL=https://<its address> make run" in said


def test_with_a_public_url_the_banner_names_it_and_the_registration_again() -> None:
    config = Config.from_env_mapping({"INTEGRATIONS_PUBLIC_URL": "https://t.example"})

    said = channels_reach(config)

    assert said.startswith("Channels: the platforms call https://t.example")
    assert "registered there again at each start" in said
