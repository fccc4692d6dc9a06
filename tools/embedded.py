"""Start nx-27017 and nats-server as child processes on free ports.

`make run` and the test fixtures both use this, so the very same servers and PyMongo
code path run on a laptop with no MongoDB or NATS installed.
"""

import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from pymongo import MongoClient

START_TIMEOUT_SECONDS = 30
STOP_TIMEOUT_SECONDS = 10


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def executable(name: str) -> str:
    """A console script of this environment, else one on PATH."""
    beside_python = Path(sys.executable).parent / name
    if beside_python.exists():
        return str(beside_python)
    found = shutil.which(name)
    if found is None:
        raise RuntimeError(f"{name} is not installed; run `make env`")
    return found


@dataclass
class ServerProcess:
    name: str
    url: str
    process: subprocess.Popen[bytes]
    log_path: Path

    def stop(self) -> None:
        if self.process.poll() is not None:
            return
        self.process.terminate()
        try:
            self.process.wait(STOP_TIMEOUT_SECONDS)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def log_tail(self, lines: int = 20) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""

    def check_alive(self) -> None:
        if self.process.poll() is not None:
            raise RuntimeError(
                f"{self.name} exited with {self.process.returncode}:\n{self.log_tail()}"
            )


def _spawn(name: str, url: str, command: list[str], log_path: Path) -> ServerProcess:
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with log_path.open("ab") as log:
        process = subprocess.Popen(
            command, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL
        )
    return ServerProcess(name, url, process, log_path)


def wait_until(server: ServerProcess, ready: Callable[[], bool]) -> None:
    deadline = time.monotonic() + START_TIMEOUT_SECONDS
    while time.monotonic() < deadline:
        server.check_alive()
        try:
            if ready():
                return
        except Exception:
            pass
        time.sleep(0.1)
    server.stop()
    raise RuntimeError(f"{server.name} did not become ready:\n{server.log_tail()}")


def start_mongo(data_dir: Path | str, log_dir: Path) -> ServerProcess:
    """nx-27017; `data_dir` "memory" keeps every database in memory (tests)."""
    port = free_port()
    if data_dir != "memory":
        Path(data_dir).mkdir(parents=True, exist_ok=True)
    command = [
        executable("nx-27017"),
        "--data-dir",
        str(data_dir),
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--log-file",
        str(log_dir / f"nx-27017-{port}.log"),
        "--pid-file",
        str(log_dir / f"nx-27017-{port}.pid"),
    ]
    url = f"mongodb://127.0.0.1:{port}"
    server = _spawn("nx-27017", url, command, log_dir / f"nx-27017-{port}.out")

    def answers_ping() -> bool:
        with MongoClient(url, serverSelectionTimeoutMS=500) as client:
            client.admin.command("ping")
        return True

    wait_until(server, answers_ping)
    return server


def start_nats(store_dir: Path, log_dir: Path, port: int | None = None) -> ServerProcess:
    """nats-server with JetStream storing under `store_dir` (on `port`, or a free one)."""
    port = port or free_port()
    store_dir.mkdir(parents=True, exist_ok=True)
    command = [
        executable("nats-server"),
        "--jetstream",
        "--store_dir",
        str(store_dir),
        "--addr",
        "127.0.0.1",
        "--port",
        str(port),
    ]
    server = _spawn("nats-server", f"nats://127.0.0.1:{port}", command, log_dir / "nats.log")

    def accepts_connections() -> bool:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5) as connection:
            return connection.recv(4).startswith(b"INFO")

    wait_until(server, accepts_connections)
    return server


def start_service(module: str, port: int, env: dict[str, str], log_dir: Path) -> ServerProcess:
    """`python -m <module> serve` with `env`, once its /healthz answers."""
    log_path = log_dir / f"{module}.log"
    log = log_path.open("ab")
    process = subprocess.Popen(
        [sys.executable, "-m", module, "serve"],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
    )
    log.close()
    server = ServerProcess(module, f"http://127.0.0.1:{port}", process, log_path)

    def healthy() -> bool:
        with urllib.request.urlopen(f"{server.url}/healthz", timeout=1) as response:
            return bool(response.status == 200)

    wait_until(server, healthy)
    return server
