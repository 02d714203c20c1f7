"""Checkpoints (issue 12, items 3 and 4, and Faults): validated, checksummed, append-only,
crash-safe, and tied to the code of the function that made them."""

from __future__ import annotations

import functools
import json
import os
import random
import signal
import subprocess
import sys
import textwrap
import time
import types
from pathlib import Path

import numpy as np
import pytest

from gctheory.montecarlo import estimate_mean, estimate_probability
from gctheory.montecarlo.checkpoint import fingerprint
from tests import _mc_events as ev

ROOT = Path(__file__).resolve().parent.parent
EVENT = functools.partial(ev.bernoulli, p=0.4)
SAMPLER = functools.partial(ev.exponential, mean=1.0)


def _probability_ckpt(tmp_path: Path) -> Path:
    path = tmp_path / "p.ckpt"
    estimate_probability(EVENT, 5_000, rng=3, chunk_size=1_000, checkpoint=path)
    return path


def _mean_ckpt(tmp_path: Path) -> Path:
    path = tmp_path / "m.ckpt"
    estimate_mean(SAMPLER, 3_000, rng=3, chunk_size=1_000, checkpoint=path)
    return path


def _lines(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text().splitlines()]


def _write(path: Path, lines: list[dict]) -> None:
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))


def _resume_probability(path: Path):
    return estimate_probability(EVENT, 5_000, rng=3, chunk_size=1_000, checkpoint=path)


def _resume_mean(path: Path):
    return estimate_mean(SAMPLER, 3_000, rng=3, chunk_size=1_000, checkpoint=path)


# --- every edit that changes the answer is refused, naming the checkpoint and the field ----


def _chunk(lines: list[dict], i: int) -> list:
    return lines[1]["chunks"][i]  # [index, summary]; the whole run was flushed as one batch


@pytest.mark.parametrize(
    ("edit", "field"),
    [
        (lambda c: c.__setitem__(1, c[1] + 1), "field 'sha256'"),  # count + 1: the checksum
        (lambda c: c.__setitem__(1, 5_000), "chunk 1: field 'r': must lie in [0, 1000]"),
        (lambda c: c.__setitem__(1, -3), "chunk 1: field 'r': must lie in [0, 1000]"),
        (lambda c: c.__setitem__(1, 1.5), "chunk 1: field 'r': must be an integer"),
        (lambda c: c.__setitem__(1, "400"), "chunk 1: field 'r': must be an integer"),
        (lambda c: c.__setitem__(0, -1), "field 'i' (a chunk index) must lie in [0, 4]"),
        (lambda c: c.__setitem__(0, 9), "field 'i' (a chunk index) must lie in [0, 4]"),
        (lambda c: c.__setitem__(0, "2"), "field 'i' (a chunk index) must be an integer"),
        (lambda c: c.__setitem__(0, True), "field 'i' (a chunk index) must be an integer"),
        (lambda c: c.append(0), "is not a pair [index, summary]"),
    ],
)
def test_edited_chunk_of_a_probability_checkpoint_is_refused(tmp_path, edit, field):
    path = _probability_ckpt(tmp_path)
    lines = _lines(path)
    edit(_chunk(lines, 1))
    _write(path, lines)
    with pytest.raises(ValueError) as info:
        _resume_probability(path)
    msg = str(info.value)
    assert str(path) in msg and "line 2" in msg and field in msg


@pytest.mark.parametrize(
    ("edit", "match"),
    [
        (lambda b: b.pop("sha256"), "not a batch of chunks"),
        (lambda b: b.update(extra=1), "not a batch of chunks"),
        (lambda b: b.update(chunks=[]), "field 'chunks' must be a non-empty list"),
        (lambda b: b["chunks"].append(b["chunks"][1]), "field 'i': chunk 1 appears twice"),
    ],
)
def test_edited_batch_is_refused(tmp_path, edit, match):
    path = _probability_ckpt(tmp_path)
    lines = _lines(path)
    edit(lines[1])
    _write(path, lines)
    with pytest.raises(ValueError, match=match) as info:
        _resume_probability(path)
    assert str(path) in str(info.value) and "line 2" in str(info.value)


def test_batch_copied_from_another_run_is_refused(tmp_path):
    path = _probability_ckpt(tmp_path)
    other = tmp_path / "other.ckpt"
    estimate_probability(EVENT, 5_000, rng=4, chunk_size=1_000, checkpoint=other)
    # the other run's header differs (seed), so its batch does not verify here
    _write(path, _lines(path)[:1] + _lines(other)[1:])
    with pytest.raises(ValueError, match="line 2: field 'sha256' does not match"):
        _resume_probability(path)


