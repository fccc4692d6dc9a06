"""`make run` and its children: one run per var dir, nothing outlives it, a clean stop
logs nothing alarming."""

import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from support.local_stack import (
    call,
    child_named,
    children,
    gone_within,
    read_until,
    ready,
    start,
    stop,
)
from tools.embedded import free_port


def test_a_second_run_refuses_in_one_line_and_a_hang_up_stops_every_child(
    tmp_path: Path,
) -> None:
    var = tmp_path / "var"
    process, _ = start(var, (free_port(), free_port()))
    servers = children(process.pid)
    assert len(servers) == 4  # nx-27017, nats-server, bot-api, integrations-api
    logs_before = sorted(p.name for p in (var / "logs").iterdir())

    second = subprocess.run(
        [sys.executable, "-m", "tools.local_stack"],
        env={**os.environ, "PARLEY_VAR_DIR": str(var)},
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert second.returncode == 1
    assert second.stdout == ""
    assert second.stderr.strip().splitlines() == [
        f"Parley is already running from {var} (pid {process.pid}); stop it first."
    ]
    assert sorted(p.name for p in (var / "logs").iterdir()) == logs_before

    stop(process, signal.SIGHUP)
    assert gone_within(servers, 5)


def test_children_do_not_outlive_a_killed_run(tmp_path: Path) -> None:
    process, _ = start(tmp_path / "var", (free_port(), free_port()))
    servers = children(process.pid)
    assert len(servers) == 4
    process.kill()
    process.communicate(timeout=10)
    assert gone_within(servers, 20)


def test_a_clean_stop_logs_no_disconnect_and_no_traceback_and_logs_rotate_per_start(
    tmp_path: Path,
) -> None:
    var = tmp_path / "var"
    ports = (free_port(), free_port())
    for _ in range(2):
        process, _ = start(var, ports)
        tokens = (var / "local-account.json").read_text()
        developer_token = tokens.split('"developerToken": "', 1)[1].split('"', 1)[0]
        assert call(f"http://127.0.0.1:{ports[0]}/stories", developer_token) == []
        stop(process)
    logs = {p.name: p.read_text() for p in (var / "logs").iterdir()}
    assert set(logs) == {
        f"{server}.log{generation}"
        for server in ("nx-27017", "nats", "bot_api", "integrations_api")
        for generation in ("", ".1")
    }
    for name, text in logs.items():
        assert "Traceback" not in text, name
        assert "disconnected" not in text, name


def test_a_dead_embedded_server_and_a_crashed_service_are_restarted_and_answer(
    tmp_path: Path,
) -> None:
    """A service killed by SIGSEGV (as 50,000 nested YAML lists once did) is started
    again and answers; before, it stopped the whole run."""
    ports = (free_port(), free_port())
    process, _ = start(tmp_path / "var", ports)

    os.kill(child_named(process.pid, "nats-server"), signal.SIGKILL)
    said = read_until(process, "Restarting nats-server", 30)
    assert "nats-server was killed by SIGKILL" in said
    assert all(ready(f"http://127.0.0.1:{port}", 30) for port in ports)

    crashed = child_named(process.pid, "bot_api")
    os.kill(crashed, signal.SIGSEGV)
    said = read_until(process, "Restarting bot_api", 30)
    assert "bot_api was killed by SIGSEGV" in said
    assert ready(f"http://127.0.0.1:{ports[0]}", 30)
    assert child_named(process.pid, "bot_api") != crashed
    stop(process)


@pytest.mark.parametrize("setting", ["BOT_API_PORT", "INTEGRATIONS_API_PORT"])
def test_a_taken_port_stops_the_run_in_one_line_naming_the_setting(
    tmp_path: Path, setting: str
) -> None:
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        taken = holder.getsockname()[1]
        ports = {"BOT_API_PORT": str(free_port()), "INTEGRATIONS_API_PORT": str(free_port())}
        run = subprocess.run(
            [sys.executable, "-m", "tools.local_stack"],
            env={
                **{k: v for k, v in os.environ.items() if k not in ("MONGODB_URL", "NATS_URL")},
                **ports,
                setting: str(taken),
                "PARLEY_VAR_DIR": str(tmp_path / "var"),
            },
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert run.returncode == 1
    assert run.stdout == ""  # no banner
    assert run.stderr.strip().splitlines() == [
        f"Port {taken} is taken by another program: stop it, or set {setting} to a free port "
        f"(e.g. {setting}={taken + 10} make run)."
    ]
    assert not (tmp_path / "var" / "logs").exists()  # nothing was started
