"""The calls to a channel that failed the platform's authentication, counted so that a
caller whose calls keep failing is refused (429) before any work, as a token that fails
is (AUTH_FAILURE_RATE, AUTH_FAILURE_BURST; shared/rates.py).

The platforms call every channel from the same few addresses, so counting per address
(as the token checks do) let one tenant's mistyped signing secret refuse every other
tenant's calls from Slack or Meta. A channel's failures are counted per channel and per
address: the mistyped secret refuses only that channel's calls, and someone who knows a
channel's URL cannot refuse the platform's calls to it by sending bad ones from their
own address. A call to an unknown id is counted per id and address alike, and every
failed call counts against its address too, as a bad token does (checked only once a
call failed, channels/views.py): a call to no channel and a call a channel refuses are
answered and counted the same, so neither the answer nor the limit tells a stranger
which ids are channels' (issue 29).
"""

from shared.config import Config
from shared.rates import Buckets, Rate


class SigningFailures:
    def __init__(self, config: Config) -> None:
        self._buckets = Buckets("with a bad signature to this channel from this address")
        self._rate = Rate(config.auth_failure_rate, config.auth_failure_burst)

    def check(self, channel_id: str, client: str) -> None:
        """Raise RateLimited when the channel's calls from `client` failed too often."""
        self._buckets.check((channel_id, client), self._rate)

    def failed(self, channel_id: str, client: str) -> None:
        self._buckets.spend((channel_id, client), self._rate)
