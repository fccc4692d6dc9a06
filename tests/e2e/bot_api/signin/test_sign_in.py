"""Sign-in to the console over HTTP, through a real local identity provider
(oidc-provider-mock): the whole code flow as a browser follows it, the session cookie on
the management API, CSRF, sign-out, replays and refusals (docs/teams.md "Sign-in")."""

import dataclasses
import logging
from http.cookies import SimpleCookie
from urllib.parse import parse_qs, urlsplit

import aiohttp
import pytest
from pytest_aiohttp import AiohttpClient
from yarl import URL

from bot_api.app import create_app
from integrations_api.app import create_app as create_integrations_api
from shared.config import Config
from shared.console_sessions import CSRF_HEADER, SESSION_COOKIE
from support.browser import free_port
from support.console_sign_in import (
    Console,
    begin,
    csrf_of,
    follow,
    session_of,
    sign_in,
    signed_in_as,
)
from support.oidc import (
    CLIENT_ID,
    CLIENT_SECRET,
    authorize,
    browser,
    deny,
)
from support.raw_http import exchange


async def test_the_code_flow_signs_a_member_in_with_a_cookie(
    http: aiohttp.ClientSession, console: Console, issuer: str
) -> None:
    tokens = await console.account("acme")
    await console.member(tokens, "ADA@example.com", "Ada")
    authorization = await begin(http, console)
    sent = parse_qs(urlsplit(authorization).query)
    assert authorization.startswith(f"{issuer}/oauth2/authorize?")
    assert sent["code_challenge_method"] == ["S256"] and len(sent["code_challenge"][0]) == 43
    assert sent["scope"] == ["openid email profile"] and sent["nonce"] and sent["state"]
    assert "code_verifier" not in sent and CLIENT_SECRET not in authorization
    status, _, headers = await follow(http, await authorize(http, authorization, "ada"))
    assert (status, headers["Location"]) == (303, "/console/stories")
    cookie = SimpleCookie(headers["Set-Cookie"])[SESSION_COOKIE]
    assert cookie["httponly"] and cookie["samesite"] == "Lax" and cookie["path"] == "/"
    assert not cookie["secure"], "plain http on loopback"
    async with http.get(f"{console.url}/console/session") as answer:
        session = await answer.json()
    assert (session["accountId"], session["memberName"]) == (tokens.account_id, "Ada")
    async with http.get(f"{console.url}/stories") as stories:
        assert (stories.status, await stories.json()) == (200, [])


async def test_a_change_by_cookie_must_carry_the_csrf_token(
    http: aiohttp.ClientSession, console: Console
) -> None:
    await console.member(await console.account("acme"), "ada@example.com", "Ada")
    await follow(http, await sign_in(http, console, "ada"))
    story = {"name": "Pizza", "description": ""}
    for headers in ({}, {CSRF_HEADER: "not-the-token"}):
        async with http.post(f"{console.url}/stories", json=story, headers=headers) as refused:
            body = await refused.json()
            assert refused.status == 403
            assert body["status"]["errorType"] == "forbidden"
            assert CSRF_HEADER in body["status"]["errorDetails"]
    headers = {CSRF_HEADER: await csrf_of(http, console)}
    async with http.post(f"{console.url}/stories", json=story, headers=headers) as created:
        assert created.status == 200, await created.text()
    async with http.get(f"{console.url}/stories") as listed:
        assert [s["name"] for s in await listed.json()] == ["Pizza"]


async def test_a_token_sent_wins_over_the_cookie(
    http: aiohttp.ClientSession, console: Console
) -> None:
    await console.member(await console.account("acme"), "ada@example.com", "Ada")
    other = await console.account("other")
    await follow(http, await sign_in(http, console, "ada"))
    bearer = {"Authorization": f"Bearer {other.developer_token}"}
    story = {"name": "B", "description": ""}
    async with http.post(f"{console.url}/stories", json=story, headers=bearer) as made:
        assert made.status == 200, "no CSRF token needed with a token"
    async with http.get(f"{console.url}/stories") as mine:
        assert await mine.json() == [], "the story is the token's account's"


