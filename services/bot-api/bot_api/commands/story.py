"""`python -m bot_api story export|import|test`: a story as a file, for scripts and git;
its conversation tests for CI (`commands/story_tests.py`).

It calls the HTTP API like any client (docs/import-export.md), so what it does is what
the API allows: the address is `--url` (or PARLEY_API_URL, or the stack `make run` is
running), the token `--token` (or PARLEY_TOKEN, or the local account `make run` made).
"""

import argparse
import io
import json
import sys
import urllib.error
import urllib.parse
import urllib.request
import zipfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from bot_api.commands.story_tests import (
    ServerStory,
    TestFileError,
    junit_xml,
    report_lines,
    run_test_file,
    server_encoders,
)
from bot_api.domain.settings import Settings
from bot_api.transfer.layout import to_layout
from shared.cli import running_stack_settings, var_dir

MEDIA_TYPES = {
    ".json": "application/json",
    ".yaml": "application/yaml",
    ".yml": "application/yaml",
    ".zip": "application/zip",
}
LAYOUT_FOLDERS = ("interactions", "entities")
TIMEOUT_SECONDS = 120


class CommandError(Exception):
    """What went wrong, in one line for the terminal."""


def main(arguments: Sequence[str], environ: Mapping[str, str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bot_api story", parents=[_server(None)])
    actions = parser.add_subparsers(dest="action", required=True)
    export = actions.add_parser(
        "export", help="write a story's document", parents=[_server(argparse.SUPPRESS)]
    )
    export.add_argument("story", help="the story's id")
    export.add_argument("--format", choices=["json", "yaml", "dir"], default="json")
    export.add_argument("--out", type=Path, help="a file, or the folder of --format dir")
    imported = actions.add_parser(
        "import",
        help="create a story from a file or folder",
        parents=[_server(argparse.SUPPRESS)],
    )
    imported.add_argument(
        "path",
        type=Path,
        help="a document (.json, .yaml), a folder in the git layout, or a Dialogflow ES "
        "agent or Rasa project (a .zip or its folder)",
    )
    imported.add_argument("--dry-run", action="store_true", help="report only, write nothing")
    tested = actions.add_parser(
        "test",
        help="run conversation tests; exit 1 if one fails",
        parents=[_server(argparse.SUPPRESS)],
    )
    tested.add_argument(
        "path",
        type=Path,
        help="a story document holding tests (run here, no server), or a file of tests",
    )
    tested.add_argument("--story", help="run against this story of the server, through /query")
    tested.add_argument("--junit", type=Path, help="also write the results as JUnit XML here")
    args = parser.parse_args(arguments)
    try:
        if args.action == "test":
            return _test(args.path, args.story, args.junit, args, environ)
        api = Api(args.url or _default_url(environ), args.token or _default_token(environ))
        if args.action == "export":
            _export(api, args.story, args.format, args.out)
        else:
            answer = _import(api, args.path, args.dry_run)
            print(json.dumps(answer, indent=2, ensure_ascii=False))
            print("\n".join(import_report_lines(answer)), file=sys.stderr)
    except CommandError as error:
        print(f"python -m bot_api story: {error}", file=sys.stderr)
        return 1
    return 0


def _server(default: Any) -> argparse.ArgumentParser:
    """`--url` and `--token`, taken before the verb or after it: the verb's copies
    default to SUPPRESS, so they set the value only when given."""
    options = argparse.ArgumentParser(add_help=False)
    options.add_argument(
        "--url",
        default=default,
        help="bot-api's address (default: PARLEY_API_URL, or make run's)",
    )
    options.add_argument(
        "--token",
        default=default,
        help="the developer token (default: PARLEY_TOKEN, or make run's)",
    )
    return options


class Api:
    def __init__(self, url: str, token: str) -> None:
        self.url = url.rstrip("/")
        self.token = token

    def call(self, method: str, path: str, data: bytes | None = None, media: str = "") -> bytes:
        headers = {"Authorization": f"Bearer {self.token}"}
        if media:
            headers["Content-Type"] = media
        request = urllib.request.Request(self.url + path, data, headers, method=method)
        try:
            with urllib.request.urlopen(request, timeout=TIMEOUT_SECONDS) as reply:
                return bytes(reply.read())
        except urllib.error.HTTPError as error:
            with error:
                raise CommandError(_refusal(error.code, error.read())) from None
        except OSError as error:
            raise CommandError(f"cannot reach {self.url}: {error}") from None


def _test(
    path: Path,
    story_id: str | None,
    junit: Path | None,
    args: argparse.Namespace,
    environ: Mapping[str, str],
) -> int:
    server = None
    if story_id is not None:
        api = Api(args.url or _default_url(environ), args.token or _default_token(environ))

        def ask(body: dict[str, Any]) -> dict[str, Any]:
            answer = api.call("POST", "/query", json.dumps(body).encode(), "application/json")
            return dict(json.loads(answer)["result"])

        settings = json.loads(api.call("GET", f"/stories/{story_id}"))["settings"]
        spoken = Settings(language=settings["language"], languages=settings["languages"])
        server = ServerStory(ask, spoken.spoken())

    try:
        suite, run = run_test_file(path, story_id, server, server_encoders(environ))
    except TestFileError as error:
        raise CommandError(str(error)) from None
    print("\n".join(report_lines(run)))
    if junit is not None:
        junit.write_bytes(junit_xml(suite, run))
    return 1 if run.failed else 0


def _export(api: Api, story_id: str, form: str, out: Path | None) -> None:
    query = "?format=yaml" if form == "yaml" else ""
    document = api.call("GET", f"/stories/{story_id}/export{query}")
    if form != "dir":
        if out is None:
            sys.stdout.buffer.write(document)
        else:
            out.write_bytes(document)
        return
    if out is None:
        raise CommandError("--format dir needs --out FOLDER")
    write_layout(out, to_layout(json.loads(document)))


def write_layout(folder: Path, files: Mapping[str, str]) -> None:
    """The layout's files in `folder`; an interaction or entity file no longer in the
    story is removed, so git shows it gone."""
    for name in LAYOUT_FOLDERS:
        for stale in (folder / name).glob("*.yaml"):
            if f"{name}/{stale.name}" not in files:
                stale.unlink()
    for path, text in files.items():
        target = folder / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")


def _import(api: Api, path: Path, dry_run: bool) -> Any:
    """The API's answer; an agent or project that names itself nowhere is named after
    its file or folder."""
    data, media = read_source(path)
    name = path.resolve().name if path.is_dir() else path.stem
    query = {"name": name} if media == "application/zip" and name else {}
    if dry_run:
        query["dryRun"] = "true"
    encoded = f"?{urllib.parse.urlencode(query)}" if query else ""
    return json.loads(api.call("POST", f"/stories/import{encoded}", data, media))


def import_report_lines(answer: Mapping[str, Any]) -> list[str]:
    """An import's report for a person: what answers nothing, then what was left out,
    each grouped by reason with its count (docs/import-export.md "The report, grouped")."""
    report = answer["report"]
    counts = (
        f"{report['source']}, {report['language']}; interactions: "
        f"{len(report['interactions'])}, phrases: {report['phrases']}"
    )
    if report["dryRun"]:
        lines = [f"Dry run of {report['name']} ({counts}): nothing was written."]
    else:
        lines = [f"Imported {report['name']} as story {answer['id']} ({counts})."]
    silent = report["silent"]
    lines.append(f"Interactions that answer nothing of their own: {silent['count']}")
    for group in silent["byReason"]:
        lines.append(f"  {group['count']} × {group['reason']}")
        lines.append("      " + ", ".join(i["key"] for i in group["interactions"]))
    for entity in report["entities"]:
        lines.append(f"Entity {entity['name']}: {entity.get('detail') or entity['status']}")
    for connection in report["connections"]:
        callers = ", ".join(connection["interactions"])
        lines.append(f"Connection to make: {connection['name']} (called by {callers})")
    groups = report["unmappedByReason"]
    lines.append(f"Elements left out: {len(report['unmapped'])}, reasons: {len(groups)}")
    for group in groups:
        lines.append(f"  {group['count']} × {group['reason']}")
        lines += [f"      {row['place']}: {row['element']}" for row in group["rows"]]
    return lines


def read_source(path: Path) -> tuple[bytes, str]:
    """The body and its media type: a folder (the git layout, an agent, a project)
    travels as a ZIP of its files."""
    if path.is_dir():
        return _zipped(path), "application/zip"
    media = MEDIA_TYPES.get(path.suffix.lower())
    if media is None:
        raise CommandError(f"{path}: give a .json, .yaml, .yml or .zip file, or a folder")
    try:
        return path.read_bytes(), media
    except OSError as error:
        raise CommandError(f"cannot read {path}: {error.strerror}") from None


def _zipped(folder: Path) -> bytes:
    """The folder's files, and only what is inside it: a symbolic link that leads out of
    the folder is refused, naming it (a link left out silently would import another
    story than the folder shows; followed, it uploaded whatever file it named). A link
    to a file inside the folder is read as that file; a linked folder is not walked."""
    inside = folder.resolve()
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for file in sorted(folder.rglob("*")):
            path = file.relative_to(folder)
            if ".git" in path.parts:
                continue
            if file.is_symlink() and not file.resolve().is_relative_to(inside):
                raise CommandError(
                    f"{file} is a link to {file.resolve()}, outside {folder}: "
                    "only what is inside the folder is imported"
                )
            if file.is_file():
                archive.write(file, path.as_posix())
    return buffer.getvalue()


def _refusal(status: int, body: bytes) -> str:
    """The API's error envelope in a few lines: its details and every field error."""
    try:
        answer = json.loads(body)["status"]
    except (ValueError, KeyError, TypeError):
        return f"HTTP {status}"
    lines = [f"HTTP {status} {answer.get('errorType', '')}: {answer.get('errorDetails', '')}"]
    lines += [f"  {place}: {message}" for place, message in _flattened(answer.get("errors") or {})]
    return "\n".join(lines)


def _flattened(tree: Any, place: str = "") -> list[tuple[str, str]]:
    if isinstance(tree, list):
        return [(place, str(message)) for message in tree]
    found = []
    for name, below in tree.items():
        found += _flattened(
            below, f"{place}[{name}]" if name.isdigit() else f"{place}.{name}".lstrip(".")
        )
    return found


def _default_url(environ: Mapping[str, str]) -> str:
    if "PARLEY_API_URL" in environ:
        return environ["PARLEY_API_URL"]
    port = running_stack_settings(environ).get("BOT_API_PORT")
    if port is None:
        raise CommandError("give --url (or PARLEY_API_URL), or start the stack with make run")
    return f"http://127.0.0.1:{port}"


def _default_token(environ: Mapping[str, str]) -> str:
    if "PARLEY_TOKEN" in environ:
        return environ["PARLEY_TOKEN"]
    try:
        saved = json.loads((var_dir(environ) / "local-account.json").read_text())
    except (OSError, ValueError):
        raise CommandError(
            "give --token (or PARLEY_TOKEN), or start the stack with make run"
        ) from None
    return str(saved["developerToken"])
