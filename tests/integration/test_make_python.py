"""`make` builds the environment with the newest Python it supports that runs: 3.13,
then 3.12, then 3.11; `make PYTHON=...` overrides the choice."""

import shutil
import subprocess
from pathlib import Path

import pytest

MAKEFILE = Path(__file__).resolve().parents[2] / "Makefile"
ALL_THREE = {"python3.13": True, "python3.12": True, "python3.11": True}


def make_env_dry_run(
    directory: Path, pythons: dict[str, bool], *arguments: str
) -> subprocess.CompletedProcess[str]:
    """`make -n env` in a copy of the Makefile with only `pythons` on PATH, each a shim
    that runs (True) or fails as a pyenv shim of an unselected version does (False)."""
    bin_dir = directory / "bin"
    bin_dir.mkdir()
    for name, runs in pythons.items():
        shim = bin_dir / name
        shim.write_text(f"#!/bin/sh\nexit {0 if runs else 127}\n")
        shim.chmod(0o755)
    shutil.copy(MAKEFILE, directory / "Makefile")
    (directory / "pyproject.toml").touch()
    (directory / "uv.lock").touch()
    make = shutil.which("make")
    assert make is not None
    return subprocess.run(
        [make, "-n", "env", *arguments],
        cwd=directory,
        env={"PATH": str(bin_dir)},
        capture_output=True,
        text=True,
        timeout=30,
    )


@pytest.mark.parametrize(
    ("pythons", "chosen"),
    [
        (ALL_THREE, "python3.13"),
        ({"python3.12": True, "python3.11": True}, "python3.12"),
        ({"python3.11": True}, "python3.11"),
        ({"python3.13": False, "python3.12": False, "python3.11": True}, "python3.11"),
    ],
)
def test_make_picks_the_newest_supported_python_that_runs(
    tmp_path: Path, pythons: dict[str, bool], chosen: str
) -> None:
    planned = make_env_dry_run(tmp_path, pythons)
    assert planned.returncode == 0, planned.stderr
    assert f"{chosen} -m venv .tools" in planned.stdout.splitlines()
    assert f"--python {chosen}" in planned.stdout


def test_an_explicit_python_wins(tmp_path: Path) -> None:
    planned = make_env_dry_run(tmp_path, ALL_THREE, "PYTHON=python3.11")
    assert "python3.11 -m venv .tools" in planned.stdout.splitlines()


def test_without_a_supported_python_make_says_what_it_needs(tmp_path: Path) -> None:
    planned = make_env_dry_run(tmp_path, {"python3.10": True, "python3.13": False})
    assert planned.returncode != 0
    assert "Parley needs Python 3.13, 3.12 or 3.11" in planned.stderr
