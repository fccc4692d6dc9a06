"""A NATS JetStream cluster on loopback, from the same nats-server as `start_nats`: for
`make scale` and the tests of the replicated event stream.

Each node has its client port, its cluster port (the routes the nodes talk over), a
monitoring port (its /jsz says who leads the cluster) and a store of its own. The
cluster serves JetStream once its nodes elected a meta leader, which takes a quorum:
`start_nats_cluster` returns then. A stopped node started again (`start_node`) comes
back with the same ports and store, and catches up.
"""

import json
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from tools.embedded import (
    START_TIMEOUT_SECONDS,
    ServerProcess,
    free_port,
    nats_accepts,
    nats_command,
    spawn,
)

CLUSTER_NAME = "parley"


@dataclass(frozen=True)
class NatsNode:
    """What a node starts with, the same at every start."""

    name: str
    client_port: int
    cluster_port: int
    monitor_port: int
    store_dir: Path

    @property
    def url(self) -> str:
        return f"nats://127.0.0.1:{self.client_port}"

    @property
    def route(self) -> str:
        return f"nats://127.0.0.1:{self.cluster_port}"

    def meta_leader(self) -> str:
        """The cluster's meta leader as this node knows it; "" while there is none."""
        url = f"http://127.0.0.1:{self.monitor_port}/jsz"
        with urllib.request.urlopen(url, timeout=1) as response:
            return str(json.loads(response.read()).get("meta_cluster", {}).get("leader", ""))


@dataclass
class NatsCluster:
    nodes: list[NatsNode]
    servers: list[ServerProcess]
    """The running process of each node, in the order of `nodes`."""
    log_dir: Path

    @property
    def url(self) -> str:
        """NATS_URL for this cluster: every node's URL."""
        return ",".join(node.url for node in self.nodes)

    def index(self, name: str) -> int:
        """The place in `nodes` and `servers` of the node named `name` (as JetStream names
        a stream's leader)."""
        return [node.name for node in self.nodes].index(name)

    def start_node(self, index: int) -> ServerProcess:
        """Start node `index` (stopped or died) again, once it knows the meta leader."""
        self.servers[index] = self._spawn(self.nodes[index])
        self._wait_for_leader([index])
        return self.servers[index]

    def start(self) -> None:
        """Start every node, side by side (each waits for the others to elect a leader)."""
        self.servers = [self._spawn(node) for node in self.nodes]
        self._wait_for_leader(list(range(len(self.nodes))))

    def stop(self) -> None:
        for server in self.servers:
            server.stop()

    def _spawn(self, node: NatsNode) -> ServerProcess:
        routes = ",".join(other.route for other in self.nodes if other != node)
        command = [
            *nats_command(node.store_dir, node.client_port),
            "--server_name",
            node.name,
            "--cluster_name",
            CLUSTER_NAME,
            "--cluster",
            node.route,
            "--routes",
            routes,
            "--http_port",
            str(node.monitor_port),
        ]
        return spawn(node.name, node.url, command, self.log_dir / f"{node.name}.log")

    def _wait_for_leader(self, indexes: list[int]) -> None:
        """Until the nodes `indexes` accept clients and know the same meta leader."""
        deadline = time.monotonic() + START_TIMEOUT_SECONDS
        while time.monotonic() < deadline:
            for index in indexes:
                self.servers[index].check_alive()
            try:
                nodes = [self.nodes[i] for i in indexes]
                leaders = {node.meta_leader() for node in nodes}
                if (
                    "" not in leaders
                    and len(leaders) == 1
                    and all(nats_accepts(node.client_port) for node in nodes)
                ):
                    return
            except OSError:
                pass
            time.sleep(0.1)
        tails = "\n".join(self.servers[i].log_tail() for i in indexes)
        for index in indexes:
            self.servers[index].stop()
        raise RuntimeError(f"the NATS cluster elected no leader:\n{tails}")


def start_nats_cluster(store_dir: Path, log_dir: Path, size: int = 3) -> NatsCluster:
    """`size` nodes named nats-1, nats-2... on free ports, each storing under
    `store_dir`/<its name>, once they elected a meta leader."""
    nodes = [
        NatsNode(f"nats-{n}", free_port(), free_port(), free_port(), store_dir / f"nats-{n}")
        for n in range(1, size + 1)
    ]
    cluster = NatsCluster(nodes, [], log_dir)
    cluster.start()
    return cluster
