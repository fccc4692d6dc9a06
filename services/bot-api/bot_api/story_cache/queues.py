"""The phrase texts this process keeps for their vectors, by story, and what the encoding
worker (story_cache/vectors.py) does next: encode a chunk of the story whose turn it is,
look in the store for texts another replica is encoding, or wait. Plain logic on a clock
its caller reads, so that its timing is tested without waiting.

Who encodes a phrase. The replica that took a write encodes its new phrases at once
(story_cache/written.py queues them `written_here`). Another replica compiling the change
(the story's first query there, or an edit it heard of) finds the same phrases without a
vector, while their writer is encoding them: it awaits them instead, looking them up in
the store every `LOOK_SECONDS` and telling the story as each interaction's land, and
encodes them itself only once none of the story's awaited texts has landed for
`WAIT_SECONDS` (their writer died, or nobody encodes them: a story imported before the
semantic stage was on, vectors a sweep took, a model new to every replica), or at once
while no other replica is alive (one process, `make run`: nobody else to wait for). Each
phrase is then encoded once across the replicas, unless its writer stalls that long (or
two replicas edit one interaction within moments: one that is still encoding its own
edit of it encodes the other's too). Whatever the case, the first vector stored is kept.

Each story has a queue of its own and the stories take turns, a chunk each, among those
with texts to encode now: a story whose texts are all awaited takes no turn. An
interaction queued again replaces what it had queued, so a story never has more than its
own phrases waiting, however often it is edited; a story whose encoder changed (its
language or `answerAnyLanguage`) drops what it had queued.
"""

from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass

from bot_api.engine.semantic import Encoder
from shared.mongo import PAGE

CHUNK = 32
"""Texts encoded per worker call, and per turn of a story: a phrase of 64 tokens takes
about 26 ms of one core, so a turn (and a shutdown) waits for under a second."""
WAIT_SECONDS = 30.0
"""How long a replica waits for another's vectors of a story without any landing before
it encodes them itself (`PHRASE_VECTOR_WAIT_SECONDS`). The writer stores a story's
phrases a chunk at a time, and a chunk of 32 phrases of 64 tokens is 0.8 s of one core
(26 ms a phrase); between two chunks of one story it encodes a chunk of each other story
it has queued, and its first encoding waits for the model to load (2 to 4 s). So 30 s
lets a writer have some 30 other stories queued before a phrase is encoded twice, and a
story nobody encodes has its vectors 30 s late, answering lexically meanwhile."""
LOOK_SECONDS = 1.0
"""How often the store is read for a story's awaited texts: a text lands here at most
this long after its writer stored it (a chunk of 32 long phrases takes the writer 0.8 s),
for one read of ids a second per story waiting."""
LOOKED_AT = PAGE
"""Awaited texts of a story looked up per read (one `$in` of ids), the first queued: the
writer reads a story's interactions in about the order this replica did, so those are
the ones it stores next. A story with more awaited texts may see the writer's progress
only once these have landed, and then its texts are encoded here too after the wait."""

Landed = Callable[[set[str]], Awaitable[None]]
"""Called with the interactions whose phrase vectors were stored."""


class StoryQueue:
    """One story's phrase texts still without a vector, by interaction, oldest first; the
    encoder the story is read by; the interactions whose texts another replica encodes
    (`awaited`) and, for those, when the last of them landed or was queued
    (`progress_at`) and when the store is to be read for them next (`look_at`)."""

    def __init__(self, encoder: Encoder, landed: Landed) -> None:
        self.encoder = encoder
        self.landed = landed
        self.texts: dict[str, list[str]] = {}
        self.awaited: set[str] = set()
        self.progress_at = 0.0
        self.look_at = 0.0

    def read_by(self, encoder: Encoder) -> None:
        """The story's encoder now: another model's drops what was queued for the last."""
        if encoder.model_id != self.encoder.model_id:
            self.encoder = encoder
            self.texts.clear()
            self.awaited.clear()

    def add(self, texts: Mapping[str, Sequence[str]], written_here: bool, now: float) -> None:
        """Queue these interactions' texts in place of what they had queued. Not
        `written_here`, they are awaited, unless the interaction is queued already as
        this replica's own: a compile of its own write, after the write was queued or
        before (either order), leaves it to be encoded here at once. (A compile that
        read the store before some of them were stored may queue those again: they are
        skipped when their chunk finds them stored.)"""
        awaiting = False
        for interaction_id, interaction_texts in texts.items():
            own = interaction_id in self.texts and interaction_id not in self.awaited
            self.texts.pop(interaction_id, None)
            self.awaited.discard(interaction_id)
            if not interaction_texts:
                continue
            self.texts[interaction_id] = list(interaction_texts)
            if not (written_here or own):
                self.awaited.add(interaction_id)
                awaiting = True
        if awaiting:
            self.progress_at = self.look_at = now

    def next_chunk(self) -> list[tuple[str, list[str], int]]:
        """The first interactions' texts to encode now, up to `CHUNK` of them:
        (interaction, its texts queued, how many of them are in the chunk)."""
        chunk = []
        room = CHUNK
        for interaction_id, texts in self.texts.items():
            if room == 0:
                break
            if interaction_id in self.awaited:
                continue
            taken = min(room, len(texts))
            chunk.append((interaction_id, texts, taken))
            room -= taken
        return chunk

    def stored(self, chunk: Sequence[tuple[str, list[str], int]]) -> set[str]:
        """Take the chunk's texts out; the interactions it completed. An interaction
        queued again meanwhile keeps its new texts."""
        done = set()
        for interaction_id, texts, taken in chunk:
            if self.texts.get(interaction_id) is not texts:
                continue
            del texts[:taken]
            if not texts:
                del self.texts[interaction_id]
                done.add(interaction_id)
        return done

    def found(
        self, looked: Sequence[tuple[str, list[str]]], landed: set[str], now: float
    ) -> set[str]:
        """Take out the texts of a look that were found stored; the interactions it
        completed. Any found is progress: the wait starts again."""
        done = set()
        for interaction_id, texts in looked:
            if self.texts.get(interaction_id) is not texts:
                continue
            left = [t for t in texts if t not in landed]
            if len(left) < len(texts):
                self.progress_at = now
            texts[:] = left
            if not texts:
                del self.texts[interaction_id]
                self.awaited.discard(interaction_id)
                done.add(interaction_id)
        return done

    def waiting(self) -> int:
        return sum(len(texts) for texts in self.texts.values())


