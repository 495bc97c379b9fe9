"""Arrays in and out without copies (docs/python.md, "Arrays"): NumPy arrays of any
strides, PyTorch tensors and __dlpack__ objects, `out=`, bound arrays from memory,
the OpenCL target on PoCL and the CUDA target; results against the interpreter."""

import gc
import os
import pathlib
import shutil
import subprocess

import numpy as np
import pytest

import risec

ROOT = pathlib.Path(__file__).resolve().parents[2]
MM = ROOT / "examples" / "mm" / "mm.rise"
MV = ROOT / "examples" / "mv" / "mv.rise"
SCALE = """
def scale = depFun(n: Nat => fun(x: n.f32 => x |> map(fun(v => v * 2.0f))))
"""
# Elementwise over a matrix: the result depends on every element's position.
AXPY2 = """
def axpy2 = depFun((n: Nat, m: Nat) => fun(a: f32 => fun(x: n.m.f32 => fun(y: n.m.f32 =>
  zip(x)(y) |> map(fun(r => zip(r._1)(r._2) |> map(fun(p => a * p._1 + p._2))))))))
"""
WEIGHTED = """
def weighted = depFun((n: Nat, k: Nat) => fun(x: n.k.f32 => fun(w: k.f32 =>
  x |> map(fun(row => zip(row)(w) |> map(fun(p => p._1 * p._2)) |> reduce(add)(0.0f))))))
"""
rng = np.random.default_rng(11)

try:
    import torch
except ImportError:  # scripts/setup.sh installs Debian's python3-torch
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed (python3-torch)")


