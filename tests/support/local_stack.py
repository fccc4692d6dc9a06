"""Running `make run` (python -m tools.local_stack) or `make scale` (tools.scale_stack)
from a test, as a terminal would."""

import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

READY_LINE = "Ctrl-C stops everything."


def start(var: Path, ports: tuple[int, int], **settings: str) -> tuple[subprocess.Popen[str], str]:
    """`make run` in a session of its own, once it printed how to use it."""
    settings = {"BOT_API_PORT": str(ports[0]), "INTEGRATIONS_API_PORT": str(ports[1]), **settings}
    return launch("tools.local_stack", var, **settings)


def launch(module: str, var: Path, **settings: str) -> tuple[subprocess.Popen[str], str]:
    """`python -m <module>` (make run or make scale) on `var` in a session of its own,
    once it printed how to use it."""
    env = {k: v for k, v in os.environ.items() if k not in ("MONGODB_URL", "NATS_URL")}
    env.update(PARLEY_VAR_DIR=str(var), **settings)
    process = subprocess.Popen(
        [sys.executable, "-m", module],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    assert process.stdout is not None
    printed = ""
    deadline = time.monotonic() + 90
    while READY_LINE not in printed:
        line = process.stdout.readline()
        assert line and time.monotonic() < deadline, f"stack did not start:\n{printed}"
        printed += line
    return process, printed


def stop(process: subprocess.Popen[str], signum: int = signal.SIGINT) -> str:
    """Ctrl-C (or `signum`) as a terminal sends it: to the whole foreground process group."""
    os.killpg(process.pid, signum)
    out, _ = process.communicate(timeout=60)
    assert process.returncode == 0, out
    return out


def descendants(pid: int) -> list[int]:
    """The processes `pid` started, and those they started, and so on."""
    return [d for child in children(pid) for d in (child, *descendants(child))]


def child_named(parent: int, name: str) -> int:
    """The first process `parent` started whose command line holds `name`."""
    for pid in children(parent):
        if name in Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace"):
            return pid
    raise AssertionError(f"no child {name} of {parent}")


def read_until(process: subprocess.Popen[str], text: str, seconds: float) -> str:
    """What the stack printed until it said `text`."""
    assert process.stdout is not None
    said = ""
    deadline = time.monotonic() + seconds
    while text not in said:
        line = process.stdout.readline()
        assert line and time.monotonic() < deadline, f"never said {text!r}:\n{said}"
        said += line
    return said


def ready(url: str, seconds: float) -> bool:
    """Whether the service at `url` answers /readyz within `seconds`."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"{url}/readyz", timeout=2) as reply:
                if reply.status == 200:
                    return True
        except OSError:
            pass
        time.sleep(0.2)
    return False


def children(pid: int) -> list[int]:
    """The processes `pid` started (Linux /proc)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


def gone_within(pids: list[int], seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while any(running(pid) for pid in pids):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


def running(pid: int) -> bool:
    """Whether `pid` exists and is not a zombie waiting to be reaped."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def call(url: str, token: str, body: dict[str, Any] | None = None) -> Any:
    request = urllib.request.Request(
        url,
        data=None if body is None else json.dumps(body).encode(),
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())
