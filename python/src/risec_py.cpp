// The native half of the Python package (python/risec/__init__.py is the other):
// compiling and calling kernels, the interpreter and tuning, through the public API
// only (include/risec/*.h; the ctest python.public_headers checks it). Arrays cross
// as nanobind ndarrays (DLPack, or the buffer protocol): NumPy arrays, PyTorch
// tensors and any object with __dlpack__ are read and written where they are, with
// their strides; a copy is made only when a kernel needs a row-major layout the
// array does not have (docs/python.md).
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <unistd.h>

#include <cstdint>
#include <fstream>
#include <map>
#include <memory>
#include <new>
#include <optional>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "risec/risec.h"
#include "risec/tuning.h"

namespace nb = nanobind;

namespace {

// (name, RISE type, element type name or None) of a parameter.
using ParamInfo = std::tuple<std::string, std::string, std::optional<std::string>>;
// An array as nanobind imports it (read-only: inputs; writable: out=).
using InArray = nb::ndarray<nb::ro>;
using OutArray = nb::ndarray<>;

constexpr int kCpu = nb::device::cpu::value;
constexpr int kCuda = nb::device::cuda::value;

ParamInfo info(const risec::Parameter& p) {
  std::optional<std::string> e;
  if (p.element) e = risec::scalar_type_name(*p.element);
  return {p.name, p.type, e};
}

[[noreturn]] void usage(const std::string& msg) {
  throw risec::Error(risec::ErrorKind::Usage, msg);
}

// A usage error caused by a Python exception (an object's __dlpack__ raised), which
// becomes the risec.Error's __cause__ (the translator below sets it).
struct CausedError : risec::Error {
  CausedError(const std::string& msg, nb::object c)
      : risec::Error(risec::ErrorKind::Usage, msg), cause(std::move(c)) {}
  nb::object cause;
};

risec::Program load_program(const std::string& text, bool is_path) {
  return is_path ? risec::Program::load(text) : risec::Program::parse(text);
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) usage("cannot read " + path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// "argument 1 (x)" for the i-th (0-based) parameter, as messages name it.
std::string argument_name(size_t i, const std::string& name) {
  return "argument " + std::to_string(i + 1) + " (" + name + ")";
}

// The NumPy name of a RISE element type ("float32" for f32).
std::string numpy_name(risec::ScalarType t) {
  static const char* const names[] = {"bool",   "int8",   "int16",  "int32",   "int64",  "uint8",
                                      "uint16", "uint32", "uint64", "float32", "float64"};
  return names[static_cast<int>(t)];
}

// The RISE element type of a DLPack dtype, if it is one.
std::optional<risec::ScalarType> element_of(nb::dlpack::dtype d) {
  using risec::ScalarType;
  using C = nb::dlpack::dtype_code;
  if (d.lanes != 1) return std::nullopt;
  const auto code = static_cast<C>(d.code);
  if (code == C::Bool && d.bits == 8) return ScalarType::Bool;
  if (code == C::Float && d.bits == 32) return ScalarType::F32;
  if (code == C::Float && d.bits == 64) return ScalarType::F64;
  const ScalarType ints[] = {ScalarType::I8, ScalarType::I16, ScalarType::I32, ScalarType::I64};
  const ScalarType uints[] = {ScalarType::U8, ScalarType::U16, ScalarType::U32, ScalarType::U64};
  for (int i = 0; i < 4; ++i)
    if (d.bits == 8 << i) {
      if (code == C::Int) return ints[i];
      if (code == C::UInt) return uints[i];
    }
  return std::nullopt;
}

// The NumPy-style name of any DLPack dtype ("float16", "complex64", "bfloat16").
std::string dtype_name(nb::dlpack::dtype d) {
  if (auto e = element_of(d)) return numpy_name(*e);
  using C = nb::dlpack::dtype_code;
  std::string kind;
  switch (static_cast<C>(d.code)) {
    case C::Int:
      kind = "int";
      break;
    case C::UInt:
      kind = "uint";
      break;
    case C::Float:
      kind = "float";
      break;
    case C::Bfloat:
      kind = "bfloat";
      break;
    case C::Complex:
      kind = "complex";
      break;
    case C::Bool:
      kind = "bool";
      break;
    default:
      kind = "code" + std::to_string(d.code) + "_";
  }
  return kind + std::to_string(d.bits) + (d.lanes != 1 ? "x" + std::to_string(d.lanes) : "");
}

// str(x).
std::string text_of(nb::handle x) {
  nb::object s = nb::steal(PyObject_Str(x.ptr()));
  if (!s.is_valid()) {
    PyErr_Clear();
    return "?";
  }
  return nb::cast<std::string>(s);
}

// "numpy.ndarray", "list": the type of `x` as Python names it.
std::string type_of(nb::handle x) {
  const std::string module = text_of(nb::getattr(x.type(), "__module__", nb::str("")));
  const std::string name = text_of(nb::getattr(x.type(), "__qualname__", nb::str("?")));
  return module.empty() || module == "builtins" ? name : module + "." + name;
}

// An array of the caller's, imported without a copy.
struct Imported {
  nb::object owner;  // the Python object (keeps the memory alive)
  InArray array;
  std::optional<risec::ScalarType> element;
  std::vector<int64_t> shape;

  bool on_cuda() const { return array.device_type() == kCuda; }
  risec::ArrayRef ref() const {
    risec::ArrayRef r;
    r.data = const_cast<void*>(static_cast<const void*>(array.data()));
    r.element = *element;
    r.shape = shape;
    for (size_t d = 0; d < array.ndim(); ++d) r.strides.push_back(array.stride(d));
    return r;
  }
};

// The exception `obj.__dlpack__()` raises, if it has one and it raises (called again
// only on the failure path, to say why the import failed); else an empty object.
nb::object dlpack_failure(nb::handle obj) {
  if (!nb::hasattr(obj, "__dlpack__")) return {};
  try {
    obj.attr("__dlpack__")();
  } catch (nb::python_error& e) {
    return nb::borrow(e.value());
  }
  return {};
}

// `obj` as an array, or a risec.Error saying why it is none (`where` names it).
Imported import(const std::string& where, nb::handle obj) {
  Imported a;
  a.owner = nb::borrow(obj);
  if (!nb::try_cast<InArray>(obj, a.array, /*convert=*/false)) {
    PyErr_Clear();  // what the import tried (the buffer protocol) may have raised
    std::string what = type_of(obj);
    if (nb::hasattr(obj, "dtype")) what += " of dtype " + text_of(obj.attr("dtype"));
    // A NumPy array's own __dlpack__ error only repeats its dtype: not for those.
    nb::object cause = type_of(obj).rfind("numpy.", 0) == 0 ? nb::object() : dlpack_failure(obj);
    if (cause.is_valid())
      throw CausedError(where + ": a " + what + " could not be read: its __dlpack__() raised " +
                            type_of(cause) + ": " + text_of(cause),
                        cause);
    usage(where + ": a " + what +
          " is not an array of numbers risec can read (a NumPy array, a PyTorch tensor or an "
          "object with __dlpack__, of bool, int8..int64, uint8..uint64, float32 or float64)");
  }
  const int dev = a.array.device_type();
  if (dev != kCpu && dev != kCuda)
    usage(where + ": the array is on a device of DLPack type " + std::to_string(dev) +
          "; risec reads host (CPU) memory, and CUDA memory for CUDA kernels");
  a.element = element_of(a.array.dtype());
  for (size_t d = 0; d < a.array.ndim(); ++d)
    a.shape.push_back(static_cast<int64_t>(a.array.shape(d)));
  return a;
}

// The element type of `a`, or an error naming its dtype.
risec::ScalarType scalar_of(const std::string& where, const Imported& a) {
  if (!a.element)
    usage(where + ": dtype " + dtype_name(a.array.dtype()) + " is no RISE scalar type");
  return *a.element;
}

std::string shape_text(const std::vector<int64_t>& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i)
    s += std::to_string(shape[i]) + (shape.size() == 1 || i + 1 < shape.size() ? "," : "") +
         (i + 1 < shape.size() ? " " : "");
  return s + ")";
}

// "4398046511104 bytes (4.0 TiB)".
std::string bytes_text(long double n) {
  static const char* const units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB", "ZiB"};
  std::ostringstream s;
  s.setf(std::ios::fixed);
  s.precision(0);
  s << n << " bytes";
  if (n < 1024) return s.str();
  int u = -1;
  while (n >= 1024 && u < 6) {
    n /= 1024;
    ++u;
  }
  s.precision(1);
  s << " (" << n << " " << units[u] << ")";
  return s.str();
}

// The bytes of the host's memory (0 when unknown).
long double physical_memory() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? static_cast<long double>(pages) * page : 0;
}

