"""`python -m bot_api accounts ...` run as a process on a test's databases, as an
operator would."""

import os

from shared.config import Config
from support.story_command import bot_api_command


async def cli(config: Config, *args: str, user: str | None = None) -> tuple[int, str, str]:
    """Its exit status, output and errors; `user`: the operating-system user it runs as,
    as `getpass.getuser()` reads it (the audit log names them)."""
    env = {
        **os.environ,
        "MONGODB_URL": config.mongodb_url,
        "NATS_URL": config.nats_url,
        "DATABASE_PREFIX": config.database_prefix,
    }
    if user is not None:
        env |= {"LOGNAME": user, "USER": user}
    return await bot_api_command(env, "accounts", *args)
