"""How a delivery fails: one exception carrying a reason a person can read."""


class DeliveryFailed(Exception):
    """A readable reason: "timeout after 3000 ms", "HTTP 500", ..."""
