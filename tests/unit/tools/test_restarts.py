"""`make run` starts a server that died again, whatever it is, unless it is in a crash
loop (tools/local_stack.py `watch`), with real processes that die at once."""

import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tools.embedded import ServerProcess
from tools.local_stack import MAX_RESTARTS, RESTART_WINDOW_SECONDS, watch

CRASH = "import os, signal; os.kill(os.getpid(), signal.SIGSEGV)"


class Enough(Exception):
    """Ends a watch that would go on restarting."""


def crashed(log: Path) -> ServerProcess:
    process = subprocess.Popen([sys.executable, "-c", CRASH])
    process.wait()
    return ServerProcess("bot_api", "http://127.0.0.1:1", process, log)


def restarter(log: Path, starts: list[int], most: int) -> Callable[[], ServerProcess]:
    def restart() -> ServerProcess:
        if len(starts) == most:
            raise Enough
        starts.append(1)
        return crashed(log)

    return restart


def test_a_service_that_crashes_now_and_then_is_restarted_each_time(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "bot_api.log"
    starts: list[int] = []
    ticks = iter(range(0, 100 * int(RESTART_WINDOW_SECONDS), int(RESTART_WINDOW_SECONDS)))
    with pytest.raises(Enough):
        watch([crashed(log)], {"bot_api": restarter(log, starts, 6)}, lambda: next(ticks), 0)
    assert len(starts) == 6
    said = capsys.readouterr().err
    assert said.count(f"bot_api was killed by {signal.SIGSEGV.name}") == 7
    assert said.count("Restarting bot_api on http://127.0.0.1:1.") == 7  # the last: Enough


def test_a_crash_loop_stops_the_run_saying_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "bot_api.log"
    starts: list[int] = []
    watch([crashed(log)], {"bot_api": restarter(log, starts, 99)}, lambda: 0.0, 0)
    assert len(starts) == MAX_RESTARTS
    assert (
        f"bot_api died {MAX_RESTARTS + 1} times within {RESTART_WINDOW_SECONDS:g} s and is "
        "not restarted; stopping Parley." in capsys.readouterr().err
    )
