"""Start-up as a container sees it: a service waits for MongoDB and NATS (503 on /readyz
with the reason meanwhile), gives up after STARTUP_WAIT_SECONDS with one line, and
refuses a bad setting with one line."""

import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from tools.embedded import ServerProcess, free_port, start_mongo, start_nats


def spawn(env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    with log.open("wb") as out:
        return subprocess.Popen(
            [sys.executable, "-m", "bot_api", "serve"], env=env, stdout=out, stderr=out
        )


def readyz(port: int) -> tuple[int, dict[str, object]]:
    """/readyz's status and body; (0, {}) while nothing listens."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=2) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())
    except OSError:
        return 0, {}


def listening_addresses(port: int) -> list[str]:
    """The local addresses sockets listen on at `port` (Linux /proc/net/tcp)."""
    found = []
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        local, state = line.split()[1], line.split()[3]
        address, hex_port = local.split(":")
        if state == "0A" and int(hex_port, 16) == port:  # 0A: LISTEN
            found.append(".".join(str(b) for b in reversed(bytes.fromhex(address))))
    return found


def until(check: object, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while not check():  # type: ignore[operator]
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.1)


def test_a_service_waits_for_mongodb_and_nats_and_readyz_says_why(
    tmp_path: Path, nats_url: str
) -> None:
    mongo_port, nats_port, port = free_port(), free_port(), free_port()
    env = {
        **os.environ,
        "MONGODB_URL": f"mongodb://127.0.0.1:{mongo_port}",
        "NATS_URL": f"nats://127.0.0.1:{nats_port}",
        "DATABASE_PREFIX": f"s{port}",
        "BOT_API_PORT": str(port),
        "LOG_FORMAT": "json",
    }
    service = spawn(env, tmp_path / "bot_api.log")
    started: list[ServerProcess] = []
    try:
        until(lambda: "not reachable yet" in str(readyz(port)[1].get("reason")))
        status, body = readyz(port)
        assert status == 503 and "MongoDB" in str(body["reason"])
        started.append(start_mongo("memory", tmp_path, port=mongo_port))
        until(lambda: "NATS is not reachable yet" in str(readyz(port)[1].get("reason")))
        assert readyz(port)[0] == 503
        started.append(start_nats(tmp_path / "nats", tmp_path, port=nats_port))
        until(lambda: readyz(port)[0] == 200)
        assert service.poll() is None
        assert listening_addresses(port) == ["127.0.0.1"]  # HOST's default: loopback only
    finally:
        service.terminate()
        service.wait(30)
        for server in reversed(started):
            server.stop()
    lines = [json.loads(line) for line in (tmp_path / "bot_api.log").read_text().splitlines()]
    waits = [line for line in lines if "is not reachable (try" in line["message"]]
    assert {line["level"] for line in waits} == {"warning"}
    assert any(line["message"].startswith("MongoDB") for line in waits)
    assert any(line["message"].startswith("NATS") for line in waits)
    assert service.returncode == 0


def test_a_service_gives_up_after_startup_wait_seconds_with_one_line(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "MONGODB_URL": f"mongodb://127.0.0.1:{free_port()}",
        "BOT_API_PORT": str(free_port()),
        "STARTUP_WAIT_SECONDS": "1",
    }
    log = tmp_path / "bot_api.log"
    service = spawn(env, log)
    assert service.wait(60) == 1
    lines = log.read_text().splitlines()
    assert "Traceback" not in log.read_text()
    assert sum("did not answer within 1 s" in line for line in lines) == 1
    assert "ERROR" in lines[-1] and "MongoDB did not answer within 1 s" in lines[-1]


def test_a_bad_setting_stops_the_process_with_one_clear_line() -> None:
    for name, value, said in (
        ("BOT_API_PORT", "eighty", "BOT_API_PORT must be a whole number from 1 to 65535"),
        ("LOG_FORMAT", "xml", "LOG_FORMAT must be one of text, json"),
        ("MONGODB_URL", "http://user:hunter2@db", "MONGODB_URL must start with mongodb://"),
        ("WEBHOOK_ALLOW", "10.0.0.0/8,intranet", "WEBHOOK_ALLOW must list networks"),
        ("HOST", "localhost", "HOST must be an IP address"),
    ):
        done = subprocess.run(
            [sys.executable, "-m", "bot_api", "serve"],
            env={**os.environ, name: value},
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 2
        assert done.stdout == ""
        assert done.stderr.splitlines() == [done.stderr.strip()], done.stderr
        assert done.stderr.startswith(f"python -m bot_api: {said}")
        assert "hunter2" not in done.stderr


def test_a_service_whose_port_is_taken_exits_in_one_line_naming_the_setting() -> None:
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        taken = holder.getsockname()[1]
        run = subprocess.run(
            [sys.executable, "-m", "integrations_api", "serve"],
            env={**os.environ, "INTEGRATIONS_API_PORT": str(taken), "STARTUP_WAIT_SECONDS": "1"},
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert run.returncode == 1
    [line] = (run.stdout + run.stderr).strip().splitlines()
    assert line.endswith(
        f"port {taken} on 127.0.0.1 is taken by another program: stop it, "
        "or set INTEGRATIONS_API_PORT to a free port"
    )


def test_more_stream_replicas_than_a_lone_nats_server_has_stop_the_start_in_one_line(
    tmp_path: Path, mongo_url: str, nats_url: str
) -> None:
    env = {
        **os.environ,
        "MONGODB_URL": mongo_url,
        "NATS_URL": nats_url,
        "DATABASE_PREFIX": f"r{free_port()}",
        "BOT_API_PORT": str(free_port()),
        "NATS_STREAM_REPLICAS": "3",
    }
    log = tmp_path / "bot_api.log"
    assert spawn(env, log).wait(60) == 1
    assert "Traceback" not in log.read_text()
    last = log.read_text().splitlines()[-1]
    assert "ERROR" in last and "NATS refused the event stream" in last
    assert "with NATS_STREAM_REPLICAS=3: replicas > 1 not supported in non-clustered mode" in last