async def test_integrations_api_takes_the_same_session_from_the_consoles_origin(
    http: aiohttp.ClientSession, console: Console, aiohttp_client: AiohttpClient
) -> None:
    """The console on bot-api's origin calls integrations-api on another (`make run`):
    the browser sends the cookie there, which that origin's CORS lets it read."""
    await console.member(await console.account("acme"), "ada@example.com", "Ada")
    await follow(http, await sign_in(http, console, "ada"))
    config = dataclasses.replace(console.config, api_origins=(console.url,))
    integrations = await aiohttp_client(create_integrations_api(config))
    cookie = {"Cookie": f"{SESSION_COOKIE}={session_of(http, console)}"}
    for origin, credentials in ((console.url, "true"), ("https://elsewhere.example", None)):
        headers = {**cookie, "Origin": origin}
        async with integrations.get("/v2/integrations/webhook", headers=headers) as listed:
            assert (listed.status, await listed.json()) == (200, [])
            assert listed.headers.get("Access-Control-Allow-Credentials") == credentials
    preflight = {"Origin": console.url, "Access-Control-Request-Method": "POST"}
    async with integrations.options("/v2/integrations/webhook", headers=preflight) as answer:
        assert CSRF_HEADER in answer.headers["Access-Control-Allow-Headers"]
    body = {"name": "n", "url": "https://example.com/hook"}
    async with integrations.post("/v2/integrations/webhook", json=body, headers=cookie) as made:
        assert made.status == 403
        assert CSRF_HEADER in (await made.json())["status"]["errorDetails"]


async def test_the_cookie_carries_the_members_role_as_it_is_now(
    http: aiohttp.ClientSession, console: Console
) -> None:
    tokens, member_id = await signed_in_as(http, console, "viewer")
    headers = {CSRF_HEADER: await csrf_of(http, console)}
    story = {"name": "Pizza", "description": ""}
    async with http.post(f"{console.url}/stories", json=story, headers=headers) as refused:
        assert refused.status == 403, "a viewer makes no story"
        assert "viewer" in (await refused.json())["status"]["errorDetails"]
    change = {"email": "ada@example.com", "name": "Ada", "role": "editor"}
    await console.as_owner(tokens, "PUT", f"/account/members/{member_id}", change)
    async with http.post(f"{console.url}/stories", json=story, headers=headers) as made:
        assert made.status == 200, "an editor does, at once"
    await console.as_owner(tokens, "DELETE", f"/account/members/{member_id}")
    async with http.get(f"{console.url}/stories") as gone:
        assert gone.status == 401, "a member removed is signed out"


async def test_sign_out_ends_the_session_on_the_server(
    http: aiohttp.ClientSession, console: Console
) -> None:
    await console.member(await console.account("acme"), "ada@example.com", "Ada")
    await follow(http, await sign_in(http, console, "ada"))
    session_id = session_of(http, console)
    async with http.post(f"{console.url}/console/sign-out") as refused:
        assert refused.status == 403
    headers = {CSRF_HEADER: await csrf_of(http, console)}
    async with http.post(f"{console.url}/console/sign-out", headers=headers) as ended:
        assert ended.status == 200
        at_provider = URL((await ended.json())["providerSignOut"])
    assert str(at_provider.with_query(None)) == f"{console.config.oidc_issuer}/oauth2/end_session"
    assert dict(at_provider.query) == {
        "client_id": CLIENT_ID,
        "post_logout_redirect_uri": f"{console.url}/console/",
    }, "no ID token in the URL"
    assert session_of(http, console) == ""
    async with aiohttp.ClientSession() as other:
        kept = {"Cookie": f"{SESSION_COOKIE}={session_id}"}
        async with other.get(f"{console.url}/stories", headers=kept) as answer:
            assert answer.status == 401, "a copy of the cookie signs nobody in"


async def test_a_replayed_callback_signs_nobody_in(
    http: aiohttp.ClientSession, console: Console
) -> None:
    await console.member(await console.account("acme"), "ada@example.com", "Ada")
    callback = await sign_in(http, console, "ada")
    assert (await follow(http, callback))[0] == 303
    status, _, headers = await follow(http, callback)
    assert status == 400 and "Set-Cookie" not in headers
    await begin(http, console)  # a sign-in cookie again: the state alone is refused
    status, page, headers = await follow(http, callback)
    assert status == 400 and "Set-Cookie" not in headers
    assert "already used" in page


async def test_a_callback_in_another_browser_signs_nobody_in(
    http: aiohttp.ClientSession, console: Console
) -> None:
    """A sign-in forced on someone: the attacker's callback, opened in the victim's browser."""
    await console.member(await console.account("acme"), "eve@example.com", "Eve")
    attackers = await sign_in(http, console, "eve")
    async with browser() as victim:
        await begin(victim, console)  # the victim has a sign-in cookie of their own
        status, _, headers = await follow(victim, attackers)
        assert status == 400 and "Set-Cookie" not in headers
        async with browser() as fresh:
            assert (await follow(fresh, attackers))[0] == 400
    assert (await follow(http, attackers))[0] == 400, "the state was taken once"


