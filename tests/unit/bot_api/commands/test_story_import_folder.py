"""`story import FOLDER` uploads what is inside the folder only (bot_api/commands/story.py
`read_source`): a symbolic link leading out of it is refused, naming it."""

import io
import zipfile
from pathlib import Path

import pytest

from bot_api.commands.story import CommandError, read_source


def folder_with_link(tmp_path: Path, target: Path) -> Path:
    folder = tmp_path / "bot"
    (folder / "interactions").mkdir(parents=True)
    (folder / "story.yaml").write_text("name: Bot\n")
    (folder / "interactions" / "hours.yaml").symlink_to(target)
    return folder


@pytest.mark.parametrize("linked", ["secret.txt", "elsewhere"])
def test_a_link_leading_out_of_the_folder_is_refused_naming_it(tmp_path: Path, linked: str) -> None:
    (tmp_path / "secret.txt").write_text("ssh key")
    (tmp_path / "elsewhere").mkdir()
    folder = folder_with_link(tmp_path, tmp_path / linked)
    with pytest.raises(CommandError) as refused:
        read_source(folder)
    assert str(refused.value) == (
        f"{folder}/interactions/hours.yaml is a link to {tmp_path / linked}, outside "
        f"{folder}: only what is inside the folder is imported"
    )


def test_a_link_to_a_file_inside_the_folder_is_read_as_that_file(tmp_path: Path) -> None:
    folder = folder_with_link(tmp_path, Path("../story.yaml"))
    data, media = read_source(folder)
    archive = zipfile.ZipFile(io.BytesIO(data))
    assert media == "application/zip"
    assert archive.read("interactions/hours.yaml") == b"name: Bot\n"
