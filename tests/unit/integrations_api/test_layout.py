"""integrations-api's layout as one table, checked over every import of every module
(docs/architecture.md "integrations-api"), by the checks bot-api's table runs on
(tests/support/layout.py).

Each feature package imports the plumbing, `shared` and the features it lists, and of
those never the views, the setup step nor a class only the composition builds (a MongoDB
repository, the NATS story directory); the composition (`app`, `messaging`, `__main__`)
is imported by no one.
"""

from pathlib import Path

import pytest

from support.layout import Import, Layout, TableChecks

PACKAGE = Path(__file__).resolve().parents[3] / "services" / "integrations-api" / "integrations_api"

FEATURES: dict[str, set[str]] = {
    "stories": set(),
    "connections": {"stories"},
    "channels": {"stories"},
}
"""Which feature may import which: the stories (bot-api asked a story's name over NATS,
and how a story's things follow it) are below both the webhook connections and the
channels, which know nothing of each other."""

LAYOUT = Layout(
    package=PACKAGE,
    features=FEATURES,
    plumbing=frozenset({"common"}),
    composition=frozenset({"app", "messaging", "__main__", "__init__"}),
    built_by_the_composition=("Repository", "DeliveryRecord", "NatsStoryDirectory", "NatsTurns"),
)
"""`common` is the plumbing: the envelope's status field, the caller's account and the
write envelopes both APIs answer."""


def test_every_module_and_import_is_found() -> None:
    assert set(FEATURES) | {"common", "app", "messaging"} <= LAYOUT.places()
    assert len(LAYOUT.imports) > 300


class TestTable(TableChecks):
    layout = LAYOUT


def test_the_checks_find_a_cycle_and_a_feature_listed_but_not_imported() -> None:
    looping = Layout(
        package=PACKAGE,
        features={**FEATURES, "stories": {"channels"}},
        plumbing=LAYOUT.plumbing,
        composition=LAYOUT.composition,
    )
    assert set(looping.cycle() or []) == {"stories", "channels"}
    assert looping.listed_but_unused() == {("stories", "channels")}


@pytest.mark.parametrize(
    ("module", "target", "why"),
    [
        ("stories.service", "integrations_api.connections.service.X", "stories does not list"),
        ("channels.service", "integrations_api.connections.service.X", "channels does not list"),
        ("connections.service", "integrations_api.channels.keys.X", "connections does not list"),
        ("connections.service", "integrations_api.stories.setup.setup", "app.py runs the setups"),
        ("channels.views", "integrations_api.stories.views.X", "stories's views are its own"),
        ("channels.service", "integrations_api.app.create_app", "the composition is imported"),
        ("connections.views", "integrations_api.messaging.X", "the composition is imported"),
        ("connections.service", "integrations_api.service.Backends", "integrations_api.service"),
        ("channels.views", "integrations_api.keys.CONFIG", "integrations_api.keys has no place"),
        ("common.views", "integrations_api.stories.schemas.X", "the plumbing imports no"),
        (
            "connections.setup",
            "integrations_api.stories.directory.NatsStoryDirectory",
            "only stories and the composition build NatsStoryDirectory",
        ),
    ],
)
def test_the_table_refuses(module: str, target: str, why: str) -> None:
    found = LAYOUT.refusal(Import(module, target))
    assert found is not None
    assert found.startswith(why)


@pytest.mark.parametrize(
    ("module", "target"),
    [
        ("connections.service", "integrations_api.stories.directory.StoryDirectory"),
        ("channels.repository", "integrations_api.stories.service.StoryFollowers"),
        ("channels.setup", "integrations_api.stories.keys.STORY_DIRECTORY"),
        ("channels.views", "integrations_api.common.views.success"),
        ("connections.setup", "integrations_api.connections.repository.ConnectionRepository"),
        ("app", "integrations_api.channels.setup"),
        ("messaging", "integrations_api.connections.service"),
    ],
)
def test_the_table_allows(module: str, target: str) -> None:
    assert LAYOUT.refusal(Import(module, target)) is None
