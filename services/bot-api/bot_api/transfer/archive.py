"""The files of an uploaded ZIP (or of a folder sent as a form), read within bounds.

An agent or project is a few hundred small text files (the biggest sample, 0.3 MB
unzipped); the bounds refuse a ZIP bomb before it costs memory: the sizes a ZIP declares
are not trusted, each member is read at most one byte past what is left of the total.
"""

import io
import zipfile
from email.message import Message
from email.parser import BytesParser
from email.policy import Compat32
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
        path = _kept(info.filename)
        if path is None:
            continue
        try:
            with archive.open(info) as member:
                content = member.read(left + 1)
        except (zipfile.BadZipFile, NotImplementedError, RuntimeError) as error:
            raise ArchiveError(f"{info.filename!r} cannot be read: {error}") from None
        left -= len(content)
        if left < 0:
            raise ArchiveError(f"the ZIP unpacks to more than {MAX_UNZIPPED_BYTES} bytes")
        files[path] = content
    return files


class _FormPolicy(Compat32):
    """The stdlib's plain (compat32) MIME reading, a header's bytes read as UTF-8 (as a
    browser sends a file's name). The modern policies parse every header through the
    header registry each time it is read: 3.4 ms a part here, 17 s for a form of 5,000
    files; this one 0.2 ms (0.95 s)."""

    def header_fetch_parse(self, name: str, value: str) -> str:
        return value.encode("ascii", "surrogateescape").decode("utf-8", "replace")


FORM_POLICY = _FormPolicy(linesep="\r\n")


def read_form(content_type: str, data: bytes) -> dict[str, bytes]:
    """Each file of a `multipart/form-data` body (a folder a browser sends, each file
    named by its path in the folder), by path, as `read_archive` gives a ZIP's. The
    stdlib's MIME parser reads it once its parts are counted (no more than MAX_FILES,
    as a ZIP's): the body is already bounded by `MAX_BODY_BYTES`."""
    head = f"Content-Type: {content_type}\r\n\r\n".encode("latin-1", "replace")
    boundary = BytesParser(policy=FORM_POLICY).parsebytes(head).get_boundary()
    if boundary is not None and data.count(b"--" + boundary.encode("latin-1")) > MAX_FILES + 1:
        raise ArchiveError(f"the form holds more than {MAX_FILES} files")
    try:
        message = BytesParser(policy=FORM_POLICY).parsebytes(head + data)
    except RecursionError:  # parts holding parts, which no browser sends
        raise ArchiveError("the form nests parts deeper than it can be read") from None
    if not message.is_multipart() or message.defects:
        raise ArchiveError("the form is not multipart/form-data with its boundary")
    files: dict[str, bytes] = {}
    parts = [part for part in message.get_payload() if isinstance(part, Message)]
    for part in parts:
        name = part.get_filename()
        if not name:
            continue
        path = _kept(_unescaped(name))
        if path is None:
            continue
        if len(files) == MAX_FILES:
            raise ArchiveError(f"the form holds more than {MAX_FILES} files")
        content = part.get_payload(decode=True)
        files[path] = content if isinstance(content, bytes) else b""
    if not files:
        raise ArchiveError("the form holds no file")
    return files


def _unescaped(filename: str) -> str:
    """A form's file name as the browser had it: the HTML standard has it send `"`, CR
    and LF as `%22`, `%0D`, `%0A` (and nothing else escaped)."""
    for escaped, character in (("%22", '"'), ("%0D", "\r"), ("%0A", "\n")):
        filename = filename.replace(escaped, character)
    return filename


def _kept(name: str) -> str | None:
    """A member's path with `/`; None for an archiver's or a clone's junk."""
    path = PurePosixPath(name.replace("\\", "/"))
    if IGNORED_PARTS & set(path.parts) or path.name.startswith("._"):
        return None
    if path.is_absolute() or ".." in path.parts:
        raise ArchiveError(f"{name!r} points outside the archive")
    return str(path)


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
