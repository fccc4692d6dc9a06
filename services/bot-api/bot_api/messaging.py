"""bot-api's side of NATS (the contract: shared/events.py).

- Answers integrations-api's story look-ups, through the same management function as
  the HTTP handlers, so tenancy is the same.
- Answers channels' turns as the public key's /query would
  (bot_api/query/channel_turns.py).
- Publishes each reported change to JetStream once the database write succeeded, and
  follows the stream so that every replica's story cache and misses inbox learn of every
  change (an erased conversation leaves every replica's inbox).
- Keeps the view of webhook connections that deliveries use, and reports how each
  delivery through a connection went.
- Tells the other replicas' agent desks of each new line of a handed-over
  conversation (core NATS: a live view, nothing to keep), and hands theirs to this
  process's desk streams.
"""

import asyncio
import logging
import uuid
from collections.abc import AsyncIterator

from aiohttp import web
from nats.aio.client import Client
from nats.aio.msg import Msg
from nats.errors import NoRespondersError, TimeoutError
from nats.js.api import DeliverPolicy

from bot_api.changes import (
    Change,
    ConversationErased,
    DeskLinesAdded,
    EntitiesEdited,
    Handler,
    HandoffMessageSent,
    KnowledgeEdited,
    StoryCreated,
    StoryDeleted,
    StoryEdited,
)
from bot_api.connections.keys import CONNECTION_VIEW
from bot_api.handoffs.keys import DESK_STREAMS
from bot_api.handoffs.wire import desk_events_of, news_of_event
from bot_api.inbox.keys import INBOX
from bot_api.interactions.keys import INTERACTION_STORE
from bot_api.keys import CHANGES, PRINCIPALS, RATE_LIMITS
from bot_api.knowledge.keys import KNOWLEDGE_CACHE
from bot_api.query.channel_turns import ChannelTurns, undecodable
from bot_api.query.keys import CONVERSATIONS
from bot_api.stories.keys import STORY_STORE
from bot_api.stories.service import load_story
from bot_api.story_cache.keys import PHRASE_VECTORS, STORY_CACHE
from shared.errors import NotFound, Unavailable
from shared.events import (
    LOOKUP_TIMEOUT_SECONDS,
    TURN_ID_HEADER,
    ChannelTurn,
    ConnectionChanged,
    ConnectionLookup,
    ConnectionLookupReply,
    ConversationErasedEvent,
    DeskEvent,
    EntitiesChanged,
    Event,
    HandoffMessage,
    KnowledgeChanged,
    StoryChanged,
    StoryLookup,
    StoryLookupReply,
    Subjects,
    UndecodableEvent,
    decode,
    encode,
)
from shared.keys import CONFIG, NATS, OUTBOX
from shared.messaging import pulling
from shared.outbox import Outbox

CONNECTIONS_CONSUMER = "bot-api-connections-pull"

log = logging.getLogger(__name__)
RESPONDERS = "bot-api"
MAX_CHANNEL_TURNS_AT_ONCE = 32
"""Channel turns one replica answers at once: /query's own concurrency is bounded by the
HTTP server, this is the same bound for NATS; a turn waiting on a webhook holds its slot
for at most the 3 s of a delivery."""


async def story_lookups(app: web.Application) -> AsyncIterator[None]:
    """cleanup_ctx: answer story look-ups while the app runs (a queue group, so each
    look-up is answered by one replica)."""

    async def answer(message: Msg) -> None:
        try:
            lookup = decode(StoryLookup, message.data)
        except UndecodableEvent as error:
            log.warning("unreadable story look-up: %s", error)
            return
        try:
            story = await load_story(app[STORY_STORE], lookup.account_id, lookup.story_id)
            reply = StoryLookupReply(found=True, name=story.name)
        except NotFound:
            reply = StoryLookupReply(found=False)
        await message.respond(encode(reply))

    subjects = app[CONFIG].subjects
    subscription = await app[NATS].subscribe(
        subjects.story_lookup, queue=subjects.consumer(RESPONDERS), cb=answer
    )
    yield
    await subscription.unsubscribe()


