"""Opening the NATS connection: reconnect forever, never give up on the server."""

import logging
from collections.abc import Awaitable, Callable

from nats.aio.client import Client
from nats.aio.msg import Msg
from nats.js.errors import BadRequestError

from shared.events import Subjects

log = logging.getLogger(__name__)


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
        url,
        name=name,
        max_reconnect_attempts=-1,
        reconnect_time_wait=0.5,
        allow_reconnect=True,
        disconnected_cb=on_disconnect,
        reconnected_cb=on_reconnect,
        error_cb=on_error,
    )
    return client


async def ensure_stream(client: Client, subjects: Subjects) -> None:
    """Create the event stream, or bring its subjects up to date; both services call it."""
    jetstream = client.jetstream()
    try:
        await jetstream.add_stream(name=subjects.stream, subjects=subjects.stream_subjects)
    except BadRequestError:
        await jetstream.update_stream(name=subjects.stream, subjects=subjects.stream_subjects)


RETRY_DELAY_SECONDS = 1.0


def acknowledging(
    apply: Callable[[bytes], Awaitable[None]], what: str
) -> Callable[[Msg], Awaitable[None]]:
    """A JetStream callback that acknowledges a message only once `apply` handled it,
    and asks for it again a second later otherwise (at-least-once)."""

    async def callback(message: Msg) -> None:
        try:
            await apply(message.data)
        except Exception as error:
            log.warning("%s not applied, retrying: %s", what, error)
            await message.nak(delay=RETRY_DELAY_SECONDS)
            return
        await message.ack()

    return callback
