"""Reading a /metrics page the way Prometheus does."""

from prometheus_client.parser import text_string_to_metric_families


def sample(page: str, name: str, **labels: str) -> float:
    """The value of sample `name` with `labels` on the page (0 when absent)."""
    return sum(
        s.value
        for family in text_string_to_metric_families(page)
        for s in family.samples
        if s.name == name and all(s.labels.get(k) == v for k, v in labels.items())
    )
