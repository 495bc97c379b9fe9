"""Values the Python API must not take wrongly (docs/python.md, "Arrays" and the
scalar rules): PyTorch tensors with the negative or conjugate bit (read with their
sign, refused as out=), Python numbers a float type cannot hold (refused), an out=
whose elements overlap each other (refused), and the kind of a new result when the
first argument is a Python number. The interpreter, on plain NumPy copies, is the
oracle."""

import itertools

import numpy as np
import pytest

import risec

try:
    import torch
except ImportError:  # scripts/setup.sh installs Debian's python3-torch
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed (python3-torch)")

TWICE = "def twice = depFun(n: Nat => fun(x: n.f32 => x |> map(fun(v => v * 2.0f))))"
TWICE2 = ("def twice2 = depFun((n: Nat, m: Nat) => fun(x: n.m.f32 =>\n"
          "  x |> map(fun(r => r |> map(fun(v => v * 2.0f))))))")
SCALE = ("def s = depFun(n: Nat => fun(alpha: f32 => fun(x: n.f32 =>\n"
         "  x |> map(fun(v => alpha * v)))))")
SAXPY = """
def saxpy = depFun(n: Nat => fun(a: f32 => fun(x: n.f32 => fun(y: n.f32 =>
  zip(x)(y) |> map(fun(p => a * p._1 + p._2))))))
"""
rng = np.random.default_rng(7)


def ident(t: str) -> str:
    return f"def f = fun(a: {t} => a)"


# --- negative and conjugate bits ------------------------------------------------------


def flagged_views(n: int):
    """Tensors of n floats with the negative bit set, as PyTorch makes them."""
    base = torch.randn(n)
    z = torch.complex(torch.randn(n), torch.randn(n))
    yield base._neg_view()
    yield z.conj().imag
    yield torch.randn(2 * n)[::2]._neg_view()  # negated and strided


@needs_torch
def test_negative_views_are_read_with_their_sign():
    kernel = risec.compile(TWICE)
    for n in [1, 2, 5, 17, 64]:
        for v in flagged_views(n):
            assert v.is_neg()
            plain = v.resolve_neg().numpy().copy()
            expected = risec.eval(TWICE, plain)
            np.testing.assert_array_equal(risec.eval(TWICE, v), expected)
            got = kernel(v)
            assert isinstance(got, torch.Tensor)
            np.testing.assert_array_equal(got.numpy(), expected)
            bound = risec.compile(TWICE, bind={"x": v})
            np.testing.assert_array_equal(bound(), expected)
            # the caller's tensor keeps its bit and its values
            assert v.is_neg()
            np.testing.assert_array_equal(v.resolve_neg().numpy(), plain)


@needs_torch
def test_named_negbit_reproducer():
    z = torch.tensor([1 + 2j, 3 + 4j], dtype=torch.complex64)
    im = z.conj().imag
    prog = "def f = depFun(n: Nat => fun(x: n.f32 => x |> map(fun(v => v + 0.0f))))"
    np.testing.assert_array_equal(risec.compile(prog)(im).numpy(), [-2.0, -4.0])
    np.testing.assert_array_equal(risec.eval(prog, im), [-2.0, -4.0])
    np.testing.assert_array_equal(risec.compile(SCALE)(1.0, im).numpy(), [-2.0, -4.0])


@needs_torch
def test_negative_or_conjugate_out_is_refused():
    kernel = risec.compile(TWICE)
    x = torch.randn(4)
    for out in [torch.zeros(4)._neg_view(), torch.zeros(4, dtype=torch.complex64).conj().imag]:
        with pytest.raises(risec.Error) as e:
            kernel(x, out=out)
        assert e.value.exit_code == 2 and "out=" in e.value.message
        assert "negat" in e.value.message, e.value.message


# --- Python numbers a float type cannot hold ------------------------------------------


def accepts(prog: str, value) -> bool:
    """Whether eval, a kernel call and bind= all take `value` (they must agree)."""
    verdicts = []
    for call in [lambda: risec.eval(prog, value), lambda: risec.compile(prog)(value)]:
        try:
            call()
            verdicts.append(True)
        except risec.Error as e:
            assert e.exit_code == 2
            assert "is not a value of" in e.message, e.message
            verdicts.append(False)
    assert verdicts[0] == verdicts[1], (prog, value)
    return verdicts[0]


@pytest.mark.parametrize("t,dtype,bits", [("f32", np.float32, 24), ("f64", np.float64, 53)])
def test_python_ints_must_be_exact_in_float_types(t, dtype, bits):
    prog = ident(t)
    kernel = risec.compile(prog)
    cases = [2**bits + d for d in range(-3, 4)] + [-(2**bits) - 1, 2**(bits + 1) + 2, 3 * 2**bits,
                                                    10**400, -(10**400)]
    cases += [int(v) for v in rng.integers(-(2**62), 2**62, 40)]
    for v in cases:
        exact = False
        try:
            exact = np.isfinite(dtype(v)) and int(dtype(v)) == v
        except OverflowError:
            pass
        assert accepts(prog, v) == exact, v
        if exact:
            got = kernel(v)
            assert got.dtype == dtype and int(got) == v


