"""The Dask engine over a network: a scheduler on the master's address, one ``dask worker``
process in each host namespace (:class:`gctheory.cluster.engines.DaskEngine` with ``network=``)."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from gctheory.cluster.network.links import Network
from gctheory.cluster.network.spec import NetworkSpec

__all__ = ["start_dask", "as_spec"]


def as_spec(network: Any, address: Any = None, client: Any = None) -> NetworkSpec:
    """``network`` (a spec string or a :class:`NetworkSpec`) as a spec; refused beside an
    address or a client (the network makes its own scheduler and workers)."""
    if address is not None or client is not None:
        raise ValueError(
            "network= makes its own scheduler and workers: give neither address nor client"
        )
    if isinstance(network, str):
        return NetworkSpec.parse(network)
    if not isinstance(network, NetworkSpec):
        raise ValueError(f"network must be a NetworkSpec or a spec string, got {network!r}")
    return network


def start_dask(spec: NetworkSpec, n: int, timeout: float) -> tuple[Network, Any, Any]:
    """Build the network for ``n`` workers (``min(n, 8)`` hosts unless the spec says), start
    a scheduler on the master's address and a ``dask worker`` per host; return the network,
    the cluster (the scheduler) and a client. On any failure everything comes down."""
    from distributed import Client, LocalCluster

    net = Network(spec, hosts=min(n, 8)).up()
    cluster = client = None
    try:
        cluster = LocalCluster(
            n_workers=0, processes=False, host=net.master_address, protocol="tcp://",
            dashboard_address=None,
            scheduler_kwargs={"dashboard": False, "dashboard_address": "127.0.0.1:0"},
        )  # fmt: skip
        sched = cluster.scheduler_address
        root = str(Path(__file__).resolve().parents[3])
        env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1",
                   PYTHONPATH=os.pathsep.join(
                       [root, *filter(None, [os.environ.get("PYTHONPATH")])]))  # fmt: skip
        per = -(-n // net.n_hosts)
        logs = [tempfile.TemporaryFile() for _ in net.host_addresses]
        for j, addr in enumerate(net.host_addresses):
            net.popen(j, [sys.executable, "-m", "distributed.cli.dask_worker", sched,
                          "--nthreads", str(per), "--no-nanny", "--no-dashboard",
                          "--host", addr, "--name", f"h{j}", "--death-timeout", "60"],
                      env=env, stdout=subprocess.DEVNULL, stderr=logs[j])  # fmt: skip
        client = Client(cluster)
        _wait_for_hosts(client, net, logs, timeout)
    except BaseException:
        if client is not None:
            client.close()
        if cluster is not None:
            cluster.close()
        net.down()
        raise
    return net, cluster, client


def _wait_for_hosts(client: Any, net: Any, logs: list[Any], timeout: float) -> None:
    """Wait until every host's ``dask worker`` has joined; one that exits is an error
    carrying the end of its log. Closes the logs."""
    deadline = time.monotonic() + timeout
    try:
        while len(client.scheduler_info()["workers"]) < net.n_hosts:
            for j, p in enumerate(net.procs):
                if p.poll() is not None:
                    logs[j].seek(0)
                    tail = logs[j].read().decode(errors="replace")[-1500:]
                    raise RuntimeError(
                        f"the dask worker in {net.host_ns[j]} exited (code {p.returncode}):\n"
                        + tail
                    )
            if time.monotonic() > deadline:
                raise TimeoutError(
                    f"{len(client.scheduler_info()['workers'])} of {net.n_hosts} dask workers "
                    f"joined within {timeout:g} s ({net.describe()})"
                )
            time.sleep(0.1)
    finally:
        for f in logs:
            f.close()
