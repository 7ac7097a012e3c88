"""Tests of drfbench.dcdrf.workloads: the DC-DRF paper's demand profiles (Table 3)."""
import os
import zipfile

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from scipy.sparse import csr_array

from drfbench.dcdrf import workloads as W


def check_structure(wl, n, r):
    """Every structural promise of a generated workload."""
    m = wl.demands
    assert isinstance(m, csr_array)
    assert m.shape == (n, r) == (wl.n_tenants, wl.n_resources)
    assert m.indptr.dtype == np.int64 and m.indices.dtype == np.int32
    assert m.indptr[0] == 0 and m.indptr[-1] == len(m.indices) == len(m.data) == wl.nnz
    lengths = np.diff(m.indptr)
    assert lengths.min() >= 2 and lengths.max() <= min(128, r)
    idx = m.indices.astype(np.int64)
    assert idx.min() >= 0 and idx.max() < r
    # sorted and distinct within each row: strictly increasing except at row starts
    steps = np.diff(idx)
    row_start = np.zeros(len(idx), dtype=bool)
    row_start[m.indptr[:-1]] = True
    assert np.all(steps[~row_start[1:]] > 0)
    assert np.all(m.data > 0) and np.all(m.data <= 1)
    c = wl.capacities
    assert c.dtype == np.float64 and c.shape == (r,)
    assert np.all(c == np.round(c)) and c.min() >= 100 and c.max() <= 10_000
    b = wl.cluster_bounds
    assert b[0] == 0 and b[-1] == r and np.all(np.diff(b) >= min(r, 256))


def cluster_counts(wl):
    """(n_tenants, n_clusters) count of each tenant's resources in each cluster, sorted
    descending along each row, and the row lengths."""
    m = wl.demands
    lengths = np.diff(m.indptr)
    cluster = np.searchsorted(wl.cluster_bounds, m.indices, side="right") - 1
    rows = np.repeat(np.arange(m.shape[0]), lengths)
    counts = np.zeros((m.shape[0], wl.n_clusters), dtype=np.int64)
    np.add.at(counts, (rows, cluster), 1)
    return -np.sort(-counts, axis=1), lengths


def same(a, b):
    ma, mb = a.demands, b.demands
    return (ma.data.dtype == mb.data.dtype and np.array_equal(ma.indptr, mb.indptr)
            and np.array_equal(ma.indices, mb.indices) and np.array_equal(ma.data, mb.data)
            and np.array_equal(a.capacities, b.capacities)
            and ((a.weights is None and b.weights is None)
                 or np.array_equal(a.weights, b.weights)))


