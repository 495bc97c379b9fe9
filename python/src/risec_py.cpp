// The native half of the Python package (python/risec/__init__.py is the other):
// compiling and calling kernels through the public API (include/risec/risec.h), and
// the pieces it does not show (sizes from shapes, the interpreter) through the
// driver. Arrays cross as raw addresses and byte counts; the Python side checks
// NumPy dtypes and layout and allocates results (docs/python.md).
#include <nanobind/nanobind.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "arith/nat.h"
#include "driver/api_impl.h"
#include "driver/commands.h"
#include "driver/run.h"
#include "driver/sizes_from_inputs.h"
#include "driver/tune.h"
#include "rise/interp.h"
#include "risec/risec.h"
#include "support/buffer.h"
#include "support/diagnostics.h"
#include "support/stack.h"
#include "support/words.h"

namespace nb = nanobind;

namespace {

// (name, RISE type, element type name or None) of a parameter.
using ParamInfo = std::tuple<std::string, std::string, std::optional<std::string>>;
// (element type name, shape, bytes) of an array crossing to or from Python.
using ArrayData = std::tuple<std::string, std::vector<int64_t>, nb::bytes>;

ParamInfo info(const risec::Parameter& p) {
  std::optional<std::string> e;
  if (p.element) e = risec::scalar_type_name(*p.element);
  return {p.name, p.type, e};
}

risec::Program load_program(const std::string& text, bool is_path) {
  return is_path ? risec::Program::load(text) : risec::Program::parse(text);
}

// "argument 1 (x)" for the i-th (0-based) parameter, as messages name it.
std::string argument_name(size_t i, const std::string& name) {
  return "argument " + std::to_string(i + 1) + " (" + name + ")";
}

// Sizes of `entry` from the shapes of its data arguments, in parameter order.
risec::Sizes sizes_from(const risec::Program& program, const std::string& entry,
                        const std::vector<std::string>& names,
                        const std::vector<std::vector<int64_t>>& shapes, risec::Sizes sizes) {
  std::map<std::string, std::string> where;
  std::map<std::string, std::vector<int64_t>> by_name;
  for (size_t i = 0; i < names.size() && i < shapes.size(); ++i) {
    where[names[i]] = argument_name(i, names[i]);
    by_name[names[i]] = shapes[i];
  }
  risec::driver::sizes_from_shapes(
      program.impl().program, entry, where, [&](const std::string& n) { return by_name.at(n); },
      &sizes, "the arrays' shapes do not determine it");
  return sizes;
}

// The dimensions of a value of type `t` as an array holds them (array levels, then
// vector lanes) at `sizes`.
std::vector<int64_t> shape_of(const risec::rise::Type& type, const risec::Sizes& sizes) {
  using risec::rise::TypeKind;
  risec::arith::Substitution known;
  for (const auto& [v, value] : sizes) known.emplace(v, risec::arith::Nat(value));
  std::vector<int64_t> out;
  risec::rise::Type t = type;
  auto extent = [&](const risec::arith::Nat& n) {
    auto v = risec::arith::substitute(n, known).as_const();
    if (!v)
      throw risec::Error(risec::ErrorKind::Usage,
                         "the extent " + n.to_string() + " has no value at these sizes");
    out.push_back(*v);
  };
  while (t->kind == TypeKind::Array) {
    extent(t->size);
    t = t->a;
  }
  if (t->kind == TypeKind::Vector) extent(t->size);
  return out;
}

class PyKernel {
 public:
  PyKernel(const std::string& program, bool program_is_path,
           const std::optional<std::string>& strategy, bool strategy_is_path,
           const std::vector<std::string>& params, const std::string& target,
           const std::string& entry, const risec::Sizes& sizes,
           const std::map<std::string, std::string>& bind, bool shift_tails, bool bounds_checks,
           bool tuned, const std::string& tuning_db)
      : program_(load_program(program, program_is_path)), entry_(entry), fixed_(sizes) {
    risec::InterfaceScope words(risec::Interface::Python);  // messages in Python's words
    risec::CompileOptions o;
    o.entry = entry;
    o.target = target;
    o.sizes = sizes;
    o.bind = bind;
    o.shift_tails = shift_tails;
    o.bounds_checks = bounds_checks;
    o.tuned = tuned;
    o.tuning_db = tuning_db;
    if (strategy)
      o.strategy = strategy_is_path ? risec::Strategy::load(*strategy, params)
                                    : risec::Strategy::parse(*strategy, "<strategy>", params);
    else if (!params.empty())
      throw risec::Error(risec::ErrorKind::Usage,
                         "params= needs a strategy with param declarations");
    kernel_.emplace(risec::compile(program_, o));
    // The sizes the bound inputs' shapes fixed are no longer the calls' to give.
    for (const auto& [k, v] : source().impl().compiled.sizes) fixed_.emplace(k, v);
  }

