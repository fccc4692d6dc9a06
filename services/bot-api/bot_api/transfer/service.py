"""A story as a file: its export, and an import that creates the whole story or nothing.

An import is checked whole before anything is written, and every problem is answered at
once with its place in the document. Then the entities it brings are written, then its
interactions (invisible until a story lists them), then the story, which makes it all
visible in one write; a failure on the way removes what was written.
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bot_api.changes import ChangeFeed, EntitiesEdited, StoryCreated
from bot_api.connections.repository import ConnectionView
from bot_api.domain.conversation_tests import ConversationTest
from bot_api.domain.entities import BUILTIN_ENTITIES, Entity, is_builtin
from bot_api.domain.errors import Invalid
from bot_api.domain.interactions import (
    Interaction,
    handoff_block,
    handoff_connection,
    prepare,
    referenced_entities,
)
from bot_api.domain.settings import Settings
from bot_api.domain.structure import Structure
from bot_api.entities.repository import EntityStore
from bot_api.interactions.repository import InteractionStore
from bot_api.knowledge.records import StoredDocument
from bot_api.knowledge.repository import KnowledgeStore
from bot_api.quotas import AccountQuotas, QuotaExceeded, check_story_content
from bot_api.stories.repository import StoryStore
from bot_api.stories.service import keep_within_quota, load_story
from bot_api.story_tests.repository import ConversationTestStore
from bot_api.transfer.document import Problem
from bot_api.transfer.import_entities import (
    ImportedEntity,
    plan_entities,
    renamed_entities,
    restore_missing,
    used_entities,
)
from bot_api.transfer.import_report import Silent, silent_interactions
from bot_api.transfer.report import ReasonGroup, Unmapped, by_reason
from shared.errors import Conflict
from shared.ids import is_object_id, new_object_id


@dataclass(frozen=True)
class StoryUpload:
    """An uploaded story, each field checked by the API's schemas, under new ids."""

    source: str
    """parley, dialogflow or rasa."""
    name: str
    description: str
    settings: Settings
    structure: Structure
    interactions: Mapping[str, Interaction]
    """By id: the document's in its order, then the welcome or fallback it lacked."""
    keys: Mapping[str, str]
    """The key each of the document's interactions has there, by id."""
    index_of: Mapping[str, int]
    """The place of each of the document's interactions there, by id."""
    connections: Mapping[str, str]
    """The name of the connection an interaction calls, by its id."""
    handoffs: Mapping[str, str]
    """The name of the connection an interaction hands over to, by its id."""
    added: Sequence[str]
    """welcome or fallback: the document had none; the story gets its default one."""
    entities: Sequence[Entity]
    unmapped: Sequence[Unmapped] = ()
    tests: Sequence[ConversationTest] = ()
    faq: Sequence[StoredDocument] = ()
    """The story's FAQ documents (docs/knowledge.md), each under a new id."""


@dataclass(frozen=True)
class Exported:
    """What a story's document says, as values."""

    name: str
    description: str
    settings: Settings
    structure: Structure
    interactions: Mapping[str, Interaction]
    connection_names: Mapping[str, str]
    """The name of each connection an interaction's webhook names, by its id."""
    awaited: Mapping[str, str]
    """The connection an imported interaction is to call once the story has it, by the
    interaction's id."""
    awaited_handoffs: Mapping[str, str]
    """The connection an imported interaction is to hand over to once the story has it,
    by the interaction's id."""
    entities: Sequence[Entity]
    tests: Sequence[ConversationTest]
    knowledge: Sequence[StoredDocument] = ()
    """The story's documents: an FAQ document with its pairs, a file's as a summary
    (its text is not in the story document)."""


@dataclass(frozen=True)
class ImportReport:
    source: str
    dry_run: bool
    name: str
    language: str
    interactions: list[dict[str, str]]
    """key, name and (once written) id of each interaction, in the document's order."""
    phrases: int
    entities: list[ImportedEntity]
    connections: list[dict[str, Any]]
    added: list[str]
    unmapped: Sequence[Unmapped]
    silent: Silent
    """The interactions that would answer nothing of their own, by reason."""

    @property
    def unmapped_by_reason(self) -> list[ReasonGroup[Unmapped]]:
        return by_reason(self.unmapped, lambda row: row.reason)


class ImportRefused(Exception):
    """The upload breaks rules: every problem, each at its place in the document."""

    def __init__(self, problems: Sequence[Problem]) -> None:
        super().__init__(f"{len(problems)} problems")
        self.problems = problems


