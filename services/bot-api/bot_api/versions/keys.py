"""Versions' application key."""

from aiohttp import web

from bot_api.versions.repository import VersionStore
from bot_api.versions.service import VersionService

VERSIONS = web.AppKey("versions", VersionService)
VERSION_STORE = web.AppKey[VersionStore]("version_store")
