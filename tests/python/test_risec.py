"""The Python package (docs/python.md): compile and call on NumPy arrays, checked
against NumPy and the interpreter; shape, dtype and layout errors; located errors."""

import pathlib
import subprocess
import sys

import numpy as np
import pytest

import risec

ROOT = pathlib.Path(__file__).resolve().parents[2]
MM = ROOT / "examples" / "mm" / "mm.rise"
SAXPY = """
def saxpy = depFun(n: Nat => fun(a: f32 => fun(x: n.f32 => fun(y: n.f32 =>
  zip(x)(y) |> map(fun(p => a * p._1 + p._2))))))
"""
SCALE = """
def scale = depFun(n: Nat => fun(x: n.f32 => x |> map(fun(v => v * 2.0f))))
"""
rng = np.random.default_rng(7)


def rand(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def test_mm_openmp_tuned_strategy_matches_numpy():
    k = risec.compile(MM, strategy=ROOT / "examples" / "mm" / "tune.elv", target="openmp",
                      params={"ti": 8, "tj": 16, "kk": 4, "v": 8})
    A, B = rand(16, 12), rand(12, 32)
    C = k(A, B)
    assert C.shape == (16, 32) and C.dtype == np.float32
    np.testing.assert_allclose(C, A @ B, rtol=1e-4, atol=1e-4)
    assert "#pragma omp" in k.source
    assert k.target == "openmp"


def test_program_text_and_default_lowering():
    k = risec.compile(SCALE)
    x = rand(10)
    np.testing.assert_array_equal(k(x), x * 2)
    # A different size at the next call: sizes come from the shapes each time.
    y = rand(3)
    np.testing.assert_array_equal(k(y), y * 2)
    assert "void" in k.source and k.name in k.header


def test_scalar_argument():
    k = risec.compile(SAXPY)
    x, y = rand(7), rand(7)
    a = np.array(3.0, dtype=np.float32)
    np.testing.assert_allclose(k(a, x, y), 3.0 * x + y, rtol=1e-6)
    np.testing.assert_allclose(k(np.float32(2), x, y), 2.0 * x + y, rtol=1e-6)
    # a Python number is a value of the scalar parameter's type (docs/python.md)
    np.testing.assert_allclose(k(2.0, x, y), 2.0 * x + y, rtol=1e-6)
    with pytest.raises(risec.Error, match=r"argument 1 \(a\).*float64"):
        k(np.float64(2.0), x, y)


def test_interpreter_errors():
    with pytest.raises(risec.Error, match="takes 2 array"):
        risec.eval(MM, rand(2, 2))
    with pytest.raises(risec.Error, match=r"argument 2 \(B\) \(dimension 0\)"):
        risec.eval(MM, rand(2, 3), rand(4, 2))


def test_interpreter_agrees():
    A, B = rand(4, 3), rand(3, 5)
    C = risec.eval(MM, A, B)
    np.testing.assert_allclose(C, A @ B, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(risec.compile(MM)(A, B), C, rtol=1e-5, atol=1e-5)


def test_shape_mismatch_is_an_error():
    k = risec.compile(MM)
    with pytest.raises(risec.Error) as e:
        k(rand(4, 3), rand(5, 2))
    assert "argument 2 (B) (dimension 0)" in str(e.value)
    assert "the extent is 5" in str(e.value)
    with pytest.raises(risec.Error, match="dimension"):
        k(rand(4, 3, 2), rand(3, 2))


def test_dtype_layout_and_count_errors():
    k = risec.compile(MM)
    with pytest.raises(risec.Error, match=r"argument 1 \(A\).*needs dtype float32.*float64"):
        k(np.ones((2, 2)), rand(2, 2))
    # a strided view is read where it is (docs/python.md); a wrong extent still fails
    A = rand(2, 4)
    np.testing.assert_allclose(k(A[:, ::2], np.eye(2, dtype=np.float32)), A[:, ::2], rtol=1e-6)
    with pytest.raises(risec.Error, match="takes 2 array"):
        k(rand(2, 2))


def test_located_error_for_a_bad_program():
    bad = "def f = depFun(n: Nat => fun(x: n.f32 =>\n  x |> map(fun(v => v + 1))))\n"
    with pytest.raises(risec.Error) as e:
        risec.compile(bad)
    text = str(e.value)
    assert "<program>:2:" in text and "error:" in text and "^" in text
    assert e.value.exit_code == 1


def test_bad_strategy_and_target():
    with pytest.raises(risec.Error, match="<strategy>:1:"):
        risec.compile(SCALE, strategy="let main = ;")
    with pytest.raises(risec.Error) as e:
        risec.compile(SCALE, target="fortran")
    assert e.value.exit_code == 2


def test_tuned_uses_the_record_of_risec_tune(tmp_path, capfd):
    """tuned=True (docs/tuning.md, "Results reused"): with no record, the default
    lowering and one note; with the record `risec tune` writes, that strategy's code."""
    db = tmp_path / "tuning.db"
    db.write_bytes(b"")  # an empty SQLite database
    plain = risec.compile(SCALE, sizes={"n": 64})
    capfd.readouterr()
    untuned = risec.compile(SCALE, sizes={"n": 64}, tuned=True, tuning_db=db)
    assert untuned.source == plain.source
    assert capfd.readouterr().err.count("note: no tuning record for this program on ") == 1
    with pytest.raises(risec.Error) as e:
        risec.compile(SCALE, strategy="lowerToC", tuned=True, tuning_db=db)
    assert e.value.exit_code == 2 and "tuned=True" in str(e.value)
    binary = ROOT / "build" / "risec"
    if not binary.exists():
        return
    program = tmp_path / "scale.rise"
    program.write_text(SCALE)
    template = tmp_path / "t.elv"
    template.write_text("param v in [4, 8];\n"
                        "let main = (vectorize(v) @ outermost(isApplied(isMap))) ; lowerToC;\n")
    best = tmp_path / "best.elv"
    subprocess.run([binary, "tune", program, "--strategy", template, "--size", "n=64",
                    "--budget", "2", "--repeat", "1", "--db", db, "-o", best], check=True,
                   capture_output=True)
    capfd.readouterr()
    tuned = risec.compile(SCALE, sizes={"n": 64}, tuned=True, tuning_db=db)
    assert "note:" not in capfd.readouterr().err
    assert tuned.source == risec.compile(SCALE, strategy=best, sizes={"n": 64}).source
    x = rand(64)
    np.testing.assert_array_equal(tuned(x), x * 2)


def test_version():
    assert risec.version() == "0.1.0"


WEIGHTED = """
def weighted = depFun((n: Nat, k: Nat) => fun(x: n.k.f32 => fun(w: k.f32 =>
  x |> map(fun(row => zip(row)(w) |> map(fun(p => p._1 * p._2)) |> reduce(add)(0.0f))))))
"""


def test_bind_folds_an_input_into_the_code(tmp_path):
    w = np.array([1.0, 0.0, 2.0, 0.0], dtype=np.float32)
    x = rand(6, 4)
    generic = risec.compile(WEIGHTED)
    bound = risec.compile(WEIGHTED, bind={"w": w})
    # w left the kernel's arguments, k is fixed by its shape, its values are constants
    assert [name for name, _, _ in bound.inputs] == ["x"]
    assert "w[" not in bound.source and "2.0f" in bound.source
    y = bound(x)
    np.testing.assert_allclose(y, x @ w, rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(y, generic(x, w))
    np.testing.assert_array_equal(y, risec.eval(WEIGHTED, x, w))
    # a .npy path as --bind takes
    path = tmp_path / "w.npy"
    np.save(path, w)
    np.testing.assert_array_equal(risec.compile(WEIGHTED, bind={"w": path})(x), y)


def test_bind_errors():
    with pytest.raises(risec.Error) as e:
        risec.compile(WEIGHTED, bind={"v": np.zeros(4, np.float32)})
    assert e.value.exit_code == 2 and "'w'" in e.value.message
    with pytest.raises(risec.Error) as e:
        risec.compile(WEIGHTED, bind={"w": np.zeros(4, np.float64)})
    assert e.value.exit_code == 1 and "f32" in e.value.message
    with pytest.raises(risec.Error) as e:
        risec.compile(WEIGHTED, bind={"w": np.zeros(4, np.complex64)})
    assert e.value.exit_code == 2


def test_shift_tails_can_be_turned_off():
    # 100 elements: 16-float blocks, the last one shifted inwards, unless turned off
    x = rand(100)
    shifted = risec.compile(SCALE, sizes={"n": 100})
    plain = risec.compile(SCALE, sizes={"n": 100}, shift_tails=False)
    assert "RISEC_BLOCK_LOOP\n" in shifted.source.split("void scale(")[1]
    assert "RISEC_BLOCK_LOOP\n" not in plain.source.split("void scale(")[1]
    np.testing.assert_array_equal(shifted(x), x * 2)
    np.testing.assert_array_equal(plain(x), x * 2)


HIST = """
def hist = depFun((n: Nat, m: Nat) => fun(xs: n.i32 =>
  xs |> reduceSeq(fun(acc, v =>
    update(natAsIndex(m)(cast(v)))(idx(natAsIndex(m)(cast(v)))(acc) + 1)(acc)))
    (generate(fun(i => 0)))))
"""


def test_indices_from_data_are_checked_unless_turned_off():
    k = risec.compile(HIST, sizes={"m": 4})
    xs = np.array([0, 1, 3, 3, 1], dtype=np.int32)
    np.testing.assert_array_equal(k(xs), risec.eval(HIST, xs, sizes={"m": 4}))
    # The interpreter reports an index out of range as an error ...
    with pytest.raises(risec.Error) as e:
        risec.eval(HIST, np.array([0, 1, 7, 3, 1], dtype=np.int32), sizes={"m": 4})
    assert "natAsIndex(4): 7 is out of range" in e.value.message
    # ... and a kernel, which runs in the calling process (docs/api.md), stops that
    # process with the same message instead of writing past the array.
    script = (
        "import numpy as np, risec\n"
        f"k = risec.compile({HIST!r}, sizes={{'m': 4}})\n"
        "k(np.array([0, 1, 7, 3, 1], dtype=np.int32))\n"
        "print('returned')\n")
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                       timeout=300)
    assert r.returncode != 0 and "returned" not in r.stdout, r
    assert "natAsIndex(4): 7 is out of range" in r.stderr, r.stderr
    assert "risec_index" in k.source
    assert "risec_index" not in risec.compile(HIST, sizes={"m": 4}, bounds_checks=False).source
