"""Settings of both services, read from the environment once at start-up.

Every value is checked here (each kind of value by shared/setting_reader.py): a bad one
stops the process with one line naming the variable (`InvalidSetting`), before anything
is opened.
"""

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from shared.events import Subjects
from shared.setting_reader import (
    HTTP_SCHEMES,
    MONGODB_SCHEMES,
    NATS_SCHEMES,
    InvalidSetting,
    Reader,
    is_secure_or_loopback,
)

DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR")
LOG_FORMATS = ("text", "json")


@dataclass(frozen=True)
class Config:
    mongodb_url: str
    nats_url: str
    database_prefix: str = "parley"
    bot_api_port: int = 8080
    integrations_api_port: int = 8081
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    session_idle_seconds: int = 600
    handoff_idle_seconds: int = 1800
    # the agent desk's live streams (docs/teams.md "The agent desk")
    desk_streams_per_account: int = 50
    desk_streams_per_client: int = 5
    desk_heartbeat_seconds: float = 15.0
    webhook_allow: tuple[str, ...] = ()
    trusted_proxies: tuple[str, ...] = ("127.0.0.0/8", "::1/128")
    # Browsers: CORS (docs/console.md) and the web console
    query_origins: tuple[str, ...] = ("*",)
    api_origins: tuple[str, ...] = ()
    console_integrations_url: str = ""
    """Where the console's pages call integrations-api; "" for their own origin, where
    the gateway routes `/v2/integrations/` to it."""
    # Stalls and rates (docs/reliability.md): a request's budget; requests per second and
    # burst per account (across replicas), client address or session, 0 turning a limit off
    request_budget_seconds: float = 10.0
    query_rate: float = 200.0
    query_burst: int = 400
    query_client_rate: float = 5.0
    query_client_burst: int = 30
    query_session_rate: float = 1.0
    query_session_burst: int = 10
    management_rate: float = 50.0
    management_burst: int = 600
    auth_failure_rate: float = 1.0
    auth_failure_burst: int = 20
    # operations: listening address, logs, waiting for MongoDB and NATS at start
    host: str = "127.0.0.1"
    log_level: str = "INFO"
    log_format: str = "text"
    startup_wait_seconds: int = 120
    nats_stream_replicas: int = 1
    """Copies of the event stream, one per node of a NATS cluster (docs/scaling.md)."""
    # Work per query and per tenant (docs/reliability.md)
    story_cache_mb: int = 1024
    quota_stories: int = 100
    quota_interactions_per_story: int = 5000
    quota_phrases_per_story: int = 100_000
    quota_entities: int = 500
    quota_entries: int = 20_000
    quota_connections: int = 1000
    quota_documents_per_story: int = 200
    quota_passages_per_story: int = 20_000
    quota_knowledge_characters: int = 50_000_000
    """The characters of all an account's documents (what their passages hold)."""
    # HTTP input: how long a client may take, and how many may be connected
    body_read_seconds: float = 10.0
    idle_seconds: float = 15.0
    max_connections: int = 1000
    max_connections_per_client: int = 100
    # matching (docs/matching.md)
    semantic_matching: bool = True
    phrase_vector_wait_seconds: float = 30.0
    """How long a bot-api replica waits for the phrase vectors another is encoding
    without any landing before it encodes them itself (story_cache/queues.py)."""
    # channels (docs/channels.md): where integrations-api is reached from the internet,
    # and the messaging platforms' API base addresses (tests point them at stand-ins)
    integrations_public_url: str = ""
    """The base of the channels' inbound URLs; "" for the origin the API was called on."""
    telegram_api_url: str = "https://api.telegram.org"
    slack_api_url: str = "https://slack.com"
    meta_graph_url: str = "https://graph.facebook.com"
    quota_channels: int = 100
    # generated knowledge answers (docs/knowledge-generation.md): an OpenAI-compatible
    # server's base address ("" for none: answers stay extractive), its key and model
    llm_base_url: str = ""
    llm_api_key: str = field(default="", repr=False)
    """A secret: out of the configuration's repr, so no log line carries it."""
    llm_model: str = ""
    llm_timeout_seconds: float = 4.0
    # sign-in to the console with OpenID Connect (docs/teams.md "Sign-in"): the identity
    # provider's issuer ("" for none: the console takes a pasted developer token), this
    # deployment's client at it, and where the console is reached
    oidc_issuer: str = ""
    oidc_client_id: str = ""
    oidc_client_secret: str = field(default="", repr=False)
    """A secret: out of the configuration's repr, so no log line carries it."""
    oidc_scopes: tuple[str, ...] = ("openid", "email", "profile")
    console_url: str = ""
    """The console's origin as browsers reach it: the provider sends them back to
    `<console_url>/console/sign-in/callback`."""
    console_session_hours: int = 12
    # the audit log (docs/teams.md "Audit log"): how long its records are kept
    audit_retention_days: int = 400

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
            "HANDOFF_IDLE_SECONDS": str(self.handoff_idle_seconds),
            "DESK_STREAMS_PER_ACCOUNT": str(self.desk_streams_per_account),
            "DESK_STREAMS_PER_CLIENT": str(self.desk_streams_per_client),
            "DESK_HEARTBEAT_SECONDS": str(self.desk_heartbeat_seconds),
            "WEBHOOK_ALLOW": ",".join(self.webhook_allow),
            "TRUSTED_PROXIES": ",".join(self.trusted_proxies),
            # Browsers
            "QUERY_ORIGINS": ",".join(self.query_origins),
            "API_ORIGINS": ",".join(self.api_origins),
            "CONSOLE_INTEGRATIONS_URL": self.console_integrations_url,
            # Stalls and rates
            "REQUEST_BUDGET_SECONDS": str(self.request_budget_seconds),
            "QUERY_RATE": str(self.query_rate),
            "QUERY_BURST": str(self.query_burst),
            "QUERY_CLIENT_RATE": str(self.query_client_rate),
            "QUERY_CLIENT_BURST": str(self.query_client_burst),
            "QUERY_SESSION_RATE": str(self.query_session_rate),
            "QUERY_SESSION_BURST": str(self.query_session_burst),
            "MANAGEMENT_RATE": str(self.management_rate),
            "MANAGEMENT_BURST": str(self.management_burst),
            "AUTH_FAILURE_RATE": str(self.auth_failure_rate),
            "AUTH_FAILURE_BURST": str(self.auth_failure_burst),
            # operations
            "HOST": self.host,
            "LOG_LEVEL": self.log_level,
            "LOG_FORMAT": self.log_format,
            "STARTUP_WAIT_SECONDS": str(self.startup_wait_seconds),
            "NATS_STREAM_REPLICAS": str(self.nats_stream_replicas),
            # Work per query and per tenant
            "STORY_CACHE_MB": str(self.story_cache_mb),
            "QUOTA_STORIES": str(self.quota_stories),
            "QUOTA_INTERACTIONS_PER_STORY": str(self.quota_interactions_per_story),
            "QUOTA_PHRASES_PER_STORY": str(self.quota_phrases_per_story),
            "QUOTA_ENTITIES": str(self.quota_entities),
            "QUOTA_ENTRIES": str(self.quota_entries),
            "QUOTA_CONNECTIONS": str(self.quota_connections),
            "QUOTA_DOCUMENTS_PER_STORY": str(self.quota_documents_per_story),
            "QUOTA_PASSAGES_PER_STORY": str(self.quota_passages_per_story),
            "QUOTA_KNOWLEDGE_CHARACTERS": str(self.quota_knowledge_characters),
            # HTTP input
            "BODY_READ_SECONDS": str(self.body_read_seconds),
            "IDLE_SECONDS": str(self.idle_seconds),
            "MAX_CONNECTIONS": str(self.max_connections),
            "MAX_CONNECTIONS_PER_CLIENT": str(self.max_connections_per_client),
            # matching
            "SEMANTIC_MATCHING": "on" if self.semantic_matching else "off",
            "PHRASE_VECTOR_WAIT_SECONDS": str(self.phrase_vector_wait_seconds),
            # channels
            "INTEGRATIONS_PUBLIC_URL": self.integrations_public_url,
            "TELEGRAM_API_URL": self.telegram_api_url,
            "SLACK_API_URL": self.slack_api_url,
            "META_GRAPH_URL": self.meta_graph_url,
            "QUOTA_CHANNELS": str(self.quota_channels),
            # generated knowledge answers
            "LLM_BASE_URL": self.llm_base_url,
            "LLM_API_KEY": self.llm_api_key,
            "LLM_MODEL": self.llm_model,
            "LLM_TIMEOUT_SECONDS": str(self.llm_timeout_seconds),
            # sign-in to the console
            "OIDC_ISSUER": self.oidc_issuer,
            "OIDC_CLIENT_ID": self.oidc_client_id,
            "OIDC_CLIENT_SECRET": self.oidc_client_secret,
            "OIDC_SCOPES": " ".join(self.oidc_scopes),
            "CONSOLE_URL": self.console_url,
            "CONSOLE_SESSION_HOURS": str(self.console_session_hours),
            # the audit log
            "AUDIT_RETENTION_DAYS": str(self.audit_retention_days),
        }

    @classmethod
    def from_env(cls) -> "Config":
        return cls.from_env_mapping(os.environ)

    @classmethod
    def from_env_mapping(cls, env: Mapping[str, str]) -> "Config":
        """The configuration `env` gives; InvalidSetting names the first bad value."""
        setting = Reader(env)
        llm_base_url = setting.optional_url("LLM_BASE_URL", HTTP_SCHEMES)
        llm_model = setting.text("LLM_MODEL")
        if llm_base_url and not llm_model:
            raise InvalidSetting("LLM_MODEL must name the model LLM_BASE_URL serves")
        sign_in = _sign_in_settings(setting)
        return cls(
            mongodb_url=setting.url("MONGODB_URL", "mongodb://127.0.0.1:27017", MONGODB_SCHEMES),
            nats_url=_nats_url(setting),
            database_prefix=setting.database_prefix("DATABASE_PREFIX", "parley"),
            bot_api_port=setting.port("BOT_API_PORT", 8080),
            integrations_api_port=setting.port("INTEGRATIONS_API_PORT", 8081),
            max_body_bytes=setting.positive("MAX_BODY_BYTES", DEFAULT_MAX_BODY_BYTES),
            session_idle_seconds=setting.positive("SESSION_IDLE_SECONDS", 600),
            handoff_idle_seconds=setting.positive("HANDOFF_IDLE_SECONDS", 1800),
            desk_streams_per_account=setting.positive("DESK_STREAMS_PER_ACCOUNT", 50),
            desk_streams_per_client=setting.positive("DESK_STREAMS_PER_CLIENT", 5),
            desk_heartbeat_seconds=setting.amount("DESK_HEARTBEAT_SECONDS", 15.0, low=0.01),
            webhook_allow=setting.networks("WEBHOOK_ALLOW"),
            trusted_proxies=setting.networks("TRUSTED_PROXIES", "127.0.0.0/8,::1/128"),
            # Browsers
            query_origins=setting.origins("QUERY_ORIGINS", "*"),
            api_origins=setting.origins("API_ORIGINS", ""),
            console_integrations_url=setting.optional_url("CONSOLE_INTEGRATIONS_URL", HTTP_SCHEMES),
            # Stalls and rates
            request_budget_seconds=setting.amount("REQUEST_BUDGET_SECONDS", 10.0, low=0.1),
            query_rate=setting.amount("QUERY_RATE", 200.0, low=0.0),
            query_burst=setting.positive("QUERY_BURST", 400),
            query_client_rate=setting.amount("QUERY_CLIENT_RATE", 5.0, low=0.0),
            query_client_burst=setting.positive("QUERY_CLIENT_BURST", 30),
            query_session_rate=setting.amount("QUERY_SESSION_RATE", 1.0, low=0.0),
            query_session_burst=setting.positive("QUERY_SESSION_BURST", 10),
            management_rate=setting.amount("MANAGEMENT_RATE", 50.0, low=0.0),
            management_burst=setting.positive("MANAGEMENT_BURST", 600),
            auth_failure_rate=setting.amount("AUTH_FAILURE_RATE", 1.0, low=0.0),
            auth_failure_burst=setting.positive("AUTH_FAILURE_BURST", 20),
            # operations
            host=setting.address("HOST", "127.0.0.1"),
            log_level=setting.choice("LOG_LEVEL", "INFO", LOG_LEVELS).upper(),
            log_format=setting.choice("LOG_FORMAT", "text", LOG_FORMATS).lower(),
            startup_wait_seconds=setting.positive("STARTUP_WAIT_SECONDS", 120),
            nats_stream_replicas=setting.between("NATS_STREAM_REPLICAS", 1, 1, 5),
            # Work per query and per tenant
            story_cache_mb=setting.positive("STORY_CACHE_MB", 1024),
            quota_stories=setting.positive("QUOTA_STORIES", 100),
            quota_interactions_per_story=setting.positive("QUOTA_INTERACTIONS_PER_STORY", 5000),
            quota_phrases_per_story=setting.positive("QUOTA_PHRASES_PER_STORY", 100_000),
            quota_entities=setting.positive("QUOTA_ENTITIES", 500),
            quota_entries=setting.positive("QUOTA_ENTRIES", 20_000),
            quota_connections=setting.positive("QUOTA_CONNECTIONS", 1000),
            quota_documents_per_story=setting.positive("QUOTA_DOCUMENTS_PER_STORY", 200),
            quota_passages_per_story=setting.positive("QUOTA_PASSAGES_PER_STORY", 20_000),
            quota_knowledge_characters=setting.positive("QUOTA_KNOWLEDGE_CHARACTERS", 50_000_000),
            # HTTP input
            body_read_seconds=setting.amount("BODY_READ_SECONDS", 10.0, low=0.1),
            idle_seconds=setting.amount("IDLE_SECONDS", 15.0, low=0.1),
            max_connections=setting.positive("MAX_CONNECTIONS", 1000),
            max_connections_per_client=setting.positive("MAX_CONNECTIONS_PER_CLIENT", 100),
            # matching
            semantic_matching=setting.choice("SEMANTIC_MATCHING", "on", ("on", "off")).lower()
            == "on",
            phrase_vector_wait_seconds=setting.amount("PHRASE_VECTOR_WAIT_SECONDS", 30.0, low=0.0),
            # channels
            integrations_public_url=setting.optional_url("INTEGRATIONS_PUBLIC_URL", HTTP_SCHEMES),
            telegram_api_url=setting.url("TELEGRAM_API_URL", _TELEGRAM_API, HTTP_SCHEMES),
            slack_api_url=setting.url("SLACK_API_URL", _SLACK_API, HTTP_SCHEMES),
            meta_graph_url=setting.url("META_GRAPH_URL", _META_GRAPH, HTTP_SCHEMES),
            quota_channels=setting.positive("QUOTA_CHANNELS", 100),
            # generated knowledge answers
            llm_base_url=llm_base_url.rstrip("/"),
            llm_api_key=setting.text("LLM_API_KEY"),
            llm_model=llm_model,
            llm_timeout_seconds=setting.amount("LLM_TIMEOUT_SECONDS", 4.0, low=0.1),
            # sign-in to the console
            **sign_in,
            console_session_hours=setting.positive("CONSOLE_SESSION_HOURS", 12),
            # the audit log
            audit_retention_days=setting.positive("AUDIT_RETENTION_DAYS", 400),
        )


