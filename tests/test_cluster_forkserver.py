"""The forkserver that starts the local engine's workers has their modules preloaded.

Whichever start comes first (a run, or the probe ``can_start_processes`` that claims and
tests call before their runs) starts the server, and its preload is fixed then: a probe
that started it bare made every later worker import numpy and gctheory itself, about 0.5 s
of CPU per worker process (24 s more for three runs of 8 workers).
"""

from __future__ import annotations

import multiprocessing as mp
import sys
from multiprocessing import forkserver
from pathlib import Path

import pytest

from gctheory.cluster.processes import FORKSERVER_PRELOAD, can_start_processes, process_context

pytestmark = pytest.mark.skipif(
    sys.platform != "linux" or "forkserver" not in mp.get_all_start_methods(),
    reason="the forkserver start method and /proc are Linux's",
)


def _server_cmdline() -> str:
    pid = forkserver._forkserver._forkserver_pid  # type: ignore[attr-defined]
    assert pid is not None, "no forkserver is running"
    return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()


def test_the_probe_starts_the_server_with_the_workers_modules_preloaded():
    ok, why = can_start_processes()
    if not ok:
        pytest.skip(f"this machine cannot start worker processes: {why}")
    cmd = _server_cmdline()
    for name in FORKSERVER_PRELOAD:
        assert repr(name) in cmd, (name, cmd)


def test_the_context_sets_the_preload_only_for_the_forkserver():
    assert process_context("forkserver").get_start_method() == "forkserver"
    assert process_context("spawn").get_start_method() == "spawn"
    # the negative control: a bare context leaves the preload to whoever sets it
    bare = forkserver.ForkServer()
    assert bare._preload_modules == ["__main__"]  # type: ignore[attr-defined]
