"""The task messages of the worker pipes and sockets (gctheory.cluster.wire): every value a
task carries comes back equal, nothing else is encoded, and any malformed message is a
ValueError, never code run and never a crash of another kind."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from gctheory.cluster.groups import READY, _Loop, read_ready
from gctheory.cluster.wire import (
    MAX_NESTING,
    decode_value,
    encode_value,
    read_task_message,
    task_message,
)


def _same(a, b) -> bool:
    if isinstance(a, np.ndarray):
        return isinstance(b, np.ndarray) and a.dtype == b.dtype and np.array_equal(a, b)
    if isinstance(a, tuple | list):
        return type(a) is type(b) and len(a) == len(b) and all(map(_same, a, b))
    return type(a) is type(b) and a == b


VALUES = [
    None, True, False, 0, -(2**63), 2**63 - 1, 0.1, float("inf"), "", "Y", "grüße",
    (), [], (("a", 1), np.arange(5.0)), [np.zeros((2, 3), np.float32), np.array([1, 2], np.int8)],
    np.array([1 + 2j]), np.empty(0), ((("A", 3), np.linspace(0, 1, 7)), ("Y", np.ones(2))),
]  # fmt: skip


@pytest.mark.parametrize("value", VALUES, ids=range(len(VALUES)))
def test_every_value_a_task_carries_comes_back_equal(value):
    assert _same(decode_value(encode_value(value)), value)


def test_a_numpy_scalar_comes_back_as_its_python_number():
    back = decode_value(encode_value((np.int64(3), np.float64(0.5), np.bool_(True))))
    assert back == (3, 0.5, True) and [type(x) for x in back] == [int, float, bool]


@pytest.mark.parametrize(
    "value",
    [{"a": 1}, {1, 2}, object(), np.array([object()], dtype=object), b"bytes", 2**63],
    ids=["dict", "set", "object", "object-array", "bytes", "int-beyond-int64"],
)
def test_anything_else_is_refused_by_name_when_encoding(value):
    with pytest.raises(ValueError, match="task's parameters"):
        encode_value(value)


def test_nesting_is_bounded_both_ways():
    deep: object = 1.0
    for _ in range(MAX_NESTING + 2):
        deep = (deep,)
    with pytest.raises(ValueError, match="nest deeper"):
        encode_value(deep)
    raw = b"(\x01\x00\x00\x00" * (MAX_NESTING + 2) + b"N"
    with pytest.raises(ValueError, match="nests deeper"):
        decode_value(raw)


def test_a_task_message_round_trips_with_its_items():
    params = ((("A", 2), np.arange(4.0)), (("B", 0), np.ones(4)))
    data = task_message(7, encode_value(params), [(3, 0.25), (11, 0.0)], True)
    t, back, items, preempt = read_task_message(data)
    assert (t, items, preempt) == (7, [(3, 0.25), (11, 0.0)], True)
    assert _same(back, params)


def test_a_group_reads_a_task_message_and_refuses_a_pickle():
    loop = _Loop(None, [])
    msg = task_message(4, encode_value(np.arange(3.0)), [(0, 0.5)], False)
    t, params, items, preempt = loop.read(msg)
    assert (t, params.tolist(), items, preempt) == (4, [0.0, 1.0, 2.0], [(0, 0.5)], False)
    # the message the pipes carried before: a pickle behind b"P" is not a task message
    old = b"P" + pickle.dumps(("tasks", 4, pickle.dumps(np.arange(3.0)), [(0, 0.5)], False))
    with pytest.raises(ValueError, match="malformed"):
        loop.read(old)


def _corruptions(good: bytes, rng: np.random.Generator, count: int = 400) -> list[bytes]:
    """Every truncation of ``good`` and ``count`` copies with 1-3 random bytes changed."""
    cases = [good[:k] for k in range(len(good))]
    for _ in range(count):
        b = bytearray(good)
        for j in rng.integers(0, len(b), size=int(rng.integers(1, 4))):
            b[j] = int(rng.integers(0, 256))
        cases.append(bytes(b))
    return cases


def test_malformed_messages_are_value_errors_never_another_exception():
    """Every truncation and many random corruptions of valid messages: a ValueError or the
    value itself (a corruption can make another valid message), nothing else."""
    good = task_message(1, encode_value(((("A", 1), np.arange(6.0)), ("Y", "z"))), [(0, 1.0)], True)
    errors = 0
    for data in _corruptions(good, np.random.default_rng(0)):
        try:
            read_task_message(data)
        except ValueError:
            errors += 1
    assert errors >= len(good)  # at least every truncation was refused


def test_a_ready_answer_is_bytes_and_anything_else_is_refused():
    assert read_ready(b"R" + READY.pack(3, 4242)) == (3, 4242)
    for bad in (b"", b"R", b"X" + READY.pack(3, 4242), pickle.dumps(("ready", 3, 4242))):
        with pytest.raises(ValueError, match="ready message"):
            read_ready(bad)


# ---------------------------------------------------------------------------
# what an MPI worker rank sends back (gctheory.cluster.mpi.read_reply): no mpi4py needed


def test_an_mpi_reply_round_trips_and_a_malformed_one_names_the_rank():
    from gctheory.cluster.mpi import read_reply

    y = np.arange(4.0)
    for reply in (("ready", 2, 4242), ("result", 5, y, 0.01, 0.2), ("error", 5, 3, "boom"),
                  ("bye", 2)):  # fmt: skip
        assert _same(read_reply(encode_value(reply), rank=3), reply)
    bad = [
        ("bye", True),  # a bool is not a worker
        ("bye", "2"),
        ("bye",),
        ("bye", 2, 3),
        ("result", 5, [1.0, 2.0], 0.01, 0.2),  # a list, not an array
        ("result", 5, y, 1, 0.2),  # an int for a time
        ("stop",),
        (1, 2),
        ["bye", 2],
        "bye",
        None,
    ]
    for msg in bad:
        with pytest.raises(ValueError, match="MPI rank 3 sent a malformed message"):
            read_reply(encode_value(msg), rank=3)
    with pytest.raises(ValueError, match="malformed"):  # a pickle is not read as one
        read_reply(pickle.dumps(("bye", 2)), rank=3)


def test_corrupted_mpi_replies_are_value_errors_never_another_exception():
    from gctheory.cluster.mpi import read_reply

    good = encode_value(("result", 5, np.arange(6.0), 0.01, 0.2))
    refused = 0
    for data in _corruptions(good, np.random.default_rng(1)):
        try:
            read_reply(data, rank=1)
        except ValueError:
            refused += 1
    assert refused >= len(good)  # at least every truncation was refused
