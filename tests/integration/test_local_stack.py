"""`make run`: the whole stack starts, prints its tokens, stops on Ctrl-C, keeps its data."""

import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

from pymongo import MongoClient

from shared.config import Config
from tools.embedded import free_port

READY_LINE = "Ctrl-C stops everything."
README = Path(__file__).resolve().parents[2] / "README.md"


def readme_walkthrough() -> str:
    """The first shell block under README's "Walk-through" heading, as a reader sees it."""
    section = README.read_text().split("## Walk-through", 1)[1]
    return section.split("```sh\n", 1)[1].split("```", 1)[0]


def start(var: Path, ports: tuple[int, int], **settings: str) -> tuple[subprocess.Popen[str], str]:
    env = {k: v for k, v in os.environ.items() if k not in ("MONGODB_URL", "NATS_URL")}
    env.update(
        PARLEY_VAR_DIR=str(var),
        BOT_API_PORT=str(ports[0]),
        INTEGRATIONS_API_PORT=str(ports[1]),
        **settings,
    )
    process = subprocess.Popen(
        [sys.executable, "-m", "tools.local_stack"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    assert process.stdout is not None
    printed = ""
    deadline = time.monotonic() + 90
    while READY_LINE not in printed:
        line = process.stdout.readline()
        assert line and time.monotonic() < deadline, f"stack did not start:\n{printed}"
        printed += line
    return process, printed


def stop(process: subprocess.Popen[str]) -> str:
    process.send_signal(signal.SIGINT)
    out, _ = process.communicate(timeout=30)
    assert process.returncode == 0, out
    return out


def call(url: str, token: str, body: dict[str, Any] | None = None) -> Any:
    request = urllib.request.Request(
        url,
        data=None if body is None else json.dumps(body).encode(),
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


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


def test_the_readme_walkthrough_runs_as_written(tmp_path: Path) -> None:
    ports = (free_port(), free_port())
    process, _ = start(tmp_path / "var", ports)
    (tmp_path / "examples").symlink_to(README.parent / "examples")
    try:
        walked = subprocess.run(
            ["bash", "-euo", "pipefail", "-c", readme_walkthrough()],
            cwd=tmp_path,
            env={
                **os.environ,
                "API": f"http://127.0.0.1:{ports[0]}",
                "HOOKS": f"http://127.0.0.1:{ports[1]}",
                "BACKEND_PORT": str(free_port()),
            },
            capture_output=True,
            text=True,
            timeout=60,
        )
    finally:
        stop(process)
    assert walked.returncode == 0, walked.stderr
    printed = json_documents(walked.stdout)
    story = next(d for d in printed if "story" in d)
    answer, with_backend = [d for d in printed if "result" in d]
    names = {i["id"]: i["name"] for i in story["interactions"].values()}
    assert [names[i] for i in story["order"]] == ["Welcome", "Fallback", "Order"]
    order_node = story["story"][2]
    assert [names[c["id"]] for c in order_node["childrens"]] == ["Drinks"]
    result = answer["result"]
    assert names[result["interaction"]["id"]] == "Order"
    assert result["parameters"] == {"size": "large"}
    assert result["fulfillment"][0] == {"type": "text", "message": "One large pizza coming up!"}
    assert [c["name"] for c in result["contexts"]] == ["Order"]
    backend_result = with_backend["result"]
    assert backend_result["source"] == "webhook"
    assert backend_result["fulfillment"][-1]["message"] == "Order #42: one large pizza."
    assert backend_result["parameters"]["order"] == "42"


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
