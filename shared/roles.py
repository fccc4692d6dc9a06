"""Which roles may call each route of both services: one table, denying by default
(docs/teams.md "Roles").

Every route of bot-api and integrations-api has a row, its method and path pattern as
aiohttp registers it (HEAD is read as GET). A member calling a route without a row is
refused (a 403), and tests/e2e/test_roles.py fails on a route without one. The
account's developer token is the owner, allowed on every row, so what a SPEC client
sees does not change; the public key is a visitor, and is refused before this table
wherever it was before (`shared.endpoints`).

A member narrowed to some stories sees no other: a path naming another story answers
404 as another account's story would, and a row marked `whole_account` (creating a
story, changing an entity every story shares) is refused to them.
"""

from dataclasses import dataclass

from aiohttp import hdrs, web

from shared.auth import MEMBER_ROLES, Principal, Role
from shared.errors import Forbidden, NotFound


@dataclass(frozen=True)
class Access:
    roles: frozenset[Role] | None
    """None: public, asking for no token (a probe, a page shell, a platform's webhook)."""
    whole_account: bool = False
    """Refused to a member narrowed to some stories."""


OWNER, EDITOR, PUBLISHER, AGENT, VIEWER, VISITOR = (
    Role.OWNER,
    Role.EDITOR,
    Role.PUBLISHER,
    Role.AGENT,
    Role.VIEWER,
    Role.VISITOR,
)
PUBLIC = Access(None)
EVERY_MEMBER = Access(frozenset(MEMBER_ROLES))
READERS = Access(frozenset({OWNER, EDITOR, PUBLISHER, VIEWER}))
"""Read the stories and what they hold (viewers without secrets)."""
CONVERSATION_READERS = Access(frozenset({OWNER, EDITOR, PUBLISHER, AGENT, VIEWER}))
"""Read History and the handoffs: agents too."""
WRITERS = Access(frozenset({OWNER, EDITOR, PUBLISHER}))
ACCOUNT_WRITERS = Access(frozenset({OWNER, EDITOR, PUBLISHER}), whole_account=True)
PUBLISHERS = Access(frozenset({OWNER, PUBLISHER}))
"""Change what users meet: publish, restore, delete a story, its versions or
conversations, connect a channel."""
ANSWERERS = Access(frozenset({OWNER, AGENT}))
OWNERS = Access(frozenset({OWNER}), whole_account=True)
CHATTERS = Access(frozenset({OWNER, EDITOR, PUBLISHER, VIEWER, VISITOR}))
"""/query: the console's test chat, and the public key's visitors."""

PUBLISHING = frozenset({OWNER, PUBLISHER})
"""Who may change a story's published version (an editor edits the draft only)."""
SECRET_READERS = frozenset({OWNER, EDITOR, PUBLISHER})
"""Who reads secrets (connection credentials): not viewers."""

STORY = "/stories/{story}"
WEBHOOK = "/v2/integrations/webhook"
CHANNELS = "/v2/integrations/channels"
PAGES = "/console/stories/{story}"

