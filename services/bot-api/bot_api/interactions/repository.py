"""The `interactions` collection: the content of each interaction.

A document is part of its story only while the story's structure lists it; a document
the structure does not list (a create cut short) is never shown.

A document holds the interaction's fields under the names the API gives them
(`userSays`, `imageUrl`): this module is the one mapper between it and `Interaction`.
"""

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from bot_api.domain.interactions import Interaction, Parameter, Translation
from bot_api.domain.responses import (
    Block,
    Button,
    ButtonTemplate,
    Card,
    Handoff,
    Image,
    QuickReplies,
    TextChoice,
)
from bot_api.indexed import Indexed
from shared.mongo import Database
from shared.timeutil import utcnow


@dataclass(frozen=True)
class InteractionSummary:
    """What a story's read shows of each interaction, read without the rest of it."""

    name: str
    webhook: str


class InteractionRepository:
    def __init__(self, database: Database) -> None:
        self.collection = database["interactions"]

    async def ensure_indexes(self) -> None:
        await self.collection.create_index("storyId")
        await self.collection.create_index([("storyId", 1), ("triggerKeys", 1)])
        await self.collection.create_index([("accountId", 1), ("parameters.entity", 1)])

    async def insert_many(
        self, account_id: str, story_id: str, interactions: Sequence[Interaction]
    ) -> None:
        now = utcnow()
        await self.collection.insert_many(
            [
                {
                    "_id": interaction.id,
                    "accountId": account_id,
                    "storyId": story_id,
                    **content_document(interaction),
                    "createdAt": now,
                    "updatedAt": now,
                }
                for interaction in interactions
            ]
        )

    async def find(self, story_id: str, ids: Iterable[str]) -> dict[str, Interaction]:
        cursor = self.collection.find({"storyId": story_id, "_id": {"$in": list(ids)}})
        return {document["_id"]: interaction_from_document(document) async for document in cursor}

    async def summaries(self, story_id: str, ids: Iterable[str]) -> dict[str, InteractionSummary]:
        """Name and webhook of the story's interactions `ids`, only those fields read."""
        cursor = self.collection.find(
            {"storyId": story_id, "_id": {"$in": list(ids)}}, projection=["name", "webhook"]
        )
        return {
            document["_id"]: InteractionSummary(document["name"], document["webhook"])
            async for document in cursor
        }

    async def with_triggers(self, story_id: str, triggers: list[str]) -> dict[str, list[str]]:
        """The triggers of the story's interactions that may have any of `triggers` in any
        case: those whose `triggerKeys` (the triggers in lower case) share one, and those
        written before `triggerKeys` existed."""
        keys = [trigger.lower() for trigger in triggers]
        found: dict[str, list[str]] = {}
        # Two finds, not one `$or`: nx-27017 runs that `$or` over the whole collection
        # (docs/mongodb-compatibility.md).
        for condition in ({"$in": keys}, {"$exists": False}):
            cursor = self.collection.find(
                {"storyId": story_id, "triggerKeys": condition}, projection=["triggers"]
            )
            found.update({document["_id"]: document["triggers"] async for document in cursor})
        return found

    async def count_phrases(self, story_id: str, ids: Iterable[str]) -> int:
        # A find and a sum here, not an aggregate: nx-27017 runs `$match` on `_id` `$in`
        # over the whole collection (docs/mongodb-compatibility.md).
        cursor = self.collection.find(
            {"storyId": story_id, "_id": {"$in": list(ids)}},
            projection=["userSays", "translations.userSays"],
        )
        return sum([phrase_count(document) async for document in cursor])

    async def get(self, story_id: str, interaction_id: str) -> Interaction | None:
        document = await self.collection.find_one({"_id": interaction_id, "storyId": story_id})
        return None if document is None else interaction_from_document(document)

    async def replace_content(self, story_id: str, interaction: Interaction) -> None:
        await self.collection.update_one(
            {"_id": interaction.id, "storyId": story_id},
            {"$set": {**content_document(interaction), "updatedAt": utcnow()}},
        )

    async def await_connections(self, story_id: str, names: Mapping[str, str]) -> None:
        """Each interaction (by id) is to call the connection of that name once the story
        has one (an imported story: docs/import-export.md)."""
        for interaction_id, name in names.items():
            await self.collection.update_one(
                {"_id": interaction_id, "storyId": story_id},
                {"$set": {"awaitedConnection": name}},
            )

    async def awaited_connections(self, story_id: str) -> dict[str, str]:
        """The connection each interaction awaits, by the interaction's id."""
        cursor = self.collection.find(
            {"storyId": story_id, "awaitedConnection": {"$exists": True}},
            projection=["awaitedConnection"],
        )
        return {document["_id"]: document["awaitedConnection"] async for document in cursor}

    async def await_handoffs(self, story_id: str, names: Mapping[str, str]) -> None:
        """Each interaction (by id) is to hand over to the connection of that name once the
        story has one (an imported story: docs/import-export.md)."""
        for interaction_id, name in names.items():
            await self.collection.update_one(
                {"_id": interaction_id, "storyId": story_id},
                {"$set": {"awaitedHandoff": name}},
            )

    async def awaited_handoffs(self, story_id: str) -> dict[str, str]:
        """The handoff connection each interaction awaits, by the interaction's id."""
        cursor = self.collection.find(
            {"storyId": story_id, "awaitedHandoff": {"$exists": True}},
            projection=["awaitedHandoff"],
        )
        return {document["_id"]: document["awaitedHandoff"] async for document in cursor}

    async def connect_awaiting(self, story_id: str, name: str, connection_id: str) -> list[str]:
        """The interactions awaiting the connection `name` call it now, unless given a
        webhook meanwhile, and those awaiting it as their handoff get a handoff block,
        unless given one meanwhile; the ids of those that changed."""
        return sorted(
            {
                *await self._connect_webhooks(story_id, name, connection_id),
                *await self._connect_handoffs(story_id, name, connection_id),
            }
        )

    async def _connect_handoffs(self, story_id: str, name: str, connection_id: str) -> list[str]:
        cursor = self.collection.find(
            {"storyId": story_id, "awaitedHandoff": name}, projection=["responses"]
        )
        awaiting = {document["_id"]: document["responses"] async for document in cursor}
        connected = [
            i for i, blocks in awaiting.items() if all(b["type"] != "handoff" for b in blocks)
        ]
        block = _block_document(Handoff(connection_id))
        for interaction_id in connected:  # `$set` of the whole list: nx-27017 mangles `$push`
            responses = [*awaiting[interaction_id], block]
            await self.collection.update_one(
                {"_id": interaction_id, "storyId": story_id, "awaitedHandoff": name},
                {"$set": {"responses": responses, "updatedAt": utcnow()}},
            )
        if awaiting:
            await self.collection.update_many(
                {"storyId": story_id, "_id": {"$in": list(awaiting)}},
                {"$unset": {"awaitedHandoff": ""}},
            )
        return connected

    async def _connect_webhooks(self, story_id: str, name: str, connection_id: str) -> list[str]:
        cursor = self.collection.find(
            {"storyId": story_id, "awaitedConnection": name}, projection=["webhook"]
        )
        awaiting = {document["_id"]: document["webhook"] async for document in cursor}
        connected = [i for i, webhook in awaiting.items() if webhook == ""]
        if connected:
            await self.collection.update_many(
                {"storyId": story_id, "_id": {"$in": connected}},
                {"$set": {"webhook": connection_id, "updatedAt": utcnow()}},
            )
        if awaiting:
            await self.collection.update_many(
                {"storyId": story_id, "_id": {"$in": list(awaiting)}},
                {"$unset": {"awaitedConnection": ""}},
            )
        return connected

    async def delete_many(self, story_id: str, ids: Iterable[str]) -> None:
        await self.collection.delete_many({"storyId": story_id, "_id": {"$in": list(ids)}})

    async def delete_for_story(self, story_id: str) -> None:
        await self.collection.delete_many({"storyId": story_id})

    async def using_entity(self, account_id: str, entity: str) -> dict[str, str]:
        # $elemMatch, not "parameters.entity": nx-27017 finds nothing through a dotted path
        # into an indexed array (docs/mongodb-compatibility.md); on MongoDB both are the same.
        cursor = self.collection.find(
            {"accountId": account_id, "parameters": {"$elemMatch": {"entity": entity}}},
            projection={"storyId": 1},
        )
        return {document["_id"]: document["storyId"] async for document in cursor}