// Refuses, before anything is allocated, `what` (an array of `shape` and `element`
// that risec would allocate) when it needs more bytes than the host has: a clear
// risec.Error instead of a MemoryError or a process the system kills.
void check_allocation(const std::string& what, const std::vector<int64_t>& shape,
                      risec::ScalarType element) {
  long double bytes = static_cast<long double>(risec::scalar_type_size(element));
  for (int64_t e : shape) bytes *= static_cast<long double>(e);
  const long double memory = physical_memory();
  if (memory > 0 && bytes > memory)
    usage(what + ", of shape " + shape_text(shape) + " and dtype " + numpy_name(element) +
          ", needs " + bytes_text(bytes) + ", more than this machine's memory (" +
          bytes_text(memory) + ")");
}

class PyKernel {
 public:
  PyKernel(const std::string& program, bool program_is_path,
           const std::optional<std::string>& strategy, bool strategy_is_path,
           const std::vector<std::string>& params, const std::string& target,
           const std::string& entry, const risec::Sizes& sizes,
           const std::map<std::string, std::string>& bind,
           const std::map<std::string, nb::object>& bind_arrays, bool shift_tails,
           bool bounds_checks, bool load, bool tuned, const std::string& tuning_db, bool profile) {
    risec::WordsScope words(risec::Words::Python);  // messages in Python's words
    risec::CompileOptions o;
    o.entry = entry;
    o.target = target;
    o.sizes = sizes;
    o.bind = bind;
    // Bound arrays are read where they are (compile copies their values into the
    // program); no file is written.
    std::vector<Imported> keep;
    for (const auto& [name, value] : bind_arrays) {
      const std::string where = "bind['" + name + "']";
      keep.push_back(import(where, value));
      if (keep.back().on_cuda()) usage(where + ": bound values must be in host (CPU) memory");
      scalar_of(where, keep.back());
      o.bind_arrays.emplace(name, keep.back().ref());
    }
    o.shift_tails = shift_tails;
    o.bounds_checks = bounds_checks;
    o.tuned = tuned;
    o.profile = profile;
    o.tuning_db = tuning_db;
    if (strategy)
      o.strategy = strategy_is_path ? risec::Strategy::load(*strategy, params)
                                    : risec::Strategy::parse(*strategy, "<strategy>", params);
    else if (!params.empty())
      usage("params= needs a strategy with param declarations");
    source_.emplace(risec::compile(load_program(program, program_is_path), o));
    if (!load) return;               // the code only (no GPU or nvcc needed for target="cuda")
    nb::gil_scoped_release release;  // the C compiler (or nvcc) runs
    kernel_.emplace(*source_);
  }