@pytest.mark.parametrize("t,dtype", [("f32", np.float32), ("f64", np.float64)])
def test_python_floats_must_not_overflow_or_vanish(t, dtype):
    prog = ident(t)
    kernel = risec.compile(prog)
    info = np.finfo(dtype)
    # beyond the largest finite value, below the smallest subnormal: refused
    # (a Python float is a double: only f32 has values beyond it)
    refused = [float(info.max) * 1.5, 1e40, float(info.smallest_subnormal) / 4, 1e-50]
    for v in refused if t == "f32" else []:
        for s in [v, -v]:
            assert not accepts(prog, s), s
    # any float the type can hold, rounded to nearest as a literal is: taken
    samples = list(rng.standard_normal(30) * 10.0 ** rng.integers(-30, 30, 30))
    for v in samples + [0.1, -0.0, 0.0, float(info.max), float(info.tiny)]:
        assert accepts(prog, float(v)), v
        got = kernel(float(v))
        assert got.dtype == dtype and got == dtype(v)
    for v in [float("inf"), float("-inf")]:
        assert kernel(v) == v
    assert np.isnan(kernel(float("nan")))


def test_bind_refuses_an_overflowing_float():
    with pytest.raises(risec.Error) as e:
        risec.compile(SCALE, bind={"alpha": 1e40})
    assert e.value.exit_code == 2 and "bind['alpha']" in e.value.message
    k = risec.compile(SCALE, bind={"alpha": 1e30})
    np.testing.assert_array_equal(k(np.ones(2, np.float32)), np.full(2, np.float32(1e30)))


# --- out= whose elements overlap ------------------------------------------------------


def overlaps(shape, strides) -> bool:
    """The truth, by enumeration: two indices at one address."""
    seen = set()
    for idx in itertools.product(*[range(e) for e in shape]):
        off = sum(i * s for i, s in zip(idx, strides))
        if off in seen:
            return True
        seen.add(off)
    return False


def test_self_overlapping_out_is_refused_and_others_are_right():
    kernel = risec.compile(TWICE2)
    refused_overlap = accepted = 0
    for _ in range(200):
        shape = tuple(int(e) for e in rng.integers(1, 5, 2))
        strides = tuple(int(s) for s in rng.integers(-6, 7, 2))
        span = sum(abs(s) * (e - 1) for s, e in zip(strides, shape))
        base = np.zeros(2 * span + 1, np.float32)
        start = sum(-s * (e - 1) for s, e in zip(strides, shape) if s < 0)
        out = np.lib.stride_tricks.as_strided(base[start:], shape, [4 * s for s in strides],
                                              writeable=True)
        x = rng.standard_normal(shape).astype(np.float32)
        try:
            got = kernel(x, out=out)
        except risec.Error as e:
            assert e.exit_code == 2 and "the output's elements overlap" in e.message
            refused_overlap += 1
            continue
        assert not overlaps(shape, strides), (shape, strides)
        np.testing.assert_array_equal(got, risec.eval(TWICE2, x))
        accepted += 1
    assert refused_overlap > 0 and accepted > 0


def test_ordinary_out_layouts_are_taken():
    kernel = risec.compile(TWICE2)
    x = rng.standard_normal((3, 4)).astype(np.float32)
    expected = risec.eval(TWICE2, x)
    for out in [np.zeros((4, 3), np.float32).T, np.zeros((3, 8), np.float32)[:, ::2],
                np.zeros((3, 4), np.float32)[::-1, ::-1], np.zeros((3, 4), np.float32, order="F")]:
        np.testing.assert_array_equal(kernel(x, out=out), expected)


def test_named_overlap_reproducers():
    kernel = risec.compile(SCALE)
    base = np.zeros(3, np.float32)
    o = np.lib.stride_tricks.as_strided(base, (4,), (0,), writeable=True)
    with pytest.raises(risec.Error) as e:
        kernel(2.0, np.arange(4, dtype=np.float32), out=o)
    assert "overlap" in e.value.message
    if torch is not None:
        with pytest.raises(risec.Error) as e:
            kernel(2.0, torch.arange(4.0), out=torch.zeros(1).expand(4))
        assert "overlap" in e.value.message


# --- the kind of a new result ---------------------------------------------------------


@needs_torch
def test_result_takes_the_first_array_arguments_kind():
    k = risec.compile(SAXPY)
    x, y = torch.ones(3), torch.ones(3)
    for a in [2.0, 2]:
        got = k(a, x, y)
        assert isinstance(got, torch.Tensor), type(a)
        np.testing.assert_array_equal(got.numpy(), risec.eval(SAXPY, a, x.numpy(), y.numpy()))
    assert isinstance(k(2.0, np.ones(3, np.float32), y), np.ndarray)


# --- OpenCL kernels called first from several threads ---------------------------------

THREADS_SCRIPT = r"""
import sys, threading
import numpy as np
import risec
kernels = [risec.compile("def f%d = depFun(n: Nat => fun(x: n.f32 => x |> map(fun(v => v * %d.0f))))"
                         % (i, i + 2), target="opencl") for i in range(12)]
barrier = threading.Barrier(4)
failures = []
def work(t):
    x = np.arange(100 + t, dtype=np.float32)
    barrier.wait()
    for i in range(t, 12, 4):  # each thread the first call of 3 kernels, all at once
        got = kernels[i](x)
        if not np.array_equal(got, x * (i + 2)):
            failures.append(i)
threads = [threading.Thread(target=work, args=(t,)) for t in range(4)]
[t.start() for t in threads]
[t.join() for t in threads]
print("failures", failures)
sys.exit(1 if failures else 0)
"""


def test_opencl_kernels_first_called_from_threads():
    """PoCL's set-up is not thread-safe: risec serialises its kernels' calls. Each run
    is a process of its own (its first calls set up), so a crash fails the test."""
    import subprocess
    import sys
    for _ in range(4):
        r = subprocess.run([sys.executable, "-c", THREADS_SCRIPT], capture_output=True,
                           text=True, timeout=600)
        assert r.returncode == 0, (r.returncode, r.stdout, r.stderr[-2000:])