async def channel_turns(app: web.Application) -> AsyncIterator[None]:
    """cleanup_ctx: answer channels' turns while the app runs (a queue group, so each turn
    is answered by one replica); an unreadable request is answered 400. NATS hands a
    subscription's messages over one at a time, so each turn runs in a task of its own
    (one waiting on a webhook must not hold up the others), at most
    `MAX_CHANNEL_TURNS_AT_ONCE`: beyond, the subscription waits and NATS buffers."""
    turns = ChannelTurns(
        app[CONVERSATIONS],
        app[RATE_LIMITS],
        app[PRINCIPALS],
        app[CONFIG].request_budget_seconds,
    )
    slots = asyncio.Semaphore(MAX_CHANNEL_TURNS_AT_ONCE)
    running: set[asyncio.Task[None]] = set()

    async def answer_one(message: Msg) -> None:
        try:
            try:
                request = decode(ChannelTurn, message.data)
            except UndecodableEvent as error:
                await message.respond(encode(undecodable(str(error))))
                return
            turn_id = (message.headers or {}).get(TURN_ID_HEADER)
            await message.respond(encode(await turns.answer(request, turn_id)))
        finally:
            slots.release()

    async def answer(message: Msg) -> None:
        await slots.acquire()
        task = asyncio.create_task(answer_one(message))
        running.add(task)
        task.add_done_callback(running.discard)

    subjects = app[CONFIG].subjects
    subscription = await app[NATS].subscribe(
        subjects.channel_turn, queue=subjects.consumer(RESPONDERS), cb=answer
    )
    yield
    await subscription.unsubscribe()
    for task in running:
        task.cancel()
    await asyncio.gather(*running, return_exceptions=True)


class EventPublisher:
    """A change listener that tells the stream, through the outbox (shared/outbox.py);
    its events name this process as their `origin`. The desk's lines go on core NATS
    at once, and a failure to is logged, never the turn's or the desk call's: the line
    is in the history, which a desk reads again when its stream opens again."""

    def __init__(self, outbox: Outbox, nats: Client, subjects: Subjects, origin: str) -> None:
        self._outbox = outbox
        self._nats = nats
        self._subjects = subjects
        self._origin = origin

    async def changed(self, change: Change) -> None:
        subjects, origin = self._subjects, self._origin
        match change:
            case StoryCreated(account_id=account_id, story_id=story_id):
                story = StoryChanged(account_id, story_id, origin=origin)
                await self._outbox.put(subjects.story_changed, encode(story))
            case StoryEdited(account_id=account_id, story_id=story_id):
                ids = tuple(sorted(change.interaction_ids))
                story = StoryChanged(account_id, story_id, ids, origin=origin)
                await self._outbox.put(subjects.story_changed, encode(story))
            case StoryDeleted(account_id=account_id, story_id=story_id):
                story = StoryChanged(account_id, story_id, deleted=True, origin=origin)
                await self._outbox.put(subjects.story_changed, encode(story))
            case EntitiesEdited(account_id=account_id):
                entities = EntitiesChanged(account_id, origin=origin)
                await self._outbox.put(subjects.entities_changed, encode(entities))
            case HandoffMessageSent():
                message = HandoffMessage(
                    change.account_id, change.story_id, change.session_id, change.text
                )
                await self._outbox.put(subjects.handoff_message, encode(message))
            case ConversationErased(account_id=account_id, story_id=story_id):
                erased = ConversationErasedEvent(
                    account_id, story_id, change.session_id, origin=origin
                )
                await self._outbox.put(subjects.conversation_erased, encode(erased))
            case KnowledgeEdited(account_id=account_id, story_id=story_id):
                knowledge = KnowledgeChanged(account_id, story_id, origin=origin)
                await self._outbox.put(subjects.knowledge_changed, encode(knowledge))
            case DeskLinesAdded():
                await self._tell_desks(change)

    async def _tell_desks(self, change: DeskLinesAdded) -> None:
        try:
            for event in desk_events_of(change, self._origin):
                await self._nats.publish(self._subjects.desk, encode(event))
        except Exception:
            log.exception("the other replicas' desks did not hear a line of %s", change.session_id)