def rand(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def close(got, want):
    """The kernel's result against the interpreter's: equal but for the rounding of a
    fused multiply-add (the C code is compiled with -ffp-contract=fast)."""
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


def address(a):
    return a.__array_interface__["data"][0]


def strided_views(base):
    """Views of a 2-D array with every kind of layout: contiguous, transposed, steps,
    negative steps, a column slice, a Fortran-ordered copy."""
    yield base
    yield base.T
    yield base[::2]
    yield base[:, ::3]
    yield base[::-1]
    yield base[::-2, ::-1]
    yield base[1:, 2:]
    yield np.asfortranarray(base)


class DLPackOnly:
    """An array that offers only the DLPack protocol (as JAX, CuPy and others do)."""

    def __init__(self, a):
        self._a = a

    def __dlpack__(self, stream=None):
        return self._a.__dlpack__()

    def __dlpack_device__(self):
        return self._a.__dlpack_device__()


def test_contiguous_inputs_and_out_are_used_in_place():
    k = risec.compile(AXPY2)
    x, y = rand(5, 7), rand(5, 7)
    ref = risec.eval(AXPY2, np.float32(1.5), x, y)
    np.testing.assert_allclose(ref, 1.5 * x + y, rtol=1e-6)
    out = np.full((5, 7), np.nan, np.float32)
    before = address(out)
    for _ in range(3):  # the same memory every call: nothing is reallocated
        r = k(1.5, x, y, out=out)
        assert r is out and address(r) == before
        close(out, ref)


def test_strided_inputs_agree_with_the_interpreter():
    # Many layouts of both inputs, of several shapes: the kernel reads each where it
    # is (a non-row-major one through one row-major copy) and agrees with the
    # interpreter on the row-major copies.
    k = risec.compile(AXPY2)
    cases = 0
    for shape in [(6, 9), (9, 6), (12, 12), (4, 15)]:
        for x in strided_views(rand(*shape)):
            for y in strided_views(rand(*shape)):
                if x.shape != y.shape:
                    continue
                want = risec.eval(AXPY2, np.float32(-0.5), np.ascontiguousarray(x),
                                  np.ascontiguousarray(y))
                close(k(np.float32(-0.5), x, y), want)
                cases += 1
    assert cases > 50


def test_strided_matrix_product():
    k = risec.compile(MM)
    A, B = rand(16, 24), rand(24, 16)
    for a in (A, A.T.copy().T, A[:, ::-1][:, ::-1], np.asfortranarray(A)):
        for b in (B, B[::-1][::-1], np.asfortranarray(B)):
            np.testing.assert_allclose(k(a, b), A @ B, rtol=1e-4, atol=1e-4)
    # a transposed view is another matrix: the result is its product
    np.testing.assert_allclose(k(B.T, A.T), (A @ B).T, rtol=1e-4, atol=1e-4)


def test_out_with_strides_is_written_through():
    k = risec.compile(AXPY2)
    x, y = rand(4, 6), rand(4, 6)
    want = risec.eval(AXPY2, np.float32(2), x, y)
    big = np.zeros((8, 6), np.float32)
    view = big[::2]  # every other row
    assert k(np.float32(2), x, y, out=view) is view
    close(big[::2], want)
    np.testing.assert_array_equal(big[1::2], 0)  # the rows between stay untouched
    t = np.zeros((6, 4), np.float32).T  # Fortran order
    k(np.float32(2), x, y, out=t)
    np.testing.assert_array_equal(t, big[::2])  # the same code on the same inputs


def test_out_errors_are_clear():
    k = risec.compile(SCALE)
    x = rand(10)
    with pytest.raises(risec.Error, match=r"out=: the array has shape \(3,\).*\(10,\)") as e:
        k(x, out=np.zeros(3, np.float32))
    assert e.value.exit_code == 2
    with pytest.raises(risec.Error, match="out=.*needs dtype float32.*float64"):
        k(x, out=np.zeros(10, np.float64))
    ro = np.zeros(10, np.float32)
    ro.flags.writeable = False
    with pytest.raises(risec.Error, match="out=: the array is read-only"):
        k(x, out=ro)
    with pytest.raises(risec.ArgumentTypeError, match=r"out=: expected an array .*, got \[0\.0, "):
        k(x, out=[0.0] * 10)
    with pytest.raises(risec.Error, match=r"shares memory with argument 1 \(x\)"):
        k(x, out=x)
    with pytest.raises(risec.Error, match=r"shares memory with argument 1 \(x\)"):
        k(x[:6], out=x[4:])  # two elements in common
    # Interleaved, no element in common: called (the test is exact), x[::2] unchanged.
    evens = x[::2].copy()
    k(x[::2], out=x[1::2])
    np.testing.assert_array_equal(x[::2], evens)
    np.testing.assert_array_equal(x[1::2], risec.eval(SCALE, evens))


def test_wrong_dtypes_and_non_numbers_are_named():
    k = risec.compile(SCALE)
    with pytest.raises(risec.Error, match=r"argument 1 \(x\).*needs dtype float32.*float64"):
        k(np.ones(4))
    with pytest.raises(risec.Error, match=r"argument 1 \(x\): a numpy.ndarray of dtype object"):
        k(np.array(["a", "b"], dtype=object))
    with pytest.raises(risec.Error, match=r"argument 1 \(x\).*complex64"):
        k(np.ones(4, np.complex64))


def test_dlpack_objects_are_arrays():
    # Refused before as "dtype object" (np.asarray of an unknown object).
    k = risec.compile(SCALE)
    x = rand(9)
    np.testing.assert_array_equal(k(DLPackOnly(x)), x * 2)
    np.testing.assert_array_equal(risec.eval(SCALE, DLPackOnly(x)), x * 2)
    bound = risec.compile(WEIGHTED, bind={"w": DLPackOnly(np.arange(3, dtype=np.float32))})
    X = rand(4, 3)
    np.testing.assert_allclose(bound(X), X @ np.arange(3, dtype=np.float32), rtol=1e-5)


def test_bound_arrays_go_through_no_file(monkeypatch):
    def no_files(*args, **kwargs):
        raise AssertionError("a bound array was written to a file")

    monkeypatch.setattr(np, "save", no_files)
    w = np.array([1, 0, 2, 0, 3, 0], np.float32)[::2]  # strided: [1, 2, 3]
    k = risec.compile(WEIGHTED, bind={"w": w})
    X = rand(5, 3)
    close(k(X), risec.eval(WEIGHTED, X, np.ascontiguousarray(w)))
    with pytest.raises(risec.Error) as e:
        risec.compile(WEIGHTED, bind={"w": np.zeros(3, np.complex64)})
    assert "bind['w']" in e.value.message and e.value.exit_code == 2


@needs_torch
def test_torch_tensors_in_and_out():
    k = risec.compile(MM)
    A, B = torch.randn(8, 12), torch.randn(12, 4)
    C = k(A, B)
    assert isinstance(C, torch.Tensor) and C.dtype == torch.float32 and C.shape == (8, 4)
    want = risec.eval(MM, A.numpy(), B.numpy())
    close(C.numpy(), want)
    # out=: the caller's tensor, its memory written
    out = torch.full((8, 4), float("nan"))
    ptr = out.data_ptr()
    assert k(A, B, out=out) is out and out.data_ptr() == ptr
    np.testing.assert_array_equal(out.numpy(), C.numpy())
    # a transposed (non-contiguous) tensor, and a mix of NumPy and torch
    np.testing.assert_allclose(k(B.T, A.T).numpy(), want.T, rtol=1e-4, atol=1e-4)
    mixed = k(A.numpy(), B)  # made like the first argument: a NumPy array
    assert isinstance(mixed, np.ndarray)
    np.testing.assert_array_equal(mixed, C.numpy())
    # the interpreter reads tensors too
    np.testing.assert_array_equal(risec.eval(MM, A, B), want)


@needs_torch
def test_torch_errors():
    k = risec.compile(SCALE)
    with pytest.raises(risec.Error, match=r"argument 1 \(x\).*needs dtype float32.*float16"):
        k(torch.ones(4, dtype=torch.float16))
    with pytest.raises(risec.Error, match="out=.*needs dtype float32.*int64"):
        k(torch.ones(4), out=torch.zeros(4, dtype=torch.int64))
    with pytest.raises(risec.Error, match=r"out=: the array has shape \(5,\)"):
        k(torch.ones(4), out=torch.zeros(5))


def test_opencl_kernel_keeps_its_setup_between_calls():
    # The paper's Listing 4 on OpenCL (PoCL here): the kernels are built on the first
    # call and reused (the program stays loaded); sizes may change between calls.
    k = risec.compile(MV, strategy=ROOT / "examples" / "mv" / "listing4.elv", target="opencl")
    assert k.target == "opencl" and "__kernel" in k.kernels
    for n, m in [(64, 32), (128, 16), (64, 32)]:
        M, x = rand(n, m), rand(m)
        out = np.empty(n, np.float32)
        before = address(out)
        assert k(M, x, out=out) is out and address(out) == before
        np.testing.assert_allclose(out, risec.eval(MV, M, x), rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(k(M[:, ::-1][:, ::-1], x), out, rtol=0, atol=0)


def test_opencl_kernel_with_a_scalar_argument():
    scal = ROOT / "examples" / "scal" / "scal.rise"
    k = risec.compile(scal, strategy=ROOT / "examples" / "scal" / "global.elv", target="opencl")
    for n in (1, 100, 1000):
        x = rand(n)
        close(k(3.0, x), risec.eval(scal, np.float32(3), x))


def test_opencl_kernel_keeps_its_buffers_between_calls():
    # The device buffers are kept between calls (re-allocated when the sizes change):
    # new inputs at the same sizes, then other sizes, give the interpreter's results
    # each time. Two kernels of the same code share the loaded code and its buffers:
    # when one is destroyed (its release frees them), the other sets up again.
    dot = ROOT / "examples" / "dot" / "dot.rise"
    strategy = ROOT / "examples" / "dot" / "global_chunks.elv"
    k1 = risec.compile(dot, strategy=strategy, target="opencl")
    k2 = risec.compile(dot, strategy=strategy, target="opencl")
    rng = np.random.default_rng(35)
    for n in [64, 64, 32, 640, 640, 96, 64]:
        for k in (k1, k2):
            x = rng.integers(-8, 9, n).astype(np.float32)  # exact sums in any order
            y = rng.integers(-8, 9, n).astype(np.float32)
            assert k(x, y) == risec.eval(dot, x, y)
    del k1
    gc.collect()
    x, y = np.full(128, 2, np.float32), np.full(128, -3, np.float32)
    assert k2(x, y) == 128 * -6


SIZES64 = {"n": 64, "m": 64, "k": 64}


def gpu_reason():
    """Why CUDA kernels cannot run here ("" when they can)."""
    if not shutil.which("nvidia-smi"):
        return "no NVIDIA GPU here (nvidia-smi not found)"
    if subprocess.run(["nvidia-smi", "-L"], capture_output=True).returncode != 0:
        return "nvidia-smi finds no GPU"
    if not (os.environ.get("NVCC") or shutil.which("nvcc") or
            os.path.exists("/usr/local/cuda/bin/nvcc")):
        return "no nvcc to compile CUDA kernels"
    return ""


def test_cuda_code_is_generated_without_a_gpu():
    k = risec.compile(MM, strategy=ROOT / "examples" / "mm" / "opencl_tiled.elv", target="cuda",
                      sizes=SIZES64, load=False)
    assert k.target == "cuda" and not k.loaded
    assert "__global__" in k.source and "cudaMemcpyDefault" in k.source
    with pytest.raises(risec.Error, match="load=False"):
        k(rand(64, 64), rand(64, 64))


@pytest.mark.skipif(bool(gpu_reason()), reason=gpu_reason() or "a GPU is here")
def test_cuda_kernel_on_host_and_device_arrays():
    k = risec.compile(MM, strategy=ROOT / "examples" / "mm" / "opencl_tiled.elv", target="cuda",
                      sizes=SIZES64)
    A, B = rand(64, 64), rand(64, 64)
    want = risec.eval(MM, A, B)
    np.testing.assert_allclose(k(A, B), want, rtol=1e-4, atol=1e-4)
    if torch is None or not torch.cuda.is_available():
        pytest.skip("no CUDA-enabled PyTorch to make device tensors")
    dA, dB = torch.from_numpy(A).cuda(), torch.from_numpy(B).cuda()
    C = k(dA, dB)
    assert C.is_cuda
    np.testing.assert_allclose(C.cpu().numpy(), want, rtol=1e-4, atol=1e-4)
    out = torch.empty(64, 64, device="cuda")
    ptr = out.data_ptr()
    assert k(dA, dB, out=out) is out and out.data_ptr() == ptr
    np.testing.assert_allclose(out.cpu().numpy(), want, rtol=1e-4, atol=1e-4)


@needs_torch
@pytest.mark.skipif(torch is None or not torch.cuda.is_available(),
                    reason="no CUDA device for PyTorch")
def test_cuda_tensors_are_refused_by_host_kernels():
    k = risec.compile(SCALE)
    with pytest.raises(risec.Error, match="CUDA memory.*target is c"):
        k(torch.ones(4, device="cuda"))
