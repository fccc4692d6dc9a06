"""The shared sample bots (../shared/samples): each Dialogflow agent's and Rasa project's
folder, and the ZIP the import API takes."""

import io
import zipfile
from pathlib import Path

SAMPLES = next(
    folder / "shared" / "samples"
    for folder in Path(__file__).resolve().parents
    if (folder / "shared" / "samples").is_dir()
)
"""Beside the repository (a git worktree may sit a level deeper than the main checkout)."""
SAMPLE_BOTS = {
    "temperature-converter": SAMPLES / "dialogflow" / "temperature-converter" / "dialogflow-agent",
    "bike-shop": SAMPLES / "dialogflow" / "bike-shop" / "dialogflow-agent",
    "place-finder": SAMPLES / "dialogflow" / "place-finder" / "place_finder",
    "fallback-button": SAMPLES / "rasa" / "fallback-button",
    "moodbot-zh": SAMPLES / "rasa" / "moodbot-zh",
    "helpdesk-assistant": SAMPLES / "rasa" / "helpdesk-assistant",
}


def zipped(folder: Path) -> bytes:
    """The folder's files as a ZIP, their paths relative to it."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for file in sorted(folder.rglob("*")):
            if file.is_file():
                archive.write(file, file.relative_to(folder).as_posix())
    return buffer.getvalue()
