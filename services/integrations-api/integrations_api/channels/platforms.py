"""Every platform a channel can be on, by its type: a new platform's module is added
here, and the channel API takes its type from then on."""

from collections.abc import Callable

from integrations_api.channels import messenger, slack, telegram, whatsapp
from integrations_api.channels.platform import Call, Credentials, Platform

PLATFORMS: dict[str, Platform] = {
    platform.type: platform
    for platform in (telegram.PLATFORM, slack.PLATFORM, messenger.PLATFORM, whatsapp.PLATFORM)
}

Registration = Callable[[Credentials, str], Call]
REGISTRATIONS: dict[str, Registration] = {
    telegram.PLATFORM.type: telegram.set_webhook,
}
"""The platforms whose webhook Parley registers itself (with the inbound URL); the
others take it in their own console (docs/channels.md)."""