  const risec::Source& source() const { return kernel_->source(); }

  std::vector<ParamInfo> inputs() const {
    std::vector<ParamInfo> out;
    for (const auto& p : source().inputs()) out.push_back(info(p));
    return out;
  }
  ParamInfo output() const { return info(source().output()); }

  risec::Sizes sizes(const std::vector<std::vector<int64_t>>& shapes,
                     const risec::Sizes& given) const {
    risec::InterfaceScope words(risec::Interface::Python);
    std::vector<std::string> names;
    for (const auto& p : source().inputs()) names.push_back(p.name);
    risec::Sizes s = fixed_;
    // Every size given is one of the entry's, and one fixed at compile time keeps its value.
    std::vector<std::string> known = source().size_parameters();
    for (const auto& [k, v] : fixed_) known.push_back(k);
    for (const auto& [k, v] : given) {
      if (std::find(known.begin(), known.end(), k) == known.end()) {
        const std::string near = risec::nearest_name(k, known);
        throw risec::Error(risec::ErrorKind::Usage,
                           "sizes['" + k + "']: the kernel " + source().name() +
                               " has no size named '" + k + "'" +
                               (near.empty() ? std::string() : "; did you mean '" + near + "'?"));
      }
      if (v < 1)
        throw risec::Error(risec::ErrorKind::Usage, "sizes['" + k + "'] = " + std::to_string(v) +
                                                        ": sizes must be positive");
      if (auto f = fixed_.find(k); f != fixed_.end() && f->second != v)
        throw risec::Error(risec::ErrorKind::Usage,
                           "sizes['" + k + "'] = " + std::to_string(v) + ", but " + k +
                               " was fixed to " + std::to_string(f->second) + " at compile time");
      s[k] = v;
    }
    return sizes_from(program_, entry_, names, shapes, s);
  }

  std::vector<int64_t> output_shape(const risec::Sizes& sizes) const {
    return shape_of(source().impl().output_type, sizes);
  }

  size_t bytes(const std::string& parameter, const risec::Sizes& sizes) const {
    return kernel_->bytes(parameter, only_parameters(sizes));
  }

  void call(uintptr_t out, size_t out_bytes, const std::vector<std::pair<uintptr_t, size_t>>& ins,
            const risec::Sizes& sizes) const {
    std::vector<risec::Buffer> buffers;
    for (const auto& [p, n] : ins) buffers.emplace_back(reinterpret_cast<void*>(p), n);
    risec::Sizes s = only_parameters(sizes);
    nb::gil_scoped_release release;
    (*kernel_)(risec::Buffer(reinterpret_cast<void*>(out), out_bytes), buffers, s);
  }

 private:
  // The sizes the generated function still takes (the rest were fixed at compile time).
  risec::Sizes only_parameters(const risec::Sizes& sizes) const {
    risec::Sizes s;
    for (const std::string& n : source().size_parameters())
      if (auto it = sizes.find(n); it != sizes.end()) s[n] = it->second;
    return s;
  }

