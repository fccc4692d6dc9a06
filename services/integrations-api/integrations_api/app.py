"""integrations-api's application: what it opens, in order, and the routes it serves.

After the shared plumbing, each feature's setup step (`<feature>/setup.py`) makes its
services from the keys of the steps before it: the story directory first, which both
the connections and the channels ask; then the NATS side (messaging.py), which hands
each event to the features' use cases."""

from aiohttp import web

from integrations_api.channels import setup as channels
from integrations_api.channels import views as channels_views
from integrations_api.common.views import STATUS_FIELD
from integrations_api.connections import setup as connections
from integrations_api.connections import views as connections_views
from integrations_api.messaging import connection_lookups, consumers
from integrations_api.stories import setup as stories
from shared.config import Config
from shared.service import (
    add_meta_routes,
    mongo_context,
    nats_context,
    new_app,
    outbox_context,
    replicas_context,
    rotations_context,
)


def create_app(config: Config) -> web.Application:
    app = new_app(config, status_field=STATUS_FIELD)
    app.cleanup_ctx.extend(
        [
            mongo_context(config.integrations_database),
            nats_context("integrations-api"),
            replicas_context("integrations-api"),
            rotations_context(),
            outbox_context(),
            stories.setup,
            connections.setup,
            channels.setup,
            consumers,
            connection_lookups,
        ]
    )
    add_meta_routes(app, "Parley integrations-api")
    for routes in (connections_views.routes, channels_views.routes):
        app.router.add_routes(routes)
    return app
