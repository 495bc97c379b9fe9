"""risec from Python: compile RISE programs with ELEVATE strategies and call the
generated code on NumPy arrays, PyTorch tensors or any object with __dlpack__,
without copies, or run the interpreter on them (docs/python.md)."""

from __future__ import annotations

import math
import os
from typing import Mapping, NoReturn, Optional, Sequence, Union

import numpy as np

from . import _risec

__all__ = ["ArgumentTypeError", "Error", "Kernel", "compile", "eval", "version"]


class Error(Exception):
    """An error of risec. `str(e)` has one format for every error, the command line's,
    without a trailing newline: `FILE:LINE:COL: error: MESSAGE`, the source line and a
    caret under the place, for an error located in a program or a strategy (a text
    given to `compile` is `<program>`, a strategy text `<strategy>`), and
    `risec: error: MESSAGE` for any other; a note follows on its own lines when there
    is one. `message` is the bare message and `exit_code` the code `risec` would exit
    with (1 program/strategy, 2 usage, 4 an external tool such as the C compiler or
    a fault of the code at run time)."""

    def __init__(self, text: str, message: str = "", exit_code: int = 1) -> None:
        if not message:  # raised by the package: `text` is the bare message
            message, text = text, "risec: error: " + text
        super().__init__(text.rstrip("\n"))
        self.message = message
        self.exit_code = exit_code

    def __reduce__(self):  # pickled whole (a worker process's error), not re-prefixed
        return _restore_error, (type(self), str(self), self.message, self.exit_code)


class ArgumentTypeError(Error, TypeError):
    """An argument of the wrong type (`target=None`, `sizes={"n": "7"}`, `entry=3`):
    a `risec.Error` (exit code 2) that is also a `TypeError`, so either `except`
    catches it. The message names the argument, what was given and what is expected."""

    def __init__(self, message: str) -> None:
        super().__init__(message, exit_code=2)


def _restore_error(cls: type, text: str, message: str, exit_code: int) -> Error:
    e = Exception.__new__(cls)
    Exception.__init__(e, text)
    e.message, e.exit_code = message, exit_code
    return e


_risec._set_error_type(Error)

# NumPy dtype of each RISE scalar type name.
_DTYPES = {
    "bool": np.dtype(np.bool_),
    "i8": np.dtype(np.int8),
    "i16": np.dtype(np.int16),
    "i32": np.dtype(np.int32),
    "i64": np.dtype(np.int64),
    "u8": np.dtype(np.uint8),
    "u16": np.dtype(np.uint16),
    "u32": np.dtype(np.uint32),
    "u64": np.dtype(np.uint64),
    "f32": np.dtype(np.float32),
    "f64": np.dtype(np.float64),
}

PathOrText = Union[str, os.PathLike]


def _shown(x: object) -> str:
    """A value as a message shows what was given: `None`, `'7' (a str)`."""
    if x is None or isinstance(x, bool):
        return repr(x)
    r = repr(x)
    r = r if len(r) <= 60 else r[:57] + "..."
    name = type(x).__name__
    module = type(x).__module__ or "builtins"
    if module != "builtins":
        name = f"{module.split('.')[0]}.{name}"
    return f"{r} ({'an' if name[0] in 'aeiou' else 'a'} {name})"


def _wrong_type(where: str, expected: str, x: object) -> "NoReturn":
    raise ArgumentTypeError(f"{where}: expected {expected}, got {_shown(x)}")


def _is_int(x: object) -> bool:
    return isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))


def _str_arg(where: str, x: object, expected: str = "a str") -> str:
    if not isinstance(x, str):
        _wrong_type(where, expected, x)
    return x


def _flag(where: str, x: object) -> bool:
    if not isinstance(x, (bool, np.bool_)):
        _wrong_type(where, "True or False", x)
    return bool(x)


def _optional_path(where: str, x: object) -> str:
    """A path argument that may be None ("" then)."""
    if x is None:
        return ""
    if not isinstance(x, (str, os.PathLike)):
        _wrong_type(where, "a path (a str or os.PathLike) or None", x)
    return os.fsdecode(os.fspath(x))


