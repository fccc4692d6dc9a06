"""The story page's Export and the Import page in Chromium: the download is the API's
document, a dry run reports and writes nothing, an import makes the story and links it,
and a refused document lists every problem at its place (docs/import-export.md)."""

import io
import json
import re
import zipfile
from pathlib import Path
from typing import Any

import yaml
from playwright.sync_api import Page, expect

from support.browser import Stack, call, loaded, screenshot, sign_in


def pizza_story(page: Page, stack: Stack) -> str:
    """A story with an entity parameter and a child interaction."""
    if not [e for e in call(page, stack, "GET", "/entities") if e["name"] == "size"]:
        entries = [
            {"value": "large", "synonyms": [{"value": "large"}, {"value": "big"}]},
            {"value": "small", "synonyms": [{"value": "small"}, {"value": "little"}]},
        ]
        call(page, stack, "POST", "/entities", {"name": "size", "entries": entries})
    story = {"name": "Pizza Place", "description": "Takes orders"}
    story_id = str(call(page, stack, "POST", "/stories", story)["id"])
    order = {
        "name": "Order",
        "userSays": ["I want a {{size:size}} pizza", "a pizza please"],
        "parameters": [{"alias": "size", "entity": "size", "prompts": ["Which size?"]}],
        "responses": [{"type": "text", "messages": ["One {{size}} pizza coming up!"]}],
    }
    order_id = call(page, stack, "POST", f"/stories/{story_id}/interactions", order)["id"]
    drinks = {"name": "Drinks", "userSays": ["drinks"]}
    call(page, stack, "POST", f"/stories/{story_id}/interactions/{order_id}", drinks)
    return story_id


def exported(page: Page, stack: Stack, story_id: str) -> dict[str, Any]:
    return dict(call(page, stack, "GET", f"/stories/{story_id}/export"))


def story_names(page: Page, stack: Stack) -> list[str]:
    return [s["name"] for s in call(page, stack, "GET", "/stories?limit=200")]


def choose(page: Page, name: str, text: str) -> None:
    page.get_by_label("Story file").set_input_files(
        {"name": name, "mimeType": "application/octet-stream", "buffer": text.encode()}
    )


def open_import_page(page: Page, stack: Stack) -> None:
    sign_in(page, stack)
    loaded(page)
    page.get_by_role("link", name="Import a story").click()
    loaded(page)
    expect(page.get_by_role("heading", name="Import a story")).to_be_visible()


def test_export_downloads_the_story_document_as_json_and_yaml(page: Page, stack: Stack) -> None:
    story_id = pizza_story(page, stack)
    sign_in(page, stack)
    page.goto(f"{stack.bot_api}/console/stories/{story_id}")
    loaded(page)
    document = exported(page, stack, story_id)

    with page.expect_download() as json_download:
        page.get_by_role("button", name="Export", exact=True).click()
    assert json_download.value.suggested_filename == "pizza-place.parley.json"
    assert json.loads(Path(json_download.value.path()).read_text()) == document

    page.get_by_label("Export as").select_option("yaml")
    with page.expect_download() as yaml_download:
        page.get_by_role("button", name="Export", exact=True).click()
    assert yaml_download.value.suggested_filename == "pizza-place.parley.yaml"
    assert yaml.safe_load(Path(yaml_download.value.path()).read_text()) == document
    assert stack.tokens.developer_token not in json_download.value.url


def test_a_dry_run_shows_the_report_and_creates_nothing(page: Page, stack: Stack) -> None:
    document = exported(page, stack, pizza_story(page, stack))
    document["name"] = "Pizza copy"
    document["entities"][0]["entries"].pop()  # the account's "size" has "small" too
    document["interactions"][2]["connection"] = "Orders"
    document["connections"] = ["Orders"]
    before = story_names(page, stack)
    open_import_page(page, stack)

    choose(page, "pizza.parley.json", json.dumps(document))
    page.get_by_role("button", name="Dry run").press("Enter")  # the keyboard will do
    phrases = sum(len(i["userSays"]) for i in document["interactions"])  # the defaults' too
    status = page.get_by_role("status").filter(has_text="Dry run of")
    expect(status).to_have_text(
        f"Dry run of Pizza copy: 4 interactions, {phrases} phrases, 1 answering nothing, "
        "0 elements left out. Nothing was written."
    )
    report = page.locator("#import-report")
    expect(report.get_by_role("heading", level=2)).to_have_text("Dry run: nothing was written")
    expect(report.locator("dl")).to_contain_text("Sourcea Parley document")
    expect(report.locator("dl")).to_contain_text("Languageenglish")
    expect(report.locator("dl")).to_contain_text("Defaults addednone")
    entities = page.get_by_role("region", name="Entities (1)")
    expect(entities.locator("tbody tr")).to_have_count(1)
    expect(entities.locator("tbody tr")).to_contain_text("sizecreatedsize_2created as size_2")
    expect(entities).to_contain_text("also has 'small'")  # the detail of what differs
    silent = page.get_by_role("region", name="Answering nothing of their own (1)")
    expect(silent.locator("tbody th")).to_have_text("1 × the document gives it no response")
    expect(silent.locator("tbody td")).to_have_text(["drinks", "Drinks"])
    connections = page.get_by_role("region", name="Connections to make (1)")
    expect(connections.locator("tbody tr")).to_have_text("OrdersOrder")
    expect(report.get_by_role("heading", name="Left out (0)")).to_be_visible()
    expect(page.locator("#imported-story")).to_have_count(0)
    screenshot(page, "import-dry-run")
    assert story_names(page, stack) == before


