"""/healthz (the process answers), /readyz (its MongoDB and NATS answer too) and
/metrics (Prometheus; the gateway does not route it, deploy/README.md)."""

import asyncio
from typing import Any

from aiohttp import web
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

from shared.endpoints import endpoint
from shared.keys import PROBES

PROBE_TIMEOUT_SECONDS = 2

routes = web.RouteTableDef()


@routes.get("/healthz")
@endpoint(summary="Liveness: the process answers", tag="meta", auth=None)
async def healthz(request: web.Request) -> Any:
    return {"status": "ok"}


@routes.get("/readyz")
@endpoint(summary="Readiness: MongoDB and NATS answer", tag="meta", auth=None, errors=(503,))
async def readyz(request: web.Request) -> Any:
    checks: dict[str, str] = {}
    for name, probe in request.app[PROBES].items():
        try:
            healthy = await asyncio.wait_for(probe(), PROBE_TIMEOUT_SECONDS)
        except Exception:
            healthy = False
        checks[name] = "ok" if healthy else "unavailable"
    ready = all(state == "ok" for state in checks.values())
    return web.json_response(
        {"status": "ok" if ready else "unavailable", "checks": checks},
        status=200 if ready else 503,
    )


@routes.get("/metrics")
@endpoint(summary="Prometheus metrics of this process", tag="meta", auth=None)
async def metrics(request: web.Request) -> Any:
    response = web.Response(body=generate_latest())
    response.content_type = CONTENT_TYPE_LATEST.split(";")[0]
    response.charset = "utf-8"
    return response
