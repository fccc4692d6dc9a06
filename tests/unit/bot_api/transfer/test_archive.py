"""Uploaded ZIPs are read within bounds; junk entries are skipped, a path out of the
archive refused, and a folder around the bot found."""

import io
import zipfile

import pytest

from bot_api.transfer import archive
from bot_api.transfer.archive import ArchiveError, read_archive, without_top_folder


def zipped(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as z:
        for path, data in files.items():
            z.writestr(path, data)
    return buffer.getvalue()


def test_files_are_read_and_junk_skipped() -> None:
    data = zipped(
        {
            "agent/agent.json": b"{}",
            "agent/intents/A.json": b"[]",
            "__MACOSX/agent/._agent.json": b"junk",
            "agent/._A.json": b"junk",
            "agent/.git/config": b"x",
        }
    )
    files = read_archive(data)
    assert files == {"agent/agent.json": b"{}", "agent/intents/A.json": b"[]"}
    assert without_top_folder(files, "agent.json") == {"agent.json": b"{}", "intents/A.json": b"[]"}
    assert without_top_folder({"agent.json": b"{}"}, "agent.json") == {"agent.json": b"{}"}


def test_what_is_not_a_zip_or_points_outside_is_refused() -> None:
    with pytest.raises(ArchiveError, match="not a ZIP"):
        read_archive(b"PK not really")
    with pytest.raises(ArchiveError, match="outside"):
        read_archive(zipped({"../etc/passwd": b"x"}))


def test_a_zip_bomb_is_refused_before_it_is_unpacked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(archive, "MAX_UNZIPPED_BYTES", 1000)
    with pytest.raises(ArchiveError, match="more than 1000 bytes"):
        read_archive(zipped({"a": b"0" * 600, "b": b"0" * 600}))
    monkeypatch.setattr(archive, "MAX_FILES", 2)
    with pytest.raises(ArchiveError, match="3 files"):
        read_archive(zipped({"a": b"", "b": b"", "c": b""}))
