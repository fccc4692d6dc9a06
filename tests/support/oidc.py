"""A real local OpenID Connect provider for the sign-in tests: `oidc-provider-mock` (PyPI),
run on a thread of the test process, and the steps a browser takes through it.

The provider names itself by the host it is called on (`http://localhost:<port>`); called
as `http://127.0.0.1:<port>` it signs the same way as another issuer, which the tests use.
Its authorization form signs in whoever's subject is typed in; `PUT /users/<sub>` gives
that person claims (e-mail, name).
"""

import json
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from urllib.parse import parse_qs, urlencode, urlsplit

import aiohttp
from oidc_provider_mock import run_server_in_thread

CLIENT_ID = "parley-console"
CLIENT_SECRET = "s3cret-of-the-console-client"


@contextmanager
def identity_provider() -> Iterator[str]:
    """The issuer URL of a provider running until the block ends."""
    with run_server_in_thread() as server:
        yield f"http://localhost:{server.server_port}"


def add_person(issuer: str, subject: str, **claims: object) -> None:
    """The person the provider signs in as `subject`, with these claims."""
    request = urllib.request.Request(
        f"{issuer}/users/{subject}",
        data=json.dumps(claims).encode(),
        method="PUT",
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=10) as answer:
        assert answer.status == 204


def browser() -> aiohttp.ClientSession:
    """An HTTP client that keeps cookies as a browser does, of IP hosts too."""
    return aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True))


async def authorize(http: aiohttp.ClientSession, authorization_url: str, subject: str) -> str:
    """Submits the provider's form as `subject`; the redirect back (the callback URL)."""
    async with http.get(authorization_url) as form:
        assert form.status == 200, await form.text()
    async with http.post(authorization_url, data={"sub": subject}, allow_redirects=False) as sent:
        assert sent.status == 302, await sent.text()
        return sent.headers["Location"]


async def deny(http: aiohttp.ClientSession, authorization_url: str) -> str:
    async with http.post(authorization_url, data={"action": "deny"}, allow_redirects=False) as sent:
        assert sent.status == 302, await sent.text()
        return sent.headers["Location"]


async def id_token_of(
    issuer_as_called: str, subject: str, *, client_id: str = CLIENT_ID, nonce: str = "n-1"
) -> str:
    """An ID token the provider issues to `client_id` for `subject`, through its own code
    flow (the redirect is never followed: the code is read off it)."""
    redirect = "http://127.0.0.1:9/callback"
    query = urlencode(
        {
            "response_type": "code",
            "client_id": client_id,
            "redirect_uri": redirect,
            "scope": "openid email profile",
            "state": "s",
            "nonce": nonce,
        }
    )
    async with browser() as http:
        callback = await authorize(http, f"{issuer_as_called}/oauth2/authorize?{query}", subject)
        code = parse_qs(urlsplit(callback).query)["code"][0]
        form = {"grant_type": "authorization_code", "code": code, "redirect_uri": redirect}
        auth = {"Authorization": aiohttp.encode_basic_auth(client_id, CLIENT_SECRET)}
        token_endpoint = f"{issuer_as_called}/oauth2/token"
        async with http.post(token_endpoint, data=form, headers=auth) as answer:
            assert answer.status == 200, await answer.text()
            return str((await answer.json())["id_token"])
