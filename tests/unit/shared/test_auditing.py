"""What an audit record says of a change (shared/auditing.py, shared/audit.py): field
names always, short values only of the fields a route shows, never a secret; who made
it, the command line too (shared/command_audit.py)."""

import getpass
from dataclasses import dataclass

import pytest

from shared.audit import DEVELOPER_TOKEN, Actor, actor_of
from shared.auditing import short, summary_of
from shared.auth import Principal, TokenKind
from shared.command_audit import command_line_actor


def test_a_developer_token_is_named_as_the_actor() -> None:
    actor = actor_of(Principal("a" * 24, TokenKind.DEVELOPER))

    assert actor == Actor(DEVELOPER_TOKEN, "developer", "Developer token")
    assert actor.as_json() == {
        "kind": "developer token",
        "id": "developer",
        "name": "Developer token",
    }


def test_only_the_fields_a_route_shows_carry_their_values() -> None:
    body = {
        "name": "Orders",
        "url": "https://user:pw@hooks.example/o",
        "token": "whsec_secret",
        "headers": {"X-Api-Key": "k-secret"},
        "credentials": {"botToken": "123:secret"},
    }

    summary = summary_of(("name",), body, {})

    assert summary == 'name: "Orders"; url; token; headers.X-Api-Key; credentials.botToken'
    assert "secret" not in summary and "pw" not in summary


def test_values_before_and_nested_fields_by_wildcard() -> None:
    body = {"name": "Pasta", "settings": {"lifespan": 3, "languages": ["en", "de"]}}
    before = {"name": "Pizza", "settings.lifespan": 2}

    summary = summary_of(("name", "settings.*"), body, before)

    assert (
        summary
        == 'name: "Pizza" -> "Pasta"; settings.lifespan: 2 -> 3; settings.languages: [2 items]'
    )


def test_values_are_shown_short() -> None:
    @dataclass(frozen=True)
    class Settings:
        lifespan: int = 2
        history: bool = True

    assert short("x" * 41) == '"' + "x" * 40 + '…"'
    assert short({"a": 1}) == "{1 fields}"
    assert short(Settings()) == "{2 fields}"
    assert (short(None), short(True), short(0.5)) == ("null", "true", "0.5")
    assert summary_of(("name",), ["not", "a", "mapping"], {}) == ""


def test_the_command_line_is_named_by_the_user_running_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LOGNAME", "ana")
    assert command_line_actor() == Actor("command line", "cli:ana", "ana")

    monkeypatch.setenv("LOGNAME", "x" * 100)
    assert len(command_line_actor().id) <= 64  # GET /audit?member= takes at most 64


def test_a_user_nothing_names_is_unknown(monkeypatch: pytest.MonkeyPatch) -> None:
    def nobody() -> str:
        raise OSError("No username set in the environment")  # as getuser() on Python 3.13

    monkeypatch.setattr(getpass, "getuser", nobody)
    assert command_line_actor() == Actor("command line", "cli:unknown", "unknown")