def _sizes_arg(where: str, sizes: object) -> dict[str, int]:
    """sizes=: None or a mapping of size names to ints (NumPy ints too; not bools)."""
    if sizes is None:
        return {}
    if not isinstance(sizes, Mapping):
        _wrong_type(where, "a mapping of size names to ints, such as {'n': 1024}", sizes)
    out = {}
    for name, value in sizes.items():
        if not isinstance(name, str):
            _wrong_type(f"{where} key {name!r}", "a size name (a str)", name)
        if not _is_int(value):
            _wrong_type(f"sizes['{name}']", "an int", value)
        if not -2**63 <= int(value) < 2**63:
            raise Error(f"sizes['{name}'] = {int(value)} is beyond the range of a size (64 "
                        "bits)", exit_code=2)
        out[name] = int(value)
    return out


def _path_like(x: str, suffix: str) -> bool:
    """Whether a str that names no file is meant as a path: one line, none of the
    characters program and strategy texts are made of (`=`, `(`, `"`), and ending in
    `suffix` or holding a path separator."""
    return ("\n" not in x and not any(c in x for c in '=("') and
            (x.strip().endswith(suffix) or "/" in x or os.sep in x))


def _missing_file(where: str, path: str, why: str = "") -> "NoReturn":
    place = "" if os.path.isabs(path) else f" (relative to the current directory {os.getcwd()})"
    what = "is a directory, not a file" if os.path.isdir(path) else "does not exist"
    raise Error(f"{where}: the file {path!r} {what}{place}{why}", exit_code=2)


def _text_or_path(x: PathOrText, where: str = "program", suffix: str = ".rise") -> tuple[str, bool]:
    """A path (an os.PathLike, or a str naming an existing file) or a text. A str that
    names no file but looks like a path (_path_like) is an error saying the file does
    not exist, not a text that fails to parse."""
    if isinstance(x, os.PathLike):
        path = os.fsdecode(os.fspath(x))
        if not os.path.isfile(path):
            _missing_file(where, path)
        return path, True
    if not isinstance(x, str):
        _wrong_type(where, "a text or a path (a str or os.PathLike)", x)
    if "\n" not in x and len(x) < 4096 and os.path.isfile(x):
        return x, True
    if _path_like(x, suffix):
        _missing_file(where, x, f"; a str that ends in {suffix} or contains '/' and has no "
                                "'=', '(' or '\"' is taken for a path, not for a text")
    return x, False


def _program(x: object) -> tuple[str, bool]:
    return _text_or_path(x, "program", ".rise")


def _strategy(x: object) -> tuple[Optional[str], bool]:
    return (None, False) if x is None else _text_or_path(x, "strategy=", ".elv")


def _argument(i: int, name: str) -> str:
    return f"argument {i + 1} ({name})"


def _python_scalar(where: str, element: Optional[str], value: object) -> Optional[np.ndarray]:
    """A Python bool, int or float given for a scalar parameter, as a 0-d array of the
    parameter's element type; None for anything else (a NumPy array or scalar, whose
    dtype must be the parameter's). A value the type cannot hold is refused: a float
    for an integer type, an int out of the type's range, a bool for a number, and for a
    float type what _float_fits refuses."""
    if element is None or not isinstance(value, (bool, int, float)) or \
            isinstance(value, np.generic):  # numpy.float64 is a float: its dtype counts
        return None
    want = _DTYPES[element]
    ok = (want == np.bool_) == isinstance(value, bool)
    if ok and isinstance(value, float):
        ok = want.kind == "f" and _float_fits(want, value)
    elif ok and isinstance(value, int) and not isinstance(value, bool) and want.kind in "iu":
        info = np.iinfo(want)
        ok = info.min <= value <= info.max
    elif ok and isinstance(value, int) and not isinstance(value, bool) and want.kind == "f":
        ok = _float_fits(want, value)
    if not ok:
        hint = f"pass numpy.array(..., dtype=numpy.{want})"
        if want.kind == "f" and not isinstance(value, bool):
            hint = ("it would be rounded to an infinity, to zero or to another integer; "
                    f"pass numpy.{want}(...) to round it on purpose")
        raise Error(f"{where}: the Python {type(value).__name__} {value!r} is not a value of "
                    f"{element}; {hint}", exit_code=2)
    return np.array(value, dtype=want)


