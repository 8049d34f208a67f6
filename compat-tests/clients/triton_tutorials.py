"""Triton's tutorials 01 (vector add), 02 (fused softmax) and 03 (matrix
multiplication) on ferry, checked against NumPy (issue 18).

The kernels follow the tutorials' algorithms, written here; the tensors are
CuPy arrays (PyTorch's CUDA wheels carry no PTX, so ferry cannot run
PyTorch itself): Triton takes any object with data_ptr() and dtype. Run
under `ferry run`, which points Triton at ferry's stand-in ptxas
(TRITON_PTXAS_PATH) and ferry's libcuda (TRITON_LIBCUDA_PATH):

    build/bin/ferry run -- .venv-clients/bin/python -m pytest compat-tests/clients/triton_tutorials.py

FERRY_SM picks the compute capability ferry reports (86 by default); the
matmul then takes Triton's code path for it (mma.sync on 8.x, wgmma on 9.0).
"""
import cupy as cp
import numpy as np
import pytest
import triton
import triton.language as tl


class Tensor:
    """What Triton needs of a tensor argument: data_ptr() and dtype."""

    def __init__(self, a):
        self.a = a
        self.dtype = a.dtype

    def data_ptr(self):
        return self.a.data.ptr


# --- 01: vector addition -------------------------------------------------

@triton.jit
def vector_add(a_ptr, b_ptr, out_ptr, n, BLOCK: tl.constexpr):
    start = tl.program_id(axis=0) * BLOCK
    idx = start + tl.arange(0, BLOCK)
    inside = idx < n
    a = tl.load(a_ptr + idx, mask=inside)
    b = tl.load(b_ptr + idx, mask=inside)
    tl.store(out_ptr + idx, a + b, mask=inside)


@pytest.mark.parametrize("n", [1, 1000, 98432])
def test_vector_add(n):
    rng = np.random.default_rng(n)
    a = rng.random(n, dtype=np.float32)
    b = rng.random(n, dtype=np.float32)
    da, db = cp.asarray(a), cp.asarray(b)
    out = cp.full(n + 7, -1.0, dtype=cp.float32)  # the tail must stay untouched
    vector_add[(triton.cdiv(n, 1024),)](Tensor(da), Tensor(db), Tensor(out), n, BLOCK=1024)
    got = cp.asnumpy(out)
    np.testing.assert_array_equal(got[:n], a + b)
    np.testing.assert_array_equal(got[n:], -1.0)


# --- 02: fused softmax ---------------------------------------------------

@triton.jit
def softmax_rows(out_ptr, in_ptr, in_stride, out_stride, rows, cols, BLOCK: tl.constexpr,
                 STAGES: tl.constexpr):
    # Each program walks rows first..rows step num_programs: one row at a
    # time in registers, max-subtracted for stability.
    first = tl.program_id(0)
    step = tl.num_programs(0)
    for row in tl.range(first, rows, step, num_stages=STAGES):
        col = tl.arange(0, BLOCK)
        x = tl.load(in_ptr + row * in_stride + col, mask=col < cols, other=-float("inf"))
        x = x - tl.max(x, axis=0)
        e = tl.exp(x)
        tl.store(out_ptr + row * out_stride + col, e / tl.sum(e, axis=0), mask=col < cols)


@pytest.mark.parametrize("rows,cols", [(1, 7), (96, 781), (333, 128)])
def test_fused_softmax(rows, cols):
    rng = np.random.default_rng(rows * cols)
    x = (rng.standard_normal((rows, cols)) * 4).astype(np.float32)
    dx = cp.asarray(x)
    dy = cp.empty_like(dx)
    programs = min(rows, 16)
    softmax_rows[(programs,)](Tensor(dy), Tensor(dx), dx.strides[0] // 4, dy.strides[0] // 4, rows, cols,
                              BLOCK=triton.next_power_of_2(cols), STAGES=2, num_warps=4)
    e = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    want = e / e.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(cp.asnumpy(dy), want, rtol=1e-5, atol=1e-7)


# --- 03: matrix multiplication -------------------------------------------

