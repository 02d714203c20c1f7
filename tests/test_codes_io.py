"""Save / load of every code family (bit-for-bit), alist files, Tandon's B as .npy."""

from __future__ import annotations

import inspect
import json
import zipfile

import numpy as np
import pytest
from scipy import sparse

import gctheory.codes as c
from gctheory.codes import load, load_code, save_code
from gctheory.codes.io import _fingerprint
from gctheory.ldpc import read_alist, regular_ensemble, write_alist


def _families():
    G = np.array([[1.0, 0, 1, 1], [0, 1, 1, 2]])
    H = np.array([[1, 1, 0], [0, 1, 1], [1, 0, 1], [1, 1, 1]])
    return {
        "BernoulliGradientCode": c.BernoulliGradientCode(8, 0.4, rng=3),
        "BatchRaptorCode": c.BatchRaptorCode([[0, 1], [2, 3], [4, 5]], H),
        "CommFRCode": c.CommFRCode(8, 4, G),
        "CommFRLDPCCode": c.CommFRLDPCCode(24, 12, regular_ensemble(12, 3, 6, rng=1).toarray()),
        "BIBDGradientCode": c.BIBDGradientCode(c.projective_plane(2)),
        "StochasticGradientCode": c.StochasticGradientCode(np.array([[1, 0], [1, 1], [0, 1]]), 0.2),
        "DFractionalRepetitionCode": c.DFractionalRepetitionCode(11, 3, rng=5),
        "ExpanderCode": c.ExpanderCode(c.margulis_graph(3)),
        "GraphAssignmentCode": c.GraphAssignmentCode(c.circulant_graph(6, [1, 2])),
        "ISGCCode": c.ISGCCode(12, 2, "cyclic"),
        "ProductGradientCode": c.ProductGradientCode(
            np.kron(c.FractionalRepetitionCode(4, 1).B, c.CyclicMDSCode(3, 1, rng=0).B)
        ),
        "ReedSolomonCode": c.ReedSolomonCode(6, 6, 3),
        "MatrixGradientCode": c.MatrixGradientCode(c.CyclicMDSCode(5, 2, rng=2).B, 2),
        "FractionalRepetitionCode": c.FractionalRepetitionCode(12, 2),
        "CyclicMDSCode": c.CyclicMDSCode(7, 2, rng=1),
        "YeAbbeCode": c.YeAbbeCode(8, 2, 2, V="gaussian", rng=0),
        "HeterogeneousGradientCode": c.HeterogeneousGradientCode(
            c.measured_split([1, 1, 2, 2, 3, 3], 6, 1), 6, 1, rng=0
        ),
    }


FAMILIES = _families()


def test_every_family_exported_by_codes_is_covered():
    classes = {
        name
        for name in c.__all__
        if inspect.isclass(getattr(c, name))
        and issubclass(getattr(c, name), c.GradientCode)
        and getattr(c, name) is not c.GradientCode
    }
    assert classes == set(FAMILIES)
    for name, code in FAMILIES.items():
        assert type(code) is getattr(c, name)


def _same(a, b):
    assert type(a) is type(b)
    assert a.__dict__.keys() == b.__dict__.keys()


@pytest.mark.parametrize("name", sorted(FAMILIES))
def test_round_trip_bit_for_bit(tmp_path, name):
    code = FAMILIES[name]
    path = code.save(tmp_path / f"{name}.npz")
    back = load(path)
    _same(code, back)
    # saving the loaded code gives the same arrays and fingerprint
    again = back.save(tmp_path / "again.npz")
    meta = [json.loads(str(np.load(p)["metadata"])) for p in (path, again)]
    assert meta[0]["fingerprint"] == meta[1]["fingerprint"]
    assert np.array_equal(code.encoding_matrix, back.encoding_matrix)
    assert code.encoding_matrix.dtype == back.encoding_matrix.dtype
    assert np.array_equal(code.support, back.support) and repr(code) == repr(back)
    rng = np.random.default_rng(1)
    P = rng.standard_normal((code.k, 7))
    Y, Y2 = code.encode(P), back.encode(P)
    assert np.array_equal(Y, Y2)
    n_s = code.s if code.s is not None else 2
    for T in (list(range(code.n)), list(range(n_s, code.n)), list(range(0, code.n, 2))):
        if len(T) < code.min_survivors:
            continue
        try:
            want = code.decode(T, Y[T], d=7)
        except ValueError as exc:
            with pytest.raises(ValueError, match=str(exc)[:30].replace("[", r"\[")):
                back.decode(T, Y2[T], d=7)
            continue
        got = back.decode(T, Y2[T], d=7)
        assert np.array_equal(want, got), name


