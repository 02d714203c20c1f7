"""gctheory._threads: one BLAS thread inside the context, the scan of libraries kept."""

import sys
import types

import numpy as np  # noqa: F401  (loads the BLAS the context limits)
import pytest

threadpoolctl = pytest.importorskip("threadpoolctl")


def _blas_threads() -> list[int]:
    return [i["num_threads"] for i in threadpoolctl.threadpool_info() if i["user_api"] == "blas"]


def test_one_thread_inside_and_the_old_count_after():
    from gctheory._threads import blas_single_thread

    before = _blas_threads()
    with threadpoolctl.threadpool_limits(2):  # a count the context must change
        with blas_single_thread():
            assert set(_blas_threads()) == {1}
        assert set(_blas_threads()) == {2}
    assert _blas_threads() == before


def test_the_scan_is_kept_until_a_module_is_imported(monkeypatch):
    from gctheory import _threads

    with _threads.blas_single_thread():
        pass
    first = _threads._controller()
    assert _threads._controller() is first  # nothing imported: the same scan
    monkeypatch.setitem(sys.modules, "_gctheory_test_new_module", types.ModuleType("x"))
    assert _threads._controller() is not first  # an import since: scanned again