def test_an_import_creates_the_story_and_links_it(page: Page, stack: Stack) -> None:
    document = {
        "format": "parley.story",
        "version": 1,
        "name": "Opening hours",
        "settings": {"language": "german"},
        "interactions": [
            {"key": "hours", "name": "Hours", "userSays": ["wann habt ihr offen", "öffnungszeiten"]}
        ],
    }
    open_import_page(page, stack)
    choose(page, "hours.yml", yaml.safe_dump(document, allow_unicode=True))
    page.get_by_role("button", name="Import", exact=True).click()
    expect(page.locator("#import-status")).to_have_text(
        re.compile(
            r"^Imported Opening hours: 3 interactions, \d+ phrases, 1 answering nothing, "
            r"0 elements left out\.$"
        )
    )
    report = page.locator("#import-report")
    expect(report.get_by_role("heading", level=2)).to_have_text("Imported")
    expect(report.locator("dl")).to_contain_text("Defaults addedwelcome, fallback")
    expect(report.locator("dl")).to_contain_text("Languagegerman")
    interactions = page.get_by_role("region", name="Interactions (3)")
    expect(interactions.get_by_role("link", name="Hours")).to_be_visible()
    assert story_names(page, stack).count("Opening hours") == 1

    report.get_by_role("link", name="Open the story Opening hours").click()
    loaded(page)
    expect(page.locator("#story-title")).to_have_text("Opening hours")
    expect(page.locator("#tree")).to_contain_text("Hours")


def test_a_broken_document_lists_its_problems_with_their_paths(page: Page, stack: Stack) -> None:
    document = exported(page, stack, pizza_story(page, stack))
    document["name"] = "Broken pizza"
    document["interactions"][3]["contextOut"] = ["nowhere"]
    document["interactions"][2]["userSays"].append("x" * 3000)
    open_import_page(page, stack)

    choose(page, "notes.txt", "not a story")
    page.get_by_role("button", name="Import", exact=True).click()
    expect(page.locator("#import-status")).to_have_text("Choose a .json, .yaml, .yml or .zip file.")
    expect(page.get_by_label("Story file")).to_be_focused()

    choose(page, "broken.parley.json", json.dumps(document))
    page.get_by_role("button", name="Import", exact=True).click()
    expect(page.locator("#import-status")).to_have_text(
        "The file cannot be imported: 2 problems, listed below."
    )
    problems = page.get_by_role("region", name="Problems").get_by_role("listitem")
    expect(problems).to_have_count(2)
    expect(problems.filter(has_text="interactions[2].userSays[2]: ")).to_have_count(1)
    expect(problems.filter(has_text="interactions[3].contextOut[0]: ")).to_have_text(
        "interactions[3].contextOut[0]: no interaction has the key 'nowhere'"
    )
    screenshot(page, "import-problems")
    assert "Broken pizza" not in story_names(page, stack)

    choose(page, "broken.parley.yaml", "a: *b")
    page.get_by_role("button", name="Dry run").click()
    expect(page.locator("#import-status")).to_contain_text("The file cannot be imported: ")


RASA_PROJECT = {
    "domain.yml": "version: '3.1'\nintents: [greet, thank]\n",
    "data/nlu.yml": "version: '3.1'\nnlu:\n- intent: greet\n  examples: |\n    - hello\n"
    "- intent: thank\n  examples: |\n    - thanks\n",
}


def test_a_folder_or_a_zip_imports_named_after_it_with_the_report_grouped(
    page: Page, stack: Stack, tmp_path: Path
) -> None:
    """A Rasa project naming itself nowhere; of the folder only its bot files are sent
    (a trained model and a clone's files stay home)."""
    folder = tmp_path / "carbon-bot"
    for path, text in RASA_PROJECT.items():
        (folder / path).parent.mkdir(parents=True, exist_ok=True)
        (folder / path).write_text(text)
    (folder / "models").mkdir()
    (folder / "models" / "model.tar.gz").write_bytes(b"\0" * 5_000_000)  # over the body limit
    (folder / ".git").mkdir()
    (folder / ".git" / "config.json").write_text("not a bot file")
    open_import_page(page, stack)

    page.get_by_label("Or a folder").set_input_files(folder)
    page.get_by_role("button", name="Dry run").click()
    expect(page.locator("#import-status")).to_have_text(
        re.compile(r"^Dry run of carbon-bot: 3 interactions, 2 phrases, 2 answering nothing, ")
    )
    silent = page.get_by_role("region", name="Answering nothing of their own (2)")
    expect(silent.locator("tbody th")).to_contain_text("2 × no rule or story answers the intent")
    expect(silent.locator("tbody td")).to_have_text(["greet", "greet", "thank", "thank"])
    left_out = page.get_by_role("region", name="Left out (1)")
    expect(left_out.locator("tbody th")).to_contain_text("1 × no rule or story answers it")
    screenshot(page, "import-folder-grouped")

    page.get_by_role("button", name="Import", exact=True).click()
    expect(page.locator("#import-status")).to_contain_text("Imported carbon-bot: ")
    silent = page.get_by_role("region", name="Answering nothing of their own (2)")
    expect(silent.get_by_role("link", name="thank")).to_be_visible()
    assert "carbon-bot" in story_names(page, stack)

    zipped = io.BytesIO()
    with zipfile.ZipFile(zipped, "w") as archive:
        for path, text in RASA_PROJECT.items():
            archive.writestr(path, text)
    page.get_by_label("Story file").set_input_files(
        {"name": "moody.zip", "mimeType": "application/zip", "buffer": zipped.getvalue()}
    )
    expect(page.locator("#import-report")).to_be_empty()
    page.get_by_role("button", name="Dry run").click()
    expect(page.locator("#import-status")).to_contain_text("Dry run of moody: ")