def _float_fits(want: np.dtype, value: Union[int, float]) -> bool:
    """Whether a Python number is a value of the float type `want`: an int must be held
    exactly (2**24 + 1 is no f32); a float is rounded to the nearest value of the type,
    as a literal `0.1f` is, but must not overflow to an infinity nor a non-zero round to
    zero (1e40 and 1e-50 are no f32); inf and nan are themselves."""
    try:
        with np.errstate(over="ignore", under="ignore"):
            f = want.type(value)
    except OverflowError:  # an int beyond float64's range
        return False
    if isinstance(value, int):
        return bool(np.isfinite(f)) and int(f) == value
    if not np.isfinite(value):
        return True
    return bool(np.isfinite(f)) and (f != 0 or value == 0)


def _taken(where: str, x: object, out: bool = False) -> object:
    """`x` as the native module reads it. For PyTorch tensors: one on the meta device
    holds no data and is refused; a bool tensor in host memory is read through its
    NumPy view (the same memory: PyTorch before 2.1 does not export bool through
    DLPack); a tensor with its negative or conjugate bit set (`z.conj().imag`,
    `x._neg_view()`) is a view whose memory holds the values without their sign or
    conjugation, which DLPack does not say: an input is resolved into a temporary, an
    `out=` is refused (what the code wrote there would read back negated)."""
    if not (type(x).__module__ or "").startswith("torch"):
        return x
    device = getattr(getattr(x, "device", None), "type", None)
    if device == "meta":
        raise Error(f"{where}: the tensor is on PyTorch's meta device, which has its shape "
                    "and dtype but no data to read or write; make it on the CPU or a GPU",
                    exit_code=2)
    neg = getattr(x, "is_neg", None)
    conj = getattr(x, "is_conj", None)
    flagged = bool(neg and neg()) or bool(conj and conj())
    if flagged and out:
        raise Error(f"{where}: the tensor is a negated or conjugated view (its negative or "
                    "conjugate bit is set), which risec cannot write; pass a tensor of its "
                    "own (torch.empty_like(t)) and copy", exit_code=2)
    if flagged:
        x = x.resolve_neg().resolve_conj()
    import torch
    if getattr(x, "dtype", None) == torch.bool and device == "cpu":
        return x.detach().numpy()  # shares the tensor's memory
    return x


def _as_array(where: str, a: object) -> np.ndarray:
    """numpy.asarray(a), its exceptions as risec.Error naming the argument (held-out L:
    an `__array__` that raised escaped as itself)."""
    try:
        return np.asarray(a)
    except Exception as e:  # anything the object's __array__ or sequence protocol raises
        raise Error(f"{where}: a {type(a).__name__} could not be read: numpy.asarray raised "
                    f"{type(e).__name__}: {e}", exit_code=2) from e


def _array_like(x: object) -> bool:
    """Whether the native module takes `x` as it is (no conversion, no copy)."""
    return isinstance(x, np.ndarray) or hasattr(x, "__dlpack__")


def _argument_value(i: int, name: str, rtype: str, element: Optional[str], a: object) -> object:
    """An argument as the native module takes it: arrays (NumPy, __dlpack__ objects
    such as PyTorch tensors) as they are, a Python number for a scalar parameter as a
    0-d array of its type, anything else through numpy.asarray (a NumPy scalar keeps
    its dtype, which the native module checks)."""
    if a is None:
        _wrong_type(_argument(i, name), "an array (a NumPy array, a PyTorch tensor or an "
                    "object with __dlpack__) or a number", a)
    scalar = _python_scalar(_argument(i, name), element, a) if rtype == element else None
    if scalar is not None:
        return scalar
    if element is None:
        raise Error(f"{_argument(i, name)}: the parameter's type {rtype} holds pairs, which "
                    "the Python package does not exchange", exit_code=2)
    where = _argument(i, name)
    return _taken(where, a) if _array_like(a) else _as_array(where, a)


def _framework(x: object) -> str:
    """"torch", "cupy" or "numpy": the kind of array a result like `x` is made as."""
    module = type(x).__module__ or ""
    if module.startswith("torch"):
        return "torch"
    if module.startswith("cupy"):
        return "cupy"
    return "numpy"


