"""Behind the gateway the services see one peer, so the gateway caps each visitor: one
client address has at most MAX_CONNECTIONS_PER_CLIENT requests in progress, and another
is served meanwhile (a gateway of its own: this one is flooded)."""

import asyncio
import ssl

from shared.config import Config
from support.gateway import Gateway

PER_CLIENT = Config(mongodb_url="", nats_url="").max_connections_per_client
FLOODER = "127.0.0.2"
VISITOR = "127.0.0.3"

Connection = tuple[asyncio.StreamReader, asyncio.StreamWriter]


async def connect(gateway: Gateway, source: str) -> Connection:
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    return await asyncio.open_connection(
        "127.0.0.1",
        gateway.https_port,
        ssl=context,
        server_hostname=gateway.bot_host,
        local_addr=(source, 0),
    )


async def upload_slowly(gateway: Gateway, source: str) -> Connection:
    """A request in progress: its headers sent, its body never finished."""
    reader, writer = await connect(gateway, source)
    writer.write(
        f"POST /stories HTTP/1.1\r\nHost: {gateway.bot_host}\r\n"
        "Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{".encode()
    )
    await writer.drain()
    return reader, writer


async def healthz(gateway: Gateway, source: str) -> bytes:
    reader, writer = await connect(gateway, source)
    writer.write(
        f"GET /healthz HTTP/1.1\r\nHost: {gateway.bot_host}\r\nConnection: close\r\n\r\n".encode()
    )
    try:
        return await asyncio.wait_for(reader.read(), timeout=10)
    finally:
        writer.close()


async def test_one_address_has_at_most_its_share_of_requests_in_progress(
    gateway: Gateway,
) -> None:
    uploads = [await upload_slowly(gateway, FLOODER) for _ in range(PER_CLIENT)]
    try:
        for _ in range(50):  # until nginx has read the uploads' headers (5 s at most)
            if (await healthz(gateway, FLOODER)).startswith(b"HTTP/1.1 503"):
                break
            await asyncio.sleep(0.1)
        for _ in range(10):
            assert (await healthz(gateway, FLOODER)).startswith(b"HTTP/1.1 503")
        for _ in range(10):
            assert (await healthz(gateway, VISITOR)).startswith(b"HTTP/1.1 200")
    finally:
        for _, writer in uploads:
            writer.close()