@dataclass(frozen=True)
class Turn:
    """A chunk of one story's texts, to encode now."""

    story_id: str
    queue: StoryQueue
    chunk: list[tuple[str, list[str], int]]

    @property
    def texts(self) -> list[str]:
        return [t for _, texts, taken in self.chunk for t in texts[:taken]]


@dataclass(frozen=True)
class Look:
    """Awaited texts of one story, to look up in the store."""

    story_id: str
    queue: StoryQueue
    looked: list[tuple[str, list[str]]]
    """(interaction, its texts queued): those texts are looked up whole."""

    @property
    def texts(self) -> list[str]:
        return [t for _, texts in self.looked for t in texts]


class VectorQueues:
    def __init__(
        self, wait_seconds: float = WAIT_SECONDS, look_seconds: float = LOOK_SECONDS
    ) -> None:
        self._wait = wait_seconds
        self._look = look_seconds
        self._stories: OrderedDict[str, StoryQueue] = OrderedDict()
        """By story, the one whose turn it is first."""

    def __bool__(self) -> bool:
        return bool(self._stories)

    def add(
        self,
        story_id: str,
        encoder: Encoder,
        texts: Mapping[str, Sequence[str]],
        landed: Landed,
        written_here: bool,
        now: float,
    ) -> None:
        """Queue the story's texts (StoryQueue.add); an interaction given none has none
        waiting any more (an edit took its new phrases away, or they are all stored)."""
        queue = self._stories.get(story_id)
        if queue is None:
            if not any(texts.values()):
                return
            queue = self._stories[story_id] = StoryQueue(encoder, landed)
        queue.read_by(encoder)
        queue.landed = landed
        queue.add(texts, written_here, now)
        if not queue.texts:
            del self._stories[story_id]

    def forget(self, story_id: str) -> None:
        self._stories.pop(story_id, None)

    def waiting(self, story_id: str | None = None) -> int:
        """The texts queued for the story (awaited included), or for all."""
        if story_id is None:
            return sum(queue.waiting() for queue in self._stories.values())
        queue = self._stories.get(story_id)
        return 0 if queue is None else queue.waiting()

    def next_turn(self, now: float, alone: bool) -> Turn | None:
        """The chunk to encode next: of the first story in turn with texts to encode now.
        A story's awaited texts are its own to encode once none has landed for the
        wait, or while no other replica is alive (`alone`)."""
        for story_id, queue in self._stories.items():
            if queue.awaited and (alone or now >= queue.progress_at + self._wait):
                queue.awaited.clear()
            chunk = queue.next_chunk()
            if chunk:
                return Turn(story_id, queue, chunk)
        return None

    def encoded(self, turn: Turn) -> set[str] | None:
        """The turn's texts are stored: the interactions it completed, and the story's
        turn passes; None when the story was forgotten meanwhile."""
        done = turn.queue.stored(turn.chunk)
        if self._stories.get(turn.story_id) is not turn.queue:
            return None
        self._pass(turn.story_id, turn.queue)
        return done

    def failed(self, turn: Turn) -> None:
        """The turn could not be encoded or stored: the other stories go first."""
        if self._stories.get(turn.story_id) is turn.queue:
            self._stories.move_to_end(turn.story_id)

    def looks(self, now: float) -> list[Look]:
        """The awaited texts due to be looked up in the store: the first `LOOKED_AT`
        of each story whose time to look has come (the next a look later)."""
        looks = []
        for story_id, queue in self._stories.items():
            if not queue.awaited or now < queue.look_at:
                continue
            queue.look_at = now + self._look
            looked, room = [], LOOKED_AT
            for interaction_id in queue.texts:
                if interaction_id in queue.awaited and room > 0:
                    looked.append((interaction_id, queue.texts[interaction_id]))
                    room -= len(queue.texts[interaction_id])
            looks.append(Look(story_id, queue, looked))
        return looks

    def found(self, look: Look, landed: set[str], now: float) -> set[str] | None:
        """Of the look's texts, these were found stored: the interactions now complete;
        None when the story was forgotten meanwhile."""
        done = look.queue.found(look.looked, landed, now)
        if self._stories.get(look.story_id) is not look.queue:
            return None
        if not look.queue.texts:
            del self._stories[look.story_id]
        return done

    def look_again(self, look: Look, at: float) -> None:
        """A look that failed (the database slow or away) is made again at `at`."""
        look.queue.look_at = at

    def pause(self, now: float) -> float | None:
        """Seconds until a look or an awaited story's own encoding is due; None when
        nothing is awaited."""
        due = [
            min(queue.look_at, queue.progress_at + self._wait)
            for queue in self._stories.values()
            if queue.awaited
        ]
        return max(0.0, min(due) - now) if due else None

    def _pass(self, story_id: str, queue: StoryQueue) -> None:
        if queue.texts:
            self._stories.move_to_end(story_id)
        else:
            del self._stories[story_id]
