"""The files of an uploaded ZIP, read within bounds.

An agent or project is a few hundred small text files (the biggest sample, 0.3 MB
unzipped); the bounds refuse a ZIP bomb before it costs memory: the sizes a ZIP declares
are not trusted, each member is read at most one byte past what is left of the total.
"""

import io
import zipfile
from pathlib import PurePosixPath

MAX_FILES = 5_000
MAX_UNZIPPED_BYTES = 32 * 1024 * 1024
IGNORED_PARTS = frozenset({"__MACOSX", ".git"})
"""Folders an archiver or a clone adds that are never part of a bot."""


class ArchiveError(ValueError):
    """The upload is not a ZIP this service reads."""


def read_archive(data: bytes) -> dict[str, bytes]:
    """Each file's path (with `/`) and content; directories and junk entries left out."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile:
        raise ArchiveError("the upload is not a ZIP archive") from None
    members = [info for info in archive.infolist() if not info.is_dir()]
    if len(members) > MAX_FILES:
        raise ArchiveError(f"the ZIP holds {len(members)} files; at most {MAX_FILES}")
    files: dict[str, bytes] = {}
    left = MAX_UNZIPPED_BYTES
    for info in members:
        path = PurePosixPath(info.filename.replace("\\", "/"))
        if IGNORED_PARTS & set(path.parts) or path.name.startswith("._"):
            continue
        if path.is_absolute() or ".." in path.parts:
            raise ArchiveError(f"{info.filename!r} points outside the archive")
        try:
            with archive.open(info) as member:
                content = member.read(left + 1)
        except (zipfile.BadZipFile, NotImplementedError, RuntimeError) as error:
            raise ArchiveError(f"{info.filename!r} cannot be read: {error}") from None
        left -= len(content)
        if left < 0:
            raise ArchiveError(f"the ZIP unpacks to more than {MAX_UNZIPPED_BYTES} bytes")
        files[str(path)] = content
    return files


def without_top_folder(files: dict[str, bytes], marker: str) -> dict[str, bytes]:
    """The files relative to the folder holding `marker` (an agent zipped with the folder
    around it, at any depth); unchanged when `marker` is not among them."""
    holders = sorted(
        (str(PurePosixPath(path).parent) for path in files if PurePosixPath(path).name == marker),
        key=len,
    )
    if not holders or holders[0] == ".":
        return files
    prefix = holders[0] + "/"
    return {
        path[len(prefix) :]: content for path, content in files.items() if path.startswith(prefix)
    }
