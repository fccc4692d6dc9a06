"""The console's pages for a member signed in with the identity provider: each held to
its row of the roles table, its navigation the pages the role may open (docs/teams.md
"Roles")."""

import aiohttp

from support.console_sign_in import Console, follow, sign_in, signed_in_as

NAVIGATION = ("Stories", "Entities", "Import", "Members", "Audit log")


def links_in(page: str) -> list[str]:
    nav = page.split('<nav aria-label="Console">')[1].split("</nav>")[0]
    return [name for name in NAVIGATION if f">{name}</a>" in nav]


async def test_an_agent_opens_the_pages_of_their_role_and_sees_only_those_links(
    http: aiohttp.ClientSession, console: Console
) -> None:
    await signed_in_as(http, console, "agent")
    status, page, _ = await follow(http, f"{console.url}/console/stories")
    assert status == 200 and links_in(page) == ["Stories"]
    for refused in ("/console/members", "/console/audit", "/console/import", "/console/entities"):
        async with http.get(f"{console.url}{refused}") as answer:
            assert answer.status == 403, refused
            assert "agent role cannot" in (await answer.json())["status"]["errorDetails"]


async def test_a_narrowed_editor_meets_another_story_as_no_story(
    http: aiohttp.ClientSession, console: Console
) -> None:
    tokens = await console.account("acme")
    mine = (
        await console.as_owner(tokens, "POST", "/stories", {"name": "Pizza", "description": ""})
    )["id"]
    other = (
        await console.as_owner(tokens, "POST", "/stories", {"name": "Pasta", "description": ""})
    )["id"]
    await console.member(tokens, "ada@example.com", "Ada", stories=[mine])
    await follow(http, await sign_in(http, console, "ada"))
    status, page, _ = await follow(http, f"{console.url}/console/stories/{mine}")
    assert status == 200 and links_in(page) == ["Stories", "Entities"]
    async with http.get(f"{console.url}/console/stories/{other}/history") as answer:
        assert answer.status == 404


async def test_an_owner_sees_every_link(http: aiohttp.ClientSession, console: Console) -> None:
    await signed_in_as(http, console, "owner")
    status, page, _ = await follow(http, f"{console.url}/console/members")
    assert status == 200 and links_in(page) == list(NAVIGATION)


async def test_a_session_that_ended_gets_the_shell_which_sends_the_browser_to_sign_in(
    http: aiohttp.ClientSession, console: Console
) -> None:
    tokens, ada = await signed_in_as(http, console, "agent")
    assert (await follow(http, f"{console.url}/console/members"))[0] == 403
    await console.as_owner(tokens, "DELETE", f"/account/members/{ada}")
    status, page, _ = await follow(http, f"{console.url}/console/members")
    assert status == 200 and links_in(page) == list(NAVIGATION)