class StoryTransfer:
    def __init__(
        self,
        *,
        stories: StoryStore,
        interactions: InteractionStore,
        entities: EntityStore,
        connections: ConnectionView,
        changes: ChangeFeed,
        quotas: AccountQuotas,
        tests: ConversationTestStore,
        knowledge: KnowledgeStore,
    ) -> None:
        self._stories = stories
        self._interactions = interactions
        self._entities = entities
        self._connections = connections
        self._tests = tests
        self._knowledge = knowledge
        self._changes = changes
        self._quotas = quotas
        self._importing: set[str] = set()
        """Accounts with an import under way: one at a time each, so one account's
        imports cannot fill the import worker that all accounts share."""

    async def export(self, *, account_id: str, story_id: str) -> Exported:
        story = await load_story(self._stories, account_id, story_id)
        interactions = await self._interactions.find(story.id, story.structure.contexts)
        webhooks = {i.webhook for i in interactions.values() if is_object_id(i.webhook)}
        named = webhooks | {handoff_connection(i) for i in interactions.values()} - {""}
        names = await self._connections.names(account_id, story.id, named) if named else {}
        wanted = {
            name
            for interaction in interactions.values()
            for name in referenced_entities(interaction)
            if not is_builtin(name)
        }
        entities = await self._entities.with_names(account_id, wanted) if wanted else []
        return Exported(
            name=story.name,
            description=story.description,
            settings=story.settings,
            structure=story.structure,
            interactions=interactions,
            connection_names=names,
            awaited=await self._interactions.awaited_connections(story.id),
            awaited_handoffs=await self._interactions.awaited_handoffs(story.id),
            entities=sorted((e.entity for e in entities), key=lambda e: e.name),
            tests=[stored.test for stored in await self._tests.list(account_id, story.id)],
            knowledge=await self._knowledge.documents_of(account_id, story.id),
        )

    def begin_import(self, account_id: str) -> None:
        """Called before the upload is read, so a second import of the account is refused
        before it costs the worker anything; `end_import` when done."""
        if account_id in self._importing:
            raise Conflict("an import of this account is under way; send the next when it ends")
        self._importing.add(account_id)

    def end_import(self, account_id: str) -> None:
        self._importing.discard(account_id)

    async def import_story(
        self, *, account_id: str, upload: StoryUpload, dry_run: bool, new_id: str | None = None
    ) -> tuple[str | None, ImportReport]:
        """The new story's id (None in a dry run) and the report; ImportRefused listing
        every problem, or a quota refused, and nothing written. Under `new_id` when given
        (a retried import, `Idempotency-Key`): if that story exists, the retry's write had
        landed, and it is answered again (its interactions' ids are not in the report)."""
        problems: list[Problem] = []
        prepared: dict[str, Interaction] = {}
        for interaction_id, interaction in upload.interactions.items():
            place = _place(upload, interaction_id)
            try:
                prepared[interaction_id] = prepare(interaction)
            except Invalid as error:
                problems.append(Problem((*place, *error.path), error.message))
                continue
            if is_object_id(interaction.webhook):
                problems.append(
                    Problem(
                        (*place, "webhook"),
                        "a connection's id means nothing to a new story: name the "
                        "connection with `connection`",
                    )
                )
            handoff = handoff_block(interaction.responses)
            if handoff is not None:
                problems.append(
                    Problem(
                        (*place, "responses", handoff[0], "connection"),
                        "a connection's id means nothing to a new story: name the "
                        "connection with `handoff`",
                    )
                )
        problems += _trigger_clashes(upload, prepared)
        plan = await plan_entities(self._entities, account_id, upload.entities)
        unknown, held = await self._unknown_entities(account_id, upload, prepared)
        problems += unknown
        if problems:
            raise ImportRefused(problems)
        prepared = {i: renamed_entities(v, plan.renamed) for i, v in prepared.items()}
        used = used_entities(prepared.values(), [*plan.stored(upload.entities), *held])

        landed = new_id is not None and await self._stories.get(account_id, new_id) is not None
        phrases = sum(i.phrase_count for i in prepared.values())
        if not landed:
            await self._check_quotas(account_id, len(prepared), phrases, plan.new)

        report = ImportReport(
            source=upload.source,
            dry_run=dry_run,
            name=upload.name,
            language=upload.settings.language,
            interactions=[
                {
                    "key": upload.keys.get(i, interaction.kind),
                    "name": interaction.name,
                    **({} if dry_run or landed else {"id": i}),
                }
                for i, interaction in prepared.items()
            ],
            phrases=phrases,
            entities=plan.report,
            connections=_connections(upload),
            added=list(upload.added),
            unmapped=list(upload.unmapped),
            silent=silent_interactions(
                upload.source, prepared, upload.keys, upload.connections, upload.handoffs
            ),
        )
        if dry_run:
            return None, report
        if landed:
            return new_id, report
        story_id = new_id or new_object_id()
        await self._write(account_id, story_id, upload, prepared, plan.new, phrases, used)
        return story_id, report

    async def _check_quotas(
        self, account_id: str, interactions: int, phrases: int, new_entities: Sequence[Entity]
    ) -> None:
        quotas = await self._quotas.of(account_id)
        quotas.check_stories(await self._stories.count(account_id) + 1)
        await check_story_content(
            quotas,
            self._entities,
            account_id,
            interactions=interactions,
            phrases=phrases,
            new_entities=new_entities,
        )

    async def _unknown_entities(
        self, account_id: str, upload: StoryUpload, prepared: Mapping[str, Interaction]
    ) -> tuple[list[Problem], list[Entity]]:
        """The entities the interactions use that neither the document nor the account
        has, nor the built-in ones; and the account's that they use."""
        brought = {e.name for e in upload.entities}
        used: dict[str, str] = {}
        for interaction_id, interaction in prepared.items():
            for name in sorted(referenced_entities(interaction)):
                used.setdefault(name, interaction_id)
        unknown = {n for n in used if n not in brought and not is_builtin(n)}
        entities = self._entities
        held = [e.entity for e in await entities.with_names(account_id, unknown)] if unknown else []
        known = {e.name for e in held}
        problems = []
        for name, interaction_id in sorted(used.items()):
            if is_builtin(name) and name not in BUILTIN_ENTITIES:
                message = f"no built-in entity {name!r}"
            elif name in unknown and name not in known:
                message = f"entity {name!r} is neither in the document nor in the account"
            else:
                continue
            problems.append(Problem((*_place(upload, interaction_id), "parameters"), message))
        return problems, held

    async def _write(
        self,
        account_id: str,
        story_id: str,
        upload: StoryUpload,
        prepared: Mapping[str, Interaction],
        new_entities: Sequence[Entity],
        phrases: int,
        used: Mapping[str, Entity],
    ) -> None:
        """Every entity the story uses exists once it is written: one deleted meanwhile
        (its delete found no story naming it yet) is created again."""
        created: list[str] = []
        stored = False
        try:
            for entity in new_entities:
                created.append(await self._entities.insert(account_id, entity))
            await self._interactions.insert_many(account_id, story_id, list(prepared.values()))
            if upload.connections:
                await self._interactions.await_connections(story_id, upload.connections)
            if upload.handoffs:
                await self._interactions.await_handoffs(story_id, upload.handoffs)
            await self._tests.insert_many(account_id, story_id, upload.tests)
            for faq in upload.faq:
                await self._knowledge.put(account_id, story_id, faq)
            await self._stories.insert(
                story_id,
                account_id,
                upload.name,
                upload.description,
                upload.settings,
                upload.structure,
                phrases=phrases,
            )
            stored = True
            await keep_within_quota(self._stories, self._quotas, account_id, story_id)
        except BaseException as error:
            if stored and not isinstance(error, QuotaExceeded):
                raise  # the story is whole: only the quota's refusal takes it back
            await self._interactions.delete_for_story(story_id)
            await self._tests.delete_for_story(story_id)
            await self._knowledge.delete_for_story(story_id)
            for entity_id in created:
                await self._entities.delete(account_id, entity_id)
            raise
        if await restore_missing(self._entities, account_id, used) or created:
            await self._changes.announce(EntitiesEdited(account_id))
        await self._changes.announce(StoryCreated(account_id, story_id))


