"""`make run`: the whole stack starts, prints its tokens, stops on Ctrl-C, keeps its data."""

import json
import os
import subprocess
import sys
import urllib.request
from pathlib import Path
from typing import Any

from pymongo import MongoClient

from shared.config import Config
from support.local_stack import call, start, stop
from tools.embedded import free_port

README = Path(__file__).resolve().parents[2] / "README.md"


def readme_walkthrough() -> str:
    """The first shell block under README's "Walk-through" heading, as a reader sees it."""
    section = README.read_text().split("## Walk-through", 1)[1]
    return section.split("```sh\n", 1)[1].split("```", 1)[0]


def walk_through(
    ports: tuple[int, int], var: Path, reader: Path
) -> subprocess.CompletedProcess[str]:
    """The walk-through in a shell of its own, from `reader` (a directory holding the
    examples but no var/), told where the stack keeps its tokens by PARLEY_VAR_DIR."""
    reader.mkdir(exist_ok=True)
    if not (reader / "examples").exists():
        (reader / "examples").symlink_to(README.parent / "examples")
    return subprocess.run(
        ["bash", "-euo", "pipefail", "-c", readme_walkthrough()],
        cwd=reader,
        env={
            **os.environ,
            "PARLEY_VAR_DIR": str(var),
            "API": f"http://127.0.0.1:{ports[0]}",
            "HOOKS": f"http://127.0.0.1:{ports[1]}",
            "BACKEND_PORT": str(free_port()),
        },
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_make_run_starts_everything_and_a_second_run_keeps_data_and_tokens(
    tmp_path: Path,
) -> None:
    ports = (free_port(), free_port())
    bot_api = f"http://127.0.0.1:{ports[0]}"
    var = tmp_path / "var"
    process, printed = start(var, ports)
    try:
        tokens_file = var / "local-account.json"
        tokens = json.loads(tokens_file.read_text())
        assert tokens_file.stat().st_mode & 0o777 == 0o600
        assert tokens["developerToken"] in printed and tokens["publicKey"] in printed
        assert bot_api in printed and f"http://127.0.0.1:{ports[1]}" in printed
        story = call(
            f"{bot_api}/stories", tokens["developerToken"], {"name": "Kept", "description": ""}
        )
        with urllib.request.urlopen(f"http://127.0.0.1:{ports[1]}/readyz", timeout=5) as response:
            assert json.loads(response.read())["checks"] == {"mongodb": "ok", "nats": "ok"}
        with urllib.request.urlopen(f"{bot_api}/console/", timeout=5) as response:
            # no gateway under make run: the console calls integrations-api on its port
            assert f'data-integrations="http://127.0.0.1:{ports[1]}"' in response.read().decode()
    finally:
        stopped = stop(process)
    assert "Parley stopped" in stopped

    process, _ = start(var, ports)
    try:
        assert json.loads(tokens_file.read_text()) == tokens
        stories = call(f"{bot_api}/stories", tokens["developerToken"])
        assert stories == [{"name": "Kept", "description": "", "id": story["id"]}]
    finally:
        stop(process)


def test_the_readme_walkthrough_runs_as_written_and_again_on_a_story_of_its_own(
    tmp_path: Path,
) -> None:
    ports = (free_port(), free_port())
    var = tmp_path / "state"
    process, _ = start(var, ports)
    try:
        walks = [walk_through(ports, var, tmp_path / "reader") for _ in range(2)]
    finally:
        stop(process)
    stories = [story_walked_through(walked) for walked in walks]
    assert stories[0] != stories[1]


def story_walked_through(walked: subprocess.CompletedProcess[str]) -> str:
    """Check what one walk-through printed, as the README describes it; its story's id."""
    assert walked.returncode == 0, walked.stderr
    printed = json_documents(walked.stdout)
    story = next(d for d in printed if "story" in d)
    answer, with_backend = [d for d in printed if "result" in d]
    names = {i["id"]: i["name"] for i in story["interactions"].values()}
    assert [names[i] for i in story["order"]] == ["Welcome", "Fallback", "Order"]
    order_node = story["story"][2]
    assert [names[c["id"]] for c in order_node["childrens"]] == ["Drinks"]
    result = answer["result"]
    assert result["storyId"] == story["id"]
    assert names[result["interaction"]["id"]] == "Order"
    assert result["parameters"] == {"size": "large"}
    assert result["fulfillment"][0] == {"type": "text", "message": "One large pizza coming up!"}
    assert [c["name"] for c in result["contexts"]] == ["Order"]
    backend_result = with_backend["result"]
    assert backend_result["storyId"] == story["id"]
    assert backend_result["source"] == "webhook"
    assert backend_result["fulfillment"][-1]["message"] == "Order #42: one large pizza."
    assert backend_result["parameters"]["order"] == "42"
    return str(story["id"])


def test_the_walkthrough_shows_an_api_error_and_stops_without_a_traceback(
    tmp_path: Path,
) -> None:
    ports = (free_port(), free_port())
    process, _ = start(tmp_path / "var", ports)
    wrong_tokens = tmp_path / "wrong"
    wrong_tokens.mkdir()
    (wrong_tokens / "local-account.json").write_text(
        json.dumps({"developerToken": "pdt_wrong", "publicKey": "ppk_wrong"})
    )
    try:
        walked = walk_through(ports, wrong_tokens, tmp_path / "reader")
    finally:
        stop(process)
    assert walked.returncode != 0
    assert "returned error: 401" in walked.stderr
    assert "the access token is not valid" in walked.stderr
    assert "Traceback" not in walked.stderr


def json_documents(text: str) -> list[Any]:
    """Every JSON value printed one after the other."""
    decoder = json.JSONDecoder()
    documents, position = [], 0
    while position < len(text):
        if text[position].isspace():
            position += 1
            continue
        document, position = decoder.raw_decode(text, position)
        documents.append(document)
    return documents


def test_the_accounts_command_finds_the_database_of_the_running_stack(tmp_path: Path) -> None:
    ports = (free_port(), free_port())
    var = tmp_path / "var"
    process, _ = start(var, ports, DATABASE_PREFIX="own")
    reader_env = {
        k: v for k, v in os.environ.items() if k not in ("MONGODB_URL", "DATABASE_PREFIX")
    }
    try:
        created = subprocess.run(
            [sys.executable, "-m", "bot_api", "accounts", "create", "acme", "--json"],
            env={**reader_env, "PARLEY_VAR_DIR": str(var)},
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert created.returncode == 0, created.stderr
        token = json.loads(created.stdout)["developerToken"]
        assert call(f"http://127.0.0.1:{ports[0]}/stories", token) == []
    finally:
        stop(process)
    assert not (var / "stack.json").exists()


def test_given_urls_make_run_uses_those_servers_instead_of_embedded_ones(
    tmp_path: Path, config: Config
) -> None:
    ports = (free_port(), free_port())
    process, printed = start(
        tmp_path,
        ports,
        MONGODB_URL=config.mongodb_url,
        NATS_URL=config.nats_url,
        DATABASE_PREFIX=config.database_prefix,
    )
    stop(process)
    assert f"MongoDB           {config.mongodb_url}" in printed
    assert f"NATS              {config.nats_url}" in printed
    assert not (tmp_path / "mongo").exists() and not (tmp_path / "nats").exists()
    with MongoClient(config.mongodb_url) as client:
        assert client[config.accounts_database]["accounts"].count_documents({"name": "local"}) == 1
