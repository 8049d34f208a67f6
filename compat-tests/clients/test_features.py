"""What issue 18 asks of CuPy and Numba-CUDA on ferry, beyond the subsets
of their own suites: the features a first program uses, each checked
against NumPy. Run by scripts/test-clients (suite client-features) under
`ferry run`."""
import numpy as np
import pytest

cp = pytest.importorskip("cupy")
cuda = pytest.importorskip("numba.cuda")


def test_cupy_creation_and_elementwise():
    a = cp.arange(10, dtype=cp.float32)
    np.testing.assert_array_equal(cp.asnumpy(a * 2 + 1), np.arange(10) * 2 + 1)


@pytest.mark.parametrize("n", [10, 1000, 1_000_000])
def test_cupy_sum(n):
    # CuPy's prebuilt CUB kernels carry PTX for sm_120 only: a wrong sum here
    # is the silent failure issue 18 reported.
    assert float(cp.arange(n, dtype=cp.float64).sum()) == n * (n - 1) / 2


def test_cupy_raw_kernel():
    k = cp.RawKernel(r'''
    extern "C" __global__ void add(const float *x, const float *y, float *z, int n) {
      int i = blockDim.x * blockIdx.x + threadIdx.x;
      if (i < n) z[i] = x[i] + y[i];
    }''', "add")
    x = cp.arange(100, dtype=cp.float32)
    z = cp.empty_like(x)
    k((4,), (32,), (x, x, z, cp.int32(100)))
    np.testing.assert_array_equal(cp.asnumpy(z), 2 * np.arange(100))


def test_cupy_random_is_reproducible_and_plausible():
    a = cp.random.RandomState(7).normal(size=100_000)
    b = cp.random.RandomState(7).normal(size=100_000)
    assert bool((a == b).all())
    assert abs(float(a.mean())) < 0.02 and abs(float(a.std()) - 1) < 0.02


def test_cupy_matmul():
    a = np.random.default_rng(1).random((64, 48))
    b = np.random.default_rng(2).random((48, 32))
    np.testing.assert_allclose(cp.asnumpy(cp.asarray(a) @ cp.asarray(b)), a @ b, rtol=1e-12)


def test_cupy_fft():
    x = np.random.default_rng(3).random(256)
    np.testing.assert_allclose(cp.asnumpy(cp.fft.fft(cp.asarray(x))), np.fft.fft(x), atol=1e-9)


def test_cupy_sort_and_scan():
    x = np.random.default_rng(4).integers(0, 1000, 5000)
    np.testing.assert_array_equal(cp.asnumpy(cp.sort(cp.asarray(x))), np.sort(x))
    np.testing.assert_array_equal(cp.asnumpy(cp.cumsum(cp.asarray(x))), np.cumsum(x))


def test_numba_kernel_shared_memory_and_atomics():
    from numba import cuda, int32

    @cuda.jit
    def hist(data, bins):
        local = cuda.shared.array(16, int32)
        t = cuda.threadIdx.x
        if t < 16:
            local[t] = 0
        cuda.syncthreads()
        i = cuda.grid(1)
        if i < data.size:
            cuda.atomic.add(local, data[i] % 16, 1)
        cuda.syncthreads()
        if t < 16:
            cuda.atomic.add(bins, t, local[t])

    data = np.random.default_rng(5).integers(0, 1000, 10_000).astype(np.int32)
    bins = cuda.to_device(np.zeros(16, dtype=np.int32))
    hist[(data.size + 127) // 128, 128](cuda.to_device(data), bins)
    np.testing.assert_array_equal(bins.copy_to_host(), np.bincount(data % 16, minlength=16))


def test_numba_random():
    from numba import cuda
    from numba.cuda.random import create_xoroshiro128p_states, xoroshiro128p_uniform_float32

    @cuda.jit
    def fill(states, out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = xoroshiro128p_uniform_float32(states, i)

    n = 4096
    states = create_xoroshiro128p_states(n, seed=1)
    out = cuda.device_array(n, dtype=np.float32)
    fill[n // 128, 128](states, out)
    h = out.copy_to_host()
    assert 0 <= h.min() and h.max() < 1 and abs(h.mean() - 0.5) < 0.02
