"""The package's errors as a demanding user meets them (docs/python.md, "Errors"):
arguments of the wrong type are risec.ArgumentTypeError (a risec.Error and a
TypeError) naming the argument, what was given and what is expected; torch bool and
meta tensors; a str that looks like a missing file; interleaved views of one buffer
are no alias; an object's __dlpack__ error is shown and chained; a huge broadcast is
refused with its size in bytes before anything is allocated; a damaged object in the
cache of compiled code is built again; one str(e) format for every error; a missing
Optuna is named with the command that installs it. Results against the interpreter."""

import os
import pathlib
import pickle
import re
import subprocess
import sys

import numpy as np
import pytest

import risec

ROOT = pathlib.Path(__file__).resolve().parents[2]
MSG_SCALE = """
def scale = depFun(n: Nat => fun(x: n.f32 => x |> map(fun(v => v * 2.0f))))
"""
MSG_ROWS = """
def twice_rows = depFun((n: Nat, m: Nat) => fun(x: n.m.f32 =>
  x |> map(fun(r => r |> map(fun(v => v * 2.0f + 1.0f))))))
"""
MSG_FLIP = """
def flip = depFun(n: Nat => fun(x: n.bool => x |> map(fun(b => !b))))
"""
msg_rng = np.random.default_rng(2026)

try:
    import torch
except ImportError:  # scripts/setup.sh installs Debian's python3-torch
    torch = None
msg_needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")

LOCATED = re.compile(r"^\S+:\d+:\d+: error: ")


def msg_uniform(e):
    """str(e) in the one format of docs/python.md: located or `risec: error: `, the
    bare message in it, no trailing newline."""
    text = str(e)
    assert text.startswith("risec: error: ") or LOCATED.match(text), text
    assert not text.endswith("\n"), repr(text)
    assert e.message in text, (e.message, text)
    assert "incompatible function arguments" not in text, text


# ---- 1. arguments of the wrong type ----

@pytest.mark.parametrize("kwargs, where, given", [
    ({"target": None}, "target=", "None"),
    ({"target": 3}, "target=", "3 (an int)"),
    ({"sizes": {"n": "7"}}, "sizes['n']", "'7' (a str)"),
    ({"sizes": {"n": 2.5}}, "sizes['n']", "2.5 (a float)"),
    ({"sizes": {"n": True}}, "sizes['n']", "True"),
    ({"sizes": [1, 2]}, "sizes=", "[1, 2] (a list)"),
    ({"sizes": {1: 2}}, "sizes= key 1", "1 (an int)"),
    ({"entry": 3}, "entry=", "3 (an int)"),
    ({"bind": [1]}, "bind=", "[1] (a list)"),
    ({"bind": {"x": None}}, "bind['x']", "None"),
    ({"params": "ts=4"}, "params=", "'ts=4' (a str)"),
    ({"params": {"ts": "4"}}, "params['ts']", "'4' (a str)"),
    ({"params": [4]}, "params= item", "4 (an int)"),
    ({"shift_tails": "yes"}, "shift_tails=", "'yes' (a str)"),
    ({"load": None}, "load=", "None"),
    ({"tuning_db": 3}, "tuning_db=", "3 (an int)"),
    ({"strategy": 3}, "strategy=", "3 (an int)"),
])
def test_wrong_argument_types_name_the_argument(kwargs, where, given):
    with pytest.raises(risec.ArgumentTypeError) as e:
        risec.compile(MSG_SCALE, **kwargs)
    assert isinstance(e.value, TypeError) and isinstance(e.value, risec.Error)
    assert e.value.exit_code == 2
    assert e.value.message.startswith(where + ": expected "), e.value.message
    assert e.value.message.endswith("got " + given), e.value.message
    msg_uniform(e.value)


def test_wrong_types_at_the_call_and_in_eval():
    k = risec.compile(MSG_SCALE)
    x = np.ones(3, np.float32)
    for call, where in [(lambda: k(x, sizes={"n": "3"}), "sizes['n']"),
                        (lambda: k(x, sizes=3), "sizes="),
                        (lambda: k(x, out=[0.0, 0.0, 0.0]), "out="),
                        (lambda: risec.eval(MSG_SCALE, x, entry=None), "entry="),
                        (lambda: risec.eval(MSG_SCALE, x, sizes={"n": 3.0}), "sizes['n']"),
                        (lambda: risec.compile(3), "program"),
                        (lambda: k(None), "argument 1 (x)"),
                        (lambda: risec.eval(MSG_SCALE, None), "argument 1")]:
        with pytest.raises(risec.ArgumentTypeError) as e:
            call()
        assert e.value.message.startswith(where + ": expected"), e.value.message
        msg_uniform(e.value)
    # NumPy ints and bools are ints and flags.
    np.testing.assert_array_equal(k(x, sizes={"n": np.int64(3)}), 2 * x)
    assert risec.compile(MSG_SCALE, load=np.bool_(False)).loaded is False


