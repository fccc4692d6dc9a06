"""deploy/compose.yaml is a valid Compose file (the Compose Specification's JSON schema,
as check-jsonschema ships it) and every long-running service is looked after."""

import importlib.resources
import json
import re
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from tools.gateway import DEPLOY, ENV_EXAMPLE, TEMPLATE, env_example

COMPOSE = DEPLOY / "compose.yaml"


def compose() -> dict[str, Any]:
    document: dict[str, Any] = yaml.safe_load(COMPOSE.read_text())
    return document


def long_running(document: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The services that keep running: all but the one-shot init steps."""
    return {
        name: service
        for name, service in document["services"].items()
        if service.get("restart") != "no"
    }


def test_compose_yaml_follows_the_compose_specification() -> None:
    schema_file = importlib.resources.files("check_jsonschema.builtin_schemas.vendor").joinpath(
        "compose-spec.json"
    )
    schema = json.loads(schema_file.read_text())
    validator = jsonschema.Draft7Validator(schema)
    errors = [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(compose())]
    assert errors == []


def test_the_schema_check_catches_a_broken_service() -> None:
    schema_file = importlib.resources.files("check_jsonschema.builtin_schemas.vendor").joinpath(
        "compose-spec.json"
    )
    broken = compose()
    broken["services"]["bot-api"]["restart"] = ["unless-stopped"]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(broken, json.loads(schema_file.read_text()))


def test_every_long_running_service_has_a_healthcheck_a_restart_policy_and_waits() -> None:
    services = long_running(compose())
    assert set(services) == {"mongodb", "nats", "bot-api", "integrations-api", "gateway"}
    for name, service in services.items():
        assert service.get("healthcheck", {}).get("test"), f"{name} has no healthcheck"
        assert service["restart"] == "unless-stopped", name
        for dependency, condition in service.get("depends_on", {}).items():
            wanted = (
                "service_healthy" if dependency in services else "service_completed_successfully"
            )
            assert condition["condition"] == wanted, (name, dependency)
    assert set(services["bot-api"]["depends_on"]) == {"mongodb", "nats"}
    assert set(services["integrations-api"]["depends_on"]) == {"mongodb", "nats"}
    assert set(services["gateway"]["depends_on"]) == {"bot-api", "integrations-api"}
    assert services["bot-api"]["deploy"]["replicas"] == 2


def test_mongodb_is_an_authenticated_replica_set_and_nats_has_a_user() -> None:
    services = compose()["services"]
    mongodb = services["mongodb"]
    assert "--replSet" in mongodb["command"] and "--keyFile" in mongodb["command"]
    assert "MONGO_INITDB_ROOT_PASSWORD" in mongodb["environment"]
    assert "rs.initiate" in " ".join(mongodb["healthcheck"]["test"])
    url = services["bot-api"]["environment"]["MONGODB_URL"]
    assert "replicaSet=rs0" in url and "${MONGO_PASSWORD" in url
    assert any(arg.startswith("--pass=") for arg in services["nats"]["command"])
    assert "${NATS_PASSWORD" in services["bot-api"]["environment"]["NATS_URL"]
    assert "/data" in services["nats"]["volumes"][0]


def test_every_variable_compose_reads_is_in_env_example_with_no_real_secret() -> None:
    used = set(re.findall(r"\$\{(\w+)", COMPOSE.read_text()))
    listed = env_example()
    assert used <= set(listed), used - set(listed)
    assert all("change-me" in listed[n] for n in listed if n.endswith("PASSWORD"))
    assert not (ENV_EXAMPLE.parent / ".env").exists()


def test_the_gateway_variables_are_all_set_by_compose() -> None:
    gateway_env = compose()["services"]["gateway"]["environment"]
    assert set(re.findall(r"\$\{(\w+)\}", TEMPLATE.read_text())) == set(gateway_env)


def test_the_build_context_leaves_out_live_data_environments_and_tests() -> None:
    ignored = (DEPLOY / "Dockerfile.dockerignore").read_text().split()
    for kept_out in ("var", ".venv", ".git", "tests", "**/__pycache__", ".mypy_cache"):
        assert kept_out in ignored


def test_the_image_is_multi_stage_runs_unprivileged_and_checks_its_health() -> None:
    dockerfile = (DEPLOY / "Dockerfile").read_text()
    assert len(re.findall(r"^FROM ", dockerfile, re.M)) == 2
    assert "--no-dev" in dockerfile
    assert re.search(r"^USER parley$", dockerfile, re.M)
    assert re.search(r"^HEALTHCHECK .*\n.*/healthz", dockerfile, re.M)
    final_stage = dockerfile.split("\nFROM ")[-1]
    assert "COPY --from=builder /app/.venv" in final_stage
    assert "uv" not in final_stage.replace("/app/.venv", "")


def test_deploy_readme_says_docker_cannot_run_here() -> None:
    text = Path(DEPLOY / "README.md").read_text()
    assert "docker compose up" in text
    assert "cannot run" in text
