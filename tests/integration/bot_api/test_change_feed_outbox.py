"""Issue 30's scenario on the embedded MongoDB: a story is deleted while one handler of the
change cannot reach its database. The feed runs as `app.py` wires it (the table's order,
the real outbox publisher); the deletion's event must be in the outbox, and the handlers
after the failing one must have run. (With the handlers in registration order and the
publisher last, the failure stopped the announce before it: nothing reached the outbox.)"""

from nats.aio.client import Client
from pymongo import AsyncMongoClient
from pymongo.errors import AutoReconnect

from bot_api.changes import HEARD_BY, Change, ChangeFeed, Handler, StoryDeleted
from bot_api.messaging import EventPublisher
from shared.config import Config
from shared.events import StoryChanged, decode
from shared.outbox import Outbox


class Heard:
    """A handler of this process that writes down what it heard; `away` makes it raise as
    its database went away."""

    def __init__(self, log: list[Handler], role: Handler, away: bool = False) -> None:
        self._log, self._role, self._away = log, role, away

    async def changed(self, change: Change) -> None:
        self._log.append(self._role)
        if self._away:
            raise AutoReconnect("connection refused")


async def test_a_failing_handler_keeps_neither_the_deletion_from_the_outbox_nor_later_handlers(
    mongo_client: AsyncMongoClient, config: Config
) -> None:
    database = mongo_client[config.bot_database]
    feed = ChangeFeed()
    heard: list[Handler] = []
    failing = Handler.CONVERSATION_TESTS
    for role in Handler:
        if role is not Handler.PUBLISHER:
            feed.handle(role, Heard(heard, role, away=role is failing))
    publisher = EventPublisher(Outbox(database, Client()), Client(), config.subjects, "replica-1")
    feed.handle(Handler.PUBLISHER, publisher)

    await feed.announce(StoryDeleted("a" * 24, "b" * 24))

    [pending] = await database["outbox"].find({}).to_list()
    assert pending["subject"] == config.subjects.story_changed
    event = decode(StoryChanged, bytes(pending["data"]))
    assert (event.account_id, event.story_id, event.deleted) == ("a" * 24, "b" * 24, True)
    assert heard == list(HEARD_BY[StoryDeleted][1:])
    assert heard.index(Handler.INBOX) > heard.index(failing)
