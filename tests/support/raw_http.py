"""Bytes on a socket, for requests no HTTP client library would send."""

import asyncio
import json
from typing import Any

READ_SECONDS = 10.0


async def exchange(host: str, port: int, request: bytes) -> tuple[int, Any]:
    """Send `request`, read the answer until the server closes or 10 s pass: (status,
    JSON body). The request should ask to close (or the server will)."""
    reader, writer = await asyncio.open_connection(host, port)
    try:
        writer.write(request)
        await writer.drain()
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), READ_SECONDS)
        length = next(
            int(line.split(b":", 1)[1])
            for line in head.split(b"\r\n")
            if line.lower().startswith(b"content-length:")
        )
        body = await asyncio.wait_for(reader.readexactly(length), READ_SECONDS)
    finally:
        writer.close()
    status = int(head.split(b" ", 2)[1])
    return status, json.loads(body)