@triton.jit
def matmul(a_ptr, b_ptr, c_ptr, M, N, K, sam, sak, sbk, sbn, scm, scn, BM: tl.constexpr,
           BN: tl.constexpr, BK: tl.constexpr, GROUP: tl.constexpr, IEEE: tl.constexpr):
    # Grouped ordering of the output tiles (the tutorial's L2 reuse), then
    # a K loop accumulating BMxBN in fp32.
    pid = tl.program_id(0)
    tiles_m = tl.cdiv(M, BM)
    tiles_n = tl.cdiv(N, BN)
    per_group = GROUP * tiles_n
    group = pid // per_group
    first_m = group * GROUP
    group_rows = min(tiles_m - first_m, GROUP)
    pid_m = first_m + ((pid % per_group) % group_rows)
    pid_n = (pid % per_group) // group_rows
    rm = (pid_m * BM + tl.arange(0, BM)) % M
    rn = (pid_n * BN + tl.arange(0, BN)) % N
    rk = tl.arange(0, BK)
    a = a_ptr + rm[:, None] * sam + rk[None, :] * sak
    b = b_ptr + rk[:, None] * sbk + rn[None, :] * sbn
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        left = K - k * BK
        ta = tl.load(a, mask=rk[None, :] < left, other=0.0)
        tb = tl.load(b, mask=rk[:, None] < left, other=0.0)
        if IEEE:
            acc = tl.dot(ta, tb, acc, input_precision="ieee")
        else:
            acc = tl.dot(ta, tb, acc)
        a += BK * sak
        b += BK * sbk
    cm = pid_m * BM + tl.arange(0, BM)
    cn = pid_n * BN + tl.arange(0, BN)
    c = c_ptr + cm[:, None] * scm + cn[None, :] * scn
    tl.store(c, acc.to(c_ptr.dtype.element_ty), mask=(cm[:, None] < M) & (cn[None, :] < N))


def run_matmul(a, b, out_dtype, ieee, BM=64, BN=64, BK=32, warps=4, stages=3):
    M, K = a.shape
    N = b.shape[1]
    da, db = cp.asarray(a), cp.asarray(b)
    dc = cp.empty((M, N), dtype=out_dtype)
    isz = a.itemsize
    grid = (triton.cdiv(M, BM) * triton.cdiv(N, BN),)
    matmul[grid](Tensor(da), Tensor(db), Tensor(dc), M, N, K, da.strides[0] // isz, da.strides[1] // isz,
                 db.strides[0] // isz, db.strides[1] // isz, dc.strides[0] // dc.itemsize,
                 dc.strides[1] // dc.itemsize, BM=BM, BN=BN, BK=BK, GROUP=4, IEEE=ieee, num_warps=warps,
                 num_stages=stages)
    return cp.asnumpy(dc)


@pytest.mark.parametrize("M,N,K", [(200, 128, 96)])
def test_matmul_fp16(M, N, K):
    # The tutorial's case: fp16 inputs, fp32 accumulation, fp16 result
    # (tensor-core mma on a GPU). One shape: compiling the mma kernel is
    # ferry's slowest step here (about 30 s cold); M is not a multiple of
    # the tile, so the wrapped rows and the masked store are exercised.
    rng = np.random.default_rng(M + N + K)
    a = rng.standard_normal((M, K)).astype(np.float16)
    b = rng.standard_normal((K, N)).astype(np.float16)
    got = run_matmul(a, b, cp.float16, ieee=False).astype(np.float32)
    want = a.astype(np.float32) @ b.astype(np.float32)
    np.testing.assert_allclose(got, want, rtol=1e-2, atol=2e-2)


def test_matmul_fp32_ieee():
    rng = np.random.default_rng(7)
    a = rng.standard_normal((96, 80)).astype(np.float32)
    b = rng.standard_normal((80, 72)).astype(np.float32)
    got = run_matmul(a, b, cp.float32, ieee=True, BM=32, BN=32, BK=16)
    np.testing.assert_allclose(got, a.astype(np.float64) @ b, rtol=1e-4, atol=1e-4)


def test_matmul_tf32():
    # Default precision for fp32 inputs is tf32 on tensor cores: inputs
    # rounded to 10 mantissa bits, so only that much agreement is expected.
    rng = np.random.default_rng(8)
    a = rng.standard_normal((64, 64)).astype(np.float32)
    b = rng.standard_normal((64, 64)).astype(np.float32)
    got = run_matmul(a, b, cp.float32, ieee=False, BM=32, BN=32, BK=16)
    np.testing.assert_allclose(got, a.astype(np.float64) @ b, rtol=2e-2, atol=5e-2)
