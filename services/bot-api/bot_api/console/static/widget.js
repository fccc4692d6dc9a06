/* Parley chat widget: <script src=".../widget.js" data-story="…" data-key="…"></script>
   puts a chat bubble on the page (docs/console.md "The chat widget"); data-language="de"
   says the page's language, sent as each turn's default_language (else the browser's). */
(function () {
  "use strict";
  var script = document.currentScript;
  var story = script.dataset.story;
  var key = script.dataset.key;
  var language = script.dataset.language || navigator.language || "";
  var base = new URL(script.src, location.href).origin;
  var renderResult = window.ParleyFulfillment.renderResult;
  var element = window.ParleyFulfillment.element;
  var sessionKey = "parley:session:" + story;

  function sessionId() {
    var id = localStorage.getItem(sessionKey);
    if (!id) {
      id = crypto.randomUUID();
      localStorage.setItem(sessionKey, id);
    }
    return id;
  }

  function defaults() {
    return {
      default_url: location.href.slice(0, 2048),
      default_language: language,
      default_timezone: Intl.DateTimeFormat().resolvedOptions().timeZone || "",
      default_source: "widget",
    };
  }

  var style = document.createElement("link");
  style.rel = "stylesheet";
  style.href = base + "/widget.css";
  document.head.append(style);

  var root = element("div", "parley-widget");
  var bubble = element("button", "parley-bubble", "Chat");
  bubble.type = "button";
  bubble.setAttribute("aria-expanded", "false");
  bubble.setAttribute("aria-controls", "parley-panel");
  var panel = element("section", "parley-panel");
  panel.id = "parley-panel";
  panel.hidden = true;
  panel.setAttribute("aria-label", "Chat");
  var header = element("div", "parley-header");
  header.append(element("span", "parley-title", "Chat"));
  var close = element("button", "parley-close", "×");
  close.type = "button";
  close.setAttribute("aria-label", "Close the chat");
  header.append(close);
  var log = element("div", "parley-log");
  log.setAttribute("aria-live", "polite");
  var form = element("form", "parley-form");
  var input = element("input", "parley-input");
  input.setAttribute("aria-label", "Your message");
  input.maxLength = 2048;
  input.placeholder = "Type a message";
  var sendButton = element("button", "parley-send", "Send");
  sendButton.type = "submit";
  form.append(input, sendButton);
  panel.append(header, log, form);
  root.append(panel, bubble);
  document.body.append(root);

  var opened = false;
  // A 429 is retried after its Retry-After (at most MAX_WAIT_SECONDS), up to MAX_RETRIES
  // times: a visitor typing fast or many visitors at once wait a moment, never see it.
  var MAX_RETRIES = 5;
  var MAX_WAIT_SECONDS = 30;
  // What a visitor reads; the details (for the page's developer) go to the console.
  var BUSY = "Sorry, the chat is busy right now. Please try again in a moment.";
  var UNREACHABLE = "Sorry, the chat cannot be reached. Please check your connection.";
  var BROKEN = "Sorry, the chat is not available right now.";

  function pause(seconds) {
    return new Promise(function (resolve) {
      setTimeout(resolve, seconds * 1000);
    });
  }

  async function ask(body) {
    for (var attempt = 0; ; attempt++) {
      var response = await fetch(base + "/query", {
        method: "POST",
        headers: { Authorization: "Bearer " + key, "Content-Type": "application/json" },
        body: JSON.stringify(body),
      });
      if (response.status !== 429 || attempt === MAX_RETRIES) return response;
      var wait = Number(response.headers.get("Retry-After")) || 1;
      await pause(Math.min(wait, MAX_WAIT_SECONDS) + Math.random());
    }
  }

  async function send(turn, said) {
    if (said) log.append(element("p", "parley-item parley-user", said));
    var body = Object.assign({ sessionId: sessionId(), storyId: story, parameters: defaults() }, turn);
    var shown = UNREACHABLE;
    try {
      var response = await ask(body);
      shown = response.status === 429 ? BUSY : BROKEN;
      var answer = await response.json();
      if (!response.ok) throw new Error(answer.status.errorDetails || "HTTP " + response.status);
      await renderResult(answer.result, log, send);
    } catch (error) {
      console.warn("Parley widget: /query failed:", error.message);
      log.append(element("p", "parley-item parley-error", shown));
    }
    log.scrollTop = log.scrollHeight;
  }

  function toggle(open) {
    panel.hidden = !open;
    bubble.setAttribute("aria-expanded", String(open));
    if (open) {
      input.focus();
      if (!opened) {
        opened = true;
        send({ trigger: "welcome" });
      }
    } else {
      bubble.focus();
    }
  }

  bubble.addEventListener("click", function () {
    toggle(panel.hidden);
  });
  close.addEventListener("click", function () {
    toggle(false);
  });
  panel.addEventListener("keydown", function (event) {
    if (event.key === "Escape") toggle(false);
  });
  form.addEventListener("submit", function (event) {
    event.preventDefault();
    var text = input.value.trim();
    if (!text) return;
    input.value = "";
    send({ query: text }, text);
  });
})();