def test_metadata_names_the_class_version_and_parameters(tmp_path):
    path = save_code(c.CyclicMDSCode(7, 2, rng=1), tmp_path / "cyc.npz")
    meta = json.loads(str(np.load(path)["metadata"]))
    assert meta["format"] == "gctheory-code" and meta["version"] == 1
    assert meta["class"] == "gctheory.codes.tandon:CyclicMDSCode"
    assert meta["parameters"] == {"n": 7, "s": 2, "construction": "random"}
    assert len(meta["fingerprint"]) == 64


def _rewrite(path, out, edit_meta=None, edit_arrays=None):
    with np.load(path) as z:
        files = {k: z[k] for k in z.files}
    meta = json.loads(str(files.pop("metadata")))
    if edit_meta:
        edit_meta(meta)
    if edit_arrays:
        edit_arrays(files)
    np.savez(out, metadata=np.array(json.dumps(meta)), **files)
    return out


def test_refuses_a_newer_version_a_bad_fingerprint_and_other_files(tmp_path):
    path = c.FractionalRepetitionCode(6, 1).save(tmp_path / "frc.npz")
    newer = _rewrite(path, tmp_path / "newer.npz", lambda m: m.update(version=2))
    with pytest.raises(ValueError, match="newer.npz: format version 2 is newer"):
        load_code(newer)

    def flip(files):
        files["state/B"] = files["state/B"].copy()
        files["state/B"][0, 0] = 2.0

    edited = _rewrite(path, tmp_path / "edited.npz", edit_arrays=flip)
    with pytest.raises(ValueError, match="edited.npz: fingerprint mismatch"):
        load_code(edited)
    meta_edit = _rewrite(path, tmp_path / "meta.npz", lambda m: m["state"].update(s=3))
    with pytest.raises(ValueError, match="fingerprint mismatch"):
        load_code(meta_edit)

    def foreign(m):  # a consistent file naming a class outside gctheory
        m["class"] = "os:system"
        with np.load(path) as z:
            m["fingerprint"] = _fingerprint(m, {k: z[k] for k in z.files if k != "metadata"})

    with pytest.raises(ValueError, match="os is not a module of gctheory"):
        load_code(_rewrite(path, tmp_path / "foreign.npz", foreign))
    other = tmp_path / "other.npz"
    np.savez(other, x=np.ones(3))
    with pytest.raises(ValueError, match="other.npz: not a saved gctheory code"):
        load_code(other)
    junk = tmp_path / "junk.npz"
    junk.write_bytes(b"not a zip")
    with pytest.raises(ValueError, match="junk.npz: not a saved gctheory code"):
        load_code(junk)
    with pytest.raises(ValueError, match="no such file"):
        load_code(tmp_path / "missing.npz")
    with zipfile.ZipFile(path) as z:
        assert all(not n.endswith(".pkl") for n in z.namelist())


def test_refuses_an_existing_path_unless_overwrite(tmp_path):
    code = c.FractionalRepetitionCode(6, 1)
    path = code.save(tmp_path / "x.npz")
    with pytest.raises(ValueError, match="x.npz exists; pass overwrite=True"):
        code.save(path)
    other = c.FractionalRepetitionCode(6, 2)
    other.save(path, overwrite=True)
    assert load(path).s == 2
    with pytest.raises(ValueError, match="does not exist"):
        code.save(tmp_path / "no" / "x.npz")
    with pytest.raises(ValueError, match="expected a GradientCode"):
        save_code(np.eye(3), tmp_path / "y.npz")


