"""Faults of the data in a kernel call (docs/python.md, "Errors of a call"): an index
input out of range, natAsIndex and casts of bad values, index arithmetic out of range,
integer division and modulo by zero and the least value divided by -1, in scalar and
vector (lane) code, in OpenMP parallel loops and OpenCL kernels (PoCL, where it runs),
raise risec.Error with the words `risec run` prints (exit code 4) instead of ending
the interpreter, and the next call with good data gives the interpreter's result.
A CUDA kernel without a GPU is an error at compile time, not at its first call."""

import shutil
import subprocess
import sys
import threading

import numpy as np
import pytest

import risec

N, M = 64, 4

IDX = """def f = depFun((n: Nat, m: Nat) => fun(xs: n.i32 => fun(x: m.f32 =>
  xs |> map(fun(v => idx(natAsIndex(m)(cast(v)))(x) * 2.0f)))))"""
CAST = """def f = depFun((n: Nat, m: Nat) => fun(xs: n.i32 => fun(x: m.f32 =>
  xs |> map(fun(v => idx(cast(v):idx[m])(x))))))"""
SUM = """def f = depFun((n: Nat, m: Nat) => fun(xs: n.i32 => fun(x: m.f32 =>
  xs |> map(fun(v => idx(add(natAsIndex(m)(cast(v)))(natAsIndex(m)(cast(v))))(x))))))"""
INPUT = """def f = depFun((n: Nat, m: Nat) => fun(is: n.idx[m] => fun(x: m.f32 =>
  is |> map(fun(i => idx(i)(x) + 1.0f)))))"""
DIV = """def f = depFun(n: Nat => fun(a: n.i32, b: n.i32 =>
  zip(a)(b) |> map(fun(p => p._1 / p._2))))"""
MOD = """def f = depFun(n: Nat => fun(a: n.i32, b: n.i32 =>
  zip(a)(b) |> map(fun(p => p._1 % p._2))))"""

PARALLEL = "try(parallel @ outermost(isApplied(isMap))) ; lowerToC"
LANES = "vectorize(4) @ innermost(isFullyApplied(isMap)) ; "
GLOBAL = "mapGlobal(0) @ outermost(isApplied(isMap)) ; lowerToC"


def indices(bad=None, below=M):
    xs = (np.arange(N, dtype=np.int32) * 7) % below
    if bad is not None:
        xs[37] = bad
    return [xs, np.array([0.5, -1.25, 3.0, 8.0], np.float32)]


def quotients(bad=False, overflow=False):
    a = np.arange(N, dtype=np.int32) * 13 - 300
    b = ((np.arange(N) % 5 + 1) * np.where(np.arange(N) % 2, -1, 1)).astype(np.int32)
    if bad and overflow:
        a[37], b[37] = np.iinfo(np.int32).min, -1
    elif bad:
        b[37] = 0
    return [a, b]


# name, program, lanes (vectorised), good arrays, bad arrays, the fault's words
CASES = [
    ("natAsIndex", IDX, False, indices(), indices(7), "natAsIndex(4): 7 is out of range"),
    ("natCast", IDX, False, indices(), indices(-3), "cast: the negative value -3 to natType"),
    ("cast", CAST, False, indices(), indices(9), "cast: 9 is out of range for idx[4]"),
    ("arithmetic", SUM, False, indices(below=2), indices(3, below=2),
     "index arithmetic: add gives 6, out of range for idx[4]"),
    ("input", INPUT, False, indices(), indices(4), "input value 4 is out of range for idx[4]"),
    ("division", DIV, False, quotients(), quotients(True), "integer division by zero (i32)"),
    ("modulo", MOD, False, quotients(), quotients(True), "integer modulo by zero (i32)"),
    ("overflow", DIV, False, quotients(), quotients(True, True),
     "integer overflow: the least i32 divided by -1"),
    ("laneDivision", DIV, True, quotients(), quotients(True), "integer division by zero (i32)"),
    ("laneOverflow", MOD, True, quotients(), quotients(True, True),
     "integer overflow: the least i32 modulo -1"),
]