def test_bind_of_a_missing_file_says_so(tmp_path):
    with pytest.raises(risec.Error) as e:
        risec.compile(MSG_SCALE, bind={"x": str(tmp_path / "nofile.npy")})
    assert e.value.exit_code == 2
    assert "bind['x']: the file" in e.value.message and "does not exist" in e.value.message
    msg_uniform(e.value)


# ---- 2. torch bool and meta tensors ----

@msg_needs_torch
def test_torch_bool_tensors_are_read_and_written():
    k = risec.compile(MSG_FLIP)
    x = torch.from_numpy(msg_rng.integers(0, 2, 9).astype(np.bool_))
    want = risec.eval(MSG_FLIP, x.numpy())
    np.testing.assert_array_equal(want, ~x.numpy())
    got = k(x)
    assert isinstance(got, torch.Tensor) and got.dtype == torch.bool
    np.testing.assert_array_equal(got.numpy(), want)
    out = torch.zeros(9, dtype=torch.bool)
    ptr = out.data_ptr()
    assert k(x, out=out) is out and out.data_ptr() == ptr
    np.testing.assert_array_equal(out.numpy(), want)
    np.testing.assert_array_equal(risec.eval(MSG_FLIP, x), want)
    # A bool tensor for a float parameter: the dtype is named, not "unsupported".
    with pytest.raises(risec.Error) as e:
        risec.compile(MSG_SCALE)(x)
    assert "needs dtype float32" in e.value.message and "has dtype bool" in e.value.message


@msg_needs_torch
def test_meta_tensors_are_refused_as_having_no_data():
    k = risec.compile(MSG_SCALE)
    m = torch.zeros(3, device="meta")
    meta_matrix = torch.zeros(2, 2, device="meta")
    for call, where in [(lambda: k(m), "argument 1"),
                        (lambda: risec.eval(MSG_SCALE, m), "argument 1"),
                        (lambda: k(torch.ones(3), out=m), "out="),
                        (lambda: risec.compile(MSG_ROWS, bind={"x": meta_matrix}), "bind['x']")]:
        with pytest.raises(risec.Error) as e:
            call()
        assert e.value.message.startswith(where), e.value.message
        assert "meta device" in e.value.message and "no data" in e.value.message
        msg_uniform(e.value)


# ---- 3. a str that looks like a missing file ----

