"""A story as a file: its export, and an import that creates the whole story or nothing.

An import is checked whole before anything is written, and every problem is answered at
once with its place in the document. Then the entities it brings are written, then its
interactions (invisible until a story lists them), then the story, which makes it all
visible in one write; a failure on the way removes what was written.
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from bot_api.changes import ChangeFeed, EntitiesEdited, StoryCreated
from bot_api.domain.entities import BUILTIN_ENTITIES, is_builtin
from bot_api.domain.errors import Invalid
from bot_api.domain.interactions import EMPTY_INTERACTION, prepare
from bot_api.domain.settings import Settings
from bot_api.management.quotas import AccountQuotas
from bot_api.management.stories import load_story
from bot_api.storage import Stores, new_object_id
from bot_api.storage.interactions import CONTENT_FIELDS
from bot_api.transfer.document import Problem, ReadStory, StoryContent, used_entities
from bot_api.transfer.report import Unmapped
from shared.errors import Conflict
from shared.ids import is_object_id


@dataclass(frozen=True)
class StoryUpload:
    """An uploaded story, each field checked by the API's schemas."""

    source: str
    """parley, dialogflow or rasa."""
    story: ReadStory
    settings: Settings
    entities: Sequence[Mapping[str, Any]]
    """As `POST /entities` takes them."""
    unmapped: Sequence[Unmapped] = ()


@dataclass(frozen=True)
class Exported:
    story: StoryContent
    settings: Settings
    entities: Sequence[Mapping[str, Any]]


@dataclass(frozen=True)
class ImportedEntity:
    name: str
    status: str
    """created, reused (the account's, equal) or differs (the account's is used)."""
    detail: str = ""


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
    unmapped: Sequence[Unmapped] = field(default_factory=list)


class ImportRefused(Exception):
    """The upload breaks rules: every problem, each at its place in the document."""

    def __init__(self, problems: Sequence[Problem]) -> None:
        super().__init__(f"{len(problems)} problems")
        self.problems = problems


class StoryTransfer:
    def __init__(self, *, stores: Stores, changes: ChangeFeed, quotas: AccountQuotas) -> None:
        self._stores = stores
        self._changes = changes
        self._quotas = quotas
        self._importing: set[str] = set()
        """Accounts with an import under way: one at a time each, so one account's
        imports cannot fill the import worker that all accounts share."""

    async def export(self, *, account_id: str, story_id: str) -> Exported:
        stores = self._stores
        story = await load_story(stores, account_id, story_id)
        documents = await stores.interactions.find(story.id, story.structure.contexts)
        interactions = {
            interaction_id: {name: document[name] for name in CONTENT_FIELDS}
            for interaction_id, document in documents.items()
        }
        webhooks = {i["webhook"] for i in interactions.values() if is_object_id(i["webhook"])}
        names = await stores.connections.names(account_id, story.id, webhooks) if webhooks else {}
        wanted = {n for n in used_entities(interactions.values()) if not is_builtin(n)}
        entities = await stores.entities.with_names(account_id, wanted) if wanted else []
        content = StoryContent(
            name=story.name,
            description=story.description,
            settings={},
            structure=story.structure,
            interactions=interactions,
            connection_names=names,
            awaited={
                i: document["awaitedConnection"]
                for i, document in documents.items()
                if "awaitedConnection" in document
            },
        )
        listed = sorted(
            ({"name": e["name"], "entries": e["entries"]} for e in entities),
            key=lambda e: str(e["name"]),
        )
        return Exported(content, story.settings, listed)

    def begin_import(self, account_id: str) -> None:
        """Called before the upload is read, so a second import of the account is refused
        before it costs the worker anything; `end_import` when done."""
        if account_id in self._importing:
            raise Conflict("an import of this account is under way; send the next when it ends")
        self._importing.add(account_id)

    def end_import(self, account_id: str) -> None:
        self._importing.discard(account_id)

    async def import_story(
        self, *, account_id: str, upload: StoryUpload, dry_run: bool
    ) -> tuple[str | None, ImportReport]:
        """The new story's id (None in a dry run) and the report; ImportRefused listing
        every problem, or a quota refused, and nothing written."""
        stores = self._stores
        read = upload.story
        contents = read.content.interactions
        problems = list(read.problems)
        prepared: dict[str, dict[str, Any]] = {}
        for interaction_id, content in contents.items():
            place = _place(read, interaction_id)
            try:
                prepared[interaction_id] = prepare(
                    {**EMPTY_INTERACTION, **content}, content["type"]
                )
            except Invalid as error:
                problems.append(Problem((*place, *error.path), error.message))
                continue
            if is_object_id(content.get("webhook", "")):
                problems.append(
                    Problem(
                        (*place, "webhook"),
                        "a connection's id means nothing to a new story: name the "
                        "connection with `connection`",
                    )
                )
        problems += _trigger_clashes(read, prepared)
        entities, entity_problems = await self._entities(account_id, upload, prepared)
        problems += entity_problems
        if problems:
            raise ImportRefused(problems)

        quotas = await self._quotas.of(account_id)
        quotas.check_stories(await stores.stories.count(account_id) + 1)
        quotas.check_interactions(len(prepared))
        phrases = sum(len(c["userSays"]) for c in prepared.values())
        quotas.check_phrases(phrases)
        new_entities = [e for e in upload.entities if _status(entities, e["name"]) == "created"]
        if new_entities:
            held, entries = await stores.entities.totals(account_id)
            quotas.check_entities(
                held + len(new_entities), entries + sum(len(e["entries"]) for e in new_entities)
            )

        order = sorted(read.index_of, key=read.index_of.__getitem__)
        order += [i for i in contents if i not in read.index_of]
        report = ImportReport(
            source=upload.source,
            dry_run=dry_run,
            name=read.content.name,
            language=upload.settings.language,
            interactions=[
                {
                    "key": read.keys.get(i, prepared[i]["type"]),
                    "name": prepared[i]["name"],
                    **({} if dry_run else {"id": i}),
                }
                for i in order
            ],
            phrases=phrases,
            entities=entities,
            connections=_connections(read),
            added=list(read.added),
            unmapped=list(upload.unmapped),
        )
        if dry_run:
            return None, report
        story_id = await self._write(account_id, upload, prepared, new_entities, phrases)
        return story_id, report

    async def _entities(
        self, account_id: str, upload: StoryUpload, prepared: Mapping[str, Mapping[str, Any]]
    ) -> tuple[list[ImportedEntity], list[Problem]]:
        """What becomes of each entity the document brings, and the entities the
        interactions use that neither the document nor the account has."""
        brought = {e["name"]: e for e in upload.entities}
        held = (
            {e["name"]: e for e in await self._stores.entities.with_names(account_id, brought)}
            if brought
            else {}
        )
        report = []
        for name, entity in brought.items():
            existing = held.get(name)
            if existing is None:
                report.append(ImportedEntity(name, "created"))
            elif _entries(existing) == _entries(entity):
                report.append(ImportedEntity(name, "reused"))
            else:
                report.append(ImportedEntity(name, "differs", _difference(existing, entity)))
        problems = []
        used: dict[str, str] = {}
        for interaction_id, content in prepared.items():
            for name in used_entities([content]):
                used.setdefault(name, interaction_id)
        unknown = {n for n in used if n not in brought and not is_builtin(n)}
        known = (
            await self._stores.entities.existing_names(account_id, unknown) if unknown else set()
        )
        for name, interaction_id in sorted(used.items()):
            if is_builtin(name) and name not in BUILTIN_ENTITIES:
                message = f"no built-in entity {name!r}"
            elif name in unknown and name not in known:
                message = f"entity {name!r} is neither in the document nor in the account"
            else:
                continue
            problems.append(Problem((*_place(upload.story, interaction_id), "parameters"), message))
        return report, problems

    async def _write(
        self,
        account_id: str,
        upload: StoryUpload,
        prepared: Mapping[str, Mapping[str, Any]],
        new_entities: Sequence[Mapping[str, Any]],
        phrases: int,
    ) -> str:
        stores = self._stores
        story_id = new_object_id()
        created: list[str] = []
        try:
            for entity in new_entities:
                created.append(await stores.entities.insert(account_id, dict(entity)))
            await stores.interactions.insert_many(
                account_id,
                story_id,
                [{**content, "id": interaction_id} for interaction_id, content in prepared.items()],
            )
            if upload.story.connections:
                await stores.interactions.await_connections(story_id, upload.story.connections)
            content = upload.story.content
            await stores.stories.insert(
                story_id,
                account_id,
                content.name,
                content.description,
                upload.settings,
                content.structure,
                phrases=phrases,
            )
        except BaseException:
            await stores.interactions.delete_for_story(story_id)
            for entity_id in created:
                await stores.entities.delete(account_id, entity_id)
            raise
        if created:
            await self._changes.announce(EntitiesEdited(account_id))
        await self._changes.announce(StoryCreated(account_id, story_id))
        return story_id


