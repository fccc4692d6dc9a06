"""Settings from the environment: every one checked at start, every one documented in
docs/configuration.md's table."""

import re
from pathlib import Path

import pytest

from shared.clients import is_trusted, trusted_networks
from shared.config import Config
from shared.setting_reader import InvalidSetting

CONFIGURATION = Path(__file__).resolve().parents[3] / "docs" / "configuration.md"


def test_a_configuration_survives_the_trip_through_the_environment() -> None:
    config = Config(
        mongodb_url="mongodb://db:27017/?replicaSet=rs0",
        nats_url="nats://u:p@nats-1:4222,nats://u:p@nats-2:4222,nats://u:p@nats-3:4222",
        nats_stream_replicas=3,
        database_prefix="acme",
        bot_api_port=9000,
        integrations_api_port=9001,
        max_body_bytes=1024,
        session_idle_seconds=60,
        webhook_allow=("10.0.0.0/8", "::1/128"),
        host="0.0.0.0",
        log_level="DEBUG",
        log_format="json",
        startup_wait_seconds=5,
        llm_base_url="http://127.0.0.1:11434",
        llm_api_key="sk-secret",
        llm_model="llama3.2:3b",
        llm_timeout_seconds=2.5,
    )
    assert Config.from_env_mapping(config.as_env()) == config


def test_the_llm_key_is_out_of_the_configurations_repr_and_a_model_is_required() -> None:
    env = {"LLM_BASE_URL": "http://llm:8000/", "LLM_MODEL": "qwen", "LLM_API_KEY": "sk-secret"}
    config = Config.from_env_mapping(env)
    assert (config.llm_base_url, config.llm_timeout_seconds) == ("http://llm:8000", 4.0)
    assert "sk-secret" not in repr(config) and "qwen" in repr(config)
    assert Config.from_env_mapping({}).llm_base_url == ""  # no LLM: extractive answers
    with pytest.raises(InvalidSetting) as raised:
        Config.from_env_mapping({"LLM_BASE_URL": "http://llm:8000"})
    assert str(raised.value) == "LLM_MODEL must name the model LLM_BASE_URL serves"


SIGN_IN = {
    "OIDC_ISSUER": "https://keycloak.example.com/realms/acme/",
    "OIDC_CLIENT_ID": "parley-console",
    "OIDC_CLIENT_SECRET": "the-client-secret",
    "CONSOLE_URL": "https://bots.example.com/",
}


def test_sign_in_settings_hold_together_and_keep_the_secret_out_of_the_repr() -> None:
    config = Config.from_env_mapping({**SIGN_IN, "OIDC_SCOPES": "openid,email"})
    assert config.oidc_issuer == "https://keycloak.example.com/realms/acme"
    assert (config.console_url, config.oidc_scopes) == (
        "https://bots.example.com",
        ("openid", "email"),
    )
    assert "the-client-secret" not in repr(config)
    assert Config.from_env_mapping(config.as_env()) == config
    assert Config.from_env_mapping({}).oidc_scopes == ("openid", "email", "profile")
    on_loopback = {
        **SIGN_IN,
        "OIDC_ISSUER": "http://localhost:8900",
        "CONSOLE_URL": "http://127.0.0.1:8080",
    }
    assert Config.from_env_mapping(on_loopback).console_url == "http://127.0.0.1:8080"


@pytest.mark.parametrize(
    ("changed", "said"),
    [
        ({"OIDC_ISSUER": "http://keycloak.example.com"}, "OIDC_ISSUER must be https://"),
        ({"CONSOLE_URL": "http://bots.example.com"}, "CONSOLE_URL must be https://"),
        ({"OIDC_CLIENT_ID": ""}, "OIDC_CLIENT_ID must name the client"),
        ({"CONSOLE_URL": ""}, "CONSOLE_URL must be the console's address"),
        ({"OIDC_SCOPES": "email profile"}, "OIDC_SCOPES must include openid"),
    ],
)
def test_sign_in_settings_that_cannot_work_are_refused(changed: dict[str, str], said: str) -> None:
    with pytest.raises(InvalidSetting) as raised:
        Config.from_env_mapping({**SIGN_IN, **changed})
    assert said in str(raised.value) and "the-client-secret" not in str(raised.value)


def test_unset_or_empty_settings_take_their_defaults() -> None:
    defaults = Config.from_env_mapping({})
    assert Config.from_env_mapping({name: "" for name in defaults.as_env()}) == defaults
    assert (defaults.host, defaults.log_format, defaults.log_level) == ("127.0.0.1", "text", "INFO")
    assert defaults.console_integrations_url == ""  # the console's own origin


