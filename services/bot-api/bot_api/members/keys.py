"""The members' application key."""

from aiohttp import web

from bot_api.members.service import MemberService

MEMBERS = web.AppKey("members", MemberService)