def phrase_count(document: Mapping[str, Any]) -> int:
    """The phrases of a stored interaction, in every language (what the phrase quota
    counts: each is read into a match index)."""
    translated = document.get("translations", {}).values()
    return len(document["userSays"]) + sum(len(t["userSays"]) for t in translated)


def content_document(interaction: Interaction) -> dict[str, Any]:
    """The fields of a document that an edit of the interaction's content sets."""
    return {
        "type": interaction.kind,
        "name": interaction.name,
        "action": interaction.action,
        "triggers": list(interaction.triggers),
        "userSays": list(interaction.user_says),
        "parameters": [_parameter_document(p) for p in interaction.parameters],
        "responses": [_block_document(block) for block in interaction.responses],
        "webhook": interaction.webhook,
        "translations": {
            language: _translation_document(t) for language, t in interaction.translations.items()
        },
        "triggerKeys": sorted({trigger.lower() for trigger in interaction.triggers}),
    }


def interaction_from_document(document: Mapping[str, Any]) -> Interaction:
    return Interaction(
        id=document["_id"],
        kind=document["type"],
        name=document["name"],
        action=document["action"],
        triggers=tuple(document["triggers"]),
        user_says=tuple(document["userSays"]),
        parameters=tuple(
            Parameter(
                p["alias"], p["entity"], tuple(p["prompts"]), tuple(p.get("promptReplies", ()))
            )
            for p in document["parameters"]
        ),
        responses=tuple(_block(stored) for stored in document["responses"]),
        webhook=document["webhook"],
        translations={
            language: Translation(
                tuple(t["userSays"]),
                tuple(_block(stored) for stored in t["responses"]),
                {alias: tuple(prompts) for alias, prompts in t["prompts"].items()},
            )
            for language, t in document.get("translations", {}).items()
        },
    )


