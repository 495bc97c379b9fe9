"""Edges of the Python API (issue 32, item 9; docs/python.md): scalars (0-d arrays,
NumPy scalars and Python numbers) as inputs, bound inputs and results; unknown names
in sizes= are errors naming the nearest size; messages use the API's words
(sizes=, bind=, argument names), never the command line's options; an array with a
zero extent is refused, naming the argument and the dimension."""

import numpy as np
import pytest

import risec

SAXPY = """
def saxpy = depFun(n: Nat => fun(a: f32 => fun(x: n.f32 => fun(y: n.f32 =>
  zip(x)(y) |> map(fun(p => a * p._1 + p._2))))))
"""
SCALE = """
def scale = depFun(n: Nat => fun(x: n.f32 => x |> map(fun(v => v * 2.0f))))
"""
TOTAL = """
def total = depFun(n: Nat => fun(x: n.f32 => x |> reduce(add)(0.0f)))
"""
# n is determined by x's shape, m by nothing
PAD = """
def pad = depFun((n: Nat, m: Nat) => fun(x: n.f32 => generate(fun(i: idx[m] => 1.0f))))
"""
rng = np.random.default_rng(32)

DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
          np.float32, np.float64]
RISE = {np.int8: "i8", np.int16: "i16", np.int32: "i32", np.int64: "i64", np.uint8: "u8",
        np.uint16: "u16", np.uint32: "u32", np.uint64: "u64", np.float32: "f32",
        np.float64: "f64"}


def offset_program(t: str) -> str:
    return (f"def offset = depFun(n: Nat => fun(a: {t} => fun(x: n.{t} =>\n"
            f"  x |> map(fun(v => v + a)))))\n")


def values(dtype, n):
    if np.dtype(dtype).kind == "f":
        return rng.standard_normal(n).astype(dtype)
    return rng.integers(0, 50, n).astype(dtype)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: RISE[d])
def test_scalar_inputs_in_every_form_agree(dtype):
    """A scalar parameter takes a 0-d array, a NumPy scalar or a Python number, in
    eval, in a kernel call and in bind=; all give x + a, as NumPy does."""
    prog = offset_program(RISE[dtype])
    kernel = risec.compile(prog)
    for _ in range(4):
        x = values(dtype, int(rng.integers(1, 9)))
        a = values(dtype, 1)[0]
        expected = x + a
        py = float(a) if np.dtype(dtype).kind == "f" else int(a)
        forms = [np.array(a, dtype=dtype), dtype(a), py]
        for form in forms:
            np.testing.assert_array_equal(risec.eval(prog, form, x), expected)
            np.testing.assert_array_equal(kernel(form, x), expected)
            bound = risec.compile(prog, bind={"a": form})
            assert [name for name, _, _ in bound.inputs] == ["x"]
            np.testing.assert_array_equal(bound(x), expected)


def test_scalar_results_are_0d_arrays():
    x = rng.standard_normal(10).astype(np.float32)
    r = risec.eval(TOTAL, x)
    assert isinstance(r, np.ndarray) and r.shape == () and r.dtype == np.float32
    np.testing.assert_allclose(r, x.sum(), rtol=1e-5)
    k = risec.compile(TOTAL)(x)
    assert k.shape == () and k.dtype == np.float32
    np.testing.assert_allclose(k, x.sum(), rtol=1e-5)


def test_python_numbers_that_do_not_fit_are_refused():
    prog = offset_program("u8")
    x = np.arange(3, dtype=np.uint8)
    for bad, why in [(256, "u8"), (-1, "u8"), (1.5, "u8"), (True, "u8")]:
        with pytest.raises(risec.Error) as e:
            risec.eval(prog, bad, x)
        assert e.value.exit_code == 2 and "argument 1 (a)" in e.value.message, e.value.message
        with pytest.raises(risec.Error):
            risec.compile(prog)(bad, x)
        with pytest.raises(risec.Error) as e:
            risec.compile(prog, bind={"a": bad})
        assert "bind['a']" in e.value.message