ROUTES: dict[tuple[str, str], Access] = {
    # meta, both services
    ("GET", "/healthz"): PUBLIC,
    ("GET", "/readyz"): PUBLIC,
    ("GET", "/metrics"): PUBLIC,
    ("GET", "/openapi.json"): PUBLIC,
    # the account's members
    ("GET", "/account/me"): EVERY_MEMBER,
    ("GET", "/account/members"): OWNERS,
    ("POST", "/account/members"): OWNERS,
    ("GET", "/account/members/{id}"): OWNERS,
    ("PUT", "/account/members/{id}"): OWNERS,
    ("DELETE", "/account/members/{id}"): OWNERS,
    ("GET", "/account/members/{id}/tokens"): OWNERS,
    ("POST", "/account/members/{id}/tokens"): OWNERS,
    ("DELETE", "/account/members/{id}/tokens/{token}"): OWNERS,
    # the audit log
    ("GET", "/audit"): OWNERS,
    ("GET", "/audit/export"): OWNERS,
    # stories
    ("GET", "/stories"): EVERY_MEMBER,
    ("POST", "/stories"): ACCOUNT_WRITERS,
    ("GET", STORY): READERS,
    ("PUT", STORY): WRITERS,
    ("DELETE", STORY): PUBLISHERS,
    ("GET", STORY + "/export"): READERS,
    ("POST", "/stories/import"): ACCOUNT_WRITERS,
    ("*", "/stories/import"): PUBLIC,
    # entities (every story shares them)
    ("GET", "/entities"): READERS,
    ("POST", "/entities"): ACCOUNT_WRITERS,
    ("GET", "/entities/{id}"): READERS,
    ("PUT", "/entities/{id}"): ACCOUNT_WRITERS,
    ("DELETE", "/entities/{id}"): ACCOUNT_WRITERS,
    # interactions
    ("GET", STORY + "/interactions"): READERS,
    ("POST", STORY + "/interactions"): WRITERS,
    ("DELETE", STORY + "/interactions"): WRITERS,
    ("GET", STORY + "/interactions/{id}"): READERS,
    ("POST", STORY + "/interactions/{id}"): WRITERS,
    ("PUT", STORY + "/interactions/{id}"): WRITERS,
    ("PUT", STORY + "/contexts"): WRITERS,
    # conversations
    ("POST", "/query"): CHATTERS,
    ("GET", STORY + "/conversations"): CONVERSATION_READERS,
    ("GET", STORY + "/conversations/export"): CONVERSATION_READERS,
    ("GET", STORY + "/conversations/{session}"): CONVERSATION_READERS,
    ("DELETE", STORY + "/conversations/{session}"): PUBLISHERS,
    ("GET", STORY + "/handoffs"): CONVERSATION_READERS,
    ("GET", STORY + "/handoffs/events"): CONVERSATION_READERS,
    ("GET", STORY + "/handoffs/{session}"): CONVERSATION_READERS,
    ("POST", STORY + "/handoffs/{session}/take-over"): ANSWERERS,
    ("POST", STORY + "/handoffs/{session}/messages"): ANSWERERS,
    ("DELETE", STORY + "/handoffs/{session}"): ANSWERERS,
    ("GET", STORY + "/analytics"): READERS,
    # the inbox of missed questions
    ("GET", STORY + "/inbox"): READERS,
    ("POST", STORY + "/inbox/{cluster}/assign"): WRITERS,
    ("POST", STORY + "/inbox/{cluster}/interaction"): WRITERS,
    ("POST", STORY + "/inbox/{cluster}/ignore"): WRITERS,
    ("POST", STORY + "/inbox/reopen"): WRITERS,
    # versions
    ("POST", STORY + "/versions"): WRITERS,
    ("GET", STORY + "/versions"): READERS,
    ("GET", STORY + "/versions/{version}"): READERS,
    ("GET", STORY + "/versions/{version}/diff"): READERS,
    ("POST", STORY + "/versions/{version}/restore"): PUBLISHERS,
    ("DELETE", STORY + "/versions/{version}"): PUBLISHERS,
    # conversation tests
    ("GET", STORY + "/tests"): READERS,
    ("POST", STORY + "/tests"): WRITERS,
    ("POST", STORY + "/tests/run"): WRITERS,
    ("GET", STORY + "/tests/last"): READERS,
    ("*", STORY + "/tests/run"): PUBLIC,
    ("*", STORY + "/tests/last"): PUBLIC,
    ("GET", STORY + "/tests/{test}"): READERS,
    ("PUT", STORY + "/tests/{test}"): WRITERS,
    ("DELETE", STORY + "/tests/{test}"): WRITERS,
    # knowledge
    ("GET", STORY + "/knowledge"): READERS,
    ("POST", STORY + "/knowledge"): WRITERS,
    ("GET", STORY + "/knowledge/{document}"): READERS,
    ("GET", STORY + "/knowledge/{document}/passages"): READERS,
    ("PUT", STORY + "/knowledge/{document}"): WRITERS,
    ("POST", STORY + "/knowledge/{document}/fetch"): WRITERS,
    ("DELETE", STORY + "/knowledge/{document}"): WRITERS,
    # the console's pages: shells, each for those who may read what it shows
    ("GET", "/console"): PUBLIC,
    ("GET", "/console/"): PUBLIC,
    ("GET", "/console/static"): PUBLIC,
    # signing in with the identity provider: each step holds its own cookie, no token
    ("GET", "/console/sign-in/start"): PUBLIC,
    ("GET", "/console/sign-in/callback"): PUBLIC,
    ("POST", "/console/sign-in/account"): PUBLIC,
    ("GET", "/console/session"): PUBLIC,
    ("POST", "/console/sign-out"): PUBLIC,
    ("GET", "/console/stories"): EVERY_MEMBER,
    ("GET", "/console/import"): ACCOUNT_WRITERS,
    ("GET", "/console/members"): OWNERS,
    ("GET", "/console/audit"): OWNERS,
    ("GET", PAGES): READERS,
    ("GET", PAGES + "/analytics"): READERS,
    ("GET", PAGES + "/interactions/{id}"): READERS,
    ("GET", PAGES + "/connections"): READERS,
    ("GET", PAGES + "/channels"): READERS,
    ("GET", PAGES + "/history"): CONVERSATION_READERS,
    ("GET", PAGES + "/desk"): CONVERSATION_READERS,
    ("GET", PAGES + "/inbox"): READERS,
    ("GET", PAGES + "/knowledge"): READERS,
    ("GET", PAGES + "/tests"): READERS,
    ("GET", "/console/entities"): READERS,
    ("GET", "/console/entities/{entity}"): READERS,
    # the widget and its demo page, for the public key's visitors
    ("GET", "/chat/{story}"): PUBLIC,
    ("GET", "/widget.js"): PUBLIC,
    ("GET", "/widget.css"): PUBLIC,
    ("GET", "/favicon.ico"): PUBLIC,
    # integrations-api
    ("GET", WEBHOOK): READERS,
    ("POST", WEBHOOK): WRITERS,
    ("GET", WEBHOOK + "/{id}"): READERS,
    ("PUT", WEBHOOK + "/{id}"): WRITERS,
    ("DELETE", WEBHOOK + "/{id}"): WRITERS,
    ("GET", CHANNELS): READERS,
    ("POST", CHANNELS): PUBLISHERS,
    ("GET", CHANNELS + "/{id}"): READERS,
    ("PUT", CHANNELS + "/{id}"): PUBLISHERS,
    ("DELETE", CHANNELS + "/{id}"): PUBLISHERS,
    ("POST", "/v2/channels/{id}"): PUBLIC,
    ("GET", "/v2/channels/{id}"): PUBLIC,
}


