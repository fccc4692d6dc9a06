from aiohttp import web

from shared.config import Config
from shared.service import base_application

CONNECTION_STATUS_FIELD = "type"


def create_app(config: Config) -> web.Application:
    return base_application(config, "integrations-api", CONNECTION_STATUS_FIELD)
