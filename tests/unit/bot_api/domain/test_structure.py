"""The story structure: roots in order, owned children, references, and its invariants."""

import pytest

from bot_api.domain.errors import Invalid, Unknown
from bot_api.domain.structure import ContextChange, Structure

WELCOME, FALLBACK = "welcome-id", "fallback-id"


def new_story() -> Structure:
    return Structure.for_new_story([WELCOME, FALLBACK])


def change(
    interaction_id: str,
    root: bool = False,
    context_out: tuple[str, ...] = (),
    references: tuple[str, ...] = (),
) -> ContextChange:
    return ContextChange(interaction_id, root, context_out, references)


def test_a_new_story_has_its_permanent_interactions_as_roots_in_order() -> None:
    structure = new_story()
    assert structure.order == (WELCOME, FALLBACK)
    assert structure.tree() == [
        {"id": WELCOME, "childrens": []},
        {"id": FALLBACK, "childrens": []},
    ]


def test_roots_are_appended_to_the_order_and_children_hang_under_their_owner() -> None:
    structure = new_story().add_root("order").add_child("order", "size").add_child("size", "pay")
    assert structure.order == (WELCOME, FALLBACK, "order")
    assert structure.tree()[2] == {
        "id": "order",
        "childrens": [
            {
                "id": "size",
                "ref": False,
                "childrens": [{"id": "pay", "ref": False, "childrens": []}],
            }
        ],
    }
    assert structure.walk() == [WELCOME, FALLBACK, "order", "size", "pay"]


def test_a_child_of_an_unknown_interaction_is_not_found() -> None:
    with pytest.raises(Unknown):
        new_story().add_child("nobody", "child")


def test_a_reference_appears_as_a_leaf_marked_ref_so_the_tree_has_no_cycles() -> None:
    structure = new_story().add_root("order").add_child("order", "size")
    structure = structure.apply([change("size", context_out=("order",), references=("order",))])
    size_node = structure.tree()[2]["childrens"][0]
    assert size_node["childrens"] == [{"id": "order", "ref": True, "childrens": []}]


def test_an_interaction_may_refer_back_to_itself() -> None:
    structure = new_story().add_root("repeat")
    structure = structure.apply(
        [change("repeat", root=True, context_out=("repeat",), references=("repeat",))]
    )
    assert structure.tree()[2]["childrens"] == [{"id": "repeat", "ref": True, "childrens": []}]


def test_moving_a_child_to_another_owner_through_a_contexts_update() -> None:
    structure = new_story().add_root("a").add_root("b").add_child("a", "x")
    moved = structure.apply([change("a", root=True), change("b", root=True, context_out=("x",))])
    assert moved.owners() == {"x": "b"}


def test_making_a_child_root_adds_it_to_the_order_and_back() -> None:
    structure = new_story().add_root("a").add_child("a", "x")
    promoted = structure.apply([change("a", root=True), change("x", root=True)])
    assert promoted.order == (WELCOME, FALLBACK, "a", "x")
    demoted = promoted.apply([change("a", root=True, context_out=("x",)), change("x")])
    assert demoted.order == (WELCOME, FALLBACK, "a")


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ([change("a", root=True)], "unreachable"),
        ([change("b", root=True, context_out=("x",))], "owned by a already"),
        ([change("a", root=True, context_out=("b",))], "is a root interaction"),
        ([change("a", root=True, context_out=("x",), references=("b",))], "must also be in"),
        ([change("a", root=True, context_out=("ghost",))], "is not an interaction"),
        ([change("a", root=True, context_out=("x", "x"))], "listed twice"),
        ([change(WELCOME, root=False)], "stay root"),
    ],
    ids=[
        "orphan",
        "two-owners",
        "owning-a-root",
        "reference-outside-contextOut",
        "unknown-id",
        "duplicate",
        "welcome-not-root",
    ],
)
def test_contexts_updates_that_break_an_invariant_are_refused(
    changes: list[ContextChange], message: str
) -> None:
    structure = new_story().add_root("a").add_root("b").add_child("a", "x")
    with pytest.raises(Invalid, match=message):
        structure.apply(changes)


def test_ownership_cycles_are_refused() -> None:
    structure = new_story().add_root("a").add_child("a", "x").add_child("x", "y")
    with pytest.raises(Invalid, match="cycle"):
        structure.apply([change("a", root=True), change("y", context_out=("x",))])


def test_context_lists_hold_at_most_fifty() -> None:
    structure = new_story()
    for index in range(51):
        structure = structure.add_root(f"r{index}")
    fifty = tuple(f"r{i}" for i in range(50))
    accepted = structure.apply([change("r50", root=True, context_out=fifty, references=fifty)])
    assert len(accepted.contexts["r50"].context_out) == 50
    with pytest.raises(Invalid, match="more than 50"):
        structure.apply(
            [change("r50", root=True, context_out=(*fifty, "r50"), references=(*fifty, "r50"))]
        )


def test_an_unknown_or_twice_listed_id_in_a_contexts_update() -> None:
    with pytest.raises(Unknown):
        new_story().apply([change("ghost")])
    with pytest.raises(Invalid, match="listed twice"):
        new_story().add_root("a").apply([change("a", root=True), change("a", root=True)])


def test_removing_an_interaction_removes_its_subtree_and_every_reference_to_it() -> None:
    structure = new_story().add_root("a").add_child("a", "x").add_child("x", "y").add_root("b")
    structure = structure.apply([change("b", root=True, context_out=("x",), references=("x",))])
    remaining, removed = structure.remove(["x"])
    assert removed == {"x", "y"}
    assert set(remaining.contexts) == {WELCOME, FALLBACK, "a", "b"}
    assert remaining.contexts["a"].context_out == ()
    assert remaining.contexts["b"].context_out == ()
    assert remaining.contexts["b"].references == ()


def test_removing_is_all_or_nothing() -> None:
    structure = new_story().add_root("a")
    with pytest.raises(Unknown):
        structure.remove(["a", "ghost"])
    with pytest.raises(Invalid, match="cannot be deleted"):
        structure.remove(["a", WELCOME])
    assert "a" in structure


def test_reordering_must_list_exactly_the_roots() -> None:
    structure = new_story().add_root("a").add_child("a", "x")
    assert structure.reorder(["a", FALLBACK, WELCOME]).order == ("a", FALLBACK, WELCOME)
    for wrong in (["a", WELCOME], ["a", WELCOME, FALLBACK, "x"], ["a", "a", WELCOME, FALLBACK]):
        with pytest.raises(Invalid, match="order"):
            structure.reorder(wrong)
