from collections.abc import Mapping, Sequence

from aiohttp import web

from shared.cli import main
from shared.config import Config

STORY_HELP = (
    "a story as a file or folder, and its tests: export, import, test "
    "(python -m bot_api story --help)"
)


def create_app(config: Config) -> web.Application:
    """The app, imported only to serve: `story` needs none of what it loads (measured:
    `story --help` took 5.9 s of CPU so, 6.8 s with the app imported first)."""
    from bot_api.app import create_app as created

    return created(config)


def story(arguments: Sequence[str], environ: Mapping[str, str]) -> int:
    """`story`, imported only when asked for: it loads the engine (4.5 s of the 5.9 s that
    `accounts --help` took when it was imported here, measured with -X importtime), which
    `accounts` and `serve` never use."""
    from bot_api.commands import story as story_command

    return story_command.main(arguments, environ)


raise SystemExit(
    main(
        "python -m bot_api",
        create_app,
        "BOT_API_PORT",
        {"story": (STORY_HELP, story)},
    )
)
