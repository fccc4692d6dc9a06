"""Each start of a server writes a log of its own; only the last few are kept."""

from pathlib import Path

from tools.embedded import LOGS_KEPT, fresh_log


def test_each_start_shifts_the_earlier_logs_and_drops_the_oldest(tmp_path: Path) -> None:
    log = tmp_path / "logs" / "nats.log"
    for start in range(LOGS_KEPT + 2):
        fresh_log(log).write_text(f"start {start}")
    kept = sorted(p.name for p in log.parent.iterdir())
    assert kept == ["nats.log"] + [f"nats.log.{n}" for n in range(1, LOGS_KEPT)]
    assert log.read_text() == f"start {LOGS_KEPT + 1}"
    assert (log.parent / f"nats.log.{LOGS_KEPT - 1}").read_text() == "start 2"
