"""bot-api's own Prometheus metrics: /query outcomes and scores, webhook deliveries,
the story cache, the handlers of changes, generated knowledge answers. Served at
/metrics beside the shared ones (shared/metrics.py)."""

from prometheus_client import Counter, Gauge, Histogram

from bot_api.engine.turn import Outcome, Turn, outcome_kind

QUERY_OUTCOMES = Counter(
    "parley_query_outcomes",
    "/query turns by outcome: matched, fallback, incomplete, trigger, goto, handoff",
    ["outcome"],
)
TURNS_ANSWERED_AGAIN = Counter(
    "parley_turns_answered_again",
    "Turns asked again under their key (a /query the gateway passed on, a channel's turn "
    "asked again) and answered from the session, not run twice",
)
MATCH_SCORE = Histogram(
    "parley_query_match_score",
    "Score of the best interaction for a message",
    buckets=(0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0),
)
WEBHOOK_DELIVERIES = Counter(
    "parley_webhook_deliveries", "Webhook calls by outcome: ok, failed", ["outcome"]
)
WEBHOOK_ADDRESSES_DROPPED = Counter(
    "parley_webhook_addresses_dropped",
    "Images, card images and link buttons of webhook answers left out: no web address",
    ["what"],
)
WEBHOOK_LATENCY = Histogram(
    "parley_webhook_delivery_seconds",
    "Time of a webhook call, answer read",
    buckets=(0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 3.0, 5.0),
)
STORY_CACHE_ENTRIES = Gauge("parley_story_cache_entries", "Compiled stories kept in this process")
STORY_CACHE_HITS = Counter("parley_story_cache_hits", "Queries answered from a cached story")
STORY_CACHE_MISSES = Counter("parley_story_cache_misses", "Queries that compiled their story")
STORY_COMPILE_SECONDS = Histogram("parley_story_compile_seconds", "Time to compile a whole story")
STORY_PARTIAL_ANSWERS = Counter(
    "parley_story_partial_answers",
    "Queries answered from the part of their story compiled so far (a cold compile ran long)",
)
PHRASE_VECTORS_WAITING = Gauge(
    "parley_phrase_vectors_waiting", "Phrase texts queued for their sentence vector"
)
PHRASE_VECTORS_ENCODED = Counter(
    "parley_phrase_vectors_encoded",
    "Phrase texts this process encoded for their sentence vector (one it finds stored, by "
    "any replica, it reads instead)",
)
TEST_RUNS_AFTER_EDITS = Counter(
    "parley_test_runs_after_edits",
    "Runs of a story's conversation tests after its edit, by the process that took the edit",
)

INBOX_SECONDS = Histogram(
    "parley_inbox_seconds",
    "Time of the misses inbox's parts: read (a story's unresolved turns), snapshot (its "
    "inbox as last read whole, read from the database) and clustering, once for the "
    "requests sharing them; suggestions, once per inbox read",
    ["part"],
    buckets=(0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 5.0),
)

HISTORY_BACKLOG = Gauge("parley_history_backlog", "Turns waiting to be written to the history")
HISTORY_TURNS_DROPPED = Counter(
    "parley_history_turns_dropped",
    "Turns never recorded: the oldest, dropped while MongoDB was away and the backlog full",
)
HISTORY_WRITE_FAILURES = Counter(
    "parley_history_write_failures", "Batches of turns that failed to be written (tried again)"
)

CHANGE_HANDLER_FAILURES = Counter(
    "parley_change_handler_failures",
    "Handlers of a change that raised, by change and handler (bot_api/changes.py): the "
    "others still ran; a publisher's failure also failed the request",
    ["change", "handler"],
)

KNOWLEDGE_GENERATIONS = Counter(
    "parley_knowledge_generations",
    "Knowledge answers the LLM was asked to write, by outcome: generated, or why the "
    "extractive answer was sent (timeout, rate_limited, http_error, unreachable, "
    "malformed, empty, uncited, miscited)",
    ["outcome"],
)
KNOWLEDGE_GENERATION_TOKENS = Counter(
    "parley_knowledge_generation_tokens",
    "Tokens of the LLM's knowledge answers as its server counted them, by kind: prompt, completion",
    ["kind"],
)
KNOWLEDGE_GENERATION_SECONDS = Histogram(
    "parley_knowledge_generation_seconds",
    "Time of asking the LLM for a knowledge answer, whole answer read or given up",
    buckets=(0.1, 0.25, 0.5, 1.0, 2.0, 3.0, 4.0, 5.0, 8.0),
)


def record_generation(
    outcome: str, seconds: float, prompt_tokens: int, completion_tokens: int
) -> None:
    KNOWLEDGE_GENERATIONS.labels(outcome).inc()
    KNOWLEDGE_GENERATION_SECONDS.observe(seconds)
    KNOWLEDGE_GENERATION_TOKENS.labels("prompt").inc(prompt_tokens)
    KNOWLEDGE_GENERATION_TOKENS.labels("completion").inc(completion_tokens)


def record_query(turn: Turn, outcome: Outcome) -> None:
    kind = outcome_kind(turn, outcome)
    QUERY_OUTCOMES.labels(kind).inc()
    if turn.query is not None and kind != "handoff":  # nothing was matched
        MATCH_SCORE.observe(outcome.score)
