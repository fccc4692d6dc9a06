"""Per-account quotas: what one tenant may store, so that no account can make the
process compile or hold more than the operator planned for (docs/reliability.md).

Each is checked before the write that would pass it, which answers 409 `conflict`
naming the quota. A new story is counted again once written (stories/service.py
`keep_within_quota`) and interactions in the story's conditional write, so creates
racing on several replicas never pass those two; for the others, two writes racing may
together pass a quota by what each adds. An
account may have quotas of its own (`accounts limits NAME QUOTA_STORIES=300`), read
with each write that checks one, so a change holds at once.
"""

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from bot_api.domain.entities import Entity
from shared.auth import AccountRepository
from shared.config import Config
from shared.errors import Conflict


class QuotaExceeded(Conflict):
    def __init__(self, quota: str, limit: int, what: str) -> None:
        super().__init__(
            f"quota reached: {what} (at most {limit})", {"quota": quota, "limit": limit}
        )


@dataclass(frozen=True)
class Quotas:
    stories: int
    interactions_per_story: int
    phrases_per_story: int
    entities: int
    entries: int
    documents_per_story: int = 200
    passages_per_story: int = 20_000
    knowledge_characters: int = 50_000_000

    @classmethod
    def from_config(cls, config: Config) -> "Quotas":
        return cls(
            stories=config.quota_stories,
            interactions_per_story=config.quota_interactions_per_story,
            phrases_per_story=config.quota_phrases_per_story,
            entities=config.quota_entities,
            entries=config.quota_entries,
            documents_per_story=config.quota_documents_per_story,
            passages_per_story=config.quota_passages_per_story,
            knowledge_characters=config.quota_knowledge_characters,
        )

    async def of(self, account_id: str) -> "Quotas":
        """The same quotas for every account."""
        return self

    def check_stories(self, stories: int) -> None:
        """`stories`: how many the account would hold after the write."""
        if stories > self.stories:
            raise QuotaExceeded("stories", self.stories, "stories per account")

    def check_interactions(self, interactions: int) -> None:
        if interactions > self.interactions_per_story:
            raise QuotaExceeded(
                "interactionsPerStory", self.interactions_per_story, "interactions per story"
            )

    def check_phrases(self, phrases: int) -> None:
        if phrases > self.phrases_per_story:
            raise QuotaExceeded(
                "phrasesPerStory", self.phrases_per_story, "user-says phrases per story"
            )

    def check_entities(self, entities: int, entries: int) -> None:
        if entities > self.entities:
            raise QuotaExceeded("entities", self.entities, "entities per account")
        if entries > self.entries:
            raise QuotaExceeded("entries", self.entries, "entity entries per account")

    def check_knowledge(self, documents: int, passages: int, characters: int) -> None:
        """A story's documents and passages, and the account's characters of documents,
        after the write."""
        if documents > self.documents_per_story:
            raise QuotaExceeded(
                "documentsPerStory", self.documents_per_story, "documents per story"
            )
        if passages > self.passages_per_story:
            raise QuotaExceeded("passagesPerStory", self.passages_per_story, "passages per story")
        if characters > self.knowledge_characters:
            raise QuotaExceeded(
                "knowledgeCharacters",
                self.knowledge_characters,
                "characters of documents per account",
            )


class EntityTotals(Protocol):
    async def totals(self, account_id: str) -> tuple[int, int]:
        """How many entities the account has, and how many entries they hold."""


async def check_story_content(
    quotas: Quotas,
    entities: EntityTotals,
    account_id: str,
    *,
    interactions: int,
    phrases: int,
    new_entities: Sequence[Entity],
) -> None:
    """A whole story's content written at once (an import, a restore): its interactions
    and phrases, and the entities it adds to the account's."""
    quotas.check_interactions(interactions)
    quotas.check_phrases(phrases)
    if new_entities:
        held, entries = await entities.totals(account_id)
        quotas.check_entities(
            held + len(new_entities), entries + sum(e.entry_count for e in new_entities)
        )


class AccountQuotas(Protocol):
    async def of(self, account_id: str) -> Quotas: ...


class StoredQuotas:
    """The deployment's quotas, or those an account was given."""

    def __init__(self, config: Config, accounts: AccountRepository) -> None:
        self._config = config
        self._accounts = accounts

    async def of(self, account_id: str) -> Quotas:
        limits = await self._accounts.limits(account_id)
        return Quotas.from_config(limits.applied_to(self._config))