def _place(upload: StoryUpload, interaction_id: str) -> tuple[str | int, ...]:
    index = upload.index_of.get(interaction_id)
    return ("interactions",) if index is None else ("interactions", index)


def _trigger_clashes(upload: StoryUpload, prepared: Mapping[str, Interaction]) -> list[Problem]:
    """A trigger starts exactly one interaction of a story."""
    first: dict[str, str] = {}
    problems = []
    for interaction_id, interaction in prepared.items():
        for index, trigger in enumerate(interaction.triggers):
            owner = first.setdefault(trigger.lower(), interaction_id)
            if owner != interaction_id:
                problems.append(
                    Problem(
                        (*_place(upload, interaction_id), "triggers", index),
                        f"{trigger!r} is a trigger of {upload.keys.get(owner, owner)!r} already",
                    )
                )
    return problems


def _connections(upload: StoryUpload) -> list[dict[str, Any]]:
    """Each connection the interactions name, with the keys of those that call it: a new
    story has no connection yet; once one of that name is made for it, they call it
    (docs/import-export.md)."""
    calling: dict[str, list[str]] = {}
    for named in (upload.connections, upload.handoffs):
        for interaction_id, name in named.items():
            keys = calling.setdefault(name, [])
            if upload.keys[interaction_id] not in keys:
                keys.append(upload.keys[interaction_id])
    return [
        {"name": name, "status": "missing", "interactions": keys}
        for name, keys in sorted(calling.items())
    ]
