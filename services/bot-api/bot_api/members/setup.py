"""The members' setup step."""

from collections.abc import AsyncIterator

from aiohttp import web

from bot_api.keys import CONFIG, OUTBOX, PRINCIPALS
from bot_api.members.keys import MEMBERS
from bot_api.members.service import MemberService
from bot_api.stories.keys import STORY_STORE
from shared.events import TokensRotated, encode
from shared.keys import MONGO
from shared.members import MemberRepository


async def setup(app: web.Application) -> AsyncIterator[None]:
    """The members' use cases on the accounts database; a change is forgotten here at
    once and announced to every other process through the outbox."""
    config = app[CONFIG]

    async def forget(account_id: str) -> None:
        app[PRINCIPALS].forget(account_id)
        await app[OUTBOX].put(config.subjects.tokens_rotated, encode(TokensRotated(account_id)))

    members = MemberRepository(app[MONGO][config.accounts_database])
    app[MEMBERS] = MemberService(members, app[STORY_STORE], forget)
    yield