  risec::Program program_;
  std::string entry_;
  risec::Sizes fixed_;
  std::optional<risec::Kernel> kernel_;
};

// (name, RISE type, element type of a scalar parameter) of each data input of `entry`,
// for the Python side's conversion of Python numbers.
std::vector<ParamInfo> parameters(const std::string& program, bool is_path,
                                  const std::string& entry) {
  using namespace risec;
  InterfaceScope words(Interface::Python);
  Program p = load_program(program, is_path);
  std::vector<ParamInfo> out;
  run_with_large_stack([&] {
    for (const auto& param :
         driver::value_parameters(rise::check_program(p.impl().program, entry))) {
      std::optional<std::string> e;
      if (param.type->kind == rise::TypeKind::Scalar) e = rise::scalar_name(param.type->scalar);
      out.emplace_back(param.name, rise::print(param.type), e);
    }
    return 0;
  });
  return out;
}

// The interpreter on arrays: the data inputs of `entry`, in order.
std::vector<ArrayData> eval(const std::string& program, bool is_path, const std::string& entry,
                            const std::vector<ArrayData>& arrays, const risec::Sizes& given) {
  using namespace risec;
  InterfaceScope words(Interface::Python);
  Program p = load_program(program, is_path);
  std::vector<ArrayData> result;
  run_with_large_stack([&] {
    const rise::Program& rp = p.impl().program;
    std::vector<std::string> names;
    for (const auto& param : driver::value_parameters(rise::check_program(rp, entry)))
      names.push_back(param.name);
    if (names.size() != arrays.size())
      throw Error(ErrorKind::Usage, "the entry takes " + std::to_string(names.size()) +
                                        " array(s), " + std::to_string(arrays.size()) + " given");
    std::vector<std::vector<int64_t>> shapes;
    for (const auto& a : arrays) shapes.push_back(std::get<1>(a));
    rise::SizeMap sizes = sizes_from(p, entry, names, shapes, given);
    rise::Checked c = rise::check_program(rp, entry, &sizes);
    std::vector<driver::EntryParam> params = driver::entry_parameters(c);
    std::vector<rise::Value> inputs;
    for (size_t i = 0; i < params.size(); ++i) {
      const auto& [dtype, shape, data] = arrays[i];
      runtime::NdArray a;
      a.dtype = *runtime::dtype_from_name(dtype);
      a.shape = shape;
      a.data = runtime::AlignedBuffer(data.size());
      if (data.size()) std::memcpy(a.data.data(), data.c_str(), data.size());
      try {
        inputs.push_back(rise::from_ndarray(a, params[i].type));
      } catch (const Error& e) {
        throw Error(e.kind(), argument_name(i, params[i].name) + ": " + e.message(), e.span(),
                    e.note());
      }
    }
    rise::Interpreter interp;
    rise::Value f = interp.run(c.expr, inputs);
    for (const runtime::NdArray& a : rise::to_ndarrays(f, driver::entry_result_type(c)))
      result.emplace_back(runtime::dtype_name(a.dtype), a.shape,
                          nb::bytes(reinterpret_cast<const char*>(a.data.data()), a.nbytes()));
    return 0;
  });
  return result;
}

// One template's trials for a search engine outside risec (python/risec/tuning.py
// drives it from Optuna): the points come from Python, each is compiled and measured
// by the driver's own code (risec tune's compile_point, Measurer), so a trial here is
// the same as a trial of `risec tune`.
class PyTuner {
 public:
  PyTuner(const std::string& program, bool program_is_path, const std::string& strategy,
          bool strategy_is_path, const std::string& target, const std::string& entry,
          const risec::Sizes& sizes, int repeat, uint64_t seed)
      : program_(load_program(program, program_is_path)) {
    using namespace risec;
    InterfaceScope words(Interface::Python);
    run_with_large_stack([&] {
      const std::string program_text = program_is_path ? driver::read_text_file(program) : program;
      const rise::Program& p = program_.impl().program;
      cfg_.program = &p;
      cfg_.entry = entry;
      cfg_.sizes = driver::search_sizes(p, entry, sizes);
      cfg_.target = target;
      cfg_.strategy = std::make_shared<SourceFile>(
          strategy_is_path ? SourceFile{strategy, driver::read_text_file(strategy)}
                           : SourceFile{"<strategy>", strategy});
      params_ = elevate::strategy_params(cfg_.strategy);
      if (params_.empty())
        throw Error(ErrorKind::User,
                    "the strategy declares no parameters to tune (add e.g. `param ti in [16, "
                    "32];` before its lets)",
                    Span{cfg_.strategy, 0, 0});
      cfg_.study_key =
          driver::study_key(program_text, cfg_.strategy->text, cfg_.sizes, target, entry);
      measurer_ = driver::make_measurer(cfg_.sizes, seed, repeat);
      return 0;
    });
  }

