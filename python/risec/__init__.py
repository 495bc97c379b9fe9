"""risec from Python: compile RISE programs with ELEVATE strategies and call the
generated code on NumPy arrays, PyTorch tensors or any object with __dlpack__,
without copies, or run the interpreter on them (docs/python.md)."""

from __future__ import annotations

import os
from typing import Mapping, Optional, Sequence, Union

import numpy as np

from . import _risec

__all__ = ["Error", "Kernel", "compile", "eval", "version"]


class Error(Exception):
    """An error of risec: `str(e)` is the located message as the command line prints
    it (file:line:col, the source line and a caret); `message` is the bare message and
    `exit_code` the code `risec` would exit with (1 program/strategy, 2 usage, 4 an
    external tool such as the C compiler, or a fault of the data in a kernel call:
    "the program stopped: f: natAsIndex(4): 7 is out of range")."""

    def __init__(self, text: str, message: str = "", exit_code: int = 1) -> None:
        super().__init__(text)
        self.message = message or text
        self.exit_code = exit_code


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


def _text_or_path(x: PathOrText) -> tuple[str, bool]:
    """A path (an os.PathLike, or a str naming an existing file) or a program text."""
    if isinstance(x, os.PathLike):
        return os.fspath(x), True
    if not isinstance(x, str):
        raise TypeError(f"expected a program text or path, got {type(x).__name__}")
    is_path = "\n" not in x and len(x) < 4096 and os.path.isfile(x)
    return x, is_path


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
    """`x` as the native module reads it. A PyTorch tensor with its negative or conjugate
    bit set (`z.conj().imag`, `x._neg_view()`) is a view whose memory holds the values
    without their sign or conjugation, which DLPack does not say: an input is resolved
    into a temporary, an `out=` is refused (what the code wrote there would read back
    negated)."""
    if not (type(x).__module__ or "").startswith("torch"):
        return x
    neg = getattr(x, "is_neg", None)
    conj = getattr(x, "is_conj", None)
    flagged = bool(neg and neg()) or bool(conj and conj())
    if not flagged:
        return x
    if out:
        raise Error(f"{where}: the tensor is a negated or conjugated view (its negative or "
                    "conjugate bit is set), which risec cannot write; pass a tensor of its "
                    "own (torch.empty_like(t)) and copy", exit_code=2)
    return x.resolve_neg().resolve_conj()


def _array_like(x: object) -> bool:
    """Whether the native module takes `x` as it is (no conversion, no copy)."""
    return isinstance(x, np.ndarray) or hasattr(x, "__dlpack__")


def _argument_value(i: int, name: str, rtype: str, element: Optional[str], a: object) -> object:
    """An argument as the native module takes it: arrays (NumPy, __dlpack__ objects
    such as PyTorch tensors) as they are, a Python number for a scalar parameter as a
    0-d array of its type, anything else through numpy.asarray (a NumPy scalar keeps
    its dtype, which the native module checks)."""
    scalar = _python_scalar(_argument(i, name), element, a) if rtype == element else None
    if scalar is not None:
        return scalar
    if element is None:
        raise Error(f"{_argument(i, name)}: the parameter's type {rtype} holds pairs, which "
                    "the Python package does not exchange", exit_code=2)
    return _taken(_argument(i, name), a) if _array_like(a) else np.asarray(a)


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
    if kind == "torch":
        import torch
        dtype = getattr(torch, np.dtype(_DTYPES[element]).name, None)
        if dtype is None:
            raise Error(f"PyTorch has no dtype {_DTYPES[element]} for the result ({element}); "
                        "pass out=", exit_code=2)
        return torch.empty(tuple(shape), dtype=dtype, device=like.device)
    if kind == "cupy":
        import cupy
        with cupy.cuda.Device(like.device.id):
            return cupy.empty(tuple(shape), dtype=_DTYPES[element])
    return np.empty(shape, dtype=_DTYPES[element])


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
        params = self._k.inputs
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
            raise Error(f"out=: a {type(out).__name__} is not an array (a NumPy array, a "
                        "PyTorch tensor or an object with __dlpack__)", exit_code=2)
        if out is not None:
            out = _taken("out=", out, out=True)
        # A new result takes the kind of the first *array* argument (a Python number
        # before it does not make the result a NumPy array).
        like = next((a for a in arrays if _array_like(a)), None)
        return self._k.call(values, dict(sizes or {}), out,
                            lambda shape, element, _: _allocate(shape, element, like))


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
    text, is_path = _text_or_path(program)
    files: dict[str, str] = {}
    arrays: dict[str, object] = {}
    types = None
    for name, value in (bind or {}).items():
        if isinstance(value, (str, os.PathLike)):
            files[name] = os.fspath(value)
            continue
        if isinstance(value, (bool, int, float)) and not isinstance(value, np.generic):
            types = types or {n: (t, e) for n, t, e in _risec.parameters(text, is_path, entry)}
            rtype, element = types.get(name, ("", None))
            a = _python_scalar(f"bind['{name}']", element, value) if rtype == element else None
            arrays[name] = np.asarray(value) if a is None else a
        else:
            arrays[name] = _taken(f"bind['{name}']", value) if _array_like(value) \
                else np.asarray(value)
    return _compile(text, is_path, strategy, target, params, entry, sizes, files, shift_tails,
                    bounds_checks, arrays, load, tuned,
                    os.fspath(tuning_db) if tuning_db else "", profile)


def _compile(text: str, is_path: bool, strategy: Optional[PathOrText], target: str,
             params: Union[Mapping[str, object], Sequence[str], None], entry: str,
             sizes: Optional[Mapping[str, int]], bind: dict[str, str],
             shift_tails: bool = True, bounds_checks: bool = True,
             bind_arrays: Optional[dict[str, object]] = None, load: bool = True,
             tuned: bool = False, tuning_db: str = "", profile: bool = False) -> Kernel:
    stext, sis_path = (None, False) if strategy is None else _text_or_path(strategy)
    if params is None:
        plist: list[str] = []
    elif isinstance(params, Mapping):
        plist = [f"{k}={v}" for k, v in params.items()]
    else:
        plist = [str(p) for p in params]
    return Kernel(_risec.Kernel(text, is_path, stext, sis_path, plist, target, entry,
                                dict(sizes or {}), bind, dict(bind_arrays or {}), shift_tails,
                                bounds_checks, load, tuned, tuning_db, profile))


def eval(program: PathOrText, *arrays: object, entry: str = "",
         sizes: Optional[Mapping[str, int]] = None) -> Union[np.ndarray, tuple[np.ndarray, ...]]:
    """Run the interpreter (the reference semantics, as `risec eval`) on the entry's
    data inputs (NumPy arrays, PyTorch CPU tensors, __dlpack__ objects, numbers):
    sizes from the arrays' shapes; the result as a new NumPy array (a tuple of arrays
    for a result holding pairs)."""
    text, is_path = _text_or_path(program)
    data = []
    params = _risec.parameters(text, is_path, entry) if any(
        isinstance(a, (bool, int, float)) and not isinstance(a, np.generic)
        for a in arrays) else []
    for i, a in enumerate(arrays):
        if i < len(params) and params[i][1] == params[i][2]:
            scalar = _python_scalar(_argument(i, params[i][0]), params[i][2], a)
            a = scalar if scalar is not None else a
        data.append(_taken(f"argument {i + 1}", a) if _array_like(a) else np.asarray(a))
    outs = _risec.eval(text, is_path, entry, data, dict(sizes or {}))
    return outs[0] if len(outs) == 1 else tuple(outs)


def version() -> str:
    """The version of the compiler."""
    return _risec.version()
