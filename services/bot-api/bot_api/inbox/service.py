"""The misses inbox's use cases: a story's unresolved misses in clusters with the
interaction the engine would suggest, and the actions on a cluster (add its messages as
phrases of an interaction, make a new interaction of them, ignore them), each resolving
the turns it took care of (docs/history.md).

An action names a cluster by the id the inbox showed; the clusters are made again from
the turns as they are now, and an id no longer among them is a 404 (the inbox changed:
read it again)."""

import asyncio
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from bot_api.changes import Change, ConversationErased, StoryDeleted
from bot_api.domain.history import Resolution, ScoredCandidate
from bot_api.domain.interactions import FALLBACK, MAX_USER_SAYS, STANDARD, Interaction
from bot_api.domain.responses import Block
from bot_api.domain.settings import Settings
from bot_api.engine.clustering import Cluster, Miss, normalised
from bot_api.engine.conversation import respond
from bot_api.engine.semantic import Encoder, Encoders, KnownVectors, Vectors, VectorUnknown
from bot_api.engine.story import CompiledStory
from bot_api.engine.turn import SessionState, Turn
from bot_api.inbox.clustering import InboxClusterings, Read
from bot_api.inbox.phrasing import by_language, with_phrases
from bot_api.inbox.repository import InboxStore
from bot_api.inbox.snapshots import InboxSnapshotStore, InboxVersion
from bot_api.inbox.warming import InboxWarming
from bot_api.interactions.service import InteractionService
from bot_api.knowledge.cache import KnowledgeCache
from bot_api.knowledge.nearest import nearest_passages
from bot_api.metrics import INBOX_SECONDS
from bot_api.stories.repository import StoryRecord, StoryStore
from bot_api.stories.service import load_story
from bot_api.story_cache.cache import StoryCache
from shared.errors import NotFound, ValidationFailed
from shared.timeutil import utcnow

MAX_CLUSTERS = 100
"""Clusters the inbox answers, biggest first (with a suggestion each: one engine turn
apiece); `total` says how many there are."""
NEAREST_PASSAGES = 3
MAX_SUGGESTED_STORIES = 256
"""Stories whose last suggestions are kept (100 small values each)."""


@dataclass(frozen=True)
class _Suggested:
    """The suggestions `story` (as compiled then) made, by the leader's text."""

    story: CompiledStory
    encoder: "Encoder | None"
    by_text: dict[str, ScoredCandidate | None]


