"""The shape of an imported Rasa story: which interactions there are and how stories
link them (docs/import-export.md, "The Rasa importer").

Rasa classifies every message against every intent, whatever came before; stories only
steer which action follows. So each intent is one root interaction named after it,
answered as its rule says, else as most stories do where it answers no question. Only
what the bot asked changes what a message means: after a turn whose answer ends with a
question (a text ending in `?`, or buttons), an intent the stories answer otherwise
there (not merely as usual and then the question again) gets a follow-up: a
child without phrases of its own (the engine answers the root's phrases with it while
the question's context is active; docs/query.md), owned by the first interaction that
asks the question and referenced by the others that ask it. An intent answered there as
usual is one of the question's references (preferred after it). Nothing is copied: an
intent's phrases are in its root alone.
"""

from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from bot_api.transfer.document import Keys, key_base
from bot_api.transfer.limits import MAX_CONTEXT_LIST
from bot_api.transfer.rasa_dialogue import DEFAULT_FALLBACK, NLU_FALLBACK, Conversation
from bot_api.transfer.report import Unmapped
from shared.fair_work import checkpoint


def key_part(intent: str) -> str:
    """An intent's name as a part of a key: a child's key joins its parent's and its own
    with `.`, so no `.` inside a part."""
    return key_base(intent).replace(".", "-")


@dataclass
class Node:
    """An interaction of the story being built."""

    key: str
    intent: str
    answer: tuple[str, ...]
    root: bool
    kind: str = "standard"
    context_out: list[str] = field(default_factory=list)
    references: list[str] = field(default_factory=list)


def sub_intents(name: str, names: Sequence[str]) -> list[str]:
    """The sub-intents of a retrieval intent (`faq/ask_x` of `faq`)."""
    return [n for n in names if n.startswith(name + "/")]


