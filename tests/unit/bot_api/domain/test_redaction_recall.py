"""Redaction measured on written forms (tests/data/redaction_forms.jsonl, read by
bench/redaction.py) and on HWU64's test messages (../shared/nlu/hwu64_kfold1.json,
`test`: 1,076 assistant commands).

The forms: 487 e-mail addresses, phone, card numbers and IBANs (the kinds docs/history.md
promises) as people write them: spaced, hidden (`jo (at) example (dot) com`), with an
IP-literal domain, dialled with 00 or 011, in the national format of another country
than the story's, with dots, slashes, dashes, full-width digits or no-break spaces; and
23 messages that only look personal (dates, order numbers, prices, a failed checksum).

Before issue 29 (main's redaction) recall on the forms was 0.448 (218 of 487: e-mail
11/56, phone 135/242, card 27/108, IBAN 45/81); now 0.994 (484: the 3 left are
`jodoe at gmail.com`, a bare `at` before a plain dot being how sentences run on, and a
Russian `8 (912) 345-67-89` whose trunk `8` stays). Main's redaction changed none of the
HWU64 test messages: no false positive there, and it let through the 4 e-mail addresses
they hold (`name@yahoo dot com`); now those 4 are redacted and nothing else.
"""

from bench.redaction import forms, hwu64_test_messages, missed
from bot_api.domain.redaction import phone_region, redact

ADDRESSES_IN_HWU64_TEST = {
    "enter atdfd@yahoo dot com into my contact list",
    "get apahelp@yahoo dot com in my contacts",
    "send new email to jana dot litt at gmail dot com",
    "jj.nzt@yahoo dot com",
}
"""Every HWU64 test message that holds personal data (read one by one): redacting these
is no false positive."""
FALSE_POSITIVES_BEFORE = 0


def test_recall_on_the_written_forms_is_at_least_0_98() -> None:
    personal = [f for f in forms() if f["kind"] != "none"]
    left = missed(personal)
    assert len(personal) >= 200
    assert {f["kind"] for f in personal} == {"email", "phone", "card", "iban"}
    recall = 1 - len(left) / len(personal)
    assert recall >= 0.98, [f["text"] for f in left]


def test_what_only_looks_personal_is_kept() -> None:
    kept = [f["text"] for f in forms() if f["kind"] == "none"]
    assert len(kept) >= 20
    assert [t for t in kept if redact(t, phone_region("english")) != t] == []


def test_no_more_false_positives_on_hwu64_than_before() -> None:
    test = hwu64_test_messages()
    changed = {t for t in test if redact(t, phone_region("english")) != t}
    assert len(changed - ADDRESSES_IN_HWU64_TEST) <= FALSE_POSITIVES_BEFORE
    assert changed == ADDRESSES_IN_HWU64_TEST, "every address they hold is redacted"
