// The account's members (owners only): add one, change a role, remove one; create a
// personal token (shown once) and revoke one (docs/teams.md).
import { call } from "./api.js";
import { byId, confirmThen, h, notice, showErrors } from "./ui.js";

const ROLES = ["viewer", "agent", "editor", "publisher", "owner"];
const MEMBERS = "/account/members";

function showToken(issued) {
  byId("issued-token").textContent = issued.token;
  byId("issued").hidden = false;
}

async function act(action, done) {
  try {
    await action();
    await done();
  } catch (error) {
    notice(error.message, "error");
  }
}

function roleSelect(member) {
  const select = h(
    "select",
    { "aria-label": `Role of ${member.name}` },
    ...ROLES.map((role) => h("option", { value: role, selected: role === member.role }, role)),
  );
  select.addEventListener("change", () =>
    act(
      () => call("PUT", `${MEMBERS}/${member.id}`, { ...member, role: select.value }),
      () => notice(`${member.name} is now ${select.value}.`),
    ).finally(render),
  );
  return select;
}

function tokenItem(member, token) {
  const revoke = h("button", { type: "button" }, "Revoke");
  revoke.addEventListener("click", () =>
    confirmThen(`Revoke the token ${token.name}?`, () =>
      act(() => call("DELETE", `${MEMBERS}/${member.id}/tokens/${token.id}`), render),
    ),
  );
  return h("li", {}, `${token.name} (until ${token.expiresAt.slice(0, 10)}) `, revoke);
}

async function row(member) {
  const tokens = await call("GET", `${MEMBERS}/${member.id}/tokens`);
  const create = h("button", { type: "button" }, "New token");
  create.addEventListener("click", () =>
    act(async () => showToken(await call("POST", `${MEMBERS}/${member.id}/tokens`, { name: "console" })), render),
  );
  const remove = h("button", { type: "button" }, "Remove");
  remove.addEventListener("click", () =>
    confirmThen(`Remove ${member.name}?`, () => act(() => call("DELETE", `${MEMBERS}/${member.id}`), render)),
  );
  return h(
    "tr",
    { "data-member": member.email },
    h("td", {}, member.name),
    h("td", {}, member.email),
    h("td", {}, roleSelect(member)),
    h("td", {}, member.stories ? member.stories.join(", ") : "all"),
    h("td", { title: member.subject ?? "" }, member.subject ? "linked to the identity provider" : "by e-mail"),
    h("td", {}, h("ul", {}, ...tokens.map((token) => tokenItem(member, token))), create),
    h("td", {}, remove),
  );
}

async function render() {
  const members = await call("GET", MEMBERS);
  const rows = await Promise.all(members.map(row));
  byId("member-list").replaceChildren(
    ...(rows.length ? rows : [h("tr", {}, h("td", { colSpan: 7 }, "No member yet."))]),
  );
}

export async function start() {
  try {
    await render();
  } catch (error) {
    notice(error.message, "error"); // a member who is no owner
    return;
  }
  const form = byId("member-create");
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      await call("POST", MEMBERS, {
        name: byId("new-member-name").value,
        email: byId("new-member-email").value,
        role: byId("new-member-role").value,
      });
      form.reset();
      await render();
    } catch (error) {
      showErrors(form, error);
    }
  });
}