async def test_a_person_who_is_no_member_is_refused(
    http: aiohttp.ClientSession, console: Console
) -> None:
    await console.member(await console.account("acme"), "ada@example.com", "Ada")
    status, page, _ = await follow(http, await sign_in(http, console, "eve"))
    assert status == 403 and "not a member of any account" in page
    assert session_of(http, console) == ""
    status, page, _ = await follow(http, await sign_in(http, console, "una"))
    assert status == 403, "una's address is ada's, but not verified"


async def test_a_sign_in_the_provider_denied_is_refused(
    http: aiohttp.ClientSession, console: Console
) -> None:
    status, page, _ = await follow(http, await deny(http, await begin(http, console)))
    assert status == 403 and "access_denied" in page


async def test_a_member_of_several_accounts_chooses_one(
    http: aiohttp.ClientSession, console: Console
) -> None:
    acme, beta = await console.account("acme"), await console.account("beta")
    await console.member(acme, "ada@example.com", "Ada")
    in_beta = await console.member(beta, "ada@example.com", "Ada B")
    status, page, headers = await follow(http, await sign_in(http, console, "ada"))
    assert status == 200 and "acme" in page and "beta" in page and "Set-Cookie" not in headers
    choice = page.split('name="choice" value="')[1].split('"')[0]
    form = {"choice": choice, "member": in_beta}
    chosen = f"{console.url}/console/sign-in/account"
    async with http.post(chosen, data=form, allow_redirects=False) as answer:
        assert answer.status == 303
    async with http.get(f"{console.url}/console/session") as answer:
        assert (await answer.json())["accountId"] == beta.account_id
    async with http.post(chosen, data=form, allow_redirects=False) as again:
        assert again.status == 400, "a choice is made once"


async def test_a_provider_that_does_not_answer_is_a_page_not_a_crash(
    aiohttp_client: AiohttpClient, console: Console
) -> None:
    gone = dataclasses.replace(console.config, oidc_issuer=f"http://127.0.0.1:{free_port()}")
    client = await aiohttp_client(create_app(gone))
    async with client.get("/console/sign-in/start", allow_redirects=False) as answer:
        assert answer.status == 502
        assert "does not answer" in await answer.text()
        assert "Set-Cookie" not in answer.headers


async def test_without_a_provider_the_sign_in_routes_are_not_found(
    aiohttp_client: AiohttpClient, config: Config
) -> None:
    client = await aiohttp_client(create_app(config))
    for method, path in (("GET", "/console/sign-in/start"), ("POST", "/console/sign-out")):
        async with client.request(method, path, allow_redirects=False) as answer:
            assert answer.status == 404
    async with client.get("/console/") as page:
        assert "identity provider" not in await page.text()


@pytest.mark.parametrize("path", ["/stories", "/console/session"])
async def test_cookies_of_bytes_that_are_no_text_sign_nobody_in(
    console: Console, path: str
) -> None:
    url = urlsplit(console.url)
    cookies = f"{SESSION_COOKIE}=\xff\xfe; parley_sign_in=\xff".encode("latin-1")
    request = (
        f"GET {path}?state=%FF&code=c HTTP/1.1\r\nHost: {url.netloc}\r\n".encode()
        + b"Cookie: "
        + cookies
        + b"\r\nConnection: close\r\n\r\n"
    )
    status, _ = await exchange(url.hostname or "", url.port or 0, request)
    assert status in (400, 401)


async def test_no_secret_reaches_a_page_or_a_log(
    http: aiohttp.ClientSession, console: Console, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    await console.member(await console.account("acme"), "ada@example.com", "Ada")
    callback = await sign_in(http, console, "ada")
    code = parse_qs(urlsplit(callback).query)["code"][0]
    pages = [(await follow(http, callback))[1]]
    for path in ("/console/", "/console/stories", "/console/session"):
        async with http.get(f"{console.url}{path}") as answer:
            pages.append(await answer.text())
    secrets = (CLIENT_SECRET, session_of(http, console), code)
    # the services' own lines: not the provider's, nor the test server's access log (the
    # services run without one, shared/serving.py)
    theirs = ("werkzeug", "oidc_provider_mock", "aiohttp.access")
    ours = [r.getMessage() for r in caplog.records if not r.name.startswith(theirs)]
    assert any(r.name == "parley.requests" for r in caplog.records)
    assert all(secrets)
    assert [s for s in secrets for text in pages + ours if s in text] == []
