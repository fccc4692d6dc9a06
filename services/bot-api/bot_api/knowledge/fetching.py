"""A document fetched from a URL (docs/knowledge.md): through the same guard as webhooks
(`shared/address_guard.py`: no loopback, private or metadata address unless
`WEBHOOK_ALLOW` lists it), each redirect checked again, at most `MAX_REDIRECTS`, within
`FETCH_SECONDS` in all and `MAX_FILE_BYTES`; the page's media type says how it is read."""

import ipaddress
from dataclasses import dataclass

import aiohttp
from yarl import URL

from bot_api.knowledge.reading import DOCUMENT_TYPES
from bot_api.knowledge.reading.limits import MAX_FILE_BYTES
from shared.address_guard import GuardedResolver, RefusedAddress, check_literal_host
from shared.errors import PayloadTooLarge, UnsupportedMediaType, ValidationFailed

FETCH_SECONDS = 15.0
"""A page or file of a few MB arrives in well under a second from a working server; 15 s
leaves room for a slow one and bounds what a request waits for."""
MAX_REDIRECTS = 5
CHUNK = 64 * 1024


@dataclass(frozen=True)
class Fetched:
    url: str
    """Where the content came from, after redirects."""
    media_type: str
    content: bytes


class PageFetcher:
    def __init__(self, allowed: tuple[str, ...]) -> None:
        self._allowed = tuple(ipaddress.ip_network(n, strict=False) for n in allowed)
        self._session: aiohttp.ClientSession | None = None

    async def start(self) -> None:
        connector = aiohttp.TCPConnector(resolver=GuardedResolver(self._allowed))
        self._session = aiohttp.ClientSession(
            connector=connector,
            timeout=aiohttp.ClientTimeout(total=FETCH_SECONDS),
            headers={"User-Agent": "Parley knowledge fetcher"},
        )

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()

    async def fetch(self, url: str) -> Fetched:
        """The content at `url`, or a 400 saying why not (a 413 or 415 for what is too
        large or not a document)."""
        try:
            return await self._fetch(url)
        except RefusedAddress as refused:
            raise ValidationFailed.at(("url",), f"not fetched: {refused}") from None
        except TimeoutError:
            raise ValidationFailed.at(("url",), f"no answer within {FETCH_SECONDS:.0f} s") from None
        except aiohttp.ClientConnectorError as error:
            if isinstance(error.os_error, RefusedAddress):
                raise ValidationFailed.at(("url",), f"not fetched: {error.os_error}") from None
            raise ValidationFailed.at(("url",), f"cannot connect: {error.os_error}") from None
        except aiohttp.ClientError as error:
            raise ValidationFailed.at(("url",), f"the fetch failed: {error}") from None

    async def _fetch(self, url: str) -> Fetched:
        assert self._session is not None, "start() opens the session"
        current = URL(url)
        for _ in range(MAX_REDIRECTS + 1):
            if current.scheme not in ("http", "https"):
                raise ValidationFailed.at(("url",), f"not an http(s) address: {current}")
            check_literal_host(current.host or "", self._allowed)
            async with self._session.get(current, allow_redirects=False) as response:
                if response.status in (301, 302, 303, 307, 308):
                    location = response.headers.get("Location")
                    if not location:
                        raise ValidationFailed.at(("url",), "a redirect without a Location")
                    current = current.join(URL(location))
                    continue
                if response.status != 200:
                    raise ValidationFailed.at(("url",), f"the server answered {response.status}")
                media_type = response.content_type
                if media_type not in DOCUMENT_TYPES:
                    raise UnsupportedMediaType(f"{current} is {media_type}, not a document")
                if (response.content_length or 0) > MAX_FILE_BYTES:
                    raise PayloadTooLarge(f"{current} is larger than {MAX_FILE_BYTES} bytes")
                content = bytearray()
                async for chunk in response.content.iter_chunked(CHUNK):
                    content.extend(chunk)
                    if len(content) > MAX_FILE_BYTES:
                        raise PayloadTooLarge(f"{current} is larger than {MAX_FILE_BYTES} bytes")
                return Fetched(str(current), media_type, bytes(content))
        raise ValidationFailed.at(("url",), f"more than {MAX_REDIRECTS} redirects")
