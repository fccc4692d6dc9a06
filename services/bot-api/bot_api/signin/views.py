"""Sign-in's routes (docs/teams.md "Sign-in"): each a 404 without an identity provider.

`start` sends the browser to the provider, `callback` takes it back and sets the session
cookie (or offers the accounts of a member of several), `session` tells the console's
pages who is signed in and their CSRF token, `sign-out` ends the session.

Cookies are HttpOnly, `SameSite=Lax` (the provider's redirect back is a navigation from
its site: a Strict cookie would not come along), `Path=/` and Secure over https, where
their names take the `__Host-` prefix.
"""

from aiohttp import web

from bot_api.console.pages import render_page
from bot_api.keys import CONFIG, CONSOLE_SESSIONS, RATE_LIMITS
from bot_api.signin.keys import SIGN_IN
from bot_api.signin.provider import ProviderUnavailable
from bot_api.signin.service import (
    ATTEMPT_LIFETIME,
    CALLBACK_PATH,
    Offered,
    SignInRefused,
    SignInService,
)
from shared.config import Config
from shared.console_sessions import (
    CSRF_HEADER,
    IssuedSession,
    csrf_matches,
    session_cookie_name,
)
from shared.endpoints import client_of
from shared.errors import Forbidden, NotFound, Unauthorized

BROWSER_COOKIE = "parley_sign_in"

routes = web.RouteTableDef()


@routes.get("/console/sign-in/start")
async def start(request: web.Request) -> web.StreamResponse:
    config, service = request.app[CONFIG], _service(request)
    browser = request.cookies.get(_browser_cookie(config))
    try:
        started = await service.begin(browser, client_of(request))
    except ProviderUnavailable:
        return _refused(request, 502, "The identity provider does not answer: try again soon.")
    response = web.Response(status=302, headers={"Location": started.authorization_url})
    max_age = int(ATTEMPT_LIFETIME.total_seconds())
    _set_cookie(response, config, _browser_cookie(config), started.browser, max_age)
    _no_store(response)
    return response


@routes.get(CALLBACK_PATH)
async def callback(request: web.Request) -> web.StreamResponse:
    config, query, service = request.app[CONFIG], request.query, _service(request)
    browser = request.cookies.get(_browser_cookie(config), "")
    if "error" in query:
        said = query["error"][:60]
        return _refused(request, 403, f"The identity provider did not sign you in ({said}).")
    state, code = query.get("state", ""), query.get("code", "")
    if not (state and code and browser):
        return _refused(request, 400, "This is not an answer to a sign-in of this browser.")
    try:
        outcome = await service.finish(state, code, browser)
    except SignInRefused as refused:
        return _refused(request, refused.status, refused.message)
    except ProviderUnavailable:
        return _refused(request, 502, "The identity provider does not answer: try again soon.")
    if isinstance(outcome, Offered):
        return _choose(request, outcome)
    return _signed_in(config, outcome)


@routes.post("/console/sign-in/account")
async def choose_account(request: web.Request) -> web.StreamResponse:
    config, service = request.app[CONFIG], _service(request)
    form = await request.post()
    choice, member = form.get("choice"), form.get("member")
    browser = request.cookies.get(_browser_cookie(config), "")
    if not (isinstance(choice, str) and isinstance(member, str) and browser):
        return _refused(request, 400, "This is not a choice of this browser: sign in again.")
    try:
        session = await service.choose(choice, browser, member)
    except SignInRefused as refused:
        return _refused(request, refused.status, refused.message)
    return _signed_in(config, session)


@routes.get("/console/session")
async def session(request: web.Request) -> web.Response:
    """Who the session cookie signs in, for the console's pages (which cannot read an
    HttpOnly cookie), with the CSRF token their changes carry."""
    _service(request)
    client = client_of(request)
    limits = request.app[RATE_LIMITS]
    limits.check_authentication(client)
    session_id = request.cookies.get(session_cookie_name(request.app[CONFIG].console_url))
    found = session_id and await request.app[CONSOLE_SESSIONS].find(session_id)
    if not found:
        limits.authentication_failed(client)
        raise Unauthorized("not signed in to the console")
    answer = web.json_response(
        {
            "accountId": found.account_id,
            "memberId": found.member_id,
            "memberName": found.member_name,
            "csrfToken": found.csrf_token,
            "expiresAt": found.expires_at.isoformat(),
        }
    )
    _no_store(answer)
    return answer


@routes.post("/console/sign-out")
async def sign_out(request: web.Request) -> web.Response:
    """Ends the session (with its CSRF token, so no other site can sign anyone out) and
    clears the cookie; a browser with no session live is only cleared. The answer names
    where the page sends the browser to sign out of the provider too (null: nowhere)."""
    config, service = request.app[CONFIG], _service(request)
    name = session_cookie_name(config.console_url)
    session_id = request.cookies.get(name, "")
    found = session_id and await request.app[CONSOLE_SESSIONS].find(session_id)
    provider_sign_out = None
    if found:
        if not csrf_matches(request.headers.get(CSRF_HEADER), found):
            raise Forbidden(f"signing out must carry {CSRF_HEADER}")
        provider_sign_out = await service.sign_out(session_id)
    response = web.json_response({"providerSignOut": provider_sign_out})
    _no_store(response)
    response.del_cookie(name, path="/", secure=_secure(config), httponly=True, samesite="Lax")
    return response


def _service(request: web.Request) -> SignInService:
    service = request.app.get(SIGN_IN)
    if service is None:
        raise NotFound("this deployment signs in with no identity provider (OIDC_ISSUER)")
    return service


def _signed_in(config: Config, issued: IssuedSession) -> web.Response:
    response = web.Response(status=303, headers={"Location": "/console/stories"})
    name = session_cookie_name(config.console_url)
    _set_cookie(response, config, name, issued.session_id, config.console_session_hours * 3600)
    browser = _browser_cookie(config)
    response.del_cookie(browser, path="/", secure=_secure(config), httponly=True, samesite="Lax")
    _no_store(response)
    return response


def _choose(request: web.Request, offered: Offered) -> web.Response:
    return render_page(
        request,
        "sign_in_choose.html",
        page="sign-in-step",
        person=offered.person,
        choice=offered.choice_id,
        accounts=[(member.member_id, name) for member, name in offered.accounts],
    )


def _refused(request: web.Request, status: int, message: str) -> web.Response:
    response = render_page(request, "sign_in_refused.html", page="sign-in-step", message=message)
    response.set_status(status)
    return response


def _set_cookie(
    response: web.StreamResponse, config: Config, name: str, value: str, max_age: int
) -> None:
    response.set_cookie(
        name,
        value,
        max_age=max_age,
        path="/",
        secure=_secure(config),
        httponly=True,
        samesite="Lax",
    )


def _secure(config: Config) -> bool:
    return config.console_url.startswith("https://")


def _browser_cookie(config: Config) -> str:
    return f"__Host-{BROWSER_COOKIE}" if _secure(config) else BROWSER_COOKIE


def _no_store(response: web.StreamResponse) -> None:
    response.headers["Cache-Control"] = "no-store"
    response.headers["Referrer-Policy"] = "no-referrer"
