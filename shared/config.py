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
    # Work per query and per tenant (docs/reliability.md)
    story_cache_mb: int = 1024
    quota_stories: int = 100
    quota_interactions_per_story: int = 5000
    quota_phrases_per_story: int = 100_000
    quota_entities: int = 500
    quota_entries: int = 20_000

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
            # Work per query and per tenant
            "STORY_CACHE_MB": str(self.story_cache_mb),
            "QUOTA_STORIES": str(self.quota_stories),
            "QUOTA_INTERACTIONS_PER_STORY": str(self.quota_interactions_per_story),
            "QUOTA_PHRASES_PER_STORY": str(self.quota_phrases_per_story),
            "QUOTA_ENTITIES": str(self.quota_entities),
            "QUOTA_ENTRIES": str(self.quota_entries),
        }

    @classmethod
    def from_env(cls) -> "Config":
        return cls.from_env_mapping(os.environ)

    @classmethod
    def from_env_mapping(cls, env: Mapping[str, str]) -> "Config":
        return cls(
            mongodb_url=env.get("MONGODB_URL", "mongodb://127.0.0.1:27017"),
            nats_url=env.get("NATS_URL", "nats://127.0.0.1:4222"),
            database_prefix=env.get("DATABASE_PREFIX", "parley"),
            bot_api_port=int(env.get("BOT_API_PORT", "8080")),
            integrations_api_port=int(env.get("INTEGRATIONS_API_PORT", "8081")),
            max_body_bytes=int(env.get("MAX_BODY_BYTES", str(DEFAULT_MAX_BODY_BYTES))),
            session_idle_seconds=int(env.get("SESSION_IDLE_SECONDS", "600")),
            webhook_allow=tuple(
                n.strip() for n in env.get("WEBHOOK_ALLOW", "").split(",") if n.strip()
            ),
            # Work per query and per tenant
            story_cache_mb=int(env.get("STORY_CACHE_MB", str(cls.story_cache_mb))),
            quota_stories=int(env.get("QUOTA_STORIES", str(cls.quota_stories))),
            quota_interactions_per_story=int(
                env.get("QUOTA_INTERACTIONS_PER_STORY", str(cls.quota_interactions_per_story))
            ),
            quota_phrases_per_story=int(
                env.get("QUOTA_PHRASES_PER_STORY", str(cls.quota_phrases_per_story))
            ),
            quota_entities=int(env.get("QUOTA_ENTITIES", str(cls.quota_entities))),
            quota_entries=int(env.get("QUOTA_ENTRIES", str(cls.quota_entries))),
        )
