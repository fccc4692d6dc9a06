// The story's channels (integrations-api); their handed-over conversations are the agent
// desk's (desk.js). Credentials
// are typed into password fields, sent once and never read back: the API has none to show.
import { channelsApi, page, storyChannels } from "./api.js";
import { byId, clearErrors, confirmThen, h, notice, showErrors } from "./ui.js";

// Each platform's credentials (docs/api.md "Channels") and the one step its console needs
// (docs/channels.md).
const PLATFORMS = {
  telegram: {
    title: "Telegram",
    credentials: { botToken: "Bot token (from @BotFather)" },
    step:
      "Nothing to do in Telegram: Parley registers the webhook itself when the channel is saved " +
      "(at INTEGRATIONS_PUBLIC_URL, which Telegram needs to be an https:// address).",
    // What to do when Telegram refused the webhook (README.md, docs/channels.md "Telegram").
    help:
      "Telegram calls Parley only at an https:// address it can reach: set INTEGRATIONS_PUBLIC_URL " +
      "to one (on a laptop, a tunnel to integrations-api: README.md) and restart; each start " +
      "registers the webhook again there. A wrong token: edit the channel and type it again. " +
      "Telegram was away: register again.",
  },
  slack: {
    title: "Slack",
    credentials: { botToken: "Bot User OAuth Token (xoxb-…)", signingSecret: "Signing secret" },
    step:
      "In the Slack app's settings, paste the inbound URL as the Request URL of Event " +
      "Subscriptions (subscribe the bot to message.channels, message.groups, message.im, " +
      "message.mpim) and of Interactivity & Shortcuts.",
  },
  messenger: {
    title: "Messenger",
    credentials: {
      pageAccessToken: "Page access token",
      appSecret: "App secret",
      verifyToken: "Verify token (a string you choose)",
    },
    step:
      "In the Meta app's Webhooks, set the Callback URL to the inbound URL and the Verify " +
      "token to this channel's verify token; subscribe the Page to messages and messaging_postbacks.",
  },
  whatsapp: {
    title: "WhatsApp",
    credentials: {
      accessToken: "Access token",
      phoneNumberId: "Phone number ID",
      appSecret: "App secret",
      verifyToken: "Verify token (a string you choose)",
    },
    step:
      "In WhatsApp → Configuration of the Meta app, set the Callback URL to the inbound URL " +
      "and the Verify token to this channel's verify token; subscribe to the messages field.",
  },
};

let editing = null; // the channel being edited: its type is fixed, its credentials kept unless typed
let channelsById = new Map(); // to read a channel's status again after registering it

const platformOf = (type) => PLATFORMS[type] || { title: type, credentials: {}, step: "" };

function credentialFields(type) {
  const fields = Object.entries(platformOf(type).credentials).map(([name, label]) => {
    const id = `credential-${name}`;
    return [
      h("label", { for: id }, label),
      h("input", {
        id,
        type: "password",
        autocomplete: "new-password",
        maxlength: "1024",
        "data-field": `credentials.${name}`,
        "data-credential": name,
      }),
    ];
  });
  byId("channel-credential-fields").replaceChildren(...fields.flat());
  byId("channel-type-step").textContent = `After saving: ${platformOf(type).step}`;
  byId("channel-credentials-hint").textContent = editing
    ? "Leave these empty to keep the stored credentials; to change them, type them all."
    : "All of them are needed.";
}

function copyButton(channel) {
  return h(
    "button",
    {
      type: "button",
      "aria-label": `Copy the inbound URL of ${channel.name}`,
      onclick: async () => {
        try {
          await navigator.clipboard.writeText(channel.inboundUrl);
          notice("Inbound URL copied.");
        } catch {
          notice("The browser refused to copy: select the URL and copy it.", "error");
        }
      },
    },
    "Copy",
  );
}