def _nats_url(setting: Reader) -> str:
    """One NATS server, or every node of a cluster comma-separated; the client takes
    websocket and plain URLs, but not both in one list."""
    url = setting.urls("NATS_URL", "nats://127.0.0.1:4222", NATS_SCHEMES)
    if len({server.startswith(("ws://", "wss://")) for server in url.split(",")}) > 1:
        raise InvalidSetting("NATS_URL must not mix ws:// or wss:// with nats:// or tls:// URLs")
    return url


def _sign_in_settings(setting: Reader) -> dict[str, Any]:
    """The OpenID Connect settings, which hold together: with an issuer, the client id and
    the console's URL are required and the scopes must ask for `openid`."""
    issuer = setting.optional_url("OIDC_ISSUER", HTTP_SCHEMES).rstrip("/")
    console_url = setting.optional_url("CONSOLE_URL", HTTP_SCHEMES).rstrip("/")
    scopes = tuple(setting.text("OIDC_SCOPES").replace(",", " ").split()) or Config.oidc_scopes
    client_id = setting.text("OIDC_CLIENT_ID")
    if issuer:
        if not is_secure_or_loopback(issuer):
            raise InvalidSetting("OIDC_ISSUER must be https:// (http:// only on loopback)")
        if not client_id:
            raise InvalidSetting("OIDC_CLIENT_ID must name the client OIDC_ISSUER knows")
        if not console_url:
            raise InvalidSetting("CONSOLE_URL must be the console's address for OIDC_ISSUER")
        if not is_secure_or_loopback(console_url):
            raise InvalidSetting("CONSOLE_URL must be https:// (http:// only on loopback)")
        if "openid" not in scopes:
            raise InvalidSetting("OIDC_SCOPES must include openid")
    return {
        "oidc_issuer": issuer,
        "oidc_client_id": client_id,
        "oidc_client_secret": setting.text("OIDC_CLIENT_SECRET"),
        "oidc_scopes": scopes,
        "console_url": console_url,
    }


_TELEGRAM_API = Config.telegram_api_url
_SLACK_API = Config.slack_api_url
_META_GRAPH = Config.meta_graph_url
