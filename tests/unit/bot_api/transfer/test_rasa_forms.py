"""The Rasa importer's forms: required slots asked in order, a form's end, and a
prompt's buttons and quick replies."""

from bot_api.transfer.rasa import translate
from support.rasa_projects import MOOD_NLU, by_name, checked, kinds, project, replies

AMOUNT_SLOT = """\
  amount:
    type: float
    mappings: [{type: from_entity, entity: amount}]
"""


def test_a_form_asks_in_the_order_of_its_required_slots() -> None:
    nlu = """\
- intent: transfer
  examples: |
    - send money to [Ann](PERSON)
    - transfer [10](amount) to [Bo](PERSON)
"""
    domain = (
        "slots:\n"
        + AMOUNT_SLOT
        + """\
  PERSON:
    type: text
    mappings: [{type: from_entity, entity: PERSON}]
  checked:
    type: bool
    mappings: [{type: custom, action: action_check}]
forms:
  transfer_form:
    required_slots: [amount, checked, PERSON]
responses:
  utter_ask_amount:
  - text: How much?
  utter_ask_PERSON:
  - text: To whom?
"""
    )
    rules = """\
- rule: t
  steps:
  - intent: transfer
  - action: transfer_form
  - active_loop: transfer_form
"""
    translated = translate(project(nlu, domain, rules))
    transfer = by_name(checked(translated))["transfer"]
    assert [(p["alias"], p["prompts"]) for p in transfer["parameters"]] == [
        ("amount", ["How much?"]),
        ("PERSON", ["To whom?"]),
    ]
    assert [u.reason for u in translated.unmapped if u.element == "slot 'checked' (custom)"] == [
        "Rasa fills it in code (a custom action or a validate_ action): not asked; a webhook "
        "on the interaction could fill it"
    ]


def test_a_form_s_end_says_what_its_submit_rule_says() -> None:
    nlu = "- intent: transfer\n  examples: |\n    - send [10](amount)\n"
    domain = (
        "slots:\n"
        + AMOUNT_SLOT
        + """\
forms:
  transfer_form:
    required_slots: [amount]
responses:
  utter_ask_amount:
  - text: How much?
  utter_done:
  - text: Sent {amount}.
"""
    )
    rules = """\
- rule: start
  steps:
  - intent: transfer
  - action: transfer_form
  - active_loop: transfer_form
- rule: submit
  condition:
  - active_loop: transfer_form
  steps:
  - action: transfer_form
  - active_loop: null
  - slot_was_set:
    - requested_slot: null
  - action: action_transfer
  - action: utter_done
"""
    translated = translate(project(nlu, domain, rules))
    document = checked(translated)
    assert by_name(document)["transfer"]["responses"] == [
        {"type": "text", "messages": ["Sent {{amount}}."]}
    ]
    assert kinds(translated) == ["custom action 'action_transfer' ending form 'transfer_form'"]
    assert replies(document, "send", "10") == [("transfer", "How much?"), ("transfer", "Sent 10.")]


def test_a_quick_reply_click_during_a_prompt_reaches_the_intent_of_its_payload() -> None:
    """financial-demo's shape: a help message with more buttons than a template holds
    (quick replies send their titles), one of them "Talk to a human", clicked while a
    form asks for free text."""
    nlu = (
        MOOD_NLU
        + "- intent: pay\n  examples: |\n    - pay someone\n"
        + "- intent: human\n  examples: |\n    - I want a person\n"
    )
    domain = """\
slots:
  payee:
    type: text
    mappings: [{type: from_text}]
forms:
  pay_form:
    required_slots: [payee]
responses:
  utter_ask_payee:
  - text: Who?
  utter_help:
  - text: I can help with
    buttons:
    - {title: Pay, payload: /pay}
    - {title: Talk to a human, payload: /human}
    - {title: Say hi, payload: /greet}
    - {title: "Yes", payload: /affirm}
  utter_human:
  - text: Hold on.
"""
    rules = """\
- rule: help
  steps:
  - intent: greet
  - action: utter_help
- rule: human
  steps:
  - intent: human
  - action: utter_human
- rule: pay
  steps:
  - intent: pay
  - action: pay_form
  - active_loop: pay_form
"""
    document = checked(translate(project(nlu, domain, rules)))
    interactions = by_name(document)
    assert interactions["greet"]["responses"][0]["replies"] == [
        "Pay", "Talk to a human", "Say hi", "Yes",
    ]  # fmt: skip
    assert interactions["human"]["userSays"] == ["I want a person", "Talk to a human"]
    assert interactions["affirm"]["userSays"] == ["yes"]  # "Yes" is a phrase already
    assert replies(document, "hi", "Pay", "Talk to a human") == [
        ("greet", "I can help with"),
        ("pay", "Who?"),
        ("human", "Hold on."),
    ]


