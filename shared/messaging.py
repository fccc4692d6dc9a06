"""Opening the NATS connection (reconnect forever, never give up on the server) and
consuming JetStream events.

A URL here is NATS_URL's value: one server, or the nodes of a cluster comma-separated,
which the client tries in turn (and again, on a lost connection, until one answers)."""

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable

from nats.aio.client import Client
from nats.aio.msg import Msg
from nats.errors import TimeoutError as NatsTimeout
from nats.js.api import StreamConfig
from nats.js.client import JetStreamContext
from nats.js.errors import BadRequestError

from shared.events import Subjects, UndecodableEvent
from shared.metrics import EVENTS_CONSUMED, EVENTS_REDELIVERED

log = logging.getLogger(__name__)
PUBLISH_ONCE_SECONDS = 3.0


def servers(url: str) -> list[str]:
    return url.split(",")


async def connect(url: str, name: str) -> Client:
    client = Client()

    async def on_disconnect() -> None:
        if not client.is_closed:  # a close on purpose (service stop) is no news
            log.warning("NATS disconnected; reconnecting")

    async def on_reconnect() -> None:
        log.info("NATS reconnected")

    async def on_error(error: Exception) -> None:
        log.warning("NATS error: %s", error)

    await client.connect(
        servers(url),
        name=name,
        max_reconnect_attempts=-1,
        reconnect_time_wait=0.5,  # type: ignore[arg-type]  # seconds; annotated int, used as float
        allow_reconnect=True,
        disconnected_cb=on_disconnect,
        reconnected_cb=on_reconnect,
        error_cb=on_error,
    )
    return client


async def connect_once(url: str) -> Client:
    """A connection tried once, raising what went wrong (`connect` would retry a first
    connect for ever, silently)."""
    client = Client()
    errors: list[Exception] = []

    async def remember(error: Exception) -> None:
        errors.append(error)

    try:
        await client.connect(
            servers(url),
            connect_timeout=2,
            allow_reconnect=False,
            max_reconnect_attempts=1,  # 0 would mean "for ever" to the first connect
            reconnect_time_wait=0,
            error_cb=remember,
        )
    except Exception as error:
        raise (errors[-1] if errors else error) from None
    return client


async def check_reachable(url: str) -> None:
    """How the start waits for NATS: connect once and leave."""
    await (await connect_once(url)).close()


async def publish_once(url: str, subject: str, data: bytes) -> None:
    """Publish one event to JetStream from a short-lived process (the accounts command);
    what went wrong when NATS does not take it."""
    client = await connect_once(url)
    try:
        await client.jetstream().publish(subject, data, timeout=PUBLISH_ONCE_SECONDS)
    finally:
        await client.close()


async def ensure_stream(client: Client, subjects: Subjects, replicas: int) -> None:
    """Create the event stream with `replicas` copies (NATS_STREAM_REPLICAS), or bring
    an existing one's subjects and copies up to date (JetStream adds or drops the copies
    itself); both services call it. A stream's durable consumers keep as many copies of
    their state as the stream."""
    stream = StreamConfig(
        name=subjects.stream, subjects=subjects.stream_subjects, num_replicas=replicas
    )
    jetstream = client.jetstream()
    try:
        await jetstream.add_stream(stream)
    except BadRequestError:
        await jetstream.update_stream(stream)


Handler = Callable[[bytes], Awaitable[None]]

BATCH = 20
API_SECONDS = 5.0
"""How long one JetStream API request is waited for (nats-py's own default)."""
SUBSCRIBE_SECONDS = 60.0
"""How long a durable consumer's making is asked again when the API does not answer: on
a cluster, making one waits for its copies to elect a leader, which on a busy 2-core
machine outlasted API_SECONDS (five services of a fresh `make scale` making theirs at
once: integrations-api exited)."""
FETCH_WAIT_SECONDS = 5.0
RETRY_DELAY_SECONDS = 1.0
STOP_SECONDS = 10.0


@contextlib.asynccontextmanager
async def pulling(
    client: Client, subject: str, durable: str, handle: Handler
) -> AsyncIterator[None]:
    """Run the durable pull consumer `durable` of `subject` while the block runs.

    Replicas sharing the name share the work: each event goes to one of them. An event
    is acknowledged once `handle` did its work, asked for again a second later when
    `handle` fails (at-least-once), and dropped for good, with one log line, when it is
    an `UndecodableEvent`, which no retry can mend.
    """
    subscription = await _subscribed(client, subject, durable)
    consumer = _PullConsumer(subscription, handle, durable)
    task = asyncio.create_task(consumer.run())
    try:
        yield
    finally:
        consumer.stop(task)
        with contextlib.suppress(TimeoutError, asyncio.CancelledError):
            await asyncio.wait_for(task, STOP_SECONDS)
        await subscription.unsubscribe()


async def _subscribed(
    client: Client, subject: str, durable: str
) -> JetStreamContext.PullSubscription:
    """The durable consumer, made if missing (by whichever replica asks first), asked
    again while JetStream's API does not answer, for up to SUBSCRIBE_SECONDS."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + SUBSCRIBE_SECONDS
    while True:
        try:
            return await client.jetstream(timeout=API_SECONDS).pull_subscribe(
                subject, durable=durable
            )
        except NatsTimeout:
            if loop.time() >= deadline:
                raise
            log.warning(
                "JetStream did not answer within %g s for %s; asking again", API_SECONDS, durable
            )


class _PullConsumer:
    def __init__(
        self, subscription: JetStreamContext.PullSubscription, handle: Handler, name: str
    ) -> None:
        self._subscription = subscription
        self._handle = handle
        self._name = name
        self._stopping = False
        self._waiting = False

    def stop(self, task: asyncio.Task[None]) -> None:
        """Let the event in hand finish; a wait for new events is cut short."""
        self._stopping = True
        if self._waiting:
            task.cancel()

    async def run(self) -> None:
        while not self._stopping:
            for message in await self._next_batch():
                try:
                    await self._settle(message)
                except Exception as error:
                    log.info("%s could not settle an event (it comes again): %s", self._name, error)

    async def _next_batch(self) -> list[Msg]:
        self._waiting = True
        try:
            return await self._subscription.fetch(BATCH, timeout=FETCH_WAIT_SECONDS)
        except TimeoutError:
            return []
        except Exception as error:
            log.info("%s waits for NATS: %s", self._name, error)
            await asyncio.sleep(RETRY_DELAY_SECONDS)
            return []
        finally:
            self._waiting = False

    async def _settle(self, message: Msg) -> None:
        """Acknowledge the event once handled, ask for it again on a failure, and drop
        it when it cannot be read."""
        if message.metadata.num_delivered > 1:
            EVENTS_REDELIVERED.labels(self._name).inc()
        try:
            await self._handle(message.data)
        except UndecodableEvent as error:
            log.warning("%s dropped an event it cannot read: %s", self._name, error)
            await message.term()
        except Exception as error:
            log.warning("%s failed on an event, retrying: %s", self._name, error)
            await message.nak(delay=RETRY_DELAY_SECONDS)
        else:
            await message.ack()
            EVENTS_CONSUMED.labels(self._name).inc()
