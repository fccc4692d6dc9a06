"""The checks behind a service's layout table (tests/unit/<service>/test_layout.py): every
import of every module of the package, function-level ones too (found by `ast`), and why
the table refuses one.

A table names the kernel (plain code that imports no feature), the plumbing every feature
may use, the composition (which wires the features and is imported by no one) and, for
each feature, the features it may import. Of a feature it lists, a feature never imports
the views nor the setup step, nor a class only that feature and the composition build."""

import ast
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

import pytest

FRAMEWORKS = frozenset({"aiohttp", "pymongo", "bson", "motor", "nats", "shared"})
"""What a plain-Python part of the kernel never imports."""


@dataclass(frozen=True)
class Import:
    module: str
    """The importing module, dotted below the package ("stories.service")."""
    target: str
    """What it imports, dotted from the top ("bot_api.stories.repository.StoryStore")."""


def top(module: str) -> str:
    return module.split(".")[0]


@dataclass(frozen=True)
class Layout:
    package: Path
    features: Mapping[str, set[str]]
    plumbing: frozenset[str]
    composition: frozenset[str]
    kernel: frozenset[str] = frozenset()
    pure: frozenset[str] = frozenset()
    """The parts of the kernel that import none of FRAMEWORKS."""
    built_by_the_composition: tuple[str, ...] = ("Repository",)
    """How the names end of the classes that only their own feature (its setup step) and
    the composition build, such as a MongoDB repository: another feature takes one by its
    Protocol."""

    @cached_property
    def groups(self) -> frozenset[str]:
        return self.kernel | self.plumbing | self.composition | frozenset(self.features)

    @property
    def name(self) -> str:
        return self.package.name

    @cached_property
    def modules(self) -> list[Path]:
        return sorted(self.package.rglob("*.py"))

    @cached_property
    def imports(self) -> list[Import]:
        return [found for path in self.modules for found in self._imports_of(path)]

    def _imports_of(self, path: Path) -> list[Import]:
        parts = path.relative_to(self.package).with_suffix("").parts
        module = ".".join(parts).removesuffix(".__init__")
        found: list[Import] = []
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                found += [Import(module, alias.name) for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                found += [Import(module, f"{node.module}.{alias.name}") for alias in node.names]
        return found

    def places(self) -> set[str]:
        """The top-level packages and modules of the service."""
        return {
            path.relative_to(self.package).parts[0].removesuffix(".py") for path in self.modules
        }

    def cycle(self) -> list[str] | None:
        try:
            order = list(TopologicalSorter(self.features).static_order())
        except CycleError as cycle:
            return list(cycle.args[1])
        assert set(order) == set(self.features)
        return None

    def listed_but_unused(self) -> set[tuple[str, str]]:
        """A feature lists only what it uses, so the table says what depends on what."""
        prefix = f"{self.name}."
        used = {
            (top(found.module), top(found.target.removeprefix(prefix)))
            for found in self.imports
            if found.target.startswith(prefix)
        }
        listed = {
            (source, target) for source, targets in self.features.items() for target in targets
        }
        return listed - used

    def refused(self, group: str) -> list[tuple[str, str, str]]:
        """The imports of `group`'s modules the table refuses, with why."""
        return [
            (found.module, found.target, why)
            for found in self.imports
            if top(found.module) == group and (why := self.refusal(found)) is not None
        ]

    def refusal(self, found: Import) -> str | None:
        """Why the table refuses this import, or None."""
        source = top(found.module)
        if source in self.pure and top(found.target) in FRAMEWORKS:
            return f"{source} is plain Python"
        if not found.target.startswith(f"{self.name}."):
            return None
        path = found.target.removeprefix(f"{self.name}.").split(".")
        target = path[0]
        if target == source or source in self.composition:
            return None
        if target not in self.groups:
            return f"{self.name}.{target} has no place in the table"
        if target in self.composition:
            return "the composition is imported by no one"
        if source in self.kernel:
            return (
                None if target in self.kernel else "the kernel imports no feature and no plumbing"
            )
        if target in self.kernel:
            return None
        if source in self.plumbing:
            return None if target in self.plumbing else "the plumbing imports no feature"
        if target in self.plumbing:
            return None
        if target not in self.features[source]:
            return f"{source} does not list {target}"
        inner = path[1] if len(path) > 2 else ""
        if inner == "views":
            return f"{target}'s views are its own"
        if inner == "setup":
            return "app.py runs the setups"
        if path[-1].endswith(self.built_by_the_composition):
            return f"only {target} and the composition build {path[-1]}"
        return None


class TableChecks:
    """The checks every table runs: a test class of a service's test_layout.py,
    `TestTable(TableChecks)` with its `layout`, runs them on that table."""

    layout: Layout

    def pytest_generate_tests(self, metafunc: pytest.Metafunc) -> None:
        if "group" in metafunc.fixturenames:
            metafunc.parametrize("group", sorted(self.layout.groups), ids=str)

    def test_every_package_and_module_has_its_place_in_the_table(self) -> None:
        places, groups = self.layout.places(), self.layout.groups
        assert places <= groups, places - groups
        assert set(self.layout.features) <= places, set(self.layout.features) - places

    def test_the_features_import_each_other_without_a_cycle(self) -> None:
        assert self.layout.cycle() is None

    def test_each_listed_feature_is_imported(self) -> None:
        """A feature lists only what it uses, so the table says what depends on what."""
        assert self.layout.listed_but_unused() == set()

    def test_every_import_keeps_to_the_table(self, group: str) -> None:
        assert self.layout.refused(group) == []
