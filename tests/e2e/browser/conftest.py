"""A running stack (bot-api and integrations-api as processes) and Debian's headless
Chromium driven by Playwright (docs/console.md "Browser tests")."""

import asyncio
import contextlib
import os
import shutil
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, sync_playwright
from pymongo import MongoClient

from shared import mongo
from shared.auth import AccountRepository, IssuedTokens
from shared.config import Config
from support.browser import Stack, free_port
from tools.embedded import ServerProcess, start_service

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
WAIT_MS = 15_000  # the longest any page waits for an answer on a loaded machine


async def _create_account(config: Config, name: str) -> IssuedTokens:
    client = mongo.open_client(config.mongodb_url)
    try:
        accounts = AccountRepository(client[config.accounts_database])
        await accounts.ensure_indexes()
        return await accounts.create(name)
    finally:
        await client.close()


@pytest.fixture(scope="module")
def stack_settings() -> dict[str, Any]:
    """Settings a test module gives the stack besides its own (a module overrides this
    fixture, e.g. to point integrations-api at a platform's stand-in)."""
    return {}


@pytest.fixture(scope="module")
def own_stack(stack_settings: dict[str, Any]) -> bool:
    """Whether the module needs processes of its own: when it gives them settings, or
    (a module overrides this) when what it checks depends on what else they answered."""
    return bool(stack_settings)


@dataclass
class _Services:
    bot_api: ServerProcess
    integrations: ServerProcess
    config: Config


@contextmanager
def _services(
    mongo_url: str, nats_url: str, logs: Path, settings: dict[str, Any]
) -> Iterator[_Services]:
    """bot-api and integrations-api as processes on databases of their own."""
    bot_port, integrations_port = free_port(), free_port()
    bot_url = f"http://127.0.0.1:{bot_port}"
    config = Config(
        mongodb_url=mongo_url,
        nats_url=nats_url,
        database_prefix=f"t{uuid.uuid4().hex[:12]}",
        bot_api_port=bot_port,
        integrations_api_port=integrations_port,
        webhook_allow=("127.0.0.0/8",),
        api_origins=(bot_url,),
        console_integrations_url=f"http://127.0.0.1:{integrations_port}",
        management_rate=0.0,  # tests set up more than a burst of lists to page through
        **settings,
    )
    env = {**os.environ, **config.as_env()}
    bot_api = start_service("bot_api", bot_port, env, logs)
    try:
        integrations = start_service("integrations_api", integrations_port, env, logs)
    except Exception:
        bot_api.stop()
        raise
    yield _Services(bot_api, integrations, config)
    integrations.stop()
    bot_api.stop()
    with MongoClient(mongo_url) as client:
        for name in (config.accounts_database, config.bot_database, config.integrations_database):
            client.drop_database(name)


@pytest.fixture(scope="session")
def default_services(
    mongo_url: str, nats_url: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[_Services]:
    """The stack of every module that gives it no settings, started once per worker; each
    module has an account of its own on it, so no module sees another's stories. Once per
    module, the browser tests took 141 s instead of 92 (their 10 modules, one process)."""
    with _services(mongo_url, nats_url, tmp_path_factory.mktemp("stack-logs"), {}) as services:
        yield services


@pytest.fixture(scope="module")
def stack(
    request: pytest.FixtureRequest,
    mongo_url: str,
    nats_url: str,
    tmp_path_factory: pytest.TempPathFactory,
    stack_settings: dict[str, Any],
    own_stack: bool,
) -> Iterator[Stack]:
    """The module's account on a running stack: the shared one, or one of the module's own
    (`own_stack`)."""
    with contextlib.ExitStack() as own:
        if own_stack:
            logs = tmp_path_factory.mktemp("stack-logs")
            services = own.enter_context(_services(mongo_url, nats_url, logs, stack_settings))
        else:
            services = request.getfixturevalue("default_services")
        with ThreadPoolExecutor(1) as thread:  # Playwright's sync API may hold this thread's loop
            account = _create_account(services.config, f"browser-{request.path.stem}")
            tokens = thread.submit(asyncio.run, account).result()
        yield Stack(services.bot_api.url, services.integrations.url, tokens, services.config)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    if shutil.which(CHROMIUM) is None:
        pytest.fail(f"{CHROMIUM} is missing: `make test` installs Debian's chromium", False)
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS
        )
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(WAIT_MS)
    opened = context.new_page()
    yield opened
    context.close()
