"""The console's Members page in Chromium: an owner adds a member, creates their token
(shown once, and it works), changes their role, revokes the token and removes them; a
member who is no owner signing in with their token is refused the page's data."""

import uuid

from playwright.sync_api import Page, expect

from support.browser import Stack, call, loaded, sign_in


def bearer(page: Page, stack: Stack, token: str, path: str) -> int:
    response = page.request.get(
        f"{stack.bot_api}{path}", headers={"Authorization": f"Bearer {token}"}
    )
    return response.status


def test_an_owner_manages_a_member_and_their_token(page: Page, stack: Stack) -> None:
    email = f"ada-{uuid.uuid4().hex[:8]}@example.com"
    sign_in(page, stack)
    page.goto(f"{stack.bot_api}/console/members")
    loaded(page)
    page.get_by_label("Name").fill("Ada")
    page.get_by_label("E-mail").fill(email)
    page.get_by_label("Role", exact=True).select_option("viewer")
    page.get_by_role("button", name="Add member").click()
    row = page.locator(f'tr[data-member="{email}"]')
    expect(row).to_contain_text("Ada")
    expect(row).to_contain_text("by e-mail")  # not yet linked to an identity provider subject

    row.get_by_role("button", name="New token").click()
    shown = page.locator("#issued-token")
    expect(shown).to_contain_text("pmt_")
    token = shown.inner_text()
    assert bearer(page, stack, token, "/stories") == 200
    assert bearer(page, stack, token, "/account/members") == 403
    row = page.locator(f'tr[data-member="{email}"]')
    expect(row.get_by_role("listitem")).to_have_count(1)
    assert token not in row.inner_text()

    row.get_by_label("Role of Ada").select_option("editor")
    expect(page.locator("#notice")).to_have_text("Ada is now editor.")
    members = call(page, stack, "GET", "/account/members")
    assert next(m["role"] for m in members if m["email"] == email) == "editor"

    page.once("dialog", lambda dialog: dialog.accept())
    page.locator(f'tr[data-member="{email}"]').get_by_role("button", name="Revoke").click()
    expect(page.locator(f'tr[data-member="{email}"]').get_by_role("listitem")).to_have_count(0)
    assert bearer(page, stack, token, "/stories") == 401

    page.once("dialog", lambda dialog: dialog.accept())
    page.locator(f'tr[data-member="{email}"]').get_by_role("button", name="Remove").click()
    expect(page.locator(f'tr[data-member="{email}"]')).to_have_count(0)
    assert all(m["email"] != email for m in call(page, stack, "GET", "/account/members"))


def test_a_member_who_is_no_owner_is_refused_the_members(page: Page, stack: Stack) -> None:
    email = f"vic-{uuid.uuid4().hex[:8]}@example.com"
    body = {"email": email, "name": "Vic", "role": "viewer"}
    member = call(page, stack, "POST", "/account/members", body)
    token = call(page, stack, "POST", f"/account/members/{member['id']}/tokens", {"name": "c"})
    page.goto(f"{stack.bot_api}/console/")
    page.get_by_label("Developer token").fill(token["token"])
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(f"{stack.bot_api}/console/stories")
    page.goto(f"{stack.bot_api}/console/members")
    expect(page.locator("#notice")).to_contain_text(
        "the viewer role cannot call GET /account/members"
    )
    expect(page.locator("#member-list tr")).to_have_count(0)
