"""`python -m bot_api story export|import` against a bot-api process: a story kept in
its git layout comes back as the same story; a dry run writes nothing; a refusal prints
each problem at its place and exits 1."""

import asyncio
import json
import sys
from pathlib import Path

import yaml

from support.api import Tenant
from support.story_command import story_command
from support.walkthrough import pizza_story


async def test_a_story_in_its_git_layout_imports_as_the_same_story(
    alice: Tenant, second_bot_api: str, tmp_path: Path
) -> None:
    api, token = alice.developer, alice.tokens.developer_token
    story_id = await pizza_story(api)
    folder = tmp_path / "pizza"
    code, out, err = await story_command(
        second_bot_api, token, "export", story_id, "--format", "dir", "--out", str(folder)
    )
    assert code == 0, err
    assert sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*.yaml")) == [
        "entities/size.yaml",
        "interactions/drinks.yaml",
        "interactions/fallback.yaml",
        "interactions/order.yaml",
        "interactions/welcome.yaml",
        "story.yaml",
    ]
    story = yaml.safe_load((folder / "story.yaml").read_text())
    assert story["interactions"] == ["welcome", "fallback", "order", "drinks"]

    code, out, err = await story_command(second_bot_api, token, "import", str(folder), "--dry-run")
    assert code == 0, err
    assert json.loads(out)["id"] is None
    stories = await api.ok("GET", "/stories")
    assert len(stories) == 1

    code, out, err = await story_command(second_bot_api, token, "import", str(folder))
    assert code == 0, err
    new_id = json.loads(out)["id"]
    exported = await api.ok("GET", f"/stories/{story_id}/export")
    assert await api.ok("GET", f"/stories/{new_id}/export") == exported

    (folder / "interactions" / "order.yaml").unlink()
    code, out, err = await story_command(
        second_bot_api, token, "export", new_id, "--format", "dir", "--out", str(folder)
    )
    assert code == 0 and (folder / "interactions" / "order.yaml").exists(), err


async def test_json_and_yaml_exports_import_and_a_refusal_lists_its_problems(
    alice: Tenant, second_bot_api: str, tmp_path: Path
) -> None:
    api, token = alice.developer, alice.tokens.developer_token
    story_id = await pizza_story(api)
    for form in ("json", "yaml"):
        target = tmp_path / f"pizza.{form}"
        code, _, err = await story_command(
            second_bot_api, token, "export", story_id, "--format", form, "--out", str(target)
        )
        assert code == 0, err
        code, out, err = await story_command(second_bot_api, token, "import", str(target))
        assert code == 0, err
        assert json.loads(out)["report"]["source"] == "parley"
    document = json.loads((tmp_path / "pizza.json").read_text())
    document["interactions"][2]["contextOut"] = ["nowhere"]
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps(document))
    code, out, err = await story_command(second_bot_api, token, "import", str(broken))
    assert code == 1 and out == ""
    assert "HTTP 400 validation_error" in err
    assert "interactions[2].contextOut[0]: no interaction has the key 'nowhere'" in err
    code, _, err = await story_command(second_bot_api, "wrong", "export", story_id)
    assert code == 1 and "HTTP 401" in err


async def test_the_help_lists_story_and_options_work_after_the_verb(
    alice: Tenant, second_bot_api: str, tmp_path: Path
) -> None:
    """`--url` after `import` wins over PARLEY_API_URL (here a closed port); an agent
    naming itself nowhere takes its folder's name; the report, grouped, goes to stderr."""
    helped = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot_api", "--help", stdout=asyncio.subprocess.PIPE
    )
    listed = " ".join((await asyncio.wait_for(helped.communicate(), 60))[0].decode().split())
    assert "{serve,accounts,story}" in listed and "export, import, test" in listed

    project = tmp_path / "carbon-bot"
    (project / "data").mkdir(parents=True)
    (project / "domain.yml").write_text("version: '3.1'\nintents: [greet, thank]\n")
    (project / "data" / "nlu.yml").write_text(
        "version: '3.1'\nnlu:\n- intent: greet\n  examples: |\n    - hello\n"
        "- intent: thank\n  examples: |\n    - thanks\n"
    )
    token = alice.tokens.developer_token
    code, out, err = await story_command(
        "http://127.0.0.1:9", token, "import", "--url", second_bot_api, str(project), "--dry-run"
    )
    assert code == 0, err
    assert json.loads(out)["report"]["name"] == "carbon-bot"
    assert err.splitlines()[:4] == [
        "Dry run of carbon-bot (rasa, english; interactions: 3, phrases: 2): nothing was written.",
        "Interactions that answer nothing of their own: 2",
        "  2 × no rule or story answers the intent with a response: custom code (an action), "
        "not imported, answered it, or nothing did",
        "      greet, thank",
    ]
