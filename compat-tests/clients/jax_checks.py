"""What issue 18 asks of JAX on ferry: jax.jit of elementwise ops,
reductions, matmul, a small MLP with its gradient, lax.scan/cond and
jax.random, run on the CUDA device that ferry provides and each checked
against NumPy. Run by scripts/test-clients (suite jax-checks) under
`ferry run`, with jax[cuda13-local] (JAX's CUDA 13 plugin without NVIDIA's
library wheels) in its own virtual environment:

    ferry run -- python compat-tests/clients/jax_checks.py [-v] [-k SUBSTR] [--cublas]

--cublas sends XLA's GEMMs to cuBLAS/cuBLASLt (ferry's, on OpenBLAS) instead
of its Triton GEMM kernels (--xla_gpu_enable_triton_gemm=false), which also
puts cuBLAS calls inside XLA's CUDA graphs.

Prints one line per check and closes with 'N passed, N failed'; exits 1
when a check fails or the CUDA backend cannot start.

Two things every check relies on, themselves checked here:
- the work runs on the CUDA device, never JAX's CPU fallback
  (JAX_PLATFORMS=cuda,cpu makes a CUDA backend that fails to start an
  error, and each result's device is asserted);
- no NVIDIA library that holds GPU kernels (cuBLAS, cuDNN, cuFFT, ...) is
  loaded from anywhere but ferry's library directory: their machine code
  must never run on ferry (check no_nvidia_libraries, run last).
"""
import os
import sys
import time
import traceback

if "--cublas" in sys.argv:
    os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") + " --xla_gpu_enable_triton_gemm=false").strip()

# CUDA first (the default device); CPU too, as a reference for random bits.
# Listed explicitly, a backend that fails to start is an error, not skipped.
os.environ.setdefault("JAX_PLATFORMS", "cuda,cpu")
# No preallocation of 75% of the "device" (host memory on ferry).
os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")

# JAX starts its CUDA backend only where NVIDIA's device files exist
# (jax._src.hardware_utils); `ferry run`'s Python hook
# (tools/jit/python/sitecustomize.py) lets it see ferry's device instead.
# Nothing is patched here: without the hook, the CUDA backend does not start
# and every check fails.
import numpy as np  # noqa: E402
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
from jax import lax  # noqa: E402

CHECKS = []


def check(fn):
    CHECKS.append(fn)
    return fn


def on_device(x):
    """x as NumPy, after asserting it lives on the CUDA device."""
    for leaf in jax.tree_util.tree_leaves(x):
        devs = leaf.devices()
        assert all(d.platform == "gpu" for d in devs), f"result on {devs}, not the CUDA device"
    return jax.tree_util.tree_map(np.asarray, x)


rng = np.random.default_rng(18)


def f32(*shape):
    return rng.standard_normal(shape).astype(np.float32)


@check
def elementwise_f32():
    x, y = f32(1000), f32(1000)
    fn = jax.jit(lambda a, b: a * b + jnp.sin(a) - b / (1 + a * a))
    np.testing.assert_allclose(on_device(fn(x, y)), x * y + np.sin(x) - y / (1 + x * x), rtol=2e-5,
                               atol=2e-6)


@check
def elementwise_transcendental_f32():
    x = np.abs(f32(4096)) + 0.1
    fn = jax.jit(lambda a: (jnp.exp(-a), jnp.log(a), jnp.tanh(a), jnp.sqrt(a), lax.rsqrt(a),
                            jax.nn.sigmoid(a), lax.erf(a)))
    got = on_device(fn(x))
    import math
    erf = np.vectorize(math.erf)(x.astype(np.float64))
    want = (np.exp(-x), np.log(x), np.tanh(x), np.sqrt(x), 1 / np.sqrt(x), 1 / (1 + np.exp(-x)), erf)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


@check
def elementwise_f16():
    x = f32(777).astype(np.float16)
    y = f32(777).astype(np.float16)
    got = on_device(jax.jit(lambda a, b: a * b + a)(x, y))
    assert got.dtype == np.float16
    # The product is rounded to f16 before the add (no FMA contraction in JAX's f16).
    want = (x.astype(np.float32) * y.astype(np.float32)).astype(np.float16).astype(np.float32) + x
    np.testing.assert_allclose(got.astype(np.float32), want.astype(np.float16).astype(np.float32),
                               rtol=2e-3, atol=2e-3)