@pytest.mark.parametrize("profile", W.DEMAND_PROFILES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_profile_structure(profile, dtype):
    wl = W.generate(profile, 3000, 20_000, seed=7, dtype=dtype)
    check_structure(wl, 3000, 20_000)
    assert wl.demands.dtype == dtype and wl.demand_profile == profile and wl.seed == 7
    assert wl.weights is None


def test_profile_names():
    assert W.DEMAND_PROFILES == ("U0", "U1", "U2", "G0", "G1", "G2")
    assert W.generate("g1", 10, 1000).demand_profile == "G1"     # case-insensitive, stored canonical


def test_values_are_integer_fractions_of_capacity():
    wl = W.generate("U0", 2000, 5000, seed=3, dtype=np.float64)
    m = wl.demands
    c = wl.capacities[m.indices]
    v = m.data * c
    assert np.allclose(v, np.round(v), rtol=0, atol=1e-6)
    assert np.round(v).min() >= 1 and np.all(np.round(v) <= c)
    assert np.any(m.data == 1.0)            # the top value v = C[r] does occur
    # float32 values are the float64 ones rounded
    wl32 = W.generate("U0", 2000, 5000, seed=3, dtype=np.float32)
    assert np.array_equal(wl32.demands.data, m.data.astype(np.float32))


def test_sparse_operations_work():
    wl = W.generate("G2", 500, 3000, seed=1)
    m, dense = wl.demands, wl.demands.toarray()
    x = np.arange(3000, dtype=np.float32)
    np.testing.assert_allclose(m @ x, dense @ x, rtol=1e-5)
    np.testing.assert_allclose(m.sum(axis=0), dense.sum(axis=0), rtol=1e-5)
    np.testing.assert_array_equal(m.tocsc().toarray(), dense)
    assert np.count_nonzero(dense) == m.nnz                  # no explicit zeros


@pytest.mark.parametrize("profile", W.DEMAND_PROFILES)
def test_deterministic_by_seed(profile):
    a = W.generate(profile, 2000, 10_000, seed=11, weights="random")
    b = W.generate(profile, 2000, 10_000, seed=11, weights="random")
    c = W.generate(profile, 2000, 10_000, seed=12, weights="random")
    assert same(a, b)
    assert not np.array_equal(a.demands.indices[:1000], c.demands.indices[:1000])
    assert not np.array_equal(a.capacities, c.capacities)
    assert not np.array_equal(a.weights, c.weights)


@pytest.mark.parametrize("profile", ["U0", "G1", "U2"])
def test_independent_of_thread_count(profile):
    ref = W.generate(profile, 5000, 20_000, seed=5, threads=1)
    for threads in (2, 3):
        assert same(ref, W.generate(profile, 5000, 20_000, seed=5, threads=threads))


def test_rows_are_prefix_stable():
    """A tenant's row depends on (seed, tenant, n_resources, profile) only."""
    small = W.generate("G2", 300, 4000, seed=9).demands
    big = W.generate("G2", 1000, 4000, seed=9).demands
    assert (big[:300] != small).nnz == 0


def test_large_seed_accepted():
    wl = W.generate("U0", 10, 100, seed=2**64 - 1)
    assert wl.seed == 2**64 - 1


def test_lengths_capped_at_n_resources():
    for r in (2, 3, 10, 127):
        for profile in ("U2", "G1"):
            wl = W.generate(profile, 500, r, seed=1)
            check_structure(wl, 500, r)
            lengths = np.diff(wl.demands.indptr)
            assert lengths.max() == r or r == 127
    wl = W.generate("U0", 50, 2)
    assert np.all(np.diff(wl.demands.indptr) == 2)


@pytest.mark.parametrize("letter", ["U", "G"])
def test_length_distribution(letter):
    wl = W.generate(letter + "0", 20_000, 1000, seed=2)
    lengths = np.diff(wl.demands.indptr)
    # both have mean 65 (G: symmetric truncation); SE of the mean is about 0.25
    assert abs(lengths.mean() - 65) < 1.5
    assert lengths.min() == 2 and lengths.max() == 128
    if letter == "U":
        assert abs(lengths.std() - np.sqrt((127**2 - 1) / 12)) < 1.5          # 36.7
        assert np.bincount(lengths, minlength=129)[2:].min() > 0.6 * 20_000 / 127
    else:
        assert abs(lengths.std() - 28.0) < 1.5       # N(65, 32) truncated to [2, 128]
        counts = np.bincount(lengths, minlength=129)
        assert counts[60:71].sum() > 2.5 * counts[2:13].sum()   # peaked in the middle


def test_locality_profile_0_is_spread():
    counts, lengths = cluster_counts(W.generate("G0", 4000, 100_000, seed=4))
    assert (counts[:, 0] / lengths).mean() < 0.25        # about 0.12 expected


@pytest.mark.parametrize("profile", ["U1", "G1"])
def test_locality_profile_1(profile):
    wl = W.generate(profile, 4000, 100_000, seed=4)
    assert wl.n_clusters == 20
    counts, lengths = cluster_counts(wl)
    assert np.all(counts[:, 0] >= (lengths + 1) // 2)          # exact: round(k/2) in PodA
    top = (counts[:, 0] / lengths).mean()                    # 0.5 + rounding + DC spill
    assert 0.5 <= top <= 0.58


@pytest.mark.parametrize("profile", ["U2", "G2"])
def test_locality_profile_2(profile):
    counts, lengths = cluster_counts(W.generate(profile, 4000, 100_000, seed=4))
    assert np.all(counts[:, 0] >= (lengths + 1) // 2)          # PodA
    assert np.all(counts[:, 1] >= (3 * lengths + 5) // 10)     # PodB, a different cluster
    assert 0.5 <= (counts[:, 0] / lengths).mean() <= 0.56
    assert 0.28 <= (counts[:, 1] / lengths).mean() <= 0.35


def test_single_cluster_small_datacenter():
    wl = W.generate("U2", 300, 400, seed=1)       # R < 512: one cluster, PodB = PodA
    assert wl.n_clusters == 1
    check_structure(wl, 300, 400)


def test_weights():
    wl = W.generate("U0", 1000, 500, seed=3, weights="random")
    assert wl.weights.dtype == np.float64 and wl.weights.shape == (1000,)
    assert wl.weights.min() >= 1 and wl.weights.max() < 4
    assert wl.weights_option == "random"
    # weights do not change the demands
    assert same(W.generate("U0", 1000, 500, seed=3), W.generate("U0", 1000, 500, seed=3))
    assert np.array_equal(W.generate("U0", 1000, 500, seed=3).demands.data, wl.demands.data)


@settings(max_examples=40, deadline=None)
@given(profile=st.sampled_from(W.DEMAND_PROFILES), n=st.integers(1, 60), r=st.integers(2, 1500),
       seed=st.integers(0, 2**64 - 1), threads=st.integers(1, 3))
def test_structure_property(profile, n, r, seed, threads):
    wl = W.generate(profile, n, r, seed=seed, threads=threads)
    check_structure(wl, n, r)


# ---------------------------------------------------------------- save / load

@pytest.mark.parametrize("dtype, weights", [(np.float32, None), (np.float64, "random")])
def test_save_load_round_trip(tmp_path, dtype, weights):
    wl = W.generate("G2", 700, 3000, seed=21, dtype=dtype, weights=weights)
    path = tmp_path / "wl.npz"
    assert W.save(wl, path) == str(path)
    assert sorted(os.listdir(tmp_path)) == ["wl.npz"]          # no temporary left
    back = W.load(path)
    assert same(wl, back)
    for name in ("indptr", "indices", "data"):
        assert getattr(back.demands, name).dtype == getattr(wl.demands, name).dtype
    assert back.demand_profile == "G2" and back.seed == 21 and back.weights_option == weights
    assert back.demands.shape == wl.demands.shape
    assert np.array_equal(back.cluster_bounds, wl.cluster_bounds)
    assert back.generator_version == W.GENERATOR_VERSION


def test_save_is_atomic(tmp_path, monkeypatch):
    path = tmp_path / "wl.npz"
    first = W.generate("U0", 50, 300, seed=1)
    W.save(first, path)

    def broken_savez(f, **arrays):
        Path(f).write_bytes(b"PK partial")
        raise OSError("disk full")

    monkeypatch.setattr(W.np, "savez", broken_savez)
    with pytest.raises(OSError, match="disk full"):
        W.save(W.generate("U0", 50, 300, seed=2), path)
    assert sorted(os.listdir(tmp_path)) == ["wl.npz"]
    assert same(W.load(path), first)                 # the old file is intact


def test_load_missing(tmp_path):
    with pytest.raises(FileNotFoundError, match="not found"):
        W.load(tmp_path / "nope.npz")


def test_load_corrupt(tmp_path):
    junk = tmp_path / "junk.npz"
    junk.write_bytes(b"this is not a zip file")
    with pytest.raises(ValueError, match="not a readable drfbench workload"):
        W.load(junk)
    other = tmp_path / "other.npz"
    np.savez(other, a=np.arange(3))
    with pytest.raises(ValueError, match="missing entries"):
        W.load(other)
    good = tmp_path / "good.npz"
    W.save(W.generate("U1", 200, 1000), good)
    truncated = tmp_path / "trunc.npz"
    truncated.write_bytes(good.read_bytes()[: good.stat().st_size // 2])
    with pytest.raises(ValueError, match=str(truncated.name)):
        W.load(truncated)


def test_load_rejects_inconsistent_arrays(tmp_path):
    wl = W.generate("U1", 200, 1000)
    path = tmp_path / "wl.npz"
    W.save(wl, path)
    with np.load(path) as z:
        arrays = dict(z)
    arrays["indices"] = arrays["indices"].astype(np.int64)
    bad = tmp_path / "bad.npz"
    np.savez(bad, **arrays)
    with pytest.raises(ValueError, match="int32 indices"):
        W.load(bad)
    with zipfile.ZipFile(path) as z:
        assert "data.npy" in z.namelist()


# ---------------------------------------------------------------- bad input

@pytest.mark.parametrize("kwargs, match", [
    (dict(demand_profile="X9"), "unknown demand profile 'X9'; valid demand profiles: U0, U1, U2, G0, G1, G2"),
    (dict(demand_profile=3), "unknown demand profile"),
    (dict(n_tenants=0), "n_tenants must be >= 1"),
    (dict(n_tenants=-5), "n_tenants must be >= 1"),
    (dict(n_tenants=2.5), "n_tenants must be an integer"),
    (dict(n_tenants=True), "n_tenants must be an integer"),
    (dict(n_resources=1), "n_resources must be >= 2"),
    (dict(n_resources=0), "n_resources must be >= 2"),
    (dict(n_resources=2**31), "n_resources must be <="),
    (dict(dtype=np.int32), "dtype must be float32 or float64"),
    (dict(dtype="float16"), "dtype must be float32 or float64"),
    (dict(dtype="nonsense"), "dtype must be float32 or float64"),
    (dict(dtype=None), "dtype must be float32 or float64"),
    (dict(weights="uniform"), "weights must be one of"),
    (dict(weights=np.ones(10)), "weights must be one of"),
    (dict(seed=-1), "seed must be >= 0"),
    (dict(seed=2**64), "seed must be <="),
    (dict(seed="abc"), "seed must be an integer"),
    (dict(threads=0), "threads must be >= 1"),
])
def test_bad_input(kwargs, match):
    args = dict(demand_profile="U0", n_tenants=10, n_resources=100)
    args.update(kwargs)
    with pytest.raises(ValueError, match=match.replace("(", r"\(").replace(")", r"\)")):
        W.generate(args.pop("demand_profile"), args.pop("n_tenants"), args.pop("n_resources"),
                   **args)