# ---------------------------------------------------------------- Tandon's B
def test_tandon_B_is_a_plain_npy_in_their_orientation(tmp_path):
    code = c.CyclicMDSCode(6, 2, rng=3)
    path = code.save_tandon_B(tmp_path / "B.npy")
    B = np.load(path, allow_pickle=False)
    assert B.shape == (6, 6) and B.dtype == np.float64 and np.array_equal(B, code.B)
    # worker i holds partitions i, ..., i + s (mod n), as their loaders assume
    for i in range(6):
        assert set(np.flatnonzero(B[i])) == {(i + j) % 6 for j in range(3)}
    # their master: lstsq(B[T, :].T, ones(n)) decodes from any n - s finished workers
    T = [0, 2, 3, 5]
    a = np.linalg.lstsq(B[T, :].T, np.ones(6), rcond=None)[0]
    assert np.allclose(a @ B[T, :], 1.0)
    with pytest.raises(ValueError, match="exists"):
        c.export_B(code, path)
    with pytest.raises(ValueError, match="m = 2"):
        c.YeAbbeCode(8, 2, 2).save_tandon_B(tmp_path / "ye.npy")
    with pytest.raises(ValueError, match=r"must end in \.npy"):
        code.save_tandon_B(tmp_path / "B.txt")


# ---------------------------------------------------------------- alist
ALIST = """7 3
3 5
1 1 2 1 2 2 3
5 4 3
1 0 0
2 0 0
1 3 0
1 0 0
2 3 0
1 2 0
1 2 3
1 3 4 6 7
2 5 6 7 0
3 5 7 0 0
"""


def test_alist_round_trip(tmp_path):
    H = regular_ensemble(30, 3, 6, rng=2)
    path = write_alist(H, tmp_path / "h.alist")
    back = read_alist(path)
    assert back.shape == H.shape and (back != H).nnz == 0
    again = write_alist(back, tmp_path / "again.alist")
    assert again.read_text() == path.read_text()
    with pytest.raises(ValueError, match="exists"):
        write_alist(H, path)


def test_alist_reads_padded_and_unpadded_files(tmp_path):
    p = tmp_path / "hamming.alist"
    p.write_text(ALIST)
    H = read_alist(p).toarray()
    assert H.shape == (3, 7) and H.sum() == 12 and list(H[:, 6]) == [1, 1, 1]
    assert list(H[0]) == [1, 0, 1, 1, 0, 1, 1]
    unpadded = "\n".join(line.replace(" 0", "") for line in ALIST.splitlines()) + "\n"
    q = tmp_path / "unpadded.alist"
    q.write_text(unpadded)
    assert (read_alist(q) != sparse.csr_matrix(H)).nnz == 0


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda s: s.replace("1 1 2 1 2 2 3", "1 1 2 1 2 2 2"), "inconsistent degrees"),
        (lambda s: s.replace("3 5\n", "3 6\n", 1), "inconsistent degrees: maximum"),
        (lambda s: s.replace("1 3 0\n", "1 0 0\n", 1), r"line 7 \(column 3\): inconsistent degree"),
        (lambda s: s.replace("1 3 4 6 7", "1 3 4 5 7"), "inconsistent degrees: H"),
        (lambda s: s.replace("1 2 3\n", "1 2 9\n"), r"column 7\): index out of 1..3"),
        (lambda s: s.replace("1 3 4 6 7", "1 3 3 6 7"), "listed twice"),
        (lambda s: s.replace("5 4 3", "5 4 x"), r"line 4 \(the row weights\): not integers"),
        (lambda s: s.rsplit("\n", 2)[0] + "\n", "ends before row 3"),
        (lambda s: s + "1 2\n", "unexpected data"),
    ],
)
def test_alist_refuses_inconsistent_files_naming_the_problem(tmp_path, edit, message):
    p = tmp_path / "bad.alist"
    p.write_text(edit(ALIST))
    with pytest.raises(ValueError, match=message):
        read_alist(p)


def test_alist_refuses_a_multigraph(tmp_path):
    H = regular_ensemble(12, 3, 6, rng=0, multi_edges="keep")
    if H.max() < 2:
        H = sparse.csr_matrix(np.array([[2, 1], [1, 1]]))
    with pytest.raises(ValueError, match="must be 0/1"):
        write_alist(H, tmp_path / "m.alist")
