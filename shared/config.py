"""Settings of both services, read from the environment once at start-up."""

import os
from collections.abc import Mapping
from dataclasses import dataclass

from shared.events import Subjects

DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024


@dataclass(frozen=True)
class Config:
    mongodb_url: str
    nats_url: str
    database_prefix: str = "parley"
    bot_api_port: int = 8080
    integrations_api_port: int = 8081
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    session_idle_seconds: int = 600
    webhook_allow: tuple[str, ...] = ()
    # Browsers: CORS (docs/console.md) and the web console
    query_origins: tuple[str, ...] = ("*",)
    api_origins: tuple[str, ...] = ()
    console_integrations_url: str = "http://127.0.0.1:8081"
    # matching (docs/matching.md)
    semantic_matching: bool = True

    @property
    def subjects(self) -> Subjects:
        """The NATS names of this deployment, namespaced by its database prefix."""
        return Subjects(self.database_prefix)

    @property
    def accounts_database(self) -> str:
        return f"{self.database_prefix}_accounts"

    @property
    def bot_database(self) -> str:
        return f"{self.database_prefix}_bot"

    @property
    def integrations_database(self) -> str:
        return f"{self.database_prefix}_integrations"

    def as_env(self) -> dict[str, str]:
        """The environment variables that give a service this configuration."""
        return {
            "MONGODB_URL": self.mongodb_url,
            "NATS_URL": self.nats_url,
            "DATABASE_PREFIX": self.database_prefix,
            "BOT_API_PORT": str(self.bot_api_port),
            "INTEGRATIONS_API_PORT": str(self.integrations_api_port),
            "MAX_BODY_BYTES": str(self.max_body_bytes),
            "SESSION_IDLE_SECONDS": str(self.session_idle_seconds),
            "WEBHOOK_ALLOW": ",".join(self.webhook_allow),
            # Browsers
            "QUERY_ORIGINS": ",".join(self.query_origins),
            "API_ORIGINS": ",".join(self.api_origins),
            "CONSOLE_INTEGRATIONS_URL": self.console_integrations_url,
            # matching
            "SEMANTIC_MATCHING": "on" if self.semantic_matching else "off",
        }

    @classmethod
    def from_env(cls) -> "Config":
        return cls.from_env_mapping(os.environ)

    @classmethod
    def from_env_mapping(cls, env: Mapping[str, str]) -> "Config":
        integrations_api_port = int(env.get("INTEGRATIONS_API_PORT", "8081"))
        return cls(
            mongodb_url=env.get("MONGODB_URL", "mongodb://127.0.0.1:27017"),
            nats_url=env.get("NATS_URL", "nats://127.0.0.1:4222"),
            database_prefix=env.get("DATABASE_PREFIX", "parley"),
            bot_api_port=int(env.get("BOT_API_PORT", "8080")),
            integrations_api_port=integrations_api_port,
            max_body_bytes=int(env.get("MAX_BODY_BYTES", str(DEFAULT_MAX_BODY_BYTES))),
            session_idle_seconds=int(env.get("SESSION_IDLE_SECONDS", "600")),
            webhook_allow=_comma_list(env.get("WEBHOOK_ALLOW", "")),
            # Browsers
            query_origins=_comma_list(env.get("QUERY_ORIGINS", "*")),
            api_origins=_comma_list(env.get("API_ORIGINS", "")),
            console_integrations_url=env.get(
                "CONSOLE_INTEGRATIONS_URL", f"http://127.0.0.1:{integrations_api_port}"
            ),
            # matching
            semantic_matching=env.get("SEMANTIC_MATCHING", "on").lower() != "off",
        )


def _comma_list(value: str) -> tuple[str, ...]:
    return tuple(item.strip() for item in value.split(",") if item.strip())
