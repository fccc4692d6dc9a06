"""The console's pages, the widget script and the demo chat page: templates and static
files only, each page with a Content-Security-Policy that allows scripts of this origin
and calls to this service and integrations-api alone. The pages call integrations-api
at `CONSOLE_INTEGRATIONS_URL`, or on their own origin when it is unset (behind the
gateway, which routes `/v2/integrations/` of the bot host to integrations-api)."""

import json
import re
from pathlib import Path

import aiohttp_jinja2
import jinja2
from aiohttp import web

from bot_api.domain.settings import LANGUAGE_TAGS
from bot_api.keys import CONFIG
from shared import roles
from shared.endpoints import PRINCIPAL
from shared.ids import is_object_id

HERE = Path(__file__).parent
STATIC = HERE / "static"
INTERACTION_ID = re.compile(
    r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$", re.I
)
WIDGET_SOURCES = ("fulfillment.js", "widget.js")

routes = web.RouteTableDef()


def content_security_policy(connect_to: str) -> str:
    return "; ".join(
        [
            "default-src 'none'",
            "script-src 'self'",
            "style-src 'self'",
            "img-src http: https: data:",
            f"connect-src 'self' {connect_to}".strip(),
            "form-action 'self'",
            "base-uri 'none'",
            "frame-ancestors 'none'",
        ]
    )


NAVIGATION = (
    ("/console/stories", "Stories"),
    ("/console/entities", "Entities"),
    ("/console/import", "Import"),
    ("/console/members", "Members"),
    ("/console/audit", "Audit log"),
)


def _navigation(request: web.Request) -> list[tuple[str, str]]:
    """The console's links, those the caller's role may open when the page knows who
    they are (a console session); every link when it does not (a token in the tab)."""
    principal = request.get(PRINCIPAL)
    if principal is None:
        return list(NAVIGATION)
    return [(path, name) for path, name in NAVIGATION if roles.allows(principal, "GET", path)]


def _page(request: web.Request, template: str, **context: object) -> web.Response:
    integrations_url = request.app[CONFIG].console_integrations_url
    shared = {
        "integrations_url": integrations_url,
        "language_tags": json.dumps(LANGUAGE_TAGS),
        "navigation": _navigation(request),
    }
    response = aiohttp_jinja2.render_template(template, request, {**shared, **context})
    response.headers["Content-Security-Policy"] = content_security_policy(integrations_url)
    response.headers["Referrer-Policy"] = "no-referrer"
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Cache-Control"] = "no-store"
    return response


def render_page(request: web.Request, template: str, **context: object) -> web.Response:
    """A page of another feature (sign-in's steps), with the console's headers."""
    return _page(request, template, **context)


def _story_id(request: web.Request) -> str:
    story_id = request.match_info["story"]
    if not is_object_id(story_id):
        raise web.HTTPNotFound(reason="no such story")
    return story_id


@routes.get("/console")
async def console_root(request: web.Request) -> web.StreamResponse:
    raise web.HTTPFound("/console/")


@routes.get("/console/")
async def sign_in(request: web.Request) -> web.Response:
    provider = "on" if request.app[CONFIG].oidc_issuer else ""
    return _page(request, "sign_in.html", page="sign-in", provider=provider)


@routes.get("/console/stories")
async def stories(request: web.Request) -> web.Response:
    return _page(request, "stories.html", page="stories")


@routes.get("/console/import")
async def import_story(request: web.Request) -> web.Response:
    return _page(request, "import.html", page="import")


@routes.get("/console/members")
async def members(request: web.Request) -> web.Response:
    return _page(request, "members.html", page="members")


@routes.get("/console/audit")
async def audit(request: web.Request) -> web.Response:
    return _page(request, "audit.html", page="audit")


@routes.get("/console/stories/{story}")
async def story(request: web.Request) -> web.Response:
    return _page(request, "story.html", page="story", story=_story_id(request))


