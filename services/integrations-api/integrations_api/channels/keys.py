"""The channels' application keys: what the use cases work with, and the count of failed
signatures."""

from aiohttp import web

from integrations_api.channels.failures import SigningFailures
from integrations_api.channels.service import ChannelBackends

CHANNEL_BACKENDS = web.AppKey("channel_backends", ChannelBackends)
SIGNING_FAILURES = web.AppKey("signing_failures", SigningFailures)
