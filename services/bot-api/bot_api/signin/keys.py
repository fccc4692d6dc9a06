"""Sign-in's application keys."""

from aiohttp import web

from bot_api.signin.service import SignInService

SIGN_IN = web.AppKey("sign_in", SignInService)
"""Set only when the deployment has an identity provider (`OIDC_ISSUER`)."""
