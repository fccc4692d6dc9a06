"""The engine and the domain rules are plain Python: no web framework, no database, nothing
of shared/ (their errors are their own, bot_api.domain.errors)."""

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[3] / "services" / "bot-api" / "bot_api"
FORBIDDEN = ("aiohttp", "pymongo", "bson", "motor", "nats", "shared")


MODULES = sorted(
    path
    for path in [*PACKAGE.glob("engine/*.py"), *PACKAGE.glob("domain/*.py")]
    if path.name != "__init__.py"
)


def test_the_engine_and_domain_modules_are_found() -> None:
    assert {p.name for p in MODULES} >= {"conversation.py", "matching.py", "structure.py"}


@pytest.mark.parametrize("module", MODULES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_imports_neither_the_web_framework_nor_the_database(module: Path) -> None:
    imported: set[str] = set()
    for node in ast.walk(ast.parse(module.read_text())):
        if isinstance(node, ast.Import):
            imported |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            imported.add(node.module.split(".")[0])
    assert not imported & set(FORBIDDEN), (module.name, imported & set(FORBIDDEN))
