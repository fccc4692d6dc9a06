"""Fulfillments (docs/query.md "Fulfillment items") a channel renders in tests: one
of every kind, and one at the limits of what a story or a webhook may answer. Each is
written as /query answers it and read by the answer codec (shared/fulfillment.py), as
a channel's reply is."""

from typing import Any

from shared.fulfillment import Item, item_of


def answer(items: list[dict[str, Any]]) -> tuple[Item, ...]:
    """The typed items of a fulfillment as /query writes it."""
    return tuple(item_of(item) for item in items)


GOTO = "0f8fbd4c-7d3e-4a41-9d3e-3b0e4c1a2b3c"

EVERY_KIND = answer(
    [
        {"type": "text", "message": "Hello & welcome <friend>"},
        {
            "type": "quickReply",
            "messages": [
                {"type": "quickReply", "title": "Which size?", "replies": ["Small", "Large"]}
            ],
        },
        {
            "type": "card",
            "title": "Margherita",
            "subtitle": "Tomato, mozzarella",
            "imageUrl": "https://img.example/margherita.png",
            "buttons": [
                {"title": "Order", "postback": "order a margherita"},
                {"title": "Menu", "postback": GOTO, "type": "goto"},
                {"title": "Website", "postback": "https://pizza.example/margherita", "type": "url"},
            ],
        },
        {
            "type": "buttonTemplate",
            "title": "Anything else?",
            "buttons": [
                {"title": "Call us", "postback": "+33 1 23 45 67 89", "type": "phone"},
                {"title": "No", "postback": ""},
            ],
            "delay": 1500,
        },
        {"type": "image", "imageUrl": "https://img.example/oven.jpg"},
        {"type": "handoff", "connection": "65f0c0ffee65f0c0ffee0042"},
    ]
)

REPLIES = [f"Choice number {n:02d} is long" for n in range(11)]
"""Eleven quick replies (the most a story holds), each over 20 characters."""

AT_THE_LIMITS = answer(
    [
        {"type": "text", "message": "x" * 5000},
        {
            "type": "quickReply",
            "messages": [{"type": "quickReply", "title": "t" * 80, "replies": REPLIES}],
        },
        {
            "type": "quickReply",
            "messages": [{"type": "quickReply", "title": "Same twice", "replies": ["Yes", "Yes"]}],
        },
        {
            "type": "card",
            "title": "c" * 80,
            "subtitle": "s" * 80,
            "imageUrl": "https://img.example/" + "i" * 1000,
            "buttons": [{"title": "b" * 20, "postback": "p" * 2048} for _ in range(3)],
        },
        {"type": "card", "title": "Bare card", "subtitle": "", "imageUrl": "", "buttons": []},
        {
            "type": "buttonTemplate",
            "title": "w" * 640,
            "buttons": [{"title": "Go", "postback": GOTO, "type": "goto"}],
        },
        {
            "type": "buttonTemplate",
            "title": "Only a link",
            "buttons": [{"title": "Site", "postback": "https://a.example"}],
        },
        {
            "type": "quickReply",
            "messages": [
                {"type": "quickReply", "title": "From a webhook", "replies": ["r" * 100, "Site"]}
            ],
            "buttons": [
                {"title": "r" * 100, "postback": "r" * 100, "type": "postback"},
                {"title": "Site", "postback": "https://a.example", "type": "url"},
            ],
        },
    ]
)

UNSENDABLE_PARTS = answer(
    [
        {"type": "text", "message": " \n "},
        {"type": "text", "message": "<!channel> & <@U2147483697>: free pizza"},
        {"type": "image", "imageUrl": "not a url at all"},
        {"type": "image", "imageUrl": "https://"},
        {"type": "image", "imageUrl": "https://img.example/two words.png"},
        {"type": "image", "imageUrl": "https://img.example/" + "i" * 3000},
        {"type": "card", "title": "Only a title", "subtitle": "", "imageUrl": "", "buttons": []},
        {
            "type": "card",
            "title": " ",
            "subtitle": "",
            "imageUrl": "https://img.example/a.png",
            "buttons": [],
        },
        {
            "type": "card",
            "title": "A broken image",
            "subtitle": "and odd buttons",
            "imageUrl": "https:// img.example/b.png",
            "buttons": [
                {"title": " ", "postback": "a blank label"},
                {"title": "Site", "postback": "https://", "type": "url"},
                {"title": "Order", "postback": "order"},
            ],
        },
        {"type": "buttonTemplate", "title": "", "buttons": [{"title": "Yes", "postback": "yes"}]},
        {"type": "buttonTemplate", "title": " ", "buttons": [{"title": "", "postback": "no"}]},
        {
            "type": "quickReply",
            "messages": [{"type": "quickReply", "title": " ", "replies": ["", " ", "Fine"]}],
        },
        {"type": "text", "message": "The last one still goes"},
    ]
)
"""What a story or a webhook may answer that no platform takes as it is: blank texts and
labels, addresses that are none (or too long for Slack), a card of only a title, text
Slack would read as markup; the last item must still be sent."""