def _translation_document(translation: Translation) -> dict[str, Any]:
    return {
        "userSays": list(translation.user_says),
        "responses": [_block_document(block) for block in translation.responses],
        "prompts": {alias: list(prompts) for alias, prompts in translation.prompts.items()},
    }


def _parameter_document(parameter: Parameter) -> dict[str, Any]:
    """A parameter as stored; its prompt's replies only when it has some, as before they
    existed."""
    document: dict[str, Any] = {
        "alias": parameter.alias,
        "entity": parameter.entity,
        "prompts": list(parameter.prompts),
    }
    if parameter.prompt_replies:
        document["promptReplies"] = list(parameter.prompt_replies)
    return document


def _block_document(block: Block) -> dict[str, Any]:
    match block:
        case TextChoice():
            return {"type": "text", "messages": list(block.messages)}
        case QuickReplies():
            return {"type": "quickReply", "title": block.title, "replies": list(block.replies)}
        case Image():
            return {"type": "image", "imageUrl": block.image_url}
        case Card():
            return {
                "type": "card",
                "title": block.title,
                "subtitle": block.subtitle,
                "imageUrl": block.image_url,
                "buttons": _buttons_document(block.buttons),
            }
        case ButtonTemplate():
            return {
                "type": "buttonTemplate",
                "title": block.title,
                "buttons": _buttons_document(block.buttons),
            }
        case Handoff():
            return {"type": "handoff", "connection": block.connection}


def _buttons_document(buttons: tuple[Button, ...]) -> list[dict[str, str]]:
    return [{"title": b.title, "postback": b.postback} for b in buttons]


def _buttons(buttons: Iterable[Mapping[str, str]]) -> tuple[Button, ...]:
    return tuple(Button(b["title"], b["postback"]) for b in buttons)


def _block(stored: Mapping[str, Any]) -> Block:
    kind = stored["type"]
    if kind == "text":
        return TextChoice(tuple(stored["messages"]))
    if kind == "quickReply":
        return QuickReplies(stored["title"], tuple(stored["replies"]))
    if kind == "image":
        return Image(stored["imageUrl"])
    if kind == "card":
        return Card(
            stored["title"], stored["subtitle"], stored["imageUrl"], _buttons(stored["buttons"])
        )
    if kind == "handoff":
        return Handoff(stored["connection"])
    return ButtonTemplate(stored["title"], _buttons(stored["buttons"]))


class InteractionStore(Indexed, Protocol):
    async def insert_many(
        self, account_id: str, story_id: str, interactions: Sequence[Interaction]
    ) -> None: ...

    async def with_triggers(self, story_id: str, triggers: list[str]) -> dict[str, list[str]]:
        """The triggers of the story's interactions that have any of `triggers`."""

    async def find(self, story_id: str, ids: Iterable[str]) -> dict[str, Interaction]:
        """The story's interactions `ids` (those it has), by id."""

    async def summaries(self, story_id: str, ids: Iterable[str]) -> dict[str, InteractionSummary]:
        """Name and webhook of the story's interactions `ids`, by id, without the rest."""

    async def count_phrases(self, story_id: str, ids: Iterable[str]) -> int:
        """How many user-says phrases the story's interactions `ids` hold."""

    async def get(self, story_id: str, interaction_id: str) -> Interaction | None: ...

    async def replace_content(self, story_id: str, interaction: Interaction) -> None:
        """The story's interaction of that id becomes `interaction` (nothing if it has
        none)."""

    async def delete_many(self, story_id: str, ids: Iterable[str]) -> None: ...

    async def await_connections(self, story_id: str, names: Mapping[str, str]) -> None:
        """Each interaction (by id) is to call the connection of that name once the story
        has one."""

    async def awaited_connections(self, story_id: str) -> dict[str, str]:
        """The connection each interaction awaits, by the interaction's id."""

    async def await_handoffs(self, story_id: str, names: Mapping[str, str]) -> None:
        """Each interaction (by id) is to hand over to the connection of that name once the
        story has one."""

    async def awaited_handoffs(self, story_id: str) -> dict[str, str]:
        """The handoff connection each interaction awaits, by the interaction's id."""

    async def connect_awaiting(self, story_id: str, name: str, connection_id: str) -> list[str]:
        """The interactions awaiting the connection `name` call it now, unless given a
        webhook meanwhile, and those awaiting it as their handoff get a handoff block
        (last), unless given one meanwhile; the ids of those that changed, sorted."""

    async def delete_for_story(self, story_id: str) -> None: ...

    async def using_entity(self, account_id: str, entity: str) -> dict[str, str]:
        """The story id of each of the account's interactions (by id) with a parameter of
        `entity`."""