  const risec::Source& source() const { return *source_; }

  std::vector<ParamInfo> inputs() const {
    std::vector<ParamInfo> out;
    for (const auto& p : source().inputs()) out.push_back(info(p));
    return out;
  }
  ParamInfo output() const { return info(source().output()); }
  bool loaded() const { return kernel_.has_value(); }
  // CompileOptions::profile: (what, where, source, writes, ms) per stage, the ms summed
  // over the calls so far.
  std::vector<std::tuple<std::string, std::string, std::string, std::string, double>> profile()
      const {
    std::vector<std::tuple<std::string, std::string, std::string, std::string, double>> out;
    if (kernel_)
      for (const risec::Kernel::Stage& s : kernel_->profile())
        out.emplace_back(s.what, s.where, s.source, s.writes, s.ms);
    return out;
  }

  // The call: `arrays` the data inputs (Python numbers already made 0-d arrays),
  // `out` the caller's result array or None, then `allocate(shape, element, like)`
  // makes one (like: the first input, whose kind and device the result takes).
  // Returns the result array.
  nb::object call(const std::vector<nb::object>& arrays, const risec::Sizes& given, nb::object out,
                  nb::object allocate) const {
    risec::WordsScope words(risec::Words::Python);
    if (!kernel_)
      usage("the kernel " + source().name() +
            " was compiled with load=False: its code was generated, not built; compile it "
            "again without load=False to call it");
    const std::vector<risec::Parameter> params = source().inputs();
    const bool cuda_kernel = source().target() == "cuda";
    std::vector<Imported> ins;
    std::vector<std::vector<int64_t>> shapes;
    for (size_t i = 0; i < arrays.size() && i < params.size(); ++i) {
      const std::string where = argument_name(i, params[i].name);
      ins.push_back(import(where, arrays[i]));
      check_element(where, params[i], ins.back());
      check_device(where, ins.back(), cuda_kernel);
      shapes.push_back(ins.back().shape);
    }
    const risec::Sizes sizes = kernel_->sizes(shapes, given);
    const std::vector<int64_t> shape = kernel_->shape("output", sizes);
    const risec::Parameter result = source().output();
    // The row-major copies of strided inputs (the code reads row-major memory).
    for (size_t i = 0; i < ins.size(); ++i)
      if (!ins[i].on_cuda() && !ins[i].ref().row_major())
        check_allocation(argument_name(i, params[i].name) +
                             ": the row-major copy the kernel reads of this strided array",
                         ins[i].shape, *ins[i].element);
    if (out.is_none()) {
      if (result.element) check_allocation("the result", shape, *result.element);
      nb::object like = arrays.empty() ? nb::none() : arrays[0];
      out = allocate(shape, risec::scalar_type_name(*result.element), like);
    }
    OutArray o;
    if (!nb::try_cast<OutArray>(out, o, /*convert=*/false)) {
      PyErr_Clear();
      InArray read_only;
      if (nb::try_cast<InArray>(out, read_only, /*convert=*/false))
        usage("out=: the array is read-only");
      PyErr_Clear();
      nb::object cause = type_of(out).rfind("numpy.", 0) == 0 ? nb::object() : dlpack_failure(out);
      if (cause.is_valid())
        throw CausedError("out=: a " + type_of(out) + " could not be written: its __dlpack__() " +
                              "raised " + type_of(cause) + ": " + text_of(cause),
                          cause);
      usage("out=: a " + type_of(out) +
            " is not an array risec can write (a NumPy array, a PyTorch tensor or an object "
            "with __dlpack__)");
    }
    Imported res;
    res.owner = out;
    res.array = InArray(o);
    res.element = element_of(o.dtype());
    for (size_t d = 0; d < o.ndim(); ++d) res.shape.push_back(static_cast<int64_t>(o.shape(d)));
    check_element("out=", result, res);
    check_device("out=", res, cuda_kernel);
    if (!res.on_cuda() && res.shape == shape && !res.ref().row_major())
      check_allocation("out=: the row-major temporary the kernel writes for this strided array",
                       res.shape, *res.element);
    if (res.shape != shape)
      usage("out=: the array has shape " + shape_text(res.shape) + ", the result of " +
            source().name() + " (" + result.type + ") has shape " + shape_text(shape));

    bool device = res.on_cuda();
    for (const Imported& a : ins) device |= a.on_cuda();
    if (!device) {
      std::vector<risec::ArrayRef> refs;
      for (const Imported& a : ins) refs.push_back(a.ref());
      const risec::ArrayRef out_ref = res.ref();
      {
        nb::gil_scoped_release release;
        kernel_->call(out_ref, refs, sizes);
      }
      return out;
    }
    // CUDA memory: passed as it is to the CUDA host function, which copies with
    // cudaMemcpyDefault (host or device memory alike); it must be row-major.
    auto buffer = [&](const std::string& where, const Imported& a) {
      const risec::ArrayRef r = a.ref();
      if (a.on_cuda() && !r.row_major())
        usage(where + ": a CUDA array must be contiguous (row-major); pass x.contiguous()");
      if (!r.row_major()) usage(where + ": with CUDA arrays, host arrays must be contiguous too");
      return risec::Buffer(r.data, r.bytes());
    };
    std::vector<risec::Buffer> bufs;
    for (size_t i = 0; i < ins.size(); ++i) {
      const std::string where = argument_name(i, params[i].name);
      const std::vector<int64_t> want = kernel_->shape(params[i].name, sizes);
      if (ins[i].on_cuda() && (params[i].type.find("idx[") != std::string::npos ||
                               params[i].type.find("natType") != std::string::npos))
        usage(where + ": the parameter " + params[i].name + ": " + params[i].type +
              " holds indices, which the host checks before the launch: pass host memory");
      if (ins[i].shape != want)
        usage(where + ": the array has shape " + shape_text(ins[i].shape) + ", the parameter " +
              params[i].name + ": " + params[i].type + " needs " + shape_text(want));
      bufs.push_back(buffer(where, ins[i]));
      if (bufs.back().bytes != kernel_->bytes(params[i].name, sizes))
        padded_lanes(where, params[i]);
    }
    const risec::Buffer ob = buffer("out=", res);
    if (ob.bytes != kernel_->output_bytes(sizes)) padded_lanes("out=", result);
    const auto o0 = reinterpret_cast<uintptr_t>(ob.data);
    for (size_t i = 0; i < bufs.size(); ++i) {  // row-major: [data, data + bytes)
      const auto b0 = reinterpret_cast<uintptr_t>(bufs[i].data);
      if (b0 < o0 + ob.bytes && o0 < b0 + bufs[i].bytes)
        usage("the output shares memory with " + argument_name(i, params[i].name) +
              "; the kernel's output must be an array of its own");
    }
    {
      nb::gil_scoped_release release;
      (*kernel_)(ob, bufs, sizes);
    }
    return out;
  }

