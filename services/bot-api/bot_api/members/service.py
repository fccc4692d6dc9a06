"""The members' use cases: each change of a member or a token makes every process
forget the account's cached principals, so a new role, a removed member or a revoked
token holds at once on both services (as a rotation does, shared/service.py)."""

from collections.abc import Awaitable, Callable
from datetime import datetime

from bot_api.stories.repository import StoryStore
from shared.errors import ValidationFailed
from shared.members import (
    IssuedMemberToken,
    Member,
    MemberFields,
    MemberRepository,
    MemberToken,
)

Forget = Callable[[str], Awaitable[None]]
"""Make every process forget what it cached of an account's principals."""


class MemberService:
    def __init__(self, members: MemberRepository, stories: StoryStore, forget: Forget) -> None:
        self._members = members
        self._stories = stories
        self._forget = forget

    async def all(self, account_id: str) -> list[Member]:
        return await self._members.all(account_id)

    async def read(self, account_id: str, member_id: str) -> Member:
        return await self._members.read(account_id, member_id)

    async def create(self, account_id: str, fields: MemberFields) -> Member:
        await self._check_stories(account_id, fields)
        return await self._members.create(account_id, fields)

    async def update(self, account_id: str, member_id: str, fields: MemberFields) -> Member:
        await self._check_stories(account_id, fields)
        member = await self._members.update(account_id, member_id, fields)
        await self._forget(account_id)
        return member

    async def delete(self, account_id: str, member_id: str) -> None:
        await self._members.delete(account_id, member_id)
        await self._forget(account_id)

    async def tokens(self, account_id: str, member_id: str) -> list[MemberToken]:
        return await self._members.tokens(account_id, member_id)

    async def create_token(
        self, account_id: str, member_id: str, name: str, expires_at: datetime | None
    ) -> IssuedMemberToken:
        return await self._members.create_token(account_id, member_id, name, expires_at)

    async def revoke_token(self, account_id: str, member_id: str, token_id: str) -> None:
        await self._members.revoke_token(account_id, member_id, token_id)
        await self._forget(account_id)

    async def _check_stories(self, account_id: str, fields: MemberFields) -> None:
        """Each story a member is narrowed to is one of the account's (a 400 naming the
        first that is not)."""
        for index, story_id in enumerate(fields.stories or ()):
            if await self._stories.get(account_id, story_id) is None:
                raise ValidationFailed.at(("stories", index), f"no story {story_id} here")
