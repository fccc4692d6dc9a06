"""Start nx-27017, nats-server and the services as child processes on free ports.

`make run` and the test fixtures both use this, so the very same servers and PyMongo
code path run on a laptop with no MongoDB or NATS installed.

Every child runs in a process group of its own, so a Ctrl-C or a closed terminal reaches
only the process that started it, which stops the children in order; on Linux a child
also gets SIGTERM when that process dies, even by SIGKILL, so none outlives it.
"""

import ctypes
import errno
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from pymongo import MongoClient

from shared.mongo import Document

START_TIMEOUT_SECONDS = 30
STOP_TIMEOUT_SECONDS = 10
LOGS_KEPT = 5  # per server: the log of this start and of the four before
PR_SET_PDEATHSIG = 1  # from <linux/prctl.h>


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def port_taken(host: str, port: int) -> bool:
    """Whether another program listens on host:port (bound as the services bind, so a
    connection of an earlier run still closing does not count)."""
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as error:
            if error.errno == errno.EADDRINUSE:
                return True
            raise
    return False


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

    @property
    def port(self) -> int:
        return int(self.url.rsplit(":", 1)[1])

    def exit_reason(self) -> str:
        """How the process ended, in words: "exited with code 1", "was killed by SIGKILL"."""
        code = self.process.returncode
        if code is not None and code < 0:
            return f"was killed by {signal.Signals(-code).name}"
        return f"exited with code {code}"

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


def fresh_log(path: Path) -> Path:
    """Shift the logs of earlier starts to `path`.1, `path`.2, ... (dropping the oldest),
    so each start writes a log of its own and they do not pile up."""
    path.parent.mkdir(parents=True, exist_ok=True)
    for generation in range(LOGS_KEPT - 1, 0, -1):
        older = path if generation == 1 else path.with_name(f"{path.name}.{generation - 1}")
        if older.exists():
            older.replace(path.with_name(f"{path.name}.{generation}"))
    return path


def _terminated_with_parent() -> Callable[[], None] | None:
    """What a child runs before exec so it gets SIGTERM once this process dies (Linux only).

    The kernel ties it to the thread that starts the child: start children from the main
    thread, as `make run` and the test fixtures do."""
    if sys.platform != "linux":
        return None
    prctl = ctypes.CDLL(None, use_errno=True).prctl
    parent = os.getpid()

    def terminate_with_parent() -> None:
        prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
        if os.getppid() != parent:  # the parent died before prctl took effect
            os._exit(1)

    return terminate_with_parent


def spawn(
    name: str, url: str, command: list[str], log_path: Path, env: dict[str, str] | None = None
) -> ServerProcess:
    with fresh_log(log_path).open("wb") as log:
        process = subprocess.Popen(
            command,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            process_group=0,
            preexec_fn=_terminated_with_parent(),
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


def start_mongo(data_dir: Path | str, log_dir: Path, port: int | None = None) -> ServerProcess:
    """nx-27017 (on `port`, or a free one); `data_dir` "memory" keeps every database in
    memory (tests)."""
    port = port or free_port()
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
        os.devnull,  # the same lines reach its stderr, which goes to our log
        "--pid-file",
        str(log_dir / f"nx-27017-{port}.pid"),
    ]
    url = f"mongodb://127.0.0.1:{port}"
    server = spawn("nx-27017", url, command, log_dir / "nx-27017.log")

    def answers_ping() -> bool:
        client: MongoClient[Document] = MongoClient(url, serverSelectionTimeoutMS=500)
        with client:
            client.admin.command("ping")
        return True

    wait_until(server, answers_ping)
    return server


def start_nats(
    store_dir: Path, log_dir: Path, port: int | None = None, login: tuple[str, str] | None = None
) -> ServerProcess:
    """nats-server with JetStream storing under `store_dir` (on `port`, or a free one),
    asking clients for `login` (user, password) when given."""
    port = port or free_port()
    command = nats_command(store_dir, port)
    if login is not None:
        command += ["--user", login[0], "--pass", login[1]]
    server = spawn("nats-server", f"nats://127.0.0.1:{port}", command, log_dir / "nats.log")
    wait_until(server, lambda: nats_accepts(port))
    return server


def nats_command(store_dir: Path, port: int) -> list[str]:
    """nats-server with JetStream storing under `store_dir`, for clients on `port`."""
    store_dir.mkdir(parents=True, exist_ok=True)
    return [
        executable("nats-server"),
        "--jetstream",
        "--store_dir",
        str(store_dir),
        "--addr",
        "127.0.0.1",
        "--port",
        str(port),
    ]


def nats_accepts(port: int) -> bool:
    """Whether a nats-server greets a client on `port`."""
    with socket.create_connection(("127.0.0.1", port), timeout=0.5) as connection:
        return connection.recv(4).startswith(b"INFO")


def start_service(
    module: str, port: int, env: dict[str, str], log_dir: Path, name: str | None = None
) -> ServerProcess:
    """`python -m <module> serve` with `env`, once its /readyz answers (MongoDB and NATS
    reached)."""
    server = spawn_service(module, port, env, log_dir, name)
    wait_ready(server)
    return server


def spawn_service(
    module: str, port: int, env: dict[str, str], log_dir: Path, name: str | None = None
) -> ServerProcess:
    """`python -m <module> serve` started but not waited for, so that several start side
    by side (then `wait_ready` each); named `name` (a replica's, for a log of its own),
    else the module."""
    name = name or module
    command = [sys.executable, "-m", module, "serve"]
    return spawn(name, f"http://127.0.0.1:{port}", command, log_dir / f"{name}.log", env)


def wait_ready(server: ServerProcess) -> None:
    def ready() -> bool:
        with urllib.request.urlopen(f"{server.url}/readyz", timeout=1) as response:
            return bool(response.status == 200)

    wait_until(server, ready)