 private:
  void check_element(const std::string& where, const risec::Parameter& p, const Imported& a) const {
    if (!p.element)
      usage(where + ": the parameter's type " + p.type +
            " holds pairs, which the Python package does not exchange");
    if (a.element != p.element)
      usage(where + ": the parameter " + p.name + ": " + p.type + " needs dtype " +
            numpy_name(*p.element) + " (" + risec::scalar_type_name(*p.element) +
            "), the array has dtype " + dtype_name(a.array.dtype()));
  }

  // Vectors of 3 lanes (5, 6, 7) take 4 (8) in the generated code's memory: Kernel::call
  // converts host arrays, CUDA memory is passed as it is.
  [[noreturn]] void padded_lanes(const std::string& where, const risec::Parameter& p) const {
    usage(where + ": the parameter " + p.name + ": " + p.type +
          " holds vectors whose lanes the generated code pads to a power of two in memory; "
          "with CUDA arrays they are passed as they are: pass host arrays (converted) instead");
  }

  void check_device(const std::string& where, const Imported& a, bool cuda_kernel) const {
    if (a.on_cuda() && !cuda_kernel)
      usage(where + ": the array is in CUDA memory, but the kernel's target is " +
            source().target() + ", which runs on the host; pass x.cpu() or compile for cuda");
  }