def test_a_missing_file_is_not_parsed_as_program_text(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for given in ["nofile.rise", "some/dir/prog", str(tmp_path / "x.rise"),
                  pathlib.Path("nofile.rise")]:
        with pytest.raises(risec.Error) as e:
            risec.compile(given)
        assert e.value.exit_code == 2
        m = e.value.message
        assert m.startswith("program: the file") and "does not exist" in m, m
        assert os.fspath(given) in m and "<program>" not in str(e.value), m
        msg_uniform(e.value)
    with pytest.raises(risec.Error) as e:
        risec.eval("nofile.rise", np.ones(3, np.float32))
    assert "does not exist" in e.value.message
    with pytest.raises(risec.Error) as e:
        risec.compile(MSG_SCALE, strategy="tiles.elv")
    assert e.value.message.startswith("strategy=: the file 'tiles.elv' does not exist")
    with pytest.raises(risec.Error) as e:
        risec.compile(str(tmp_path))
    assert "is a directory" in e.value.message
    # Texts still are texts: one line with a '/', a strategy name, and files are files.
    half = "def half = depFun(n: Nat => fun(x: n.f32 => x |> map(fun(v => v / 2.0f))))"
    x = np.arange(4, dtype=np.float32)
    np.testing.assert_array_equal(risec.compile(half, strategy="lowerToC")(x), x / 2)
    (tmp_path / "s.rise").write_text(MSG_SCALE)
    np.testing.assert_array_equal(risec.compile("s.rise")(x), 2 * x)
    np.testing.assert_array_equal(risec.compile(tmp_path / "s.rise")(x), 2 * x)


# ---- 4. interleaved views of one buffer ----

def test_interleaved_views_are_no_alias_and_overlaps_still_are():
    k = risec.compile(MSG_SCALE)
    y = np.arange(16, dtype=np.float32)
    want = risec.eval(MSG_SCALE, y[::2].copy())
    assert k(y[::2], out=y[1::2]) is not None
    np.testing.assert_array_equal(y[1::2], want)
    np.testing.assert_array_equal(y[::2], np.arange(0, 16, 2, dtype=np.float32))
    y = np.arange(16, dtype=np.float32)
    for x, out in [(y[::2], y[2::2][:7]), (y[:8], y[4:12]), (y[::-2], y[1::2])]:
        n = min(len(x), len(out))
        with pytest.raises(risec.Error) as e:
            k(x[:n], out=out[:n])
        assert "shares memory with argument 1 (x)" in e.value.message, e.value.message
    # A tiling of a matrix: the left columns into the right ones.
    rows = risec.compile(MSG_ROWS)
    a = msg_rng.standard_normal((5, 6)).astype(np.float32)
    left = a[:, :3].copy()
    rows(a[:, :3], out=a[:, 3:])
    np.testing.assert_array_equal(a[:, 3:], risec.eval(MSG_ROWS, left))
    np.testing.assert_array_equal(a[:, :3], left)
    with pytest.raises(risec.Error):
        rows(a[:, :3], out=a[:, 2:5])


@msg_needs_torch
def test_interleaved_torch_views_are_no_alias():
    k = risec.compile(MSG_SCALE)
    y = torch.arange(12, dtype=torch.float32)
    k(y[::2], out=y[1::2])
    np.testing.assert_array_equal(y[1::2].numpy(), 2 * y[::2].numpy())


# ---- 5. an exception of __dlpack__ ----

class MsgBrokenDlpack:
    def __dlpack__(self, *args, **kwargs):
        raise ValueError("this object cannot be exported today")

    def __dlpack_device__(self):
        return (1, 0)


def test_an_exception_of_dlpack_is_shown_and_chained():
    k = risec.compile(MSG_SCALE)
    for call in [lambda: k(MsgBrokenDlpack()), lambda: risec.eval(MSG_SCALE, MsgBrokenDlpack())]:
        with pytest.raises(risec.Error) as e:
            call()
        m = e.value.message
        assert m.startswith("argument 1") and "__dlpack__() raised ValueError: " in m, m
        assert "this object cannot be exported today" in m, m
        assert isinstance(e.value.__cause__, ValueError)
        msg_uniform(e.value)
    with pytest.raises(risec.Error) as e:
        k(np.ones(3, np.float32), out=MsgBrokenDlpack())
    assert e.value.message.startswith("out=: a ") and "could not be written" in e.value.message
    assert "this object cannot be exported today" in e.value.message, e.value.message
    assert isinstance(e.value.__cause__, ValueError)


# ---- 6. a huge broadcast ----

def test_a_huge_broadcast_is_refused_with_its_size_before_allocating():
    k = risec.compile(MSG_ROWS)
    huge = np.broadcast_to(np.float32(1), (2**21, 2**21))  # 16 TiB as a row-major copy
    for call, where in [(lambda: k(huge), "argument 1 (x): the row-major copy"),
                        (lambda: risec.eval(MSG_ROWS, huge),
                         "argument 1 (input): the interpreter's copy")]:
        with pytest.raises(risec.Error) as e:
            call()
        assert not isinstance(e.value, MemoryError)
        m = e.value.message
        assert m.startswith(where), m
        assert "17592186044416 bytes (16.0 TiB)" in m and "more than this machine's memory" in m, m
        msg_uniform(e.value)
    # A result too large to make: the same, before NumPy is asked for it.
    outer = risec.compile("""
def outer = depFun((n: Nat, m: Nat) => fun(x: n.f32 => fun(y: m.f32 =>
  x |> map(fun(a => y |> map(fun(b => a * b)))))))
""")
    v = np.broadcast_to(np.float32(1), (2**22,))
    with pytest.raises(risec.Error) as e:
        outer(v.copy(), v.copy())
    assert e.value.message.startswith("the result, of shape (4194304, 4194304)"), e.value.message
    assert "bytes (64.0 TiB)" in e.value.message


def test_an_allocation_that_fails_anyway_is_a_risec_error(tmp_path):
    """Under an address-space limit (1 GiB more than the process uses), 2 GiB pass the
    check and then cannot be allocated: NumPy's result of a call, the interpreter's
    copy of an input. Each is a risec.Error, not a MemoryError."""
    script = f"""
import resource, numpy as np, risec
k = risec.compile({MSG_ROWS!r})
huge = np.broadcast_to(np.float32(1), (2**15, 2**14))  # 2 GiB as a copy
used = next(int(line.split()[1]) * 1024 for line in open("/proc/self/status")
            if line.startswith("VmSize:"))
resource.setrlimit(resource.RLIMIT_AS, (used + (1 << 30), resource.RLIM_INFINITY))
for call in (lambda: k(huge), lambda: risec.eval({MSG_ROWS!r}, huge)):
    try:
        call()
    except risec.Error as e:
        print(type(e).__name__, e.exit_code, str(e))
    except MemoryError as e:
        print("MemoryError", e)
"""
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                       timeout=300, env=dict(os.environ, RISEC_CACHE_DIR=str(tmp_path)))
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert len(lines) == 2, r.stdout
    assert lines[0].startswith("Error 2 risec: error: the result, of shape (32768, 16384) and "
                               "dtype float32, needs 2147483648 bytes (2.0 GiB), which could "
                               "not be allocated (MemoryError: "), lines[0]
    assert lines[1].startswith("Error 1 risec: error: out of memory: "), lines[1]