def _allocate(shape: list[int], element: str, like: object) -> object:
    """A new result array: a PyTorch tensor (on `like`'s device) or a CuPy array when
    the first argument is one, else a NumPy array."""
    kind = _framework(like)
    try:
        if kind == "torch":
            import torch
            dtype = getattr(torch, np.dtype(_DTYPES[element]).name, None)
            if dtype is None:
                raise Error(f"PyTorch has no dtype {_DTYPES[element]} for the result "
                            f"({element}); pass out=", exit_code=2)
            return torch.empty(tuple(shape), dtype=dtype, device=like.device)
        if kind == "cupy":
            import cupy
            with cupy.cuda.Device(like.device.id):
                return cupy.empty(tuple(shape), dtype=_DTYPES[element])
        return np.empty(shape, dtype=_DTYPES[element])
    except (MemoryError, RuntimeError) as e:
        if isinstance(e, RuntimeError) and "memory" not in str(e).lower():
            raise
        nbytes = math.prod(shape) * _DTYPES[element].itemsize
        raise Error(f"the result, of shape {tuple(shape)} and dtype {_DTYPES[element]}, "
                    f"needs {nbytes} bytes ({_bytes_text(nbytes)}), which could not be "
                    f"allocated ({type(e).__name__}: {e})", exit_code=2) from e


def _bytes_text(n: int) -> str:
    """1.5 GiB, 4.0 TiB."""
    value, unit = float(n), "bytes"
    for u in ("KiB", "MiB", "GiB", "TiB", "PiB", "EiB"):
        if value < 1024:
            break
        value, unit = value / 1024, u
    return f"{value:.1f} {unit}" if unit != "bytes" else f"{n} bytes"


class Kernel:
    """Generated code compiled with the C compiler (nvcc for CUDA) and loaded into
    this process. Call it with the entry's data inputs, in order, as NumPy arrays,
    PyTorch tensors or any objects with __dlpack__: the sizes come from their shapes,
    and the result is a new array of the first argument's kind, or `out`."""

    def __init__(self, native: "_risec.Kernel") -> None:
        self._k = native

    @property
    def name(self) -> str:
        """The generated C function's name."""
        return self._k.name

    @property
    def target(self) -> str:
        return self._k.target

    @property
    def source(self) -> str:
        """The generated code (the .c translation unit)."""
        return self._k.source

    @property
    def header(self) -> str:
        """The generated .h declaring the function."""
        return self._k.header

    def profile(self) -> list[dict]:
        """With compile(..., profile=True) (c, openmp): one dict per stage of the code
        (a top-level loop nest, as `risec run --profile` prints them): `what` (the
        primitive that made it), `where` (FILE:LINE:COL), `source` (that line),
        `writes` (the arrays it writes) and `ms`, summed over the calls so far."""
        return [dict(what=w, where=at, source=src, writes=wr, ms=ms)
                for w, at, src, wr, ms in self._k.profile()]

    @property
    def loaded(self) -> bool:
        """Whether the code was built and loaded (compile(load=False): not)."""
        return self._k.loaded

    @property
    def kernels(self) -> str:
        """OpenCL: the kernels' source (the .cl file); "" for other targets."""
        return self._k.kernels

    @property
    def inputs(self) -> list[tuple[str, str, Optional[str]]]:
        """(name, RISE type, element type) of each data input, in order."""
        return list(self._k.inputs)

    def __call__(self, *arrays: object, sizes: Optional[Mapping[str, int]] = None,
                 out: object = None) -> object:
        """Run the kernel. Arrays are read where they are (any strides; an array that
        is not row-major is copied once, since the code reads row-major memory).
        `out`: an array of the result's shape and dtype to write into (returned);
        without it a new one is made."""
        _check_not_forked(self._k.target)
        params = self._k.inputs
        given_sizes = _sizes_arg("sizes=", sizes)
        if len(arrays) != len(params):
            names = ", ".join(f"{n}: {t}" for n, t, _ in params)
            raise Error(f"{self.name} takes {len(params)} array(s) ({names}), "
                        f"{len(arrays)} given", exit_code=2)
        oname, otype, oelem = self._k.output
        if oelem is None:
            raise Error(f"the result's type {otype} holds pairs, which the Python package does "
                        "not exchange", exit_code=2)
        values = [_argument_value(i, n, t, e, a)
                  for i, ((n, t, e), a) in enumerate(zip(params, arrays))]
        if out is not None and not _array_like(out):
            _wrong_type("out=", "an array (a NumPy array, a PyTorch tensor or an object with "
                        "__dlpack__) or None", out)
        given_out = out
        if out is not None:
            out = _taken("out=", out, out=True)
        # A new result takes the kind of the first *array* argument (a Python number
        # before it does not make the result a NumPy array).
        like = next((a for a in arrays if _array_like(a)), None)
        made = []

        def allocate(shape: list[int], element: str, _: object) -> object:
            made.append(_allocate(shape, element, like))
            return _taken("the result", made[-1], out=True)

        result = self._k.call(values, given_sizes, out, allocate)
        # The caller's out= or the array made (not a NumPy view of a bool tensor).
        return given_out if given_out is not None else made[0] if made else result