def opencl_reason():
    """Why the OpenCL target cannot run here ("" when it can)."""
    try:
        k = risec.compile(MOD, target="opencl")
        return "" if k(np.full(4, 6, np.int32), np.full(4, 4, np.int32))[0] == 2 else "wrong"
    except risec.Error as e:
        return str(e.message)


def expect_fault_then_result(k, program, good, bad, what):
    with pytest.raises(risec.Error) as info:
        k(*bad)
    assert info.value.message == "the program stopped: f: " + what
    assert info.value.exit_code == 4
    assert "the program stopped: f: " + what in str(info.value)
    want = risec.eval(program, *good)
    np.testing.assert_array_equal(k(*good), want)
    # out= is written again by the good call.
    out = np.zeros_like(want)
    with pytest.raises(risec.Error):
        k(*bad, out=out)
    assert k(*good, out=out) is out
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("target", ["c", "openmp"])
@pytest.mark.parametrize("name,program,lanes,good,bad,what", CASES, ids=[c[0] for c in CASES])
def test_fault_is_an_error_and_the_next_call_works(target, name, program, lanes, good, bad,
                                                   what):
    strategy = (LANES if lanes else "") + (PARALLEL if target == "openmp" else "lowerToC")
    k = risec.compile(program, strategy if (lanes or target == "openmp") else None,
                      target=target)
    if target == "openmp":
        assert "omp parallel" in k.source
    if lanes:
        assert "_i32x4(" in k.source
    expect_fault_then_result(k, program, good, bad, what)


def test_opencl_kernel_faults_are_errors():
    why = opencl_reason()
    if why:
        pytest.skip("no OpenCL device: " + why)
    for name, program, lanes, good, bad, what in CASES:
        if lanes:
            continue
        k = risec.compile(program, GLOBAL, target="opencl")
        expect_fault_then_result(k, program, good, bad, what)


def test_concurrent_calls_see_only_their_own_faults():
    """Calls release the GIL: threads calling one kernel with good and bad data at once
    each get their own call's outcome."""
    for target, strategy in (("c", None), ("openmp", PARALLEL)):
        k = risec.compile(IDX, strategy, target=target)
        good, bad = indices(), indices(7)
        want = risec.eval(IDX, *good)
        failures = []

        def caller(data, faults):
            for _ in range(200):
                try:
                    y = k(*data)
                    if faults:
                        failures.append("no error")
                    elif not np.array_equal(y, want):
                        failures.append("wrong result")
                except risec.Error as e:
                    if not faults:
                        failures.append("spurious: " + e.message)

        threads = [threading.Thread(target=caller, args=(bad, True)),
                   threading.Thread(target=caller, args=(good, False)),
                   threading.Thread(target=caller, args=(good, False))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert failures == [], target


def test_the_interpreter_survives_a_fault_in_a_child():
    """The same fault in a fresh interpreter: it raises and exits normally (before the
    recording, the process ended with SIGABRT, exit 134)."""
    code = ("import numpy as np, risec\n"
            f"k = risec.compile({DIV!r})\n"
            "try:\n"
            "    k(np.ones(8, np.int32), np.zeros(8, np.int32))\n"
            "except risec.Error as e:\n"
            "    print('raised:', e.message)\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    assert "raised: the program stopped: f: integer division by zero (i32)" in r.stdout


def has_cuda_gpu():
    return bool(shutil.which("nvidia-smi")) and \
        subprocess.run(["nvidia-smi", "-L"], capture_output=True).returncode == 0


@pytest.mark.skipif(has_cuda_gpu(), reason="a CUDA GPU is here")
def test_cuda_without_a_gpu_is_an_error_at_compile_time():
    with pytest.raises(risec.Error) as info:
        risec.compile(DIV, target="cuda")
    assert "cannot load the CUDA kernel f: no CUDA" in info.value.message
    assert "load=False" in info.value.message
    assert info.value.exit_code == 4
    k = risec.compile(DIV, target="cuda", load=False)
    assert not k.loaded and "__global__" in k.source