def _edit_hex_exponent(r: dict) -> None:
    mantissa, exp = r["mean"].split("p")
    r["mean"] = f"{mantissa}p{int(exp) + 1}"


@pytest.mark.parametrize(
    ("edit", "field"),
    [
        (_edit_hex_exponent, "field 'sha256'"),  # the mean doubled (hi still allows it)
        (lambda r: r.update(mean="nan"), "field 'mean'"),
        (lambda r: r.update(mean="inf"), "field 'mean'"),
        (lambda r: r.update(m2="-0x1.0p+0"), "field 'm2': must be >= 0"),
        (lambda r: r.update(n=999), "field 'n': must lie in [1000, 1000]"),
        (lambda r: r.update(lo="0x1.0p+10"), "field 'mean': must satisfy lo <= mean <= hi"),
        (lambda r: r.update(top="!!"), "field 'top'"),
        (lambda r: r.pop("top"), "must have exactly the keys"),
    ],
)
def test_edited_mean_checkpoint_is_refused(tmp_path, edit, field):
    path = _mean_ckpt(tmp_path)
    lines = _lines(path)
    edit(_chunk(lines, 0)[1])
    _write(path, lines)
    with pytest.raises(ValueError) as info:
        _resume_mean(path)
    assert str(path) in str(info.value) and field in str(info.value)


@pytest.mark.parametrize(
    ("content", "match"),
    [
        (b"[1, 2, 3]\n", "line 1: not a checkpoint header"),
        (b'"text"\n', "line 1: not a checkpoint header"),
        (b"42\n{}\n", "line 1: not a checkpoint header"),
        (bytes(range(256)) * 4, "not a checkpoint \\(binary content"),
        (b"\x00\x01garbage\nmore\n", "line 1: not valid JSON"),
        (b'{"header": {}, "chunks": {}}\n', "format 1 were one JSON object"),
        (b"{not json}\n", "line 1: not valid JSON"),
    ],
)
def test_garbage_is_refused_with_the_same_kind_of_message(tmp_path, content, match):
    path = tmp_path / "garbage.ckpt"
    path.write_bytes(content)
    with pytest.raises(ValueError, match=match) as info:
        _resume_probability(path)
    assert str(path) in str(info.value)


def test_edited_header_is_refused(tmp_path):
    path = _probability_ckpt(tmp_path)
    lines = _lines(path)
    lines[0]["head"]["header"]["trials"] = 6_000
    _write(path, lines)
    with pytest.raises(ValueError, match="line 1: field 'sha256' does not match the header"):
        _resume_probability(path)


def test_torn_last_line_is_dropped_and_redone(tmp_path):
    path = _probability_ckpt(tmp_path)
    full = path.read_text()
    path.write_text(full[: len(full) - 25])  # a kill in the middle of the last write
    assert _resume_probability(path) == estimate_probability(EVENT, 5_000, rng=3, chunk_size=1_000)
    assert path.read_text() == full  # the torn line was replaced by the redone chunk


def test_checkpoint_is_appended_not_rewritten(tmp_path):
    path = tmp_path / "append.ckpt"
    estimate_probability(EVENT, 3_000, rng=3, chunk_size=1_000, checkpoint=path)
    first = path.read_text()
    inode = path.stat().st_ino
    with pytest.raises(ValueError, match="different parameters"):  # other trials: refused
        estimate_probability(EVENT, 5_000, rng=3, chunk_size=1_000, checkpoint=path)
    assert path.read_text() == first and path.stat().st_ino == inode


def test_checkpoint_of_a_seed_sequence_with_array_entropy(tmp_path):
    # a user's SeedSequence keeps its entropy as given; the header used int() on an array
    path = tmp_path / "array-seed.ckpt"
    seed = np.random.SeedSequence(np.array([3, 4]))
    got = estimate_probability(EVENT, 2_000, rng=seed, chunk_size=1_000, checkpoint=path)
    plain = estimate_probability(EVENT, 2_000, rng=np.random.SeedSequence([3, 4]), chunk_size=1_000)
    assert got == plain
    head = json.loads(path.read_text().splitlines()[0])["head"]
    assert head["header"]["seed"]["entropy"] == [3, 4]


def test_checkpoint_in_a_missing_folder_is_refused_before_any_work(tmp_path):
    target = tmp_path / "no" / "such" / "dir" / "run.ckpt"
    with pytest.raises(ValueError, match=r"its folder .* does not exist"):
        estimate_probability(ev.must_not_run, 1_000, rng=1, checkpoint=target)
    with pytest.raises(ValueError, match="is a directory"):
        estimate_probability(ev.must_not_run, 1_000, rng=1, checkpoint=tmp_path)


# --- the fingerprint covers the code ------------------------------------------------------


