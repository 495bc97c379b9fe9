"""Failures of the OpenCL device in a kernel call (docs/python.md, "Errors of a call"):
no platform that $RISEC_OPENCL_PLATFORM names, kernels the OpenCL compiler refuses
(PoCL's $POCL_EXTRA_BUILD_FLAGS breaks their source), a buffer larger than the device
gives. Each raises risec.Error (exit code 4) with the words the standalone program
prints, instead of ending the interpreter, and the kernel stays usable. Each case runs
in a fresh interpreter: its environment is its own, and it must exit normally (before,
the process ended with SIGABRT)."""

import subprocess
import sys

import numpy as np
import pytest

import risec

# out[i] = xs[i] * sum(xs): two launches with an n*n temporary between them.
OUTER = """def outer = depFun(n: Nat => fun(xs: n.i32 =>
  xs |> map(fun(a => xs |> map(fun(b => a * b)))) |> toMem
     |> map(fun(row => row |> reduce(fun(p, q => p + q))(0)))))"""
GLOBAL = "mapGlobal(0) @ outermost(isApplied(isMap)) ; lowerToC"

PRELUDE = f"""import os, numpy as np, risec
k = risec.compile({OUTER!r}, {GLOBAL!r}, target="opencl")
def call(n):
    xs = (np.arange(n) % 13 - 6).astype(np.int32)
    return k(xs), xs * xs.sum()
def error(n):
    try:
        call(n)
    except risec.Error as e:
        return type(e).__name__, e.message, e.exit_code, str(e)
    return None
"""


def run_script(body, env=None):
    """The lines the script prints, after PRELUDE (its exit status checked)."""
    r = subprocess.run([sys.executable, "-c", PRELUDE + body], capture_output=True, text=True,
                       timeout=600, env=env)
    assert r.returncode == 0, r.stderr
    return r.stdout.splitlines()


def opencl_device_reason():
    """Why OpenCL cannot run here ("" when it can)."""
    try:
        k = risec.compile(OUTER, GLOBAL, target="opencl")
        xs = np.arange(4, dtype=np.int32)
        return "" if np.array_equal(k(xs), xs * xs.sum()) else "a wrong result"
    except risec.Error as e:
        return e.message


@pytest.fixture(scope="module")
def opencl_runs():
    why = opencl_device_reason()
    if why:
        pytest.skip("no OpenCL device: " + why)


def test_an_unknown_platform_raises_and_the_next_call_sets_up(opencl_runs):
    out = run_script("""
os.environ["RISEC_OPENCL_PLATFORM"] = "nonexistent"
print(error(64))
print(error(64))
del os.environ["RISEC_OPENCL_PLATFORM"]
y, want = call(64)
print("after:", np.array_equal(y, want))
""")
    msg = "no OpenCL platform with a device matches RISEC_OPENCL_PLATFORM=nonexistent"
    raised = repr(("Error", msg, 4, "risec: error: " + msg))
    assert out == [raised, raised, "after: True"]


def test_kernels_the_compiler_refuses_raise_with_its_log(opencl_runs):
    import os
    env = dict(os.environ, POCL_EXTRA_BUILD_FLAGS="-D__kernel=(")
    out = run_script("""
for _ in range(2):
    name, message, code, text = error(32)
    print(name, code, message.startswith("the OpenCL kernels do not build:\\n"),
          "error" in message, text == "risec: error: " + message)
print("alive")
""", env)
    assert out == ["Error 4 True True True"] * 2 + ["alive"]


def test_a_buffer_too_large_raises_and_the_kernel_stays_usable(opencl_runs):
    # n = 100000: an n*n temporary of 40 GB, beyond what a device gives one buffer
    # (PoCL: 4 GiB), refused before any kernel runs.
    out = run_script("""
print(np.array_equal(*call(100)))
name, message, code, _ = error(100000)
print(name, code, message.startswith("OpenCL error -"),
      message.endswith(" in clCreateBuffer of 40000000000 bytes"))
print(np.array_equal(*call(100)), np.array_equal(*call(7)))
""")
    assert out == ["True", "Error 4 True True", "True True"]