  std::optional<risec::Source> source_;
  std::optional<risec::Kernel> kernel_;  // none with load=False
};

// (name, RISE type, element type of a scalar parameter) of each data input of `entry`,
// for the Python side's conversion of Python numbers.
std::vector<ParamInfo> parameters(const std::string& program, bool is_path,
                                  const std::string& entry) {
  risec::WordsScope words(risec::Words::Python);
  std::vector<ParamInfo> out;
  for (const risec::Parameter& p : load_program(program, is_path).check(entry).parameters()) {
    std::optional<std::string> e;
    if (p.element && p.type == risec::scalar_type_name(*p.element))
      e = risec::scalar_type_name(*p.element);
    out.emplace_back(p.name, p.type, e);
  }
  return out;
}

// A NumPy array owning the interpreter's result.
nb::object to_numpy(risec::Array&& a) {
  auto* owned = new risec::Array(std::move(a));
  nb::capsule owner(owned, [](void* p) noexcept { delete static_cast<risec::Array*>(p); });
  std::vector<size_t> shape(owned->shape.begin(), owned->shape.end());
  nb::dlpack::dtype d;
  const risec::ScalarType e = owned->element;
  using C = nb::dlpack::dtype_code;
  d.code = static_cast<uint8_t>(
      e == risec::ScalarType::Bool ? C::Bool
      : (e == risec::ScalarType::F32 || e == risec::ScalarType::F64)
          ? C::Float
          : (e >= risec::ScalarType::U8 && e <= risec::ScalarType::U64 ? C::UInt : C::Int));
  d.bits = static_cast<uint8_t>(8 * risec::scalar_type_size(e));
  d.lanes = 1;
  return nb::ndarray<nb::numpy>(owned->bytes.data(), shape.size(), shape.data(), owner, nullptr, d)
      .cast();
}

