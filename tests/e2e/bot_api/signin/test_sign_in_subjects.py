"""Members found by the identity provider's subject (docs/teams.md "Sign-in"): a member
found by e-mail is linked to the subject at their first sign-in, with an audit record,
and from then on the subject, not the address, is who they are."""

import aiohttp

from support.console_sign_in import Console, follow, sign_in
from support.oidc import add_person


async def member_of(console: Console, tokens: object, member_id: str) -> dict[str, object]:
    member: dict[str, object] = await console.as_owner(
        tokens, "GET", f"/account/members/{member_id}"
    )
    return member


async def test_a_member_found_by_email_is_linked_to_the_subject_and_then_found_by_it(
    http: aiohttp.ClientSession, console: Console, issuer: str
) -> None:
    add_person(issuer, "grace-1", email="grace@example.com", email_verified=True)
    tokens = await console.account("acme")
    grace = await console.member(tokens, "grace@example.com", "Grace")
    assert (await member_of(console, tokens, grace))["subject"] is None
    status, _, _ = await follow(http, await sign_in(http, console, "grace-1"))
    assert status == 303
    assert (await member_of(console, tokens, grace))["subject"] == "grace-1"
    audit = await console.as_owner(tokens, "GET", "/audit?kind=member.link")
    [record] = audit["items"]
    assert (record["actor"]["id"], record["target"]) == (grace, grace)
    assert "grace@example.com" in record["summary"]

    add_person(issuer, "grace-1", email="grace.hopper@example.org", email_verified=True)
    http.cookie_jar.clear()
    status, _, _ = await follow(http, await sign_in(http, console, "grace-1"))
    assert status == 303, "her address changed at the provider: her subject still signs her in"
    audit = await console.as_owner(tokens, "GET", "/audit?kind=member.link")
    assert len(audit["items"]) == 1, "linked once"

    add_person(issuer, "mallory", email="grace@example.com", email_verified=True)
    http.cookie_jar.clear()
    status, page, _ = await follow(http, await sign_in(http, console, "mallory"))
    assert status == 403 and "not a member" in page, "the address now given to another"


async def test_a_member_given_a_subject_signs_in_without_an_email(
    http: aiohttp.ClientSession, console: Console, issuer: str
) -> None:
    add_person(issuer, "kc-5f3a", name="Carol")
    tokens = await console.account("acme")
    carol = await console.member(tokens, "carol@example.com", "Carol", subject="kc-5f3a")
    status, _, headers = await follow(http, await sign_in(http, console, "kc-5f3a"))
    assert (status, headers["Location"]) == (303, "/console/stories")
    async with http.get(f"{console.url}/console/session") as answer:
        assert (await answer.json())["memberId"] == carol


async def test_a_subject_linked_in_one_account_still_finds_another_by_email(
    http: aiohttp.ClientSession, console: Console, issuer: str
) -> None:
    add_person(issuer, "hedy-1", email="hedy@example.com", email_verified=True)
    acme, beta = await console.account("acme"), await console.account("beta")
    in_acme = await console.member(acme, "hedy.l@example.com", "Hedy", subject="hedy-1")
    in_beta = await console.member(beta, "hedy@example.com", "Hedy B")
    status, page, _ = await follow(http, await sign_in(http, console, "hedy-1"))
    assert status == 200 and "acme" in page and "beta" in page
    assert in_acme in page and in_beta in page
    assert (await member_of(console, beta, in_beta))["subject"] == "hedy-1"
