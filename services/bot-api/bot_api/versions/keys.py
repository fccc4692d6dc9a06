"""Versions' application key."""

from aiohttp import web

from bot_api.versions.service import VersionService

VERSIONS = web.AppKey("versions", VersionService)
