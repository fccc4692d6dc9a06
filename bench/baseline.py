"""The floor for /query: what no implementation can avoid, served like bot-api.

Parse the JSON body, read the session, write it back conditionally (with an empty
conversation state, the least any implementation stores), answer a fixed JSON, with
the same MongoDB client settings, server and logging as bot-api.
"""

import contextlib
from collections.abc import AsyncIterator
from datetime import timedelta

from aiohttp import web
from pymongo.asynchronous.collection import AsyncCollection
from pymongo.errors import DuplicateKeyError

from shared import mongo
from shared.cli import main
from shared.config import Config
from shared.expiry import ensure_expiry
from shared.keys import STARTUP, STATUS_FIELD
from shared.startup import Startup
from shared.timeutil import utcnow

SESSIONS = web.AppKey("sessions", AsyncCollection)
ANSWER = {"result": {"fulfillment": [{"type": "text", "message": "Hello!"}]}}
EMPTY_STATE = {"contexts": [], "parameters": {}, "pending": None}


async def query(request: web.Request) -> web.Response:
    """Sessions expire (docs/query.md), so the baseline's collection expires them as bot-api's
    does (`shared.expiry`)."""
    body = await request.json()
    key = f"baseline:{body['sessionId']}"
    sessions = request.app[SESSIONS]
    found = await sessions.find_one({"_id": key})
    version = 0 if found is None else found["version"]
    document = {
        "_id": key,
        "version": version + 1,
        "expiresAt": utcnow() + timedelta(minutes=10),
        "state": EMPTY_STATE,
    }
    if version == 0:
        with contextlib.suppress(DuplicateKeyError):
            await sessions.insert_one(document)
    else:
        await sessions.replace_one({"_id": key, "version": version}, document)
    return web.json_response(ANSWER)


def create_app(config: Config) -> web.Application:
    app = web.Application()
    app[STATUS_FIELD] = "status"
    app[STARTUP] = Startup()  # what `shared.serving` reports while the app starts

    async def database(app: web.Application) -> AsyncIterator[None]:
        client = mongo.open_client(config.mongodb_url)
        app[SESSIONS] = client[config.bot_database]["baseline_sessions"]
        await ensure_expiry(app[SESSIONS])
        yield
        await client.close()

    async def healthz(request: web.Request) -> web.Response:
        return web.json_response({"status": "ok"})

    app.cleanup_ctx.append(database)
    app.router.add_post("/query", query)
    app.router.add_get("/healthz", healthz)
    app.router.add_get("/readyz", healthz)
    return app


if __name__ == "__main__":
    raise SystemExit(main("python -m bench.baseline", create_app, "BOT_API_PORT"))