def _function(src: str, name: str = "event") -> types.FunctionType:
    module = types.ModuleType("user_module")
    exec(compile(textwrap.dedent(src), "<user>", "exec"), module.__dict__)
    return module.__dict__[name]


def test_same_name_edited_body_has_another_fingerprint():
    a = _function("def event(rng, size):\n    return rng.random(size) < 0.5\n")
    b = _function("def event(rng, size):\n    return rng.random(size) < 0.6\n")  # a constant
    c = _function("def event(rng, size):\n    return rng.random(size) <= 0.5\n")  # bytecode
    a2 = _function("def event(rng, size):\n    return rng.random(size) < 0.5\n")
    assert a.__qualname__ == b.__qualname__ == c.__qualname__
    assert len({fingerprint(a), fingerprint(b), fingerprint(c)}) == 3
    assert fingerprint(a) == fingerprint(a2)


def test_fingerprint_covers_defaults_closures_partials_and_helpers():
    d1 = _function("def event(rng, size, p=0.5):\n    return rng.random(size) < p\n")
    d2 = _function("def event(rng, size, p=0.6):\n    return rng.random(size) < p\n")
    assert fingerprint(d1) != fingerprint(d2)
    mk = (
        "def make(p):\n"
        "    def event(rng, size):\n"
        "        return rng.random(size) < p\n"
        "    return event\n"
    )
    make = _function(mk, "make")
    assert fingerprint(make(0.5)) != fingerprint(make(0.6))
    assert fingerprint(make(0.5)) == fingerprint(make(0.5))
    assert fingerprint(functools.partial(ev.bernoulli, p=0.4)) != fingerprint(
        functools.partial(ev.bernoulli, p=0.41)
    )
    body = "def event(rng, size):\n    return helper(rng.random(size))\n"
    h1 = _function("def helper(x):\n    return x < 0.5\n" + body)
    h2 = _function("def helper(x):\n    return x < 0.7\n" + body)
    assert fingerprint(h1) != fingerprint(h2)  # a helper of the same module changed
    arr1 = functools.partial(ev.bernoulli, p=np.float64(0.4))
    assert fingerprint(arr1) == fingerprint(functools.partial(ev.bernoulli, p=np.float64(0.4)))


def test_checkpoint_of_an_edited_event_is_refused(tmp_path):
    path = tmp_path / "edit.ckpt"
    a = _function("def event(rng, size):\n    return rng.random(size) < 0.5\n")
    b = _function("def event(rng, size):\n    return rng.random(size) < 0.6\n")
    estimate_probability(a, 4_000, rng=1, chunk_size=1_000, checkpoint=path)
    with pytest.raises(ValueError, match=r"different parameters \(event differ\)"):
        estimate_probability(b, 4_000, rng=1, chunk_size=1_000, checkpoint=path)


# --- crash safety: kills at random moments, then a bit-identical resume --------------------

_RUN = textwrap.dedent(
    """
    import functools, sys
    sys.path.insert(0, {root!r})
    from gctheory.montecarlo import estimate_probability
    from tests import _mc_events as ev
    event = functools.partial(ev.slow_bernoulli, p=0.3, delay=0.002)
    print("ready", flush=True)
    estimate_probability(event, 800_000, rng=21, chunk_size=1_000, checkpoint={path!r})
    """
)


def test_kills_at_random_moments_then_resume_bit_identical(tmp_path):
    path = tmp_path / "kills.ckpt"
    script = tmp_path / "run.py"
    script.write_text(_RUN.format(root=str(ROOT), path=str(path)))
    gen = random.Random(2024)
    kept = []
    for _ in range(3):
        proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
        assert proc.stdout.readline().strip() == "ready"
        # Kill at a random moment once the run has advanced a random number of chunks
        # (by progress, not by wall time: a fast machine finished the run inside a fixed
        # sleep), plus a random fraction of a chunk so that some kills land mid-write.
        target = (kept[-1] if kept else 0) + gen.randint(40, 200)
        deadline = time.monotonic() + 120
        while ev.checkpoint_chunks(path) < target and proc.poll() is None:
            assert time.monotonic() < deadline, "the run made no progress"
            time.sleep(0.001)
        time.sleep(gen.uniform(0.0, 0.003))
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        proc.stdout.close()
        kept.append(ev.checkpoint_chunks(path))
    event = functools.partial(ev.slow_bernoulli, p=0.3, delay=0.002)
    resumed = estimate_probability(event, 800_000, rng=21, chunk_size=1_000, checkpoint=path)
    fresh = estimate_probability(
        functools.partial(ev.bernoulli, p=0.3), 800_000, rng=21, chunk_size=1_000
    )
    assert resumed == fresh
    assert 0 < kept[0] <= kept[1] <= kept[2] < 800, kept  # each kill interrupted the run