# The process that first ran each multi-threaded runtime (GCC's OpenMP, the OpenCL
# platform, CUDA): none survives a fork, and a kernel called in a child forked after
# the parent ran it hung (OpenCL) or crashed (OpenMP) without a message (held-out L).
_RUNTIMES = {"openmp": "OpenMP", "opencl": "OpenCL", "cuda": "CUDA"}
_runtime_pid: dict[str, int] = {}


def _check_not_forked(target: str) -> None:
    if target not in _RUNTIMES:
        return
    pid = os.getpid()
    first = _runtime_pid.setdefault(target, pid)
    if first != pid:
        raise Error(f"this process was forked from process {first} after that process ran "
                    f"{_RUNTIMES[target]} code (a {target} kernel); the {_RUNTIMES[target]} "
                    "runtime does not survive a fork, so the call would hang or crash: start "
                    "the worker processes with the 'spawn' or 'forkserver' method "
                    "(multiprocessing.get_context('spawn')), or call such kernels only in the "
                    "children", exit_code=4)


def compile(program: PathOrText, strategy: Optional[PathOrText] = None, *,
            target: str = "c", params: Union[Mapping[str, object], Sequence[str], None] = None,
            entry: str = "", sizes: Optional[Mapping[str, int]] = None,
            bind: Optional[Mapping[str, object]] = None, shift_tails: bool = True,
            bounds_checks: bool = True, load: bool = True, tuned: bool = False,
            tuning_db: Optional[Union[str, os.PathLike]] = None, profile: bool = False) -> Kernel:
    """Compile `program` (a .rise path or text) with `strategy` (a .elv path or text;
    lowerToC when None) for `target` ("c", "openmp", "opencl" or "cuda"), then compile
    the generated code and load it. `params` gives values to the strategy's `param` declarations ({"ts": 32}
    or ["ts=32"], as --param); `entry` picks the definition (the last by default);
    `sizes` fixes sizes at compile time (the others come from the arrays' shapes at
    each call). `bind` makes inputs known at compile time, as --bind: parameter name ->
    a NumPy array (or a .npy path); their values are folded into the code, the
    parameters leave the kernel's arguments and the sizes their shapes give are fixed
    (arrays are read from memory, PyTorch tensors and __dlpack__ objects too).
    `shift_tails=False` keeps innermost loops plain, as --no-shift-tails.
    `bounds_checks=False` leaves indices made from data unchecked, as
    --no-bounds-checks (by default an index out of range raises risec.Error).
    `load=False` only generates the code (`source`, `header`, `kernels`): neither the
    C compiler nor nvcc runs, so a CUDA kernel's code is made where there is no GPU
    (with loading, target="cuda" without a GPU raises risec.Error).
    `tuned=True` compiles with the best strategy `risec tune` recorded for this
    program, entry, sizes, target and CPU in `tuning_db` (default: tuning.db in the
    cache directory), as --tuned: without a record, the default lowering after a note
    on stderr; not together with `strategy`. `profile=True` (c, openmp) makes each
    top-level loop nest time itself, as `risec run --profile`: `kernel.profile()`."""
    text, is_path = _program(program)
    stext, sis_path = _strategy(strategy)
    target = _str_arg("target=", target, 'a str ("c", "openmp", "opencl" or "cuda")')
    entry = _str_arg("entry=", entry, "a str (the name of a definition; \"\" for the last)")
    flags = [_flag(f"{n}=", v) for n, v in (("shift_tails", shift_tails),
                                            ("bounds_checks", bounds_checks), ("load", load),
                                            ("tuned", tuned), ("profile", profile))]
    db = _optional_path("tuning_db=", tuning_db)
    if tuning_db is not None and tuned is False:
        raise Error("tuning_db= names the tuning database of tuned=True; add tuned=True",
                    exit_code=2)
    plist = _params_arg(params)
    fixed = _sizes_arg("sizes=", sizes)
    if bind is not None and not isinstance(bind, Mapping):
        _wrong_type("bind=", "a mapping of parameter names to arrays, numbers or .npy paths",
                    bind)
    files: dict[str, str] = {}
    arrays: dict[str, object] = {}
    types = None
    for name, value in (bind or {}).items():
        if not isinstance(name, str):
            _wrong_type(f"bind= key {name!r}", "a parameter name (a str)", name)
        where = f"bind['{name}']"
        if isinstance(value, (str, os.PathLike)):
            path = os.fsdecode(os.fspath(value))
            if not os.path.isfile(path):
                _missing_file(where, path, "; a str or os.PathLike given to bind= is the path of "
                                           "a .npy file")
            files[name] = path
        elif value is None:
            _wrong_type(where, "an array, a number or the path of a .npy file", value)
        elif isinstance(value, (bool, int, float)) and not isinstance(value, np.generic):
            types = types or {n: (t, e) for n, t, e in _risec.parameters(text, is_path, entry)}
            rtype, element = types.get(name, ("", None))
            a = _python_scalar(where, element, value) if rtype == element else None
            arrays[name] = np.asarray(value) if a is None else a
        else:
            arrays[name] = _taken(where, value) if _array_like(value) else _as_array(where, value)
    shift, checks, load_, tuned_, profile_ = flags
    return Kernel(_risec.Kernel(text, is_path, stext, sis_path, plist, target, entry, fixed,
                                files, arrays, shift, checks, load_, tuned_, db, profile_))