def route_key(request: web.Request) -> tuple[str, str] | None:
    """(method, path pattern) of the matched route, HEAD read as GET; None when no
    route matched (the 404 or 405 aiohttp answers)."""
    route = request.match_info.route
    if route.resource is None or request.match_info.http_exception is not None:
        return None
    method = hdrs.METH_GET if route.method == hdrs.METH_HEAD else route.method
    return method, route.resource.canonical


def access_of(request: web.Request) -> Access | None:
    key = route_key(request)
    return None if key is None else ROUTES.get(key)


def check(principal: Principal, request: web.Request) -> None:
    """Refuse the caller a route their role may not call (a 403), and a story outside
    theirs (a 404)."""
    key = route_key(request)
    if key is None:
        return
    access = ROUTES.get(key)
    if access is None:
        if principal.member_id is not None:
            raise Forbidden(f"{key[0]} {key[1]} is open to no member role")
        return
    if access.roles is not None and principal.role not in access.roles:
        raise Forbidden(f"the {principal.role.value} role cannot call {key[0]} {key[1]}")
    if principal.stories is not None:
        if access.whole_account:
            raise Forbidden(
                "a member narrowed to some stories cannot change what the whole account shares"
            )
        story_id = request.match_info.get("story")
        if story_id is not None:
            require_story(principal, story_id)


def allows(principal: Principal, method: str, path: str) -> bool:
    """Whether the caller's role may call the route whose pattern is `path` (a link the
    console shows them), as `check` would judge it for a path naming no story."""
    access = ROUTES.get((method, path))
    if access is None:
        return principal.member_id is None
    if access.roles is not None and principal.role not in access.roles:
        return False
    return principal.stories is None or not access.whole_account


def require_story(principal: Principal, story_id: str) -> None:
    """A story outside the caller's is answered as another account's (a 404)."""
    if not principal.covers(story_id):
        raise NotFound(f"no story {story_id}")


def require_role(principal: Principal, roles: frozenset[Role], what: str) -> None:
    if principal.role not in roles:
        raise Forbidden(f"the {principal.role.value} role cannot {what}")