# ---- 7. a damaged object in the cache ----

def test_a_damaged_cached_object_is_built_again(tmp_path):
    """A damaged object found in the cache by a new process (where it is not loaded
    yet) is built again, not an error until the user deletes it."""
    env = dict(os.environ, RISEC_CACHE_DIR=str(tmp_path / "cache"))
    prog = MSG_SCALE.replace("2.0f", "3.0f")
    script = ("import sys, numpy as np, risec\n"
              "x = np.arange(5, dtype=np.float32)\n"
              f"np.testing.assert_array_equal(risec.compile({prog!r})(x), 3 * x)\n")
    run = [sys.executable, "-c", script]
    subprocess.run(run, env=env, check=True, timeout=300)
    objects = list((tmp_path / "cache").glob("*.so"))
    assert len(objects) == 1
    whole = objects[0].read_bytes()
    other_machine = whole[:18] + b"\0\0" + whole[20:]  # e_machine EM_NONE: dlopen refuses it
    # Cut short (mid-header, empty, before the segments' end: dlopen would map pages
    # past the end of the file) or another machine's.
    for damage in [b"\x7fELF cut short", b"", whole[:4096], other_machine]:
        damaged = tmp_path / "damaged"
        damaged.write_bytes(damage)
        os.replace(damaged, objects[0])
        r = subprocess.run(run, env=env, capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stderr  # not "cannot load": built again
        assert objects[0].stat().st_size > 4096


# ---- 8. one format of str(e) ----

def test_every_kind_of_error_has_one_format():
    k = risec.compile(MSG_SCALE)
    errors = []
    for call in [lambda: risec.compile("def f = fun(x: f32 => x +)\n"),  # located, parse
                 lambda: risec.compile(MSG_SCALE, target="fortran"),      # native, usage
                 lambda: k(),                                              # the package's
                 lambda: k(np.ones(3)),                                    # native, dtype
                 lambda: k(np.ones(3, np.float32), sizes={"n": "3"}),       # wrong type
                 lambda: risec.compile(MSG_SCALE, bind={"y": np.ones(3, np.float32)})]:
        with pytest.raises(risec.Error) as e:
            call()
        msg_uniform(e.value)
        errors.append(e.value)
    assert LOCATED.match(str(errors[0])) and "^" in str(errors[0])
    assert all(str(e).startswith("risec: error: ") for e in errors[1:])
    for e in errors:
        back = pickle.loads(pickle.dumps(e))
        assert (type(back), str(back), back.message, back.exit_code) == \
            (type(e), str(e), e.message, e.exit_code)


# ---- 9. risec.tuning without Optuna ----

def test_tuning_without_optuna_says_how_to_install_it(monkeypatch):
    import risec.tuning
    monkeypatch.setitem(sys.modules, "optuna", None)  # import optuna raises ImportError
    with pytest.raises(risec.Error) as e:
        risec.tuning.tune(MSG_SCALE, "param v in [4, 8];\nlet main = lowerToC;\n",
                          sizes={"n": 64}, budget=1)
    assert "pip install optuna" in e.value.message and e.value.exit_code == 2
    assert isinstance(e.value.__cause__, ImportError)
    msg_uniform(e.value)


# ---- 10. the documentation of risec.eval ----

def test_the_eval_documentation_claims_no_bind():
    doc = (ROOT / "docs" / "python.md").read_text()
    item = doc[doc.index("- `risec.eval(program"):]
    item = item[:item.index("\n- ")]
    assert "`bind=` takes" not in item and "has no `bind=`" in item, item
