from aiohttp import web
from pymongo.asynchronous.database import AsyncDatabase

from integrations_api.api import CONNECTION_STATUS_FIELD, routes
from integrations_api.connections import CONNECTIONS, ConnectionRepository
from integrations_api.messaging import consumers
from shared.config import Config
from shared.service import base_application


def create_app(config: Config) -> web.Application:
    async def open_connections(app: web.Application, database: AsyncDatabase) -> None:
        app[CONNECTIONS] = ConnectionRepository(database)
        await app[CONNECTIONS].ensure_indexes()

    app = base_application(
        config,
        "integrations-api",
        CONNECTION_STATUS_FIELD,
        config.integrations_database,
        open_connections,
    )
    app.router.add_routes(routes)
    app.cleanup_ctx.append(consumers)
    return app
