"""bot-api's layout as one table, checked over every import of every module (docs/architecture.md).

The kernel (the engine, the domain rules, the encoders) imports no feature; each feature
package imports the kernel, the plumbing, `shared` and the features it lists, and of those
never the views, the setup step nor a MongoDB repository class; the composition (`app`,
`messaging`, `__main__`) is imported by no one.
"""

import ast
from dataclasses import dataclass
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

import pytest

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
    "transfer": {"stories", "entities", "interactions", "story_tests", "connections"},
    "versions": {"stories", "entities", "interactions", "transfer"},
    "story_cache": {"stories", "entities", "interactions", "transfer", "versions"},
    "history": {"stories"},
    "query": {"connections", "interactions", "history", "story_cache"},
    "handoffs": {"stories", "history", "query"},
    "inbox": {"stories", "interactions", "history", "story_cache"},
    "analytics": {"stories", "interactions", "history"},
    "console": set(),
    "commands": {"story_tests", "transfer"},
}
"""Which feature may import which: the one table of the layout."""


PURE = {"domain", "engine"}
FRAMEWORKS = {"aiohttp", "pymongo", "bson", "motor", "nats", "shared"}


@dataclass(frozen=True)
class Import:
    module: str
    """The importing module, dotted below bot_api ("stories.service")."""
    target: str
    """What it imports, dotted from the top ("bot_api.stories.repository.StoryStore")."""


def top(module: str) -> str:
    return module.split(".")[0]


def imports_of(path: Path) -> list[Import]:
    module = ".".join(path.relative_to(PACKAGE).with_suffix("").parts).removesuffix(".__init__")
    found: list[Import] = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found += [Import(module, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            found += [Import(module, f"{node.module}.{alias.name}") for alias in node.names]
    return found


MODULES = sorted(PACKAGE.rglob("*.py"))
IMPORTS = [found for path in MODULES for found in imports_of(path)]
GROUPS = KERNEL | PLUMBING | COMPOSITION | set(FEATURES)


def refusal(found: Import) -> str | None:
    """Why the table refuses this import, or None."""
    source = top(found.module)
    if source in PURE and top(found.target) in FRAMEWORKS:
        return "the engine and the domain are plain Python"
    if not found.target.startswith("bot_api."):
        return None
    path = found.target.removeprefix("bot_api.").split(".")
    target = path[0]
    if target == source or source in COMPOSITION:
        return None
    if target not in GROUPS:
        return f"bot_api.{target} has no place in the table"
    if target in COMPOSITION:
        return "the composition is imported by no one"
    if source in KERNEL:
        return None if target in KERNEL else "the kernel imports no feature and no plumbing"
    if target in KERNEL:
        return None
    if source in PLUMBING:
        return None if target in PLUMBING else "the plumbing imports no feature"
    if target in PLUMBING:
        return None
    if target not in FEATURES[source]:
        return f"{source} does not list {target}"
    inner = path[1] if len(path) > 2 else ""
    if inner in ("views", "setup"):
        return f"{target}'s {inner} are its own" if inner == "views" else "app.py runs the setups"
    if inner == "repository" and path[-1].endswith("Repository"):
        return f"only the composition builds {target}'s MongoDB repository"
    return None


def test_every_module_and_import_is_found() -> None:
    assert {top(".".join(p.relative_to(PACKAGE).parts)) for p in MODULES} >= {"engine", "stories"}
    assert len(IMPORTS) > 1000


def test_every_package_and_module_has_its_place_in_the_table() -> None:
    places = {path.relative_to(PACKAGE).parts[0].removesuffix(".py") for path in MODULES}
    assert places <= GROUPS, places - GROUPS
    assert set(FEATURES) <= places, set(FEATURES) - places


def test_the_features_import_each_other_without_a_cycle() -> None:
    try:
        order = list(TopologicalSorter(FEATURES).static_order())
    except CycleError as cycle:
        pytest.fail(f"a cycle: {cycle.args[1]}")
    assert set(order) == set(FEATURES)


def test_each_listed_feature_is_imported() -> None:
    """A feature lists only what it uses, so the table says what depends on what."""
    used = {
        (top(found.module), top(found.target.removeprefix("bot_api.")))
        for found in IMPORTS
        if found.target.startswith("bot_api.")
    }
    listed = {(source, target) for source, targets in FEATURES.items() for target in targets}
    assert listed <= used, listed - used


@pytest.mark.parametrize("group", sorted(GROUPS), ids=str)
def test_every_import_keeps_to_the_table(group: str) -> None:
    refused = [
        (found.module, found.target, why)
        for found in IMPORTS
        if top(found.module) == group and (why := refusal(found)) is not None
    ]
    assert refused == []


@pytest.mark.parametrize(
    ("module", "target", "why"),
    [
        ("engine.matching", "aiohttp.web", "the engine and the domain are plain Python"),
        ("domain.history", "shared.ids.new_id", "the engine and the domain are plain Python"),
        ("engine.turn", "bot_api.query.schemas.result_body", "the kernel imports no feature"),
        ("encoding.minilm", "bot_api.metrics.X", "the kernel imports no feature"),
        ("changes", "bot_api.metrics.X", None),
        ("changes", "bot_api.inbox.service.X", "the plumbing imports no feature"),
        ("quotas", "bot_api.entities.repository.EntityStore", "the plumbing imports no feature"),
        ("stories.service", "bot_api.story_tests.service.X", "stories does not list story_tests"),
        ("versions.service", "bot_api.transfer.views.X", "transfer's views are its own"),
        ("versions.service", "bot_api.app.create_app", "the composition is imported by no one"),
        ("inbox.service", "bot_api.history.repository.TurnRepository", "only the composition"),
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
    found = refusal(Import(module, target))
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
    assert refusal(Import(module, target)) is None