@dataclass(frozen=True)
class InboxService:
    story_records: StoryStore
    inbox: InboxStore
    snapshots: InboxSnapshotStore
    """The stories' inboxes as last read whole, which the clusterings read and write and
    every change of an inbox drops, once its own write is done."""
    interactions: InteractionService
    stories: StoryCache
    clusterings: InboxClusterings
    encoders: Encoders | None = None
    """The semantic stage's encoders, for the clustering by meaning and the suggestions
    (then made in a worker thread)."""
    knowledge: KnowledgeCache | None = None
    """The story's documents: each cluster shown with the passages nearest its leader's
    text (docs/knowledge.md "The misses inbox")."""
    suggested: "OrderedDict[str, _Suggested]" = field(default_factory=OrderedDict)
    """By story, the suggestions of its last inbox read, the story read the longest ago
    first."""
    warming: InboxWarming = field(init=False)
    """Reads ahead the inbox of a story whose first misses this process recorded (a
    listener of the history recorder)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "warming", InboxWarming(self._read_ahead))

    async def clusters(
        self, *, account_id: str, story_id: str, language: str | None = None
    ) -> dict[str, Any]:
        """The biggest `MAX_CLUSTERS` clusters (with `language`, of those holding a turn
        read in it), each with its suggested interaction: those the story as compiled now
        suggested for the same leader's text last time are not made again (100 took 2 s
        under load, a read of kept turns 0.4 s). The clusters are the same with or without
        `language`, so an action names what a person saw either way."""
        found = await self._clusters(account_id, story_id)
        if language is not None:
            found = [c for c in found if language in c.languages]
        story = await self.stories.story(account_id, story_id)
        shown = found[:MAX_CLUSTERS]
        encoder = self._encoder(story.settings)
        known = self.suggested.pop(story_id, None)
        if known is None or known.story is not story or known.encoder is not encoder:
            known = _Suggested(story, encoder, {})
        new = [c for c in shown if c.representative not in known.by_text]
        made: list[ScoredCandidate | None] = []
        if new:
            with INBOX_SECONDS.labels("suggestions").time():
                made = await asyncio.to_thread(_suggestions, story, new, encoder)
        by_text = known.by_text | {c.representative: m for c, m in zip(new, made, strict=True)}
        suggestions = [by_text[c.representative] for c in shown]
        self.suggested[story_id] = _Suggested(
            story, encoder, {c.representative: by_text[c.representative] for c in shown}
        )
        while len(self.suggested) > MAX_SUGGESTED_STORIES:
            self.suggested.popitem(last=False)
        nearest = await self._nearest_passages(account_id, story, shown)
        return {
            "total": len(found),
            "clusters": [
                {**_shown(cluster, suggestion), "passages": passages}
                for cluster, suggestion, passages in zip(shown, suggestions, nearest, strict=True)
            ],
        }

    async def _nearest_passages(
        self, account_id: str, story: CompiledStory, shown: Sequence[Cluster]
    ) -> list[list[dict[str, Any]]]:
        """The passages nearest each cluster's leader (`NEAREST_PASSAGES`, lexically), which
        a person may turn into an FAQ pair; none when the story has no documents."""
        if self.knowledge is None or not shown:
            return [[] for _ in shown]
        index = await self.knowledge.index(account_id, story.id, story.settings.language)
        if index.empty:
            return [[] for _ in shown]
        texts = [c.representative for c in shown]
        return await asyncio.to_thread(nearest_passages, index, texts, NEAREST_PASSAGES)

    async def assign(
        self,
        *,
        account_id: str,
        story_id: str,
        cluster_id: str,
        interaction_id: str,
        messages: Sequence[str] | None,
    ) -> dict[str, Any]:
        """Add the cluster's messages (or the chosen ones) as phrases of the interaction,
        each in the language its turns were read in (`by_language`): those it has already
        there (by normalised text) are not added twice, those past its `MAX_USER_SAYS`
        phrases of that language are not added and their turns stay in the inbox."""
        story, cluster = await self._cluster(account_id, story_id, cluster_id)
        texts = _chosen(cluster, messages)
        current = await self.interactions.read(
            account_id=account_id, story_id=story_id, interaction_id=interaction_id
        )
        if current.kind == FALLBACK:
            raise ValidationFailed.at(("interaction",), "the fallback interaction has no phrases")
        settings = story.settings
        placed = with_phrases(current, by_language(cluster, texts, settings), settings.default_code)
        added, not_added = placed.added, placed.not_added
        if added:
            await self.interactions.update(
                account_id=account_id,
                story_id=story_id,
                interaction_id=interaction_id,
                changes={
                    "user_says": placed.interaction.user_says,
                    "translations": placed.interaction.translations,
                },
            )
        resolved = await self._resolve(
            account_id, story_id, cluster, texts, not_added, "assigned", interaction_id
        )
        return {
            "interaction": interaction_id,
            "added": added,
            "notAdded": not_added,
            "turns": resolved,
        }

    async def create_interaction(
        self,
        *,
        account_id: str,
        story_id: str,
        cluster_id: str,
        name: str,
        messages: Sequence[str] | None,
        responses: tuple[Block, ...] = (),
    ) -> dict[str, Any]:
        """A new root interaction whose phrases are the cluster's messages, each in the
        language its turns were read in (the first `MAX_USER_SAYS` of each), answering
        with `responses`: given in the same write, so it never stands answerless should a
        second call fail."""
        story, cluster = await self._cluster(account_id, story_id, cluster_id)
        texts = _chosen(cluster, messages)
        new = Interaction(id="", kind=STANDARD, name=name, responses=responses)
        settings = story.settings
        placed = with_phrases(new, by_language(cluster, texts, settings), settings.default_code)
        added, not_added = placed.added, placed.not_added
        new_id = await self.interactions.create(
            account_id=account_id, story_id=story_id, interaction=placed.interaction
        )
        resolved = await self._resolve(
            account_id, story_id, cluster, texts, not_added, "created", new_id
        )
        return {"interaction": new_id, "added": added, "notAdded": not_added, "turns": resolved}

    async def ignore(
        self, *, account_id: str, story_id: str, cluster_id: str, messages: Sequence[str] | None
    ) -> dict[str, Any]:
        """Ignore the cluster's messages (or the chosen ones): they leave the inbox, and
        the same texts said again never come back."""
        _, cluster = await self._cluster(account_id, story_id, cluster_id)
        texts = _chosen(cluster, messages)
        await self.inbox.ignore(story_id, texts, account_id, utcnow())
        resolved = await self._resolve(account_id, story_id, cluster, texts, [], "ignored", None)
        return {"ignored": texts, "turns": resolved}

    async def reopen(
        self, *, account_id: str, story_id: str, turn_ids: Sequence[str]
    ) -> dict[str, Any]:
        """Undo an action: these turns back in the inbox, and the texts of those that were
        ignored no longer ignored."""
        story = await load_story(self.story_records, account_id, story_id)
        reopened = await self.inbox.reopen(story.id, turn_ids)
        self._changed(story.id)
        await self.snapshots.invalidate(story.id)
        return {"reopened": reopened}

    async def changed(self, change: Change) -> None:
        """A deleted story's clusters, suggestions and reads ahead are forgotten (what it
        stored went with it, `StoryService.delete`), and so are an erased conversation's
        turns kept here (the erasure dropped the story's snapshot)."""
        if isinstance(change, StoryDeleted):
            self._changed(change.story_id)
            self.suggested.pop(change.story_id, None)
        elif isinstance(change, ConversationErased):
            self._changed(change.story_id)

    def _changed(self, story_id: str) -> None:
        """Turns came back to the story's inbox or left it otherwise than by an action on
        a cluster: read whole again, and read ahead at its next miss."""
        self.clusterings.changed(story_id)
        self.warming.changed(story_id)

    async def _clusters(self, account_id: str, story_id: str) -> list[Cluster]:
        story_id, version, read = await self._reader(account_id, story_id)
        return await self.clusterings.clusters(story_id, version, read)

    async def _read_ahead(self, account_id: str, story_id: str) -> None:
        story_id, version, read = await self._reader(account_id, story_id)
        await self.clusterings.read_ahead(story_id, version, read)

    async def _reader(self, account_id: str, story_id: str) -> tuple[str, InboxVersion, Read]:
        """The story's id, what its inbox is read for, and how its misses are read."""
        story = await load_story(self.story_records, account_id, story_id)
        review_below, model_id = version = self._version(story.settings)

        async def read(since: datetime | None) -> list[Miss]:
            return await self.inbox.unresolved(story.id, review_below, model_id, since)

        return story.id, version, read

    def _version(self, settings: Settings) -> InboxVersion:
        """What a clustering depends on: the score below which a match is reviewed, and
        the model whose vectors are compared."""
        encoder = self._encoder(settings)
        return settings.review_score(), None if encoder is None else encoder.model_id

    def _encoder(self, settings: Settings) -> Encoder | None:
        """The encoder reading the story now: only its vectors are compared."""
        return None if self.encoders is None else self.encoders.for_story(settings)

    async def _cluster(
        self, account_id: str, story_id: str, cluster_id: str
    ) -> tuple[StoryRecord, Cluster]:
        """The story and its cluster `cluster_id`, as last shown or read again."""
        story = await load_story(self.story_records, account_id, story_id)
        shown = self.clusterings.shown(story.id, self._version(story.settings), cluster_id)
        if shown is not None:
            return story, shown
        for cluster in await self._clusters(account_id, story_id):
            if cluster.id == cluster_id:
                return story, cluster
        raise NotFound(
            f"no cluster {cluster_id} in this story's inbox: it was resolved or regrouped "
            "since it was read; read the inbox again"
        )

    async def _resolve(
        self,
        account_id: str,
        story_id: str,
        cluster: Cluster,
        texts: Sequence[str],
        left: Sequence[str],
        action: Literal["assigned", "created", "ignored"],
        interaction_id: str | None,
    ) -> list[str]:
        """Resolve the cluster's turns of `texts` but those of `left`; their ids."""
        taken = {normalised(t) for t in texts} - {normalised(t) for t in left}
        turn_ids = [m.turn_id for m in cluster.members if normalised(m.text) in taken]
        resolution = Resolution(account_id, action, utcnow(), interaction_id)
        await self.inbox.resolve(story_id, turn_ids, resolution)
        self.clusterings.resolved(story_id, turn_ids)
        self.warming.changed(story_id)
        await self.snapshots.invalidate(story_id)
        return turn_ids


def _chosen(cluster: Cluster, messages: Sequence[str] | None) -> list[str]:
    """The cluster's distinct texts, or the chosen ones, which must be among them."""
    if messages is None:
        return list(cluster.texts)
    own = {normalised(t) for t in cluster.texts}
    for index, message in enumerate(messages):
        if normalised(message) not in own:
            raise ValidationFailed.at(("messages", index), "not a message of this cluster")
    return list(dict.fromkeys(messages))


def _suggestions(
    story: CompiledStory, shown: Sequence[Cluster], encoder: Encoder | None
) -> list[ScoredCandidate | None]:
    """Each cluster's suggestion. The semantic stage reads a message's normalised words,
    as its turn's vector was made of: the leaders' vectors come from their turns, and
    those the stage asks for that no turn kept are encoded in one batch, then their
    suggestions made again. 100 texts encoded one at a time took 0.4 to 0.7 s, in one
    batch 0.2 s; kept by their turns, none."""
    if encoder is None:
        return [_suggestion(story, c, None) for c in shown]
    known: dict[str, Sequence[float] | Vectors] = {
        normalised(c.representative): c.vector for c in shown if c.vector is not None
    }
    found: dict[str, ScoredCandidate | None] = {}
    for _ in range(2):  # the second time, every vector asked for the first time is known
        unknown: list[str] = []
        for cluster in shown:
            if cluster.id not in found:
                try:
                    found[cluster.id] = _suggestion(story, cluster, KnownVectors(encoder, known))
                except VectorUnknown as missing:
                    unknown += missing.texts
        if unknown:
            known |= dict(zip(unknown, encoder(unknown), strict=True))
    return [found[c.id] for c in shown]


def _suggestion(
    story: CompiledStory, cluster: Cluster, encoder: Encoder | None
) -> ScoredCandidate | None:
    """The engine's best candidate for the leader's text, as a new conversation would
    rank it, read in the language most of the cluster's turns were (docs/languages.md)."""
    language = next(iter(cluster.languages), None)
    parameters = {} if language is None else {"default_language": language}
    turn = Turn(query=cluster.representative, parameters=parameters, debug=True)
    _, outcome = respond(story, SessionState(), turn, encoder=encoder)
    candidates = [] if outcome.debug is None else outcome.debug.candidates
    best = next((c for c in candidates if c.id != story.fallback_id), None)
    return None if best is None else ScoredCandidate(best.id, best.name, best.score)


def _shown(cluster: Cluster, suggestion: ScoredCandidate | None) -> dict[str, Any]:
    languages = cluster.languages
    return {
        **({"languages": languages} if languages else {}),
        "id": cluster.id,
        "count": cluster.count,
        "first": cluster.first,
        "last": cluster.last,
        "examples": list(cluster.examples),
        "messages": list(cluster.texts[:MAX_USER_SAYS]),
        "suggested": None
        if suggestion is None
        else {"id": suggestion.id, "name": suggestion.name, "score": suggestion.score},
    }
