"""bot-api's layout as one table, checked over every import of every module (docs/architecture.md).

The kernel (the engine, the domain rules, the encoders) imports no feature; each feature
package imports the kernel, the plumbing, `shared` and the features it lists, and of those
never the views, the setup step nor a MongoDB repository class; the composition (`app`,
`messaging`, `__main__`) is imported by no one.
"""

from pathlib import Path

import pytest

from support.layout import Import, Layout, TableChecks

PACKAGE = Path(__file__).resolve().parents[3] / "services" / "bot-api" / "bot_api"

KERNEL = {"domain", "engine", "encoding"}
PLUMBING = {"common", "metrics", "quotas", "background", "indexed", "keys", "changes"}
"""What every feature may use: the management API's envelope and fields (`common`), the
Prometheus metrics, the account quotas, the background drain, the `Indexed` protocol, the
application keys of the shared plumbing and the change feed (`keys`), and the changes with
the table of who hears them (`changes`, which counts a failing handler in `metrics`)."""
COMPOSITION = {"app", "messaging", "__main__", "__init__"}

FEATURES: dict[str, set[str]] = {
    "connections": set(),
    "stories": set(),
    "entities": {"stories"},
    "interactions": {"stories", "entities"},
    "story_tests": {"stories", "interactions"},
    "transfer": {"stories", "entities", "interactions", "story_tests", "connections", "knowledge"},
    "versions": {"stories", "entities", "interactions", "transfer", "knowledge"},
    "story_cache": {"stories", "entities", "interactions", "transfer", "versions"},
    "history": {"stories"},
    "knowledge": {"stories"},
    "query": {"connections", "interactions", "history", "story_cache", "knowledge"},
    "handoffs": {"stories", "history", "query"},
    "inbox": {"stories", "interactions", "history", "story_cache", "knowledge"},
    "analytics": {"stories", "interactions", "history"},
    "members": {"stories"},
    "console": set(),
    "signin": {"console"},
    "audit": set(),
    "commands": {"story_tests", "transfer"},
}
"""Which feature may import which: the one table of the layout."""


LAYOUT = Layout(
    package=PACKAGE,
    features=FEATURES,
    plumbing=frozenset(PLUMBING),
    composition=frozenset(COMPOSITION),
    kernel=frozenset(KERNEL),
    pure=frozenset({"domain", "engine"}),
)


def test_every_module_and_import_is_found() -> None:
    assert {"engine", "stories"} <= LAYOUT.places()
    assert len(LAYOUT.imports) > 1000


class TestTable(TableChecks):
    layout = LAYOUT


@pytest.mark.parametrize(
    ("module", "target", "why"),
    [
        ("engine.matching", "aiohttp.web", "engine is plain Python"),
        ("domain.history", "shared.ids.new_id", "domain is plain Python"),
        ("engine.turn", "bot_api.query.answer_body.result_body", "the kernel imports no feature"),
        ("encoding.minilm", "bot_api.metrics.X", "the kernel imports no feature"),
        ("changes", "bot_api.metrics.X", None),
        ("changes", "bot_api.inbox.service.X", "the plumbing imports no feature"),
        ("quotas", "bot_api.entities.repository.EntityStore", "the plumbing imports no feature"),
        ("stories.service", "bot_api.story_tests.service.X", "stories does not list story_tests"),
        ("versions.service", "bot_api.transfer.views.X", "transfer's views are its own"),
        ("versions.service", "bot_api.app.create_app", "the composition is imported by no one"),
        (
            "inbox.service",
            "bot_api.history.repository.TurnRepository",
            "only history and the composition build TurnRepository",
        ),
        ("stories.views", "bot_api.inbox.keys.INBOX", "stories does not list inbox"),
        ("query.setup", "bot_api.history.setup.setup", "app.py runs the setups"),
        ("stories.service", "bot_api.storage.Stores", "bot_api.storage has no place"),
        ("stories.service", "bot_api.stores.Stores", "bot_api.stores has no place"),
        ("history.service", "bot_api.query.repository.SessionStore", "history does not list"),
        ("keys", "bot_api.quotas.Quotas", None),
        ("keys", "bot_api.stories.keys.STORIES", "the plumbing imports no feature"),
    ],
)
def test_the_table_refuses(module: str, target: str, why: str | None) -> None:
    found = LAYOUT.refusal(Import(module, target))
    if why is None:
        assert found is None
    else:
        assert found is not None
        assert found.startswith(why)


@pytest.mark.parametrize(
    ("module", "target"),
    [
        ("engine.matching", "numpy.ndarray"),
        ("interactions.service", "bot_api.stories.repository.StoryStore"),
        ("query.views", "bot_api.history.keys.RECORDER"),
        ("app", "bot_api.stories.repository.StoryRepository"),
        ("stories.views", "bot_api.common.views.success"),
    ],
)
def test_the_table_allows(module: str, target: str) -> None:
    assert LAYOUT.refusal(Import(module, target)) is None
