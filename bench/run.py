"""make bench: every benchmark, each written into its section of docs/benchmarks.md."""

from bench import (
    analytics,
    capacity,
    channel_faults,
    channel_ids,
    channels,
    clustering,
    compile_fairness,
    conversation_tests,
    desk,
    event_faults,
    fair_work,
    gateway_faults,
    history_load,
    knowledge_load,
    languages_load,
    matching,
    query_load,
    redaction,
    replicas,
    scale_capacity,
    semantic_load,
    transfer,
)
from bench.report import REPORT, write_section
from bench.stack import running_stack


def main() -> None:
    write_section("matching", "Matching alone (make bench)", matching.table())
    write_section("clustering", "The misses inbox's clustering (make bench)", clustering.table())
    inbox = clustering.endpoint_table()
    write_section("inbox", "The misses inbox over HTTP (make bench)", inbox)
    body = clustering.actions_table()
    write_section("inbox-actions", "The misses inbox read again and acted on (make bench)", body)
    with running_stack("load", semantic_matching=False) as stack:
        write_section("load", "/query under load (make bench)", query_load.load_table(stack))
    with running_stack("semantic-load") as stack:
        body = semantic_load.semantic_load_table(stack)
        title = "/query on real text: lexical and semantic beside /healthz (make bench)"
        write_section("semantic-load", title, body)
    with running_stack("languages") as stack:
        body = languages_load.languages_table(stack)
        write_section("languages", "/query on a story of three languages (make bench)", body)
    with running_stack("knowledge") as stack:
        body = knowledge_load.knowledge_table(stack)
        write_section("knowledge", "Knowledge answers on the service (make bench)", body)
    body = history_load.history_table()
    write_section("history", "/query with the history on and off (make bench)", body)
    with running_stack("edit") as stack:
        write_section("edit", "Index cost after an edit (make bench)", query_load.edit_table(stack))
    with running_stack("capacity", semantic_matching=False) as stack:
        write_section("capacity", "Capacity figures (make bench)", capacity.capacity_table(stack))
    with running_stack("analytics", semantic_matching=False) as stack:
        write_section(
            "analytics", "Analytics report (make bench)", analytics.analytics_table(stack)
        )
    write_section("transfer", "A story as a file (make bench)", transfer.table())
    body = channel_ids.table()
    write_section("channel-ids", "A channel's id: known or not, by time (make bench)", body)
    body = compile_fairness.table()
    title = "First query of a small story while large stories compile (make bench)"
    write_section("compile-fairness", title, body)
    body = conversation_tests.table()
    write_section("conversation-tests", "Conversation tests (make bench)", body)
    body = fair_work.table()
    write_section("fair-work", "Long work shared between accounts (make bench)", body)
    write_section("channels", "Channels (make bench)", channels.table())
    write_section("desk", desk.TITLE, desk.table())
    write_section("redaction", "Redaction (make bench)", redaction.table())
    body = channel_faults.table()
    write_section("channel-faults", "Channels under faults (make bench)", body)
    write_section("replicas", replicas.TITLE, replicas.table())
    # the stack of `make scale`, one bench at a time (each starts its own)
    write_section("gateway-faults", gateway_faults.TITLE, gateway_faults.table())
    write_section("event-faults", event_faults.TITLE, event_faults.table())
    write_section("scale-capacity", scale_capacity.TITLE, scale_capacity.table())
    print(REPORT.read_text())


if __name__ == "__main__":
    main()