  // (name, values) per parameter, in declaration order (the first value is the default).
  std::vector<std::pair<std::string, std::vector<int64_t>>> params() const {
    std::vector<std::pair<std::string, std::vector<int64_t>>> out;
    for (const auto& p : params_) out.emplace_back(p.name, p.values);
    return out;
  }
  // The names of each `param (a, b, ...) in permutations([...])` declaration (they take
  // a permutation of their values, docs/strategies.md), in declaration order.
  std::vector<std::vector<std::string>> permutations() const {
    std::vector<std::vector<std::string>> out;
    for (const auto& p : params_) {
      if (p.group < 0) continue;
      if (p.position == 0) out.emplace_back();
      out.back().push_back(p.name);
    }
    return out;
  }
  const std::string& key() const { return cfg_.study_key; }

  // (status, time in ms, error): "measured", "invalid" (pruned by the rewrite or the
  // checker) or "failed".
  std::tuple<std::string, double, std::string> trial(const std::map<std::string, int64_t>& v) {
    risec::driver::TunePoint point = point_of(v);
    risec::driver::Trial t;
    {
      nb::gil_scoped_release release;
      risec::run_with_large_stack([&] {
        t = risec::driver::run_trial(cfg_, params_, point, *measurer_);
        return 0;
      });
    }
    const char* status = t.status == risec::driver::Trial::Status::Measured  ? "measured"
                         : t.status == risec::driver::Trial::Status::Invalid ? "invalid"
                                                                             : "failed";
    return {status, t.time_ms, t.error};
  }

  // The template with these values substituted (declarations removed).
  std::string strategy(const std::map<std::string, int64_t>& v) const {
    const risec::driver::TunePoint point = point_of(v);
    risec::elevate::ParamValues values;
    for (size_t i = 0; i < params_.size(); ++i) values[params_[i].name] = point[i];
    return risec::elevate::substitute_params(cfg_.strategy, values);
  }

 private:
  risec::driver::TunePoint point_of(const std::map<std::string, int64_t>& v) const {
    risec::driver::TunePoint point;
    for (const auto& p : params_) {
      auto it = v.find(p.name);
      if (it == v.end())
        throw risec::Error(risec::ErrorKind::Usage, "no value for the parameter " + p.name);
      point.push_back(it->second);
    }
    if (v.size() != params_.size())
      throw risec::Error(risec::ErrorKind::Usage,
                         "values given for parameters the strategy does not declare");
    return point;
  }

  risec::Program program_;
  risec::driver::TuneConfig cfg_;
  std::vector<risec::elevate::StrategyParam> params_;
  std::unique_ptr<risec::driver::Measurer> measurer_;
};

}  // namespace

NB_MODULE(_risec, m) {
  m.doc() = "The native part of the risec Python package (use `import risec`).";
  static nb::object error = nb::borrow(PyExc_RuntimeError);
  m.def("_set_error_type", [](nb::object e) { error = e; });
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const risec::Error& e) {
      nb::object exc = error(risec::format_error(e), e.message(), risec::exit_code(e.kind()));
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
                    const risec::Sizes&, const std::map<std::string, std::string>&, bool, bool,
                    bool, const std::string&>(),
           nb::arg("program"), nb::arg("program_is_path"), nb::arg("strategy").none(),
           nb::arg("strategy_is_path"), nb::arg("params"), nb::arg("target"), nb::arg("entry"),
           nb::arg("sizes"), nb::arg("bind"), nb::arg("shift_tails"), nb::arg("bounds_checks"),
           nb::arg("tuned"), nb::arg("tuning_db"))
      .def_prop_ro("name", [](const PyKernel& k) { return k.source().name(); })
      .def_prop_ro("target", [](const PyKernel& k) { return k.source().target(); })
      .def_prop_ro("source", [](const PyKernel& k) { return k.source().code(); })
      .def_prop_ro("header", [](const PyKernel& k) { return k.source().header(); })
      .def_prop_ro("size_parameters",
                   [](const PyKernel& k) { return k.source().size_parameters(); })
      .def_prop_ro("inputs", &PyKernel::inputs)
      .def_prop_ro("output", &PyKernel::output)
      .def("sizes", &PyKernel::sizes)
      .def("output_shape", &PyKernel::output_shape)
      .def("bytes", &PyKernel::bytes)
      .def("call", &PyKernel::call);
}
