"""`python -m bot_api story ...` run as a process, as a script or CI would."""

import asyncio
import os
import sys
from collections.abc import Mapping


async def bot_api_command(environ: Mapping[str, str], *args: str) -> tuple[int, str, str]:
    """`python -m bot_api ARGS...` run with `environ`: its exit status, output and errors."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot_api",
        *args,
        env=dict(environ),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode is not None
    return process.returncode, out.decode(), err.decode()


async def story_command(url: str, token: str, *args: str) -> tuple[int, str, str]:
    """With `SEMANTIC_MATCHING` off: a server-less `story test` of an English story would
    otherwise load MiniLM (seconds of CPU); test_story_test_command.py runs its semantic
    stage with a stand-in encoder."""
    environ = {
        **os.environ,
        "PARLEY_API_URL": url,
        "PARLEY_TOKEN": token,
        "SEMANTIC_MATCHING": "off",
    }
    return await bot_api_command(environ, "story", *args)