@routes.get("/console/stories/{story}/analytics")
async def analytics(request: web.Request) -> web.Response:
    return _page(request, "analytics.html", page="analytics", story=_story_id(request))


@routes.get("/console/stories/{story}/interactions/{id}")
async def interaction(request: web.Request) -> web.Response:
    interaction_id = request.match_info["id"]
    if not INTERACTION_ID.match(interaction_id):
        raise web.HTTPNotFound(reason="no such interaction")
    story_id = _story_id(request)
    return _page(
        request, "interaction.html", page="interaction", story=story_id, interaction=interaction_id
    )


@routes.get("/console/stories/{story}/connections")
async def connections(request: web.Request) -> web.Response:
    return _page(request, "connections.html", page="connections", story=_story_id(request))


@routes.get("/console/stories/{story}/channels")
async def channels(request: web.Request) -> web.Response:
    return _page(request, "channels.html", page="channels", story=_story_id(request))


@routes.get("/console/stories/{story}/history")
async def history(request: web.Request) -> web.Response:
    return _page(request, "history.html", page="history", story=_story_id(request))


@routes.get("/console/stories/{story}/desk")
async def desk(request: web.Request) -> web.Response:
    return _page(request, "desk.html", page="desk", story=_story_id(request))


@routes.get("/console/stories/{story}/inbox")
async def inbox(request: web.Request) -> web.Response:
    return _page(request, "inbox.html", page="inbox", story=_story_id(request))


@routes.get("/console/stories/{story}/knowledge")
async def knowledge(request: web.Request) -> web.Response:
    return _page(request, "knowledge.html", page="knowledge", story=_story_id(request))


@routes.get("/console/stories/{story}/tests")
async def conversation_tests(request: web.Request) -> web.Response:
    return _page(request, "tests.html", page="tests", story=_story_id(request))


@routes.get("/console/entities")
async def entities(request: web.Request) -> web.Response:
    return _page(request, "entities.html", page="entities")


@routes.get("/console/entities/{entity}")
async def entity(request: web.Request) -> web.Response:
    entity_id = request.match_info["entity"]
    if not is_object_id(entity_id):
        raise web.HTTPNotFound(reason="no such entity")
    return _page(request, "entity.html", page="entity", entity=entity_id)


@routes.get("/chat/{story}")
async def demo_chat(request: web.Request) -> web.Response:
    """A page that embeds the widget; the public key comes from `?key=` (it is public), the
    page's language (the widget's `data-language`) from `?language=`."""
    key = request.query.get("key", "")
    language = request.query.get("language", "")
    story = _story_id(request)
    response = _page(request, "chat.html", page="chat", story=story, key=key, language=language)
    response.headers["Content-Security-Policy"] = content_security_policy("")
    return response


@routes.get("/widget.js")
async def widget_script(request: web.Request) -> web.Response:
    """One script with the fulfillment renderer the console's test chat shares."""
    source = "\n".join((STATIC / name).read_text() for name in WIDGET_SOURCES)
    return web.Response(
        text=source,
        content_type="text/javascript",
        headers={"Cache-Control": "public, max-age=300"},
    )


@routes.get("/favicon.ico")
async def favicon(request: web.Request) -> web.FileResponse:
    """Browsers ask for it on every page; the console's icon answers (an SVG)."""
    return web.FileResponse(
        STATIC / "favicon.svg",
        headers={"Content-Type": "image/svg+xml", "Cache-Control": "public, max-age=86400"},
    )


@routes.get("/widget.css")
async def widget_style(request: web.Request) -> web.FileResponse:
    return web.FileResponse(STATIC / "widget.css", headers={"Cache-Control": "public, max-age=300"})


def add_console(app: web.Application) -> None:
    aiohttp_jinja2.setup(app, loader=jinja2.FileSystemLoader(HERE / "templates"), autoescape=True)
    app.router.add_routes(routes)
    app.router.add_static("/console/static/", STATIC)