@pytest.mark.parametrize(
    ("name", "value", "said"),
    [
        ("BOT_API_PORT", "0", "BOT_API_PORT must be a whole number from 1 to 65535, not '0'"),
        ("INTEGRATIONS_API_PORT", "70000", "from 1 to 65535, not '70000'"),
        ("MAX_BODY_BYTES", "4m", "MAX_BODY_BYTES must be a whole number of at least 1, not '4m'"),
        ("SESSION_IDLE_SECONDS", "-1", "SESSION_IDLE_SECONDS must be a whole number"),
        ("STARTUP_WAIT_SECONDS", "soon", "STARTUP_WAIT_SECONDS must be a whole number"),
        ("DATABASE_PREFIX", "a.b", "DATABASE_PREFIX must be 1 to 40 letters"),
        ("WEBHOOK_ALLOW", "10.0.0.0/33", "WEBHOOK_ALLOW must list networks"),
        ("TRUSTED_PROXIES", "10.0.0.1,gateway", "TRUSTED_PROXIES must list networks such as"),
        ("TRUSTED_PROXIES", "172.30.87.10/33", "TRUSTED_PROXIES must list networks"),
        ("HOST", "example.org", "HOST must be an IP address"),
        ("LOG_LEVEL", "loud", "LOG_LEVEL must be one of DEBUG, INFO, WARNING, ERROR, not 'loud'"),
        ("LOG_FORMAT", "yaml", "LOG_FORMAT must be one of text, json, not 'yaml'"),
        ("NATS_URL", "http://user:secret@nats", "NATS_URL must start with nats://"),
        ("NATS_URL", "nats://a:4222,http://user:secret@b", "NATS_URL must start with nats://"),
        ("NATS_URL", " , ", "NATS_URL must start with nats://"),
        ("NATS_URL", "nats://a:4222,ws://b:8080", "NATS_URL must not mix ws:// or wss://"),
        ("NATS_STREAM_REPLICAS", "7", "NATS_STREAM_REPLICAS must be a whole number from 1 to 5"),
        ("NATS_STREAM_REPLICAS", "0", "NATS_STREAM_REPLICAS must be a whole number from 1 to 5"),
        ("CONSOLE_INTEGRATIONS_URL", "hooks.example", "CONSOLE_INTEGRATIONS_URL must start with"),
        ("LLM_BASE_URL", "llm:11434", "LLM_BASE_URL must start with http:// or https://"),
        ("LLM_TIMEOUT_SECONDS", "0", "LLM_TIMEOUT_SECONDS must be a number of at least 0.1"),
    ],
)
def test_a_bad_value_is_named_in_one_line(name: str, value: str, said: str) -> None:
    with pytest.raises(InvalidSetting) as raised:
        Config.from_env_mapping({name: value})
    assert said in str(raised.value)
    assert "\n" not in str(raised.value)
    assert "secret" not in str(raised.value)  # a URL's password is never repeated


def test_nats_url_takes_every_node_of_a_cluster_and_one_copy_of_the_stream_is_the_default() -> None:
    config = Config.from_env_mapping(
        {"NATS_URL": " nats://127.0.0.1:4222, nats://127.0.0.1:4223 ,,tls://nats-3:4222,"}
    )
    assert config.nats_url == "nats://127.0.0.1:4222,nats://127.0.0.1:4223,tls://nats-3:4222"
    assert config.nats_stream_replicas == 1
    assert Config.from_env_mapping({"NATS_STREAM_REPLICAS": "5"}).nats_stream_replicas == 5


def test_trusted_proxies_are_loopback_by_default() -> None:
    assert Config.from_env_mapping({}).trusted_proxies == ("127.0.0.0/8", "::1/128")
    assert Config.from_env_mapping({"TRUSTED_PROXIES": " "}).trusted_proxies == (
        "127.0.0.0/8",
        "::1/128",
    )


def test_trusted_proxies_take_a_list_of_addresses_and_networks() -> None:
    config = Config.from_env_mapping(
        {"TRUSTED_PROXIES": " 172.30.87.10/32, 10.0.0.0/8 ,192.168.1.7,fd00::/8,"}
    )
    assert config.trusted_proxies == ("172.30.87.10/32", "10.0.0.0/8", "192.168.1.7", "fd00::/8")
    assert Config.from_env_mapping(config.as_env()) == config
    trusted = trusted_networks(config.trusted_proxies)
    assert [is_trusted(a, trusted) for a in ("192.168.1.7", "10.9.8.7", "fd00::1")] == [True] * 3
    assert [is_trusted(a, trusted) for a in ("127.0.0.1", "172.30.87.11", "192.168.1.8")] == [
        False
    ] * 3


def test_levels_and_formats_are_taken_in_any_case() -> None:
    config = Config.from_env_mapping({"LOG_LEVEL": "debug", "LOG_FORMAT": "JSON"})
    assert (config.log_level, config.log_format) == ("DEBUG", "json")


def test_docs_configuration_lists_every_setting_the_services_read() -> None:
    documented = set(re.findall(r"^\| `([A-Z_]+)` \|", CONFIGURATION.read_text(), re.M))
    assert set(Config.from_env_mapping({}).as_env()) <= documented