def pay_form(
    ask_account: str, nlu: str = "", responses: str = "", rules: str = ""
) -> dict[str, bytes]:
    """A project whose `pay` intent starts a form asking for `account`
    (`utter_ask_account`'s variants given), then says `utter_paid`."""
    domain = f"""\
slots:
  account:
    type: text
    mappings: [{{type: from_entity, entity: account}}]
forms:
  pay_form:
    required_slots: [account]
responses:
  utter_ask_account:
{ask_account}  utter_paid:
  - text: Paid from {{account}}.
{responses}"""
    pay = """\
- rule: pay
  steps:
  - intent: pay
  - action: pay_form
  - active_loop: pay_form
  - active_loop: null
  - action: utter_paid
"""
    pay_nlu = "- intent: pay\n  examples: |\n    - pay my [credit](account) card\n"
    return project(pay_nlu + nlu, domain, pay + rules)


def test_a_prompt_s_buttons_are_its_replies_and_their_titles_fill_the_slot() -> None:
    ask = """\
  - text: Which account?
    buttons:
    - {title: Credit card, payload: '/inform{"account": "credit"}'}
    - {title: Savings, payload: '/inform{"account": "savings"}'}
"""
    document = checked(translate(pay_form(ask)))
    assert by_name(document)["pay"]["parameters"] == [
        {
            "alias": "account",
            "entity": "account",
            "prompts": ["Which account?"],
            "promptReplies": ["Credit card", "Savings"],
        }
    ]
    assert document["entities"] == [
        {
            "name": "account",
            "entries": [
                {"value": "credit", "synonyms": [{"value": "credit"}, {"value": "Credit card"}]},
                {"value": "savings", "synonyms": [{"value": "savings"}, {"value": "Savings"}]},
            ],
        }
    ]
    assert replies(document, "pay my bills", "Savings") == [
        ("pay", "Which account?"),
        ("pay", "Paid from savings."),
    ]


def test_a_prompt_s_long_button_titles_are_cut_to_replies_that_still_fill_the_slot() -> None:
    ask = """\
  - text: Which account?
    buttons:
    - {title: The credit card ending in 4242, payload: '/inform{"account": "credit"}'}
  - text: Pay from which account?
    buttons:
    - {title: The credit card ending in 4242, payload: '/inform{"account": "credit"}'}
    - {title: '  ', payload: '/inform{"account": "savings"}'}
"""
    translated = translate(pay_form(ask))
    document = checked(translated)
    parameter = by_name(document)["pay"]["parameters"][0]
    assert parameter["prompts"] == ["Which account?", "Pay from which account?"]
    assert parameter["promptReplies"] == ["The credit card endi"]  # once, blank left out
    assert "buttons of a prompt" in kinds(translated)
    assert replies(document, "pay my bills", "The credit card endi") == [
        ("pay", "Which account?"),
        ("pay", "Paid from credit."),
    ]


def test_a_prompt_s_button_sending_another_intent_is_a_reply_whose_click_reaches_it() -> None:
    ask = """\
  - text: Which account?
    buttons:
    - {title: Credit card, payload: '/inform{"account": "credit"}'}
    - {title: Talk to a human, payload: /human}
"""
    document = checked(
        translate(
            pay_form(
                ask,
                nlu="- intent: human\n  examples: |\n    - I want a person\n",
                responses="  utter_human:\n  - text: Hold on.\n",
                rules="- rule: human\n  steps:\n  - intent: human\n  - action: utter_human\n",
            )
        )
    )
    interactions = by_name(document)
    assert interactions["pay"]["parameters"][0]["promptReplies"] == [
        "Credit card",
        "Talk to a human",
    ]
    assert interactions["human"]["userSays"] == ["I want a person", "Talk to a human"]
    assert replies(document, "pay my bills", "Talk to a human") == [
        ("pay", "Which account?"),
        ("human", "Hold on."),
    ]