def _place(read: ReadStory, interaction_id: str) -> tuple[str | int, ...]:
    index = read.index_of.get(interaction_id)
    return ("interactions",) if index is None else ("interactions", index)


def _trigger_clashes(read: ReadStory, prepared: Mapping[str, Mapping[str, Any]]) -> list[Problem]:
    """A trigger starts exactly one interaction of a story."""
    first: dict[str, str] = {}
    problems = []
    for interaction_id, content in prepared.items():
        for index, trigger in enumerate(content["triggers"]):
            owner = first.setdefault(trigger.lower(), interaction_id)
            if owner != interaction_id:
                problems.append(
                    Problem(
                        (*_place(read, interaction_id), "triggers", index),
                        f"{trigger!r} is a trigger of {read.keys.get(owner, owner)!r} already",
                    )
                )
    return problems


def _connections(read: ReadStory) -> list[dict[str, Any]]:
    """Each connection the interactions name, with the keys of those that call it: a new
    story has no connection yet; once one of that name is made for it, they call it
    (docs/import-export.md)."""
    calling: dict[str, list[str]] = {}
    for interaction_id, name in read.connections.items():
        calling.setdefault(name, []).append(read.keys[interaction_id])
    return [
        {"name": name, "status": "missing", "interactions": keys}
        for name, keys in sorted(calling.items())
    ]


def _status(entities: Sequence[ImportedEntity], name: str) -> str:
    return next(e.status for e in entities if e.name == name)


def _entries(entity: Mapping[str, Any]) -> dict[str, list[str]]:
    return {
        entry["value"]: sorted(s["value"] for s in entry["synonyms"]) for entry in entity["entries"]
    }


def _difference(held: Mapping[str, Any], brought: Mapping[str, Any]) -> str:
    mine, theirs = _entries(held), _entries(brought)
    missing = sorted(set(theirs) - set(mine))
    changed = sorted(v for v in set(theirs) & set(mine) if theirs[v] != mine[v])
    parts = []
    if missing:
        parts.append(f"the account's lacks {', '.join(map(repr, missing[:5]))}")
    if changed:
        parts.append(f"synonyms differ for {', '.join(map(repr, changed[:5]))}")
    extra = sorted(set(mine) - set(theirs))
    if extra:
        parts.append(f"the account's also has {', '.join(map(repr, extra[:5]))}")
    return "the account's entity is used: " + "; ".join(parts)
