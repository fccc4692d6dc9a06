"""The tests' mend of PyMongo's connect (support/pymongo_cancellation.py, loaded by
conftest.py): a connect cancelled halfway leaves no socket open."""

import asyncio
import gc
import os
import socket
import warnings

from pymongo import pool_shared
from pymongo.pool_options import PoolOptions

from support.waiting import eventually


def _open_sockets() -> int:
    count = 0
    for fd in os.listdir("/proc/self/fd"):
        try:
            count += os.readlink(f"/proc/self/fd/{fd}").startswith("socket:")
        except FileNotFoundError:  # the listing's own descriptor, closed by now
            continue
    return count


async def test_a_connect_cancelled_while_it_waits_closes_its_socket() -> None:
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(0)
        # A listener that never accepts, its backlog filled: the next connect waits
        # (Linux drops its SYN) until it is cancelled.
        fillers = [socket.socket() for _ in range(3)]
        for filler in fillers:
            filler.setblocking(False)
            filler.connect_ex(listener.getsockname())
        try:
            before = _open_sockets()
            connect = asyncio.create_task(
                pool_shared._async_create_connection(
                    listener.getsockname(), PoolOptions(connect_timeout=60.0)
                )
            )

            async def connecting() -> bool:
                return _open_sockets() == before + 1

            await eventually(connecting)
            assert not connect.done()
            connect.cancel()
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                await asyncio.gather(connect, return_exceptions=True)
                gc.collect()
            assert connect.cancelled()
            assert _open_sockets() == before
            assert not [w for w in caught if issubclass(w.category, ResourceWarning)]
        finally:
            for filler in fillers:
                filler.close()