// The interpreter on arrays: the data inputs of `entry`, in order; one NumPy array
// per result (a result holding pairs gives one per component).
std::vector<nb::object> eval(const std::string& program, bool is_path, const std::string& entry,
                             const std::vector<nb::object>& arrays, const risec::Sizes& given) {
  risec::WordsScope words(risec::Words::Python);
  risec::Program p = load_program(program, is_path);
  std::vector<Imported> ins;
  std::vector<risec::ArrayRef> refs;
  for (size_t i = 0; i < arrays.size(); ++i) {
    const std::string where = argument_name(i, "input");
    ins.push_back(import(where, arrays[i]));
    if (ins.back().on_cuda()) usage(where + ": the interpreter reads host (CPU) memory");
    check_allocation(where + ": the interpreter's copy of the array", ins.back().shape,
                     scalar_of(where, ins.back()));
    refs.push_back(ins.back().ref());
  }
  std::vector<risec::Array> results;
  {
    nb::gil_scoped_release release;
    results = risec::interpret(p, refs, entry, given);
  }
  std::vector<nb::object> out;
  for (risec::Array& a : results) out.push_back(to_numpy(std::move(a)));
  return out;
}

// One template's trials for a search engine outside risec (python/risec/tuning.py
// drives it from Optuna): risec::Tuner, so a trial here is a trial of `risec tune`.
class PyTuner {
 public:
  PyTuner(const std::string& program, bool program_is_path, const std::string& strategy,
          bool strategy_is_path, const std::string& target, const std::string& entry,
          const risec::Sizes& sizes, int repeat, uint64_t seed) {
    risec::WordsScope words(risec::Words::Python);
    if (program_is_path) risec::Program::load(program);  // its errors, named by the path
    risec::TunerOptions o;
    o.entry = entry;
    o.sizes = sizes;
    o.target = target;
    o.repeat = repeat;
    o.seed = seed;
    tuner_ = std::make_unique<risec::Tuner>(program_is_path ? read_file(program) : program,
                                            program_is_path ? program : "<program>",
                                            strategy_is_path ? read_file(strategy) : strategy,
                                            strategy_is_path ? strategy : "<strategy>", o);
  }

  // (name, values) per parameter, in declaration order (the first value is the default).
  std::vector<std::pair<std::string, std::vector<int64_t>>> params() const {
    std::vector<std::pair<std::string, std::vector<int64_t>>> out;
    for (const auto& p : tuner_->parameters()) out.emplace_back(p.name, p.values);
    return out;
  }
  // The names of each `param (a, b, ...) in permutations([...])` declaration (they take
  // a permutation of their values, docs/strategies.md), in declaration order.
  std::vector<std::vector<std::string>> permutations() const {
    std::vector<std::vector<std::string>> out;
    for (const auto& p : tuner_->parameters()) {
      if (p.group < 0) continue;
      if (p.position == 0) out.emplace_back();
      out.back().push_back(p.name);
    }
    return out;
  }
  const std::string& key() const { return tuner_->key(); }

  // (status, time in ms, error): "measured", "invalid" (pruned by the rewrite or the
  // checker) or "failed".
  std::tuple<std::string, double, std::string> trial(const std::map<std::string, int64_t>& v) {
    risec::WordsScope words(risec::Words::Python);
    risec::TrialResult t;
    {
      nb::gil_scoped_release release;
      t = tuner_->trial(v);
    }
    const char* status = t.status == risec::TrialResult::Status::Measured  ? "measured"
                         : t.status == risec::TrialResult::Status::Invalid ? "invalid"
                                                                           : "failed";
    return {status, t.time_ms, t.error};
  }

  // The template with these values substituted (declarations removed).
  std::string strategy(const std::map<std::string, int64_t>& v) const {
    return tuner_->strategy(v);
  }