function card(channel) {
  const platform = platformOf(channel.type);
  return h(
    "li",
    { "data-channel": channel.id },
    h("h3", {}, channel.name),
    h("p", { className: "channel-status" }, `${platform.title} · ${channel.status}`),
    h("p", {}, "Inbound URL: ", h("code", { className: "inbound-url" }, channel.inboundUrl), " ", copyButton(channel)),
    channel.error
      ? h("p", { className: "delivery-error", role: "note" }, `Last problem: ${channel.error}`)
      : h("p", { className: "muted" }, "No problem reported."),
    h("p", { className: "setup-step" }, platform.step),
    ...(channel.status === "error" && platform.help ? refused(channel, platform.help) : []),
    h("p", { className: "muted" }, `Id ${channel.id} · updated ${channel.updatedAt}`),
    h("button", { type: "button", onclick: () => edit(channel) }, `Edit ${channel.name}`),
    h("button", { type: "button", className: "danger", onclick: () => remove(channel) }, `Delete ${channel.name}`),
  );
}

// A refused registration: what to do, and registering again with the stored credentials
// (a PUT without them registers the webhook again at the current INTEGRATIONS_PUBLIC_URL).
function refused(channel, help) {
  const again = async () => {
    try {
      await channelsApi("PUT", `/${channel.id}`, { name: channel.name });
      await loadChannels();
      const active = channelsById.get(channel.id)?.status === "active";
      notice(active ? "Registered." : "Still refused: the card says why.", active ? "info" : "error");
    } catch (error) {
      notice(error.message, "error");
    }
  };
  return [
    h("p", { className: "channel-help", role: "note" }, help),
    h("button", { type: "button", "aria-label": `Register ${channel.name} again`, onclick: again }, "Register again"),
  ];
}

async function loadChannels() {
  const list = await storyChannels(page.story);
  channelsById = new Map(list.map((channel) => [channel.id, channel]));
  byId("channel-list").replaceChildren(...list.map(card));
  if (list.length === 0) byId("channel-list").append(h("li", {}, "No channel yet."));
}

function edit(channel) {
  editing = channel;
  byId("channel-form-title").textContent = `Edit ${channel.name}`;
  byId("channel-type").value = channel.type;
  byId("channel-type").disabled = true; // a channel's type is its for life
  byId("channel-name").value = channel.name;
  credentialFields(channel.type);
  byId("channel-name").focus();
}

function reset() {
  editing = null;
  byId("channel-form").reset();
  clearErrors(byId("channel-form"));
  byId("channel-type").disabled = false;
  byId("channel-form-title").textContent = "New channel";
  credentialFields(byId("channel-type").value);
}

function remove(channel) {
  confirmThen(`Delete the channel "${channel.name}"? The platform's calls will be refused.`, async () => {
    await channelsApi("DELETE", `/${channel.id}`);
    if (editing?.id === channel.id) reset();
    await loadChannels();
    notice("Deleted.");
  });
}

// The credentials typed, or none at all (an edit keeps the stored ones): the API names
// any that is missing.
function typedCredentials() {
  const typed = [...byId("channel-credential-fields").querySelectorAll("[data-credential]")]
    .filter((input) => input.value)
    .map((input) => [input.dataset.credential, input.value]);
  return typed.length ? Object.fromEntries(typed) : undefined;
}

async function save(event) {
  event.preventDefault();
  const form = byId("channel-form");
  const body = { name: byId("channel-name").value };
  const credentials = typedCredentials();
  if (credentials) body.credentials = credentials;
  try {
    if (editing) await channelsApi("PUT", `/${editing.id}`, body);
    else {
      const type = byId("channel-type").value;
      await channelsApi("POST", "", { ...body, storyId: page.story, type, credentials: credentials || {} });
    }
    reset();
    await loadChannels();
    notice("Saved.");
  } catch (error) {
    showErrors(form, error);
    nameThePaths(form);
  }
}

// A credential's error says the API's name for it (`credentials.signingSecret: …`), the
// name docs/channels.md and the platform's setup use.
function nameThePaths(form) {
  form.querySelectorAll(".field-error[data-error-path^='credentials.']").forEach((box) => {
    box.textContent = `${box.dataset.errorPath}: ${box.textContent}`;
  });
}

export async function start() {
  credentialFields(byId("channel-type").value);
  await loadChannels();
  byId("channel-type").addEventListener("change", () => credentialFields(byId("channel-type").value));
  byId("channel-new").addEventListener("click", reset);
  byId("channel-form").addEventListener("submit", save);
}
