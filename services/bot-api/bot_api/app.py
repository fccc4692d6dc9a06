from aiohttp import web
from pymongo import AsyncMongoClient

from bot_api.api import entities, interactions, stories
from bot_api.api.common import MANAGEMENT_STATUS_FIELD, STORES
from bot_api.storage import Stores
from shared.config import Config
from shared.service import CONFIG, base_application


def create_app(config: Config) -> web.Application:
    async def open_stores(app: web.Application, client: AsyncMongoClient) -> None:
        app[STORES] = Stores.open(client[app[CONFIG].bot_database])
        await app[STORES].ensure_indexes()

    app = base_application(config, "bot-api", MANAGEMENT_STATUS_FIELD, open_stores)
    app.router.add_routes(stories.routes)
    app.router.add_routes(entities.routes)
    app.router.add_routes(interactions.routes)
    return app