 private:
  std::unique_ptr<risec::Tuner> tuner_;
};

}  // namespace

NB_MODULE(_risec, m) {
  m.doc() = "The native part of the risec Python package (use `import risec`).";
  static nb::object error = nb::borrow(PyExc_RuntimeError);
  m.def("_set_error_type", [](nb::object e) { error = e; });
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const CausedError& e) {
      nb::object exc = error(risec::format_error(e), e.message(), risec::exit_code(e.kind()));
      PyException_SetCause(exc.ptr(), e.cause.inc_ref().ptr());  // steals the reference
      PyErr_SetObject(error.ptr(), exc.ptr());
    } catch (const risec::Error& e) {
      nb::object exc = error(risec::format_error(e), e.message(), risec::exit_code(e.kind()));
      PyErr_SetObject(error.ptr(), exc.ptr());
    } catch (const std::bad_alloc&) {
      // Memory of risec's own (a row-major copy, checked against the machine's memory
      // before, so what is free now fell short; the interpreter's values; the
      // compiler's data): a risec.Error (exit code 1, as the command line's).
      nb::object exc = error(
          "out of memory: an allocation of risec's failed (a row-major copy of an array, the "
          "interpreter's values or the compiler's own data)");
      PyErr_SetObject(error.ptr(), exc.ptr());
    }
  });

  m.def("version", &risec::version);
  m.def("parameters", &parameters, nb::arg("program"), nb::arg("is_path"), nb::arg("entry"));
  m.def("eval", &eval, nb::arg("program"), nb::arg("is_path"), nb::arg("entry"), nb::arg("arrays"),
        nb::arg("sizes"));

  nb::class_<PyTuner>(m, "Tuner")
      .def(nb::init<const std::string&, bool, const std::string&, bool, const std::string&,
                    const std::string&, const risec::Sizes&, int, uint64_t>(),
           nb::arg("program"), nb::arg("program_is_path"), nb::arg("strategy"),
           nb::arg("strategy_is_path"), nb::arg("target"), nb::arg("entry"), nb::arg("sizes"),
           nb::arg("repeat"), nb::arg("seed"))
      .def_prop_ro("params", &PyTuner::params)
      .def_prop_ro("permutations", &PyTuner::permutations)
      .def_prop_ro("key", &PyTuner::key)
      .def("trial", &PyTuner::trial)
      .def("strategy", &PyTuner::strategy);

  nb::class_<PyKernel>(m, "Kernel")
      .def(nb::init<const std::string&, bool, const std::optional<std::string>&, bool,
                    const std::vector<std::string>&, const std::string&, const std::string&,
                    const risec::Sizes&, const std::map<std::string, std::string>&,
                    const std::map<std::string, nb::object>&, bool, bool, bool, bool,
                    const std::string&, bool>(),
           nb::arg("program"), nb::arg("program_is_path"), nb::arg("strategy").none(),
           nb::arg("strategy_is_path"), nb::arg("params"), nb::arg("target"), nb::arg("entry"),
           nb::arg("sizes"), nb::arg("bind"), nb::arg("bind_arrays"), nb::arg("shift_tails"),
           nb::arg("bounds_checks"), nb::arg("load"), nb::arg("tuned"), nb::arg("tuning_db"),
           nb::arg("profile"))
      .def_prop_ro("name", [](const PyKernel& k) { return k.source().name(); })
      .def_prop_ro("target", [](const PyKernel& k) { return k.source().target(); })
      .def_prop_ro("source", [](const PyKernel& k) { return k.source().code(); })
      .def_prop_ro("header", [](const PyKernel& k) { return k.source().header(); })
      .def_prop_ro("kernels", [](const PyKernel& k) { return k.source().kernels(); })
      .def_prop_ro("size_parameters",
                   [](const PyKernel& k) { return k.source().size_parameters(); })
      .def_prop_ro("loaded", &PyKernel::loaded)
      .def("profile", &PyKernel::profile)
      .def_prop_ro("inputs", &PyKernel::inputs)
      .def_prop_ro("output", &PyKernel::output)
      .def("call", &PyKernel::call, nb::arg("arrays"), nb::arg("sizes"), nb::arg("out").none(),
           nb::arg("allocate"));
}