@check
def elementwise_bf16():
    bf = jnp.bfloat16
    x, y = f32(513).astype(bf), f32(513).astype(bf)
    c = f32(513) * 7
    prod, conv = on_device(jax.jit(lambda a, b, c: (a * b, c.astype(bf)))(x, y, c))
    assert prod.dtype == bf and conv.dtype == bf
    # A product of two bf16 values is exact in f32: one rounding to bf16.
    np.testing.assert_array_equal(prod, (x.astype(np.float32) * y.astype(np.float32)).astype(bf))
    np.testing.assert_array_equal(conv, c.astype(bf))  # round to nearest even


@check
def elementwise_int():
    a = rng.integers(-10**6, 10**6, 1000).astype(np.int32)
    b = rng.integers(1, 1000, 1000).astype(np.int32)
    fn = jax.jit(lambda a, b: (a // b, a % b, a * b, (a >> 3) ^ b, jnp.maximum(a, b), a < b))
    for g, w in zip(on_device(fn(a, b)),
                    (a // b, a % b, a * b, (a >> 3) ^ b, np.maximum(a, b), a < b)):
        np.testing.assert_array_equal(g, w)


@check
def elementwise_broadcast_where():
    x, y = f32(64, 1), f32(1, 48)
    fn = jax.jit(lambda x, y: jnp.where(x > y, x - y, 2 * y))
    np.testing.assert_allclose(on_device(fn(x, y)), np.where(x > y, x - y, 2 * y), rtol=1e-6)


@check
def reductions_axes():
    x = f32(37, 53, 11)
    fn = jax.jit(lambda x: (x.sum(), x.sum(axis=0), x.max(axis=1), x.min(axis=(0, 2)),
                            x.mean(axis=2), jnp.prod(x[:4, :3], axis=1)))
    got = on_device(fn(x))
    want = (x.sum(dtype=np.float64), x.sum(0), x.max(1), x.min((0, 2)), x.mean(2),
            np.prod(x[:4, :3], 1))
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-4)


@check
def reductions_large_sum():
    x = np.ones(1 << 20, np.float32)
    assert float(on_device(jax.jit(jnp.sum)(x))) == float(1 << 20)


@check
def reductions_argmax_argmin():
    x = f32(129, 257)
    fn = jax.jit(lambda x: (jnp.argmax(x, axis=1), jnp.argmin(x, axis=0), jnp.argmax(x)))
    got = on_device(fn(x))
    for g, w in zip(got, (x.argmax(1), x.argmin(0), x.argmax())):
        np.testing.assert_array_equal(g, w)


@check
def reductions_int_and_cumsum():
    a = rng.integers(-1000, 1000, (100, 300)).astype(np.int32)
    fn = jax.jit(lambda a: (a.sum(axis=1), jnp.cumsum(a, axis=1), jnp.any(a > 990, axis=0)))
    for g, w in zip(on_device(fn(a)), (a.sum(1), np.cumsum(a, 1), (a > 990).any(0))):
        np.testing.assert_array_equal(g, w)


@check
def softmax_logsumexp():
    x = f32(32, 100) * 5
    got = on_device(jax.jit(lambda x: (jax.nn.softmax(x, axis=-1),
                                       jax.scipy.special.logsumexp(x, axis=-1)))(x))
    x64 = x.astype(np.float64)
    e = np.exp(x64 - x64.max(-1, keepdims=True))
    np.testing.assert_allclose(got[0], e / e.sum(-1, keepdims=True), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(got[1], np.log(np.exp(x64).sum(-1)), rtol=1e-5)


def tf32(x):
    """x rounded to TF32 (10 explicit mantissa bits, to nearest, ties away
    from zero, as PTX's cvt.rna.tf32.f32): what the tensor cores read for an
    f32 matmul at JAX's default precision."""
    u = x.astype(np.float32).view(np.uint32).astype(np.uint64)
    u = (u + 0x1000) & ~np.uint64(0x1FFF)
    return u.astype(np.uint32).view(np.float32).astype(np.float64)


@check
def matmul_f32_default_precision_is_tf32():
    a, b = f32(128, 96), f32(96, 80)
    got = on_device(jax.jit(lambda a, b: a @ b)(a, b))
    np.testing.assert_allclose(got, tf32(a) @ tf32(b), rtol=1e-5, atol=1e-4)
    # ... and visibly not full f32: TF32 is 2^-11 relative per input.
    assert np.abs(got - a.astype(np.float64) @ b).max() > 1e-4


@check
def matmul_f32_highest():
    a, b = f32(128, 96), f32(96, 80)
    got = on_device(jax.jit(lambda a, b: jnp.dot(a, b, precision=lax.Precision.HIGHEST))(a, b))
    np.testing.assert_allclose(got, a.astype(np.float64) @ b, rtol=1e-5, atol=2e-5)


@check
def matmul_f32_odd_shapes_transposed():
    a, b = f32(33, 7), f32(19, 7)
    got = on_device(jax.jit(lambda a, b: jnp.dot(a, b.T, precision=lax.Precision.HIGHEST))(a, b))
    np.testing.assert_allclose(got, a.astype(np.float64) @ b.T, rtol=1e-5, atol=1e-5)


@check
def matmul_batched_dot_general():
    a, b = f32(6, 20, 30), f32(6, 30, 10)
    fn = jax.jit(lambda a, b: lax.dot_general(a, b, (((2,), (1,)), ((0,), (0,))),
                                              precision=lax.Precision.HIGHEST))
    np.testing.assert_allclose(on_device(fn(a, b)),
                               np.einsum("bij,bjk->bik", a.astype(np.float64), b), rtol=1e-5,
                               atol=1e-5)
    fn = jax.jit(lambda a, b: lax.dot_general(a, b, (((2,), (1,)), ((0,), (0,)))))
    np.testing.assert_allclose(on_device(fn(a, b)), np.einsum("bij,bjk->bik", tf32(a), tf32(b)),
                               rtol=1e-5, atol=1e-4)


@check
def matmul_einsum_contract_two_axes():
    a, b = f32(4, 5, 6, 7), f32(6, 7, 3)
    fn = jax.jit(lambda a, b: jnp.einsum("abcd,cde->abe", a, b, precision=lax.Precision.HIGHEST))
    np.testing.assert_allclose(on_device(fn(a, b)), np.einsum("abcd,cde->abe", a.astype(np.float64), b),
                               rtol=1e-5, atol=1e-5)


@check
def matmul_bf16():
    a, b = f32(64, 64), f32(64, 32)
    bf = jnp.bfloat16
    got = on_device(jax.jit(lambda a, b: jnp.dot(a.astype(bf), b.astype(bf),
                                                 preferred_element_type=jnp.float32))(a, b))
    want = a.astype(bf).astype(np.float64) @ b.astype(bf).astype(np.float64)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


@check
def matmul_int32():
    a = rng.integers(-50, 50, (17, 23)).astype(np.int32)
    b = rng.integers(-50, 50, (23, 9)).astype(np.int32)
    np.testing.assert_array_equal(on_device(jax.jit(jnp.matmul)(a, b)), a @ b)


def mlp_params(key_seed=0):
    r = np.random.default_rng(key_seed)
    return [(r.standard_normal((16, 32)).astype(np.float32) * 0.3, np.zeros(32, np.float32)),
            (r.standard_normal((32, 4)).astype(np.float32) * 0.3, np.full(4, 0.1, np.float32))]


def mlp_loss(params, x, y):
    h = x
    for i, (w, b) in enumerate(params):
        h = jnp.dot(h, w, precision=lax.Precision.HIGHEST) + b
        if i + 1 < len(params):
            h = jnp.tanh(h)
    return jnp.mean((h - y) ** 2)


def mlp_numpy(params, x, y):
    """Loss and gradients by hand, in float64."""
    (w1, b1), (w2, b2) = [(w.astype(np.float64), b.astype(np.float64)) for w, b in params]
    z1 = x @ w1 + b1
    h1 = np.tanh(z1)
    out = h1 @ w2 + b2
    d = out - y
    loss = np.mean(d ** 2)
    g_out = 2 * d / d.size
    g_w2, g_b2 = h1.T @ g_out, g_out.sum(0)
    g_z1 = (g_out @ w2.T) * (1 - h1 ** 2)
    g_w1, g_b1 = x.T @ g_z1, g_z1.sum(0)
    return loss, [(g_w1, g_b1), (g_w2, g_b2)]


@check
def mlp_forward_and_grad():
    params = mlp_params()
    x, y = f32(64, 16), f32(64, 4)
    loss, grads = jax.jit(jax.value_and_grad(mlp_loss))(params, x, y)
    loss, grads = on_device((loss, grads))
    want_loss, want_grads = mlp_numpy(params, x.astype(np.float64), y.astype(np.float64))
    np.testing.assert_allclose(loss, want_loss, rtol=1e-4)
    for (gw, gb), (ww, wb) in zip(grads, want_grads):
        np.testing.assert_allclose(gw, ww, rtol=1e-3, atol=1e-5)
        np.testing.assert_allclose(gb, wb, rtol=1e-3, atol=1e-5)


@check
def mlp_sgd_steps_reduce_loss():
    params = mlp_params(1)
    x, y = f32(128, 16), f32(128, 4)

    @jax.jit
    def step(p, x, y):
        loss, g = jax.value_and_grad(mlp_loss)(p, x, y)
        return jax.tree_util.tree_map(lambda a, b: a - 0.1 * b, p, g), loss

    losses = []
    ref = [(w.astype(np.float64), b.astype(np.float64)) for w, b in params]
    for _ in range(5):
        params, loss = step(params, x, y)
        losses.append(float(on_device(loss)))
        want, g = mlp_numpy(ref, x.astype(np.float64), y.astype(np.float64))
        np.testing.assert_allclose(losses[-1], want, rtol=1e-4)
        ref = [(w - 0.1 * gw, b - 0.1 * gb) for (w, b), (gw, gb) in zip(ref, g)]
    assert losses[-1] < losses[0], losses


@check
def vmap_of_grad():
    xs = f32(8, 5)
    got = on_device(jax.jit(jax.vmap(jax.grad(lambda x: jnp.sum(jnp.sin(x) * x))))(xs))
    np.testing.assert_allclose(got, np.cos(xs) * xs + np.sin(xs), rtol=1e-5, atol=1e-6)


@check
def lax_scan_cumulative():
    xs = f32(50, 3)

    def body(carry, x):
        carry = 0.9 * carry + x
        return carry, carry * 2

    final, ys = on_device(jax.jit(lambda xs: lax.scan(body, jnp.zeros(3), xs))(xs))
    c = np.zeros(3)
    want = []
    for x in xs.astype(np.float64):
        c = 0.9 * c + x
        want.append(2 * c)
    np.testing.assert_allclose(final, c, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(ys, np.array(want), rtol=1e-5, atol=1e-5)


@check
def lax_cond_and_while():
    fn = jax.jit(lambda x, p: lax.cond(p, lambda v: v * 2, lambda v: v - 1, x))
    x = f32(10)
    np.testing.assert_allclose(on_device(fn(x, True)), x * 2)
    np.testing.assert_allclose(on_device(fn(x, False)), x - 1)
    collatz = jax.jit(lambda n: lax.while_loop(lambda s: s[0] != 1,
                                               lambda s: (jnp.where(s[0] % 2 == 0, s[0] // 2,
                                                                    3 * s[0] + 1), s[1] + 1),
                                               (n, 0)))
    assert int(on_device(collatz(27))[1]) == 111


@check
def lax_fori_loop_and_switch():
    fn = jax.jit(lambda x: lax.fori_loop(0, 10, lambda i, v: v + i * v[::-1], x))
    x = f32(6).astype(np.float64).astype(np.float32)
    v = x.astype(np.float64)
    for i in range(10):
        v = v + i * v[::-1]
    np.testing.assert_allclose(on_device(fn(x)), v, rtol=1e-5)
    sw = jax.jit(lambda i, x: lax.switch(i, [jnp.sin, jnp.cos, lambda v: -v], x))
    np.testing.assert_allclose(on_device(sw(1, x)), np.cos(x), rtol=1e-6)
    np.testing.assert_allclose(on_device(sw(7, x)), -x)  # clamped to the last branch


@check
def random_on_device():
    key = jax.random.key(0)
    k1, k2 = jax.random.split(key)
    u = on_device(jax.jit(lambda k: jax.random.uniform(k, (200_000,)))(k1))
    n = on_device(jax.jit(lambda k: jax.random.normal(k, (200_000,)))(k2))
    assert u.min() >= 0 and u.max() < 1 and abs(u.mean() - 0.5) < 0.005
    assert abs(n.mean()) < 0.01 and abs(n.std() - 1) < 0.01
    # Threefry is a pure function of the key: the CPU backend must agree bit for bit.
    cpu = jax.devices("cpu")[0]
    with jax.default_device(cpu):
        u_cpu = np.asarray(jax.jit(lambda k: jax.random.uniform(k, (200_000,)))(
            jax.device_put(k1, cpu)))
    np.testing.assert_array_equal(u, u_cpu)


@check
def random_permutation_and_bits():
    p = on_device(jax.jit(lambda k: jax.random.permutation(k, 1000))(jax.random.key(3)))
    np.testing.assert_array_equal(np.sort(p), np.arange(1000))
    assert (p != np.arange(1000)).any()


@check
def sort_and_gather_scatter():
    x = f32(3000)
    idx = rng.integers(0, 3000, 500)
    fn = jax.jit(lambda x, i: (jnp.sort(x), x[i], jnp.zeros(3000).at[i].add(1.0)))
    s, g, h = on_device(fn(x, idx))
    np.testing.assert_array_equal(s, np.sort(x))
    np.testing.assert_array_equal(g, x[idx])
    np.testing.assert_array_equal(h, np.bincount(idx, minlength=3000).astype(np.float32))


@check
def host_device_transfers_and_donation():
    x = f32(257, 3)
    d = jax.device_put(x)
    np.testing.assert_array_equal(on_device(d), x)
    y = jax.jit(lambda a: a + 1, donate_argnums=0)(d)
    np.testing.assert_allclose(on_device(y), x + 1)


NVIDIA_KERNEL_LIBRARIES = ("libcuda.so", "libcudart.so", "libcublas.so", "libcublasLt.so",
                           "libcufft.so", "libcurand.so", "libcusparse.so", "libcusolver.so",
                           "libcusolverMg.so", "libcudnn", "libnccl.so", "libnvshmem",
                           "libcutensor", "libcusparseLt")


@check
def no_nvidia_libraries():
    """Every CUDA library mapped into this process is ferry's."""
    mapped = set()
    with open("/proc/self/maps") as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 6 and parts[5].startswith("/"):
                mapped.add(parts[5])
    driver = [p for p in mapped if os.path.basename(p).startswith("libcuda.so")]
    assert driver, "no libcuda.so mapped: JAX did not start its CUDA backend"
    ferry_dir = os.path.dirname(os.path.realpath(driver[0]))
    assert os.path.exists(os.path.join(ferry_dir, "libferry-audit.so")), \
        f"libcuda.so.1 comes from {ferry_dir}, which is not ferry's library directory"
    foreign = sorted(p for p in mapped
                     if os.path.basename(p).startswith(NVIDIA_KERNEL_LIBRARIES)
                     and os.path.dirname(os.path.realpath(p)) != ferry_dir)
    assert not foreign, f"NVIDIA libraries loaded: {foreign}"


def main(argv):
    verbose = "-v" in argv
    only = argv[argv.index("-k") + 1] if "-k" in argv else None
    t0 = time.time()
    try:
        dev = jax.devices()[0]
    except Exception as e:  # the backend did not start: every check fails
        print(f"jax-checks: the CUDA backend did not start: {e}")
        print(f"0 passed, {len(CHECKS)} failed")
        return 1
    print(f"jax-checks: jax {jax.__version__} on {dev.device_kind} ({dev.platform}), "
          f"XLA_FLAGS={os.environ.get('XLA_FLAGS', '')!r}")
    if dev.platform != "gpu":
        print(f"0 passed, {len(CHECKS)} failed")
        return 1
    passed = failed = 0
    for fn in CHECKS:
        if only and only not in fn.__name__:
            continue
        t = time.time()
        try:
            fn()
        except Exception as e:
            failed += 1
            print(f"FAIL {fn.__name__} ({time.time() - t:.1f}s): {type(e).__name__}: "
                  f"{str(e).strip().splitlines()[0] if str(e).strip() else ''}")
            if verbose:
                traceback.print_exc()
        else:
            passed += 1
            print(f"PASS {fn.__name__} ({time.time() - t:.1f}s)")
        sys.stdout.flush()
    print(f"jax-checks: {time.time() - t0:.1f}s")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