async def story_events(app: web.Application) -> AsyncIterator[None]:
    """cleanup_ctx: publish this replica's changes and follow the other replicas'. This
    process's own changes reach its cache and inbox directly (through the change feed), so
    its echoes are skipped, and so are events it cannot read (logged)."""
    subjects = app[CONFIG].subjects
    origin = uuid.uuid4().hex
    publisher = EventPublisher(app[OUTBOX], app[NATS], subjects, origin)
    app[CHANGES].handle(Handler.PUBLISHER, publisher)
    cache, inbox, knowledge = app[STORY_CACHE], app[INBOX], app[KNOWLEDGE_CACHE]
    vectors = app[PHRASE_VECTORS]
    desks = app[DESK_STREAMS]

    async def on_desk(message: Msg) -> None:
        event = _readable(DeskEvent, message.data)
        if event is not None and event.origin != origin:
            desks.tell(event.account_id, event.story_id, [news_of_event(event)])

    async def on_story(message: Msg) -> None:
        event = _readable(StoryChanged, message.data)
        if event is None or event.origin == origin:
            return
        if event.deleted:
            deleted = StoryDeleted(event.account_id, event.story_id)
            await cache.changed(deleted)
            await inbox.changed(deleted)
            await knowledge.changed(deleted)
            if vectors is not None:  # the phrases it awaited from the others are not coming
                vectors.forget(event.story_id)
        else:
            ids = frozenset(event.interaction_ids)
            await cache.changed(StoryEdited(event.account_id, event.story_id, ids))

    async def on_entities(message: Msg) -> None:
        event = _readable(EntitiesChanged, message.data)
        if event is not None and event.origin != origin:
            await cache.changed(EntitiesEdited(event.account_id, remote=True))

    async def on_erased(message: Msg) -> None:
        event = _readable(ConversationErasedEvent, message.data)
        if event is not None and event.origin != origin:
            erased = ConversationErased(event.account_id, event.story_id, event.session_id)
            await inbox.changed(erased)

    async def on_knowledge(message: Msg) -> None:
        event = _readable(KnowledgeChanged, message.data)
        if event is not None and event.origin != origin:
            await knowledge.changed(KnowledgeEdited(event.account_id, event.story_id))

    jetstream = app[NATS].jetstream()
    subscriptions = [
        await jetstream.subscribe(
            subject, cb=callback, ordered_consumer=True, deliver_policy=DeliverPolicy.NEW
        )
        for subject, callback in (
            (subjects.story_changed, on_story),
            (subjects.entities_changed, on_entities),
            (subjects.conversation_erased, on_erased),
            (subjects.knowledge_changed, on_knowledge),
        )
    ]
    desk_lines = await app[NATS].subscribe(subjects.desk, cb=on_desk)
    yield
    await desk_lines.unsubscribe()
    for subscription in subscriptions:
        await subscription.unsubscribe()


def _readable(event_type: type[Event], data: bytes) -> Event | None:
    try:
        return decode(event_type, data)
    except UndecodableEvent as error:
        log.warning("skipped an event this replica cannot read: %s", error)
        return None


async def connection_events(app: web.Application) -> AsyncIterator[None]:
    """cleanup_ctx: keep the view of connections (a durable pull consumer: the view is
    shared by every replica through MongoDB)."""
    subjects = app[CONFIG].subjects

    async def on_connection(data: bytes) -> None:
        event = decode(ConnectionChanged, data)
        await app[CONNECTION_VIEW].apply(event)
        if event.deleted:
            return
        connected = await app[INTERACTION_STORE].connect_awaiting(
            event.story_id, event.name, event.connection_id
        )
        if connected:
            edited = StoryEdited(event.account_id, event.story_id, frozenset(connected))
            await app[CHANGES].announce(edited)

    consumer = subjects.consumer(CONNECTIONS_CONSUMER)
    async with pulling(app[NATS], subjects.connection_changed, consumer, on_connection):
        yield


class NatsConnectionDirectory:
    """Asks integrations-api, which owns the connections, whether a story has one."""

    def __init__(self, nats: Client, subjects: Subjects) -> None:
        self._nats = nats
        self._subjects = subjects

    async def is_story_connection(self, account_id: str, story_id: str, connection_id: str) -> bool:
        """Unavailable (503) when integrations-api does not answer."""
        lookup = ConnectionLookup(account_id, story_id, connection_id)
        try:
            message = await self._nats.request(
                self._subjects.connection_lookup, encode(lookup), LOOKUP_TIMEOUT_SECONDS
            )
        except (NoRespondersError, TimeoutError):
            raise Unavailable("integrations-api does not answer; nothing was stored") from None
        return decode(ConnectionLookupReply, message.data).found
