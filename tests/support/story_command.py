"""`python -m bot_api story ...` run as a process, as a script or CI would."""

import asyncio
import os
import sys


async def story_command(url: str, token: str, *args: str) -> tuple[int, str, str]:
    environ = {**os.environ, "PARLEY_API_URL": url, "PARLEY_TOKEN": token}
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot_api",
        "story",
        *args,
        env=environ,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode is not None
    return process.returncode, out.decode(), err.decode()