class Tree:
    """The interactions of a story and their links, built from its rules and stories."""

    def __init__(
        self,
        intents: Sequence[str],
        conversations: Sequence[Conversation],
        responses: Mapping[str, Any],
        forms: Collection[str],
        unmapped: list[Unmapped],
    ) -> None:
        self.intents, self.conversations = list(intents), conversations
        self.responses, self.forms, self.unmapped = responses, forms, unmapped
        self.keys = Keys()
        self.roots = {intent: self.keys.make(key_part(intent)) for intent in self.intents}
        answers = self.root_answers()
        self.nodes = {
            key: Node(key, intent, answers.get(intent, ()), root=True)
            for intent, key in self.roots.items()
        }
        welcome = self.welcome_intent()
        if welcome is not None:
            self.nodes[self.roots[welcome]].kind = "welcome"
        self.follow_ups: dict[tuple[str, str], str] = {}
        """(question, intent) -> the follow-up answering the intent after the question."""
        for conversation in conversations:
            checkpoint()
            self.walk(conversation)
        fallback = self.fallback_node(answers)
        if fallback is not None:
            self.nodes[fallback.key] = fallback

    def expanded(self, intents: tuple[str, ...]) -> list[str]:
        """The interactions' intents a rule or story's intents stand for (a retrieval
        intent stands for each of its sub-intents)."""
        found: list[str] = []
        for intent in intents:
            found += sub_intents(intent, self.intents) or [intent]
        return found

    def root_answers(self) -> dict[str, tuple[str, ...]]:
        """Each intent's answer on its own: its rule's, else the one most stories give
        where it answers no question (else where it does)."""
        ruled: dict[str, tuple[str, ...]] = {}
        alone: dict[str, Counter[tuple[str, ...]]] = {}
        asked: dict[str, Counter[tuple[str, ...]]] = {}
        for conversation in self.conversations:
            said: tuple[str, ...] = ()
            for index, turn in enumerate(conversation.turns):
                if not turn.digression and turn.actions:
                    counted = asked if self.question(said) else alone
                    for intent in self.expanded(turn.intents):
                        if conversation.kind == "rules" and index == 0:
                            ruled.setdefault(intent, turn.actions)
                        counted.setdefault(intent, Counter())[turn.actions] += 1
                said = turn.actions
        return {
            intent: ruled.get(intent) or (alone.get(intent) or asked[intent]).most_common(1)[0][0]
            for intent in {*ruled, *alone, *asked}
        }

    def question(self, answer: tuple[str, ...]) -> str | None:
        """The response an answer ends by asking with: its last action, when that is a
        response with a text ending in `?` or buttons (custom code and forms ask
        nothing Parley knows of)."""
        last = answer[-1] if answer else ""
        return last if last in self.responses and asks(self.responses[last]) else None

    def walk(self, conversation: Conversation) -> None:
        """Link the interactions answering each turn to the question the turn before
        asked."""
        current: list[str] = []
        for turn in conversation.turns:
            if turn.digression:
                self.unmapped.append(
                    Unmapped(
                        turn.place,
                        f"intent {' / '.join(turn.intents)} while a form asks",
                        "a task switch or digression: the intent answers as it does alone",
                    )
                )
                current = []
            else:
                current = self.follow(current, turn.actions, turn.intents, turn.place)

    def follow(
        self,
        current: list[str],
        answer: tuple[str, ...],
        intents: tuple[str, ...],
        place: str,
    ) -> list[str]:
        """The interactions answering a turn after `current`: the intent's root (a
        reference of the question, unless a retrieval intent stands for it: `faq` after
        a question is any of its sub-intents, none preferred), or the follow-up of the
        question `current` asked when the turn answers it otherwise."""
        reached: list[str] = []
        for intent in self.expanded(intents):
            if intent not in self.roots:
                if intent != NLU_FALLBACK:
                    self.unmapped.append(
                        Unmapped(
                            place, f"intent '{intent}'", "neither in the NLU data nor in the domain"
                        )
                    )
                continue
            root = self.roots[intent]
            asking = [(k, q) for k in current if (q := self.question(self.nodes[k].answer))]
            usual = self.nodes[root].answer
            asked_again = {(*usual, question) for _, question in asking}
            if not asking or not answer or answer == usual or answer in asked_again:
                for parent_key, _ in asking if intent in intents else ():
                    parent = self.nodes[parent_key]
                    if root != parent_key and root not in parent.context_out:
                        self.link(parent, root, place, reference=True)
                reached.append(root)
                continue
            for parent_key, question in asking:
                follow_up = self.follow_up(self.nodes[parent_key], question, intent, answer, place)
                if follow_up is not None:
                    reached.append(follow_up)
        return list(dict.fromkeys(reached))

    def follow_up(
        self, parent: Node, question: str, intent: str, answer: tuple[str, ...], place: str
    ) -> str | None:
        """The follow-up answering `intent` after `question`, made under `parent` if none
        is yet, else referenced from it."""
        key = self.follow_ups.get((question, intent))
        if key is None:
            key = self.keys.make(f"{parent.key}.{key_part(intent)}")
            if not self.link(parent, key, place, reference=False):
                return None
            self.nodes[key] = Node(key, intent, answer, root=False)
            self.follow_ups[(question, intent)] = key
            return key
        if self.nodes[key].answer != answer:
            self.unmapped.append(
                Unmapped(
                    place,
                    f"answer to '{intent}' after {question}",
                    "another story answers it otherwise there; the first is kept",
                )
            )
        if key != parent.key and key not in parent.context_out:
            self.link(parent, key, place, reference=True)
        return key

    def link(self, parent: Node, key: str, place: str, reference: bool) -> bool:
        if len(parent.context_out) == MAX_CONTEXT_LIST:
            self.unmapped.append(
                Unmapped(
                    place,
                    f"what follows '{parent.intent}'",
                    f"at most {MAX_CONTEXT_LIST} interactions follow one",
                )
            )
            return False
        parent.context_out.append(key)
        if reference:
            parent.references.append(key)
        return True

    def welcome_intent(self) -> str | None:
        """The intent a `conversation_start` rule answers, else the one named greet: its
        interaction becomes the welcome (trigger `welcome`), so no default welcome's
        greetings compete with its phrases."""
        for conversation in self.conversations:
            if conversation.conversation_start and conversation.turns:
                for intent in self.expanded(conversation.turns[0].intents):
                    if intent in self.roots:
                        return intent
        return next((i for i in self.intents if i.lower() == "greet"), None)

    def fallback_node(self, answers: Mapping[str, tuple[str, ...]]) -> Node | None:
        """The fallback interaction, when an nlu_fallback rule answers with responses
        (`action_default_fallback` says `utter_default`); a custom action cannot, and
        the story keeps its default fallback."""
        answer = answers.get(NLU_FALLBACK)
        if answer is None:
            return None
        place = next(
            (t.place for c in self.conversations for t in c.turns if NLU_FALLBACK in t.intents),
            "data",
        )
        answer = tuple("utter_default" if a == DEFAULT_FALLBACK else a for a in answer)
        if not any(a in self.responses for a in answer):
            self.unmapped.append(
                Unmapped(
                    place,
                    "fallback answer",
                    f"{', '.join(answer)} is no response: the story keeps its default fallback",
                )
            )
            return None
        return Node(
            self.keys.make("nlu_fallback"), NLU_FALLBACK, answer, root=True, kind="fallback"
        )

    def ordered(self) -> list[Node]:
        """Each root, then what it owns (depth first), as an export lists them."""
        ordered: list[Node] = []
        pending = [n.key for n in reversed(list(self.nodes.values())) if n.root]
        while pending:
            node = self.nodes[pending.pop()]
            ordered.append(node)
            pending += reversed([k for k in node.context_out if k not in node.references])
        return ordered


def asks(variants: Any) -> bool:
    """A response asks when one of its variants has buttons or a text ending with `?`."""
    return any(
        isinstance(v, Mapping)
        and (bool(v.get("buttons")) or str(v.get("text") or "").rstrip().endswith("?"))
        for v in (variants if isinstance(variants, list) else [])
    )
