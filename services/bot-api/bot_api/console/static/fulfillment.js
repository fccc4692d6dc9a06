/* Parley: renders /query fulfillment items as a user sees them (docs/console.md).
   Shared by the console's test chat and the widget (/widget.js puts this file first). */
(function () {
  "use strict";

  function element(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function isLink(value) {
    return /^https?:\/\//i.test(value);
  }

  /* The only links a bot's answer may carry: http(s), mailto: for a `url` button and
     tel: for a `phone` button. Anything else (javascript:, data:, ...) is no link. */
  var SCHEMES = { url: ["http:", "https:", "mailto:"], webview: ["http:", "https:"] };
  var PHONE = /^\+?[0-9][0-9 ().-]{1,30}$/;

  function safeHref(button) {
    if (button.type === "phone") {
      var number = button.postback.replace(/^tel:/i, "");
      return PHONE.test(number) ? "tel:" + number.replace(/[ ().-]/g, "") : null;
    }
    var allowed = SCHEMES[button.type] || ["http:", "https:"];
    try {
      var url = new URL(button.postback);
      return allowed.indexOf(url.protocol) >= 0 ? url.href : null;
    } catch (error) {
      return null;
    }
  }

  /* What a click does: a goto button jumps, a link opens, anything else is said; a
     link-type button whose target is no safe link does nothing. */
  function buttonTarget(button) {
    if (button.type === "goto") return { send: { goto: button.postback }, said: button.title };
    var linkType = button.type === "url" || button.type === "webview" || button.type === "phone";
    if (linkType || isLink(button.postback)) return { href: safeHref(button) };
    return { send: { query: button.postback }, said: button.title };
  }

  function renderButton(button, send, className) {
    var target = buttonTarget(button);
    if (target.href === null) {
      var inert = element("span", className + " parley-inert", button.title);
      inert.title = "This button's link is not a web, mail or phone address.";
      return inert;
    }
    if (target.href) {
      var link = element("a", className + " parley-link", button.title);
      link.href = target.href;
      link.target = "_blank";
      link.rel = "noopener noreferrer";
      return link;
    }
    var node = element("button", className, button.title);
    node.type = "button";
    node.addEventListener("click", function () {
      send(target.send, target.said);
    });
    return node;
  }

  function renderButtons(buttons, send) {
    var row = element("div", "parley-buttons");
    buttons.forEach(function (button) {
      row.append(renderButton(button, send, "parley-button"));
    });
    return row;
  }

  function renderQuickReplies(item, send) {
    var box = element("div", "parley-item parley-quick-replies");
    var message = item.messages[0];
    box.append(element("p", "parley-text", message.title));
    var row = element("div", "parley-buttons");
    var buttons = item.buttons || message.replies.map(function (reply) {
      return { title: reply, postback: reply };
    });
    buttons.forEach(function (button) {
      var node = renderButton(button, function (input, said) {
        row.querySelectorAll("button").forEach(function (other) {
          other.disabled = true;
        });
        send(input, said);
      }, "parley-reply");
      row.append(node);
    });
    box.append(row);
    return box;
  }

  function renderImage(url, alt) {
    var image = element("img", "parley-image");
    image.src = url;
    image.alt = alt || "";
    image.loading = "lazy";
    return image;
  }

  function renderItem(item, send) {
    var box;
    switch (item.type) {
      case "text":
        return element("p", "parley-item parley-text", item.message);
      case "quickReply":
        return renderQuickReplies(item, send);
      case "image":
        box = element("div", "parley-item");
        box.append(renderImage(item.imageUrl, "image"));
        return box;
      case "card":
        box = element("div", "parley-item parley-card");
        if (item.imageUrl) box.append(renderImage(item.imageUrl, item.title));
        box.append(element("p", "parley-card-title", item.title));
        if (item.subtitle) box.append(element("p", "parley-card-subtitle", item.subtitle));
        box.append(renderButtons(item.buttons, send));
        return box;
      case "buttonTemplate":
        box = element("div", "parley-item parley-button-template");
        box.append(element("p", "parley-text", item.title));
        box.append(renderButtons(item.buttons, send));
        return box;
      case "handoff":
        return element("p", "parley-item parley-text", "(handed to a person)");
      default:
        return element("p", "parley-item parley-text", "(" + item.type + ")");
    }
  }

  function wait(milliseconds) {
    return new Promise(function (resolve) {
      setTimeout(resolve, milliseconds);
    });
  }

  /* Appends each item to `container`, after its `delay` (items a webhook answered). */
  async function render(items, container, send) {
    for (var index = 0; index < items.length; index += 1) {
      if (items[index].delay) await wait(items[index].delay);
      container.append(renderItem(items[index], send));
      container.scrollTop = container.scrollHeight;
    }
  }

  /* Where a knowledge answer (result.knowledge) came from: the document's title (a link
     when the answer names an http(s) address: the `webview` rule), then its heading path and page. Text
     only: a title is whatever a document was named, never markup. */
  function source(knowledge) {
    var line = element("p", "parley-source", "Source: ");
    var href = knowledge.url ? safeHref({ type: "webview", postback: knowledge.url }) : null;
    if (href) {
      var link = element("a", "parley-source-link", knowledge.title);
      link.href = href;
      link.target = "_blank";
      link.rel = "noopener noreferrer";
      line.append(link);
    } else {
      line.append(element("cite", "parley-source-title", knowledge.title));
    }
    var where = [];
    if (knowledge.heading && knowledge.heading.length) where.push(knowledge.heading.join(" › "));
    if (typeof knowledge.page === "number") where.push("page " + knowledge.page);
    if (where.length) line.append(element("span", "parley-source-where", " · " + where.join(", ")));
    return line;
  }

  /* A /query result as a user sees it: its fulfillment, then the source of an answer
     the story's documents gave. */
  async function renderResult(result, container, send) {
    await render(result.fulfillment, container, send);
    if (result.knowledge) {
      container.append(source(result.knowledge));
      container.scrollTop = container.scrollHeight;
    }
  }

  window.ParleyFulfillment = {
    render: render,
    renderResult: renderResult,
    source: source,
    element: element,
  };
})();