def test_unknown_sizes_name_the_nearest():
    x = np.ones(4, np.float32)
    calls = [lambda: risec.compile(SCALE, sizes={"nn": 4}),
             lambda: risec.compile(SCALE)(x, sizes={"nn": 4}),
             lambda: risec.eval(SCALE, x, sizes={"nn": 4})]
    for call in calls:
        with pytest.raises(risec.Error) as e:
            call()
        m = e.value.message
        assert e.value.exit_code == 2, m
        assert "sizes['nn']" in m and "'n'" in m and "--size" not in m, m
    # a size fixed at compile time keeps its value
    with pytest.raises(risec.Error, match="fixed to 4"):
        risec.compile(SCALE, sizes={"n": 4})(x, sizes={"n": 5})


def test_messages_use_the_apis_words():
    x = np.ones(3, np.float32)
    with pytest.raises(risec.Error) as e:
        risec.eval(PAD, x)
    assert "sizes={'m': ...}" in e.value.message and "--" not in e.value.message
    with pytest.raises(risec.Error) as e:
        risec.compile(PAD)(x)
    assert "sizes={'m': ...}" in e.value.message and "--" not in e.value.message
    np.testing.assert_array_equal(risec.eval(PAD, x, sizes={"m": 2}), np.ones(2, np.float32))
    with pytest.raises(risec.Error) as e:
        risec.compile(SAXPY, bind={"b": np.float32(1)})
    assert "bind['b']" in e.value.message and "'a'" in e.value.message
    assert "--" not in e.value.message and "risec-bind" not in e.value.message
    with pytest.raises(risec.Error) as e:
        risec.compile(SAXPY, bind={"x": np.ones(3, np.float64)})
    assert "bind['x']" in e.value.message and "risec-bind" not in e.value.message
    with pytest.raises(risec.Error) as e:
        risec.compile(SCALE, params={"ts": 4}, strategy="param t in [1];\nlet main = lowerToC;\n")
    assert "params=" in e.value.message and "--param" not in e.value.message


@pytest.mark.parametrize("shape", [(0, 3), (3, 0)])
def test_zero_extents_are_refused(shape):
    mm = """
def mm = depFun((n: Nat, k: Nat, m: Nat) => fun(A: n.k.f32 => fun(B: k.m.f32 =>
  A |> map(fun(row => transpose(B) |> map(fun(col =>
    zip(row)(col) |> map(fun(p => p._1 * p._2)) |> reduce(add)(0.0f))))))))
"""
    A = np.ones(shape, np.float32)
    B = np.ones((shape[1], 2), np.float32)
    dim = shape.index(0)
    for call in (lambda: risec.eval(mm, A, B), lambda: risec.compile(mm)(A, B)):
        with pytest.raises(risec.Error) as e:
            call()
        m = e.value.message
        assert f"argument 1 (A) (dimension {dim}): the extent is 0" in m, m
        assert "sizes are positive" in m and "has no value" not in m, m


def test_an_empty_vector_is_refused():
    for call in (lambda: risec.eval(SCALE, np.ones(0, np.float32)),
                 lambda: risec.compile(SCALE)(np.ones(0, np.float32))):
        with pytest.raises(risec.Error) as e:
            call()
        assert "argument 1 (x) (dimension 0): the extent is 0, which makes n = 0" in \
            e.value.message, e.value.message


def test_tuning_output_is_never_an_input_and_is_written_whole(tmp_path):
    from risec import tuning

    prog = tmp_path / "scale.rise"
    prog.write_text(SCALE)
    db = tmp_path / "study.db"
    db.write_bytes(b"SQLite format 3\0")
    (tmp_path / "link.rise").symlink_to(prog)
    inputs = tuning._inputs(str(prog), "let main = lowerToC;\n", f"sqlite:///{db}")
    for out in (prog, tmp_path / "link.rise", tmp_path / "." / "study.db"):
        with pytest.raises(risec.Error) as e:
            tuning._write_output(str(out), "clobbered", inputs)
        assert e.value.exit_code == 2 and "same file as the input" in str(e.value)
    assert prog.read_text() == SCALE and db.read_bytes() == b"SQLite format 3\0"
    best = tmp_path / "best.elv"
    best.write_text("old")
    tuning._write_output(str(best), "let main = lowerToC;\n", inputs)
    assert best.read_text() == "let main = lowerToC;\n"
    with pytest.raises(risec.Error) as e:
        tuning._write_output(str(tmp_path / "missing" / "best.elv"), "x", inputs)
    assert e.value.exit_code == 4
    assert sorted(p.name for p in tmp_path.iterdir()) == ["best.elv", "link.rise", "scale.rise",
                                                          "study.db"]
