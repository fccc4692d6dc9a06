"""A story's conversation tests: `/stories/:id/tests` (docs/tests.md)."""

from typing import Any

from aiohttp import web

from bot_api.common.schemas import CreatedSchema, SuccessSchema
from bot_api.common.views import account_of, created_once, success
from bot_api.domain.conversation_tests import ConversationTest
from bot_api.story_tests.keys import CONVERSATION_TESTS
from bot_api.story_tests.schemas import RunRequestSchema, RunSchema, TestSchema, TestWriteSchema
from bot_api.story_tests.service import RUN_BUDGET_SECONDS, STARTED_RUNS
from shared.auditing import Audited
from shared.endpoints import Handler, endpoint

routes = web.RouteTableDef()
READS = frozenset({"GET", "HEAD", "OPTIONS"})


@web.middleware
async def tests_link(request: web.Request, handler: Handler) -> web.StreamResponse:
    """A successful edit of a story answers a `Link` to the run of its tests that the edit
    started (`rel="tests"`, docs/tests.md); its body stays as it was."""
    if request.method in READS:
        return await handler(request)
    started: set[str] = set()
    token = STARTED_RUNS.set(started)
    try:
        response = await handler(request)
    finally:
        STARTED_RUNS.reset(token)
    if response.status < 300:
        for story_id in sorted(started):
            response.headers.add("Link", f'</stories/{story_id}/tests/last>; rel="tests"')
    return response


@routes.get("/stories/{story}/tests")
@endpoint(
    summary="List the story's conversation tests, oldest first",
    tag="tests",
    response=TestSchema(many=True),
    errors=(404,),
)
async def list_tests(request: web.Request) -> Any:
    return await request.app[CONVERSATION_TESTS].list_tests(
        account_id=account_of(request), story_id=request.match_info["story"]
    )


@routes.post("/stories/{story}/tests")
@endpoint(
    audit=Audited("test.create"),
    summary="Create a conversation test: turns and what each must answer",
    tag="tests",
    body=TestWriteSchema(),
    response=CreatedSchema(),
    errors=(404, 409),
)
async def create_test(request: web.Request, body: ConversationTest) -> Any:
    story_id = request.match_info["story"]

    async def create(account_id: str, new_id: str | None) -> str:
        return await request.app[CONVERSATION_TESTS].create(
            account_id=account_id, story_id=story_id, test=body, new_id=new_id
        )

    return await created_once(request, {"story": story_id, "test": str(body)}, create)


@routes.post("/stories/{story}/tests/run")
@endpoint(
    audit=Audited("tests.run"),
    summary="Run the story's tests against its draft or one of its versions",
    tag="tests",
    body=RunRequestSchema(),
    response=RunSchema(),
    errors=(404, 409),
    budget_seconds=RUN_BUDGET_SECONDS,
)
async def run_tests(request: web.Request, body: dict[str, Any]) -> Any:
    return await request.app[CONVERSATION_TESTS].run(
        account_id=account_of(request),
        story_id=request.match_info["story"],
        version_id=body.get("version"),
    )


@routes.get("/stories/{story}/tests/last")
@endpoint(
    summary="The last run of the story's tests, after its last edit",
    tag="tests",
    response=RunSchema(),
    errors=(404,),
)
async def last_run(request: web.Request) -> Any:
    return await request.app[CONVERSATION_TESTS].last(
        account_id=account_of(request), story_id=request.match_info["story"]
    )


@routes.route("*", "/stories/{story}/tests/run")
async def run_only_posts(request: web.Request) -> web.Response:
    """Without this, `/tests/{test}` would answer any other method as if `run` were a
    test's id."""
    raise web.HTTPMethodNotAllowed(request.method, ["POST"])


@routes.route("*", "/stories/{story}/tests/last")
async def last_only_reads(request: web.Request) -> web.Response:
    raise web.HTTPMethodNotAllowed(request.method, ["GET", "HEAD"])


@routes.get("/stories/{story}/tests/{test}")
@endpoint(summary="Read a conversation test", tag="tests", response=TestSchema(), errors=(404,))
async def read_test(request: web.Request) -> Any:
    return await request.app[CONVERSATION_TESTS].read(
        account_id=account_of(request),
        story_id=request.match_info["story"],
        test_id=request.match_info["test"],
    )


@routes.put("/stories/{story}/tests/{test}")
@endpoint(
    audit=Audited("test.replace"),
    summary="Replace a conversation test",
    tag="tests",
    body=TestWriteSchema(),
    response=SuccessSchema(),
    errors=(404,),
)
async def replace_test(request: web.Request, body: ConversationTest) -> Any:
    await request.app[CONVERSATION_TESTS].replace(
        account_id=account_of(request),
        story_id=request.match_info["story"],
        test_id=request.match_info["test"],
        test=body,
    )
    return success()


@routes.delete("/stories/{story}/tests/{test}")
@endpoint(
    audit=Audited("test.delete"),
    summary="Delete a conversation test",
    tag="tests",
    response=SuccessSchema(),
    errors=(404,),
)
async def delete_test(request: web.Request) -> Any:
    await request.app[CONVERSATION_TESTS].delete(
        account_id=account_of(request),
        story_id=request.match_info["story"],
        test_id=request.match_info["test"],
    )
    return success()