def _params_arg(params: object) -> list[str]:
    """params=: None, a mapping of names to ints ({"ts": 32}) or a list of "name=value"
    strs (["ts=32"], as --param)."""
    if params is None:
        return []
    if isinstance(params, Mapping):
        out = []
        for name, value in params.items():
            if not isinstance(name, str):
                _wrong_type(f"params= key {name!r}", "a parameter name (a str)", name)
            if not _is_int(value):
                _wrong_type(f"params['{name}']", "an int", value)
            if not 0 <= int(value) < 2**63:  # the command line's NAME=NUMBER (held-out L)
                raise Error(f"params['{name}'] = {int(value)}: a strategy parameter's value is "
                            "a whole number from 0 to 2**63 - 1, one of the values its "
                            "`param` declaration lists", exit_code=2)
            out.append(f"{name}={int(value)}")
        return out
    if isinstance(params, (str, bytes)) or not isinstance(params, (list, tuple)):
        _wrong_type("params=", "a mapping of names to ints ({'ts': 32}) or a list of "
                    "'name=value' strs", params)
    for p in params:
        if not isinstance(p, str):
            _wrong_type("params= item", "a 'name=value' str", p)
    return list(params)


def eval(program: PathOrText, *arrays: object, entry: str = "",
         sizes: Optional[Mapping[str, int]] = None) -> Union[np.ndarray, tuple[np.ndarray, ...]]:
    """Run the interpreter (the reference semantics, as `risec eval`) on the entry's
    data inputs (NumPy arrays, PyTorch CPU tensors, __dlpack__ objects, numbers):
    sizes from the arrays' shapes; the result as a new NumPy array (a tuple of arrays
    for a result holding pairs)."""
    text, is_path = _program(program)
    entry = _str_arg("entry=", entry, "a str (the name of a definition; \"\" for the last)")
    given_sizes = _sizes_arg("sizes=", sizes)
    data = []
    params = _risec.parameters(text, is_path, entry) if any(
        isinstance(a, (bool, int, float)) and not isinstance(a, np.generic)
        for a in arrays) else []
    for i, a in enumerate(arrays):
        if a is None:
            _wrong_type(f"argument {i + 1}", "an array (a NumPy array, a PyTorch tensor or an "
                        "object with __dlpack__) or a number", a)
        if i < len(params) and params[i][1] == params[i][2]:
            scalar = _python_scalar(_argument(i, params[i][0]), params[i][2], a)
            a = scalar if scalar is not None else a
        data.append(_taken(f"argument {i + 1}", a) if _array_like(a)
                    else _as_array(f"argument {i + 1}", a))
    outs = _risec.eval(text, is_path, entry, data, given_sizes)
    return outs[0] if len(outs) == 1 else tuple(outs)


def version() -> str:
    """The version of the compiler."""
    return _risec.version()
