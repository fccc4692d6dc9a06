"""Reading one setting from the environment, checked: a URL of the schemes it may have,
a whole number or an amount in its range, networks, origins, a choice. A bad value is an
`InvalidSetting` naming the variable (shared/config.py reads every setting with these).
"""

import ipaddress
import re
from collections.abc import Mapping
from urllib.parse import urlsplit

MONGODB_SCHEMES = ("mongodb://", "mongodb+srv://")
NATS_SCHEMES = ("nats://", "tls://", "ws://", "wss://")
HTTP_SCHEMES = ("http://", "https://")
_DATABASE_PREFIX = re.compile(r"^[A-Za-z0-9_-]{1,40}$")


class InvalidSetting(ValueError):
    """A setting of the environment that the services cannot run with."""


def is_secure_or_loopback(url: str) -> bool:
    """Whether `url` is https, or plain http to this machine (a browser's cookies and a
    provider's keys cross no network there)."""
    if url.startswith("https://"):
        return True
    host = urlsplit(url).hostname or ""
    return url.startswith("http://") and (host == "localhost" or _is_loopback_address(host))


def _is_loopback_address(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class Reader:
    """Reads one variable at a time, with its default when unset or empty."""

    def __init__(self, env: Mapping[str, str]) -> None:
        self._env = env

    def _raw(self, name: str, default: str) -> str:
        return self._env.get(name, "").strip() or default

    def url(self, name: str, default: str, schemes: tuple[str, ...]) -> str:
        value = self._raw(name, default)
        if not value.startswith(schemes):
            # the value may hold a password: name only what it starts with
            raise InvalidSetting(f"{name} must start with {' or '.join(schemes)}")
        return value

    def urls(self, name: str, default: str, schemes: tuple[str, ...]) -> str:
        """One URL or several, comma-separated (the servers of one cluster), each of
        `schemes`; given back joined by commas, blanks dropped."""
        urls = [url.strip() for url in self._raw(name, default).split(",") if url.strip()]
        if not urls or not all(url.startswith(schemes) for url in urls):
            # a value may hold passwords: name only what each URL must start with
            starts = " or ".join(schemes)
            raise InvalidSetting(f"{name} must start with {starts} (each URL of a list)")
        return ",".join(urls)

    def optional_url(self, name: str, schemes: tuple[str, ...]) -> str:
        """A URL, or "" when unset."""
        return self.url(name, "", schemes) if self._raw(name, "") else ""

    def text(self, name: str) -> str:
        """Any text, or "" when unset."""
        return self._raw(name, "")

    def database_prefix(self, name: str, default: str) -> str:
        value = self._raw(name, default)
        if not _DATABASE_PREFIX.match(value):
            raise InvalidSetting(
                f"{name} must be 1 to 40 letters, digits, '_' or '-', not {value!r}"
            )
        return value

    def _whole_number(self, name: str, default: int, low: int, high: int | None) -> int:
        value = self._raw(name, str(default))
        try:
            number = int(value)
        except ValueError:
            number = low - 1
        if number < low or (high is not None and number > high):
            bounds = f"from {low} to {high}" if high is not None else f"of at least {low}"
            raise InvalidSetting(f"{name} must be a whole number {bounds}, not {value!r}")
        return number

    def port(self, name: str, default: int) -> int:
        return self._whole_number(name, default, 1, 65535)

    def between(self, name: str, default: int, low: int, high: int) -> int:
        return self._whole_number(name, default, low, high)

    def positive(self, name: str, default: int) -> int:
        return self._whole_number(name, default, 1, None)

    def networks(self, name: str, default: str = "") -> tuple[str, ...]:
        networks = tuple(n.strip() for n in self._raw(name, default).split(",") if n.strip())
        for network in networks:
            try:
                ipaddress.ip_network(network, strict=False)
            except ValueError:
                raise InvalidSetting(
                    f"{name} must list networks such as 10.0.0.0/8, not {network!r}"
                ) from None
        return networks

    def address(self, name: str, default: str) -> str:
        value = self._raw(name, default)
        try:
            ipaddress.ip_address(value)
        except ValueError:
            raise InvalidSetting(
                f"{name} must be an IP address such as 127.0.0.1 or 0.0.0.0, not {value!r}"
            ) from None
        return value

    def amount(self, name: str, default: float, low: float) -> float:
        value = self._raw(name, str(default))
        try:
            number = float(value)
        except ValueError:
            number = float("nan")
        if not number >= low or number == float("inf"):
            raise InvalidSetting(f"{name} must be a number of at least {low}, not {value!r}")
        return number

    def origins(self, name: str, default: str) -> tuple[str, ...]:
        """Web origins (`https://example.com`, comma-separated), or `*` for any."""
        origins = tuple(o.strip() for o in self._raw(name, default).split(",") if o.strip())
        for origin in origins:
            if origin != "*" and not origin.startswith(HTTP_SCHEMES):
                raise InvalidSetting(
                    f"{name} must list origins such as https://example.com or *, not {origin!r}"
                )
        return origins

    def choice(self, name: str, default: str, choices: tuple[str, ...]) -> str:
        value = self._raw(name, default)
        if value.upper() not in (c.upper() for c in choices):
            raise InvalidSetting(f"{name} must be one of {', '.join(choices)}, not {value!r}")
        return value
