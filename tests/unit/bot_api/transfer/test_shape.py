"""An upload nested deeper or holding more than any real import is refused before it is
built (transfer/shape.py): a document, a ZIP's or a form's files, whatever the format."""

import io
import json
import time
import zipfile

import pytest

from bot_api.transfer import shape
from bot_api.transfer.archive import read_form
from bot_api.transfer.report import TranslationError
from bot_api.transfer.schemas import read_upload
from bot_api.transfer.sources import FORM, JSON, YAML, ZIP, translated
from shared.errors import BadRequest
from support.forms import folder_form


def nested(levels: int) -> bytes:
    return b"[" * levels + b"]" * levels


def million_items() -> bytes:
    """The campaign's 2 MB YAML: one flow list of a million items."""
    return b"[" + b",".join([b"1"] * 1_000_000) + b"]"


@pytest.mark.parametrize(
    ("media", "body", "refusal"),
    [
        (YAML, nested(50_000), "nested deeper than 32 levels"),  # was SIGSEGV
        (YAML, nested(10_000), "nested deeper than 32 levels"),  # was RecursionError (500)
        (JSON, nested(900), "nested deeper than 32 levels"),
        (YAML, million_items(), "more than 10000 items"),
        (JSON, million_items(), "more than 10000 items"),
        (YAML, b"- " * 40 + b"x\n", "nested deeper than 32 levels"),
        (YAML, b"{" + b",".join(b"k%d: 1" % n for n in range(10_001)) + b"}", "10000 items"),
    ],
)
def test_an_upload_beyond_the_bounds_is_a_bad_request_naming_the_bound(
    media: str, body: bytes, refusal: str
) -> None:
    started = time.monotonic()
    with pytest.raises(BadRequest, match=refusal):
        read_upload(media, body)
    assert time.monotonic() - started < 5  # measured: 0.01-0.07 s; before, 37 s or a crash


def test_an_upload_at_the_bounds_is_read() -> None:
    deepest = b"[" * shape.MAX_DEPTH + b"1" + b"]" * shape.MAX_DEPTH
    biggest = b"[" + b",".join([b"1"] * shape.MAX_MEMBERS) + b"]"
    for media in (JSON, YAML):
        for body in (deepest, biggest):
            assert translated(media, body)[1].document == json.loads(body)


def test_the_node_budget_is_spent_across_the_files_of_one_upload() -> None:
    budget = shape.Budget(nodes=7)
    shape.check_yaml("a: [1, 2]\n", "one.yml", budget)  # a mapping, a key, a list, 2 items
    with pytest.raises(shape.ShapeRefused, match=r"two\.json: the upload holds more than"):
        shape.parse_json('{"b": [3]}', "two.json", budget)


def test_an_alias_is_refused_before_anything_is_built() -> None:
    laughs = "a: &a [x, x]\nb: &b [*a, *a]\nc: [*b, *b]\n"
    with pytest.raises(shape.ShapeRefused, match="aliases"):
        shape.check_yaml(laughs, "the body", shape.Budget())


def agent(intent: bytes) -> dict[str, bytes]:
    return {
        "agent.json": b'{"language": "en"}',
        "package.json": b'{"version": "1.0.0"}',
        "intents/Deep.json": intent,
    }


def rasa(nlu: bytes) -> dict[str, bytes]:
    return {"domain.yml": b'version: "3.1"\nintents: [greet]\n', "data/nlu.yml": nlu}


def zipped(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for path, data in files.items():
            archive.writestr(path, data)
    return buffer.getvalue()


@pytest.mark.parametrize(
    ("files", "refusal"),
    [
        (agent(nested(100_000)), "intents/Deep.json: nested deeper than 32 levels"),
        (agent(nested(900)), "intents/Deep.json: nested deeper than 32 levels"),
        (rasa(b"nlu: " + nested(2_000)), "data/nlu.yml: nested deeper than 32 levels"),
        (rasa(b"nlu: " + million_items()), "data/nlu.yml: a list or mapping holds more"),
        ({"story.yaml": b"interactions: " + nested(50_000)}, "story.yaml: nested deeper"),
    ],
)
@pytest.mark.parametrize("media", [ZIP, FORM])
def test_each_file_of_a_zip_or_a_form_is_held_to_the_bounds(
    files: dict[str, bytes], refusal: str, media: str
) -> None:
    body, content_type = (zipped(files), ZIP) if media == ZIP else folder_form(files)
    with pytest.raises(TranslationError, match=refusal):
        translated(media, body, content_type)


def test_an_annotation_nested_beyond_the_decoder_is_left_out_as_invalid_json() -> None:
    """JSON inside a phrase (a Rasa annotation) is no file of its own: the decoder's own
    limit (RecursionError) makes it an annotation left out, not a crash."""
    example = b'    - hi [x]{"entity": "e", "value": ' + nested(5_000) + b"}\n"
    nlu = b'version: "3.1"\nnlu:\n- intent: greet\n  examples: |\n' + example
    _, bot = translated(ZIP, zipped(rasa(nlu)))
    assert "not valid JSON" in [row.reason for row in bot.unmapped]


def test_a_form_of_more_parts_than_files_taken_is_refused_before_it_is_parsed() -> None:
    """Each part cost 3.4 ms of MIME parsing: 20,000 tiny files (3 MB) took 57 s;
    now the parts are counted first and parsed at 0.2 ms each."""
    body, content_type = folder_form({f"f{n}.yml": b"a" for n in range(6_000)})
    started = time.monotonic()
    with pytest.raises(TranslationError, match="the form holds more than 5000 files"):
        translated(FORM, body, content_type)
    assert time.monotonic() - started < 5  # measured: 0.01 s


def test_a_form_of_parts_nested_in_parts_is_refused() -> None:
    content = b'--z\r\nContent-Disposition: form-data; name="f"; filename="a.yml"\r\n\r\na\r\n--z--'
    boundary = "z"
    for level in range(1_000):
        outer = f"q{level}"
        content = (
            f"--{outer}\r\nContent-Type: multipart/mixed; boundary={boundary}\r\n\r\n".encode()
            + content
            + f"\r\n--{outer}--".encode()
        )
        boundary = outer
    with pytest.raises(TranslationError, match="nests parts deeper"):
        translated(FORM, content, f"multipart/form-data; boundary={boundary}")


def test_a_form_keeps_a_file_name_beyond_ascii() -> None:
    body, content_type = folder_form({"story.yaml": b"name: x\n", "intents/Café.yaml": b"a"})
    files = read_form(content_type, body)
    assert sorted(files) == ["intents/Café.yaml", "story.yaml"]
