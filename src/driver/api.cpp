// The public C++ API (include/risec/risec.h): thin wrappers over the driver's
// pipeline, which the command line uses too, so both give the same results and the
// same errors.
#include <algorithm>
#include <atomic>
#include <mutex>
#include <optional>
#include <sstream>
#include <type_traits>
#include <utility>

#include "driver/api_impl.h"
#include "driver/bind.h"
#include "driver/commands.h"
#include "driver/gpu_device.h"
#include "driver/run.h"
#include "driver/tuned.h"
#include "elevate/library.h"
#include "elevate/parser.h"
#include "rise/check.h"
#include "rise/parser.h"
#include "rise/printer.h"
#include "runtime/jit.h"
#include "runtime/layout.h"
#include "support/diagnostics.h"
#include "support/stack.h"
#include "support/words.h"

namespace risec {

namespace {

[[noreturn]] void bad_api_argument(const std::string& msg) {
  throw Error(ErrorKind::Usage, msg);
}

std::string join(const std::vector<std::string>& xs) {
  std::string out;
  for (const auto& x : xs) out += (out.empty() ? "" : ", ") + x;
  return out;
}

}  // namespace

using api::on_large_stack;

std::optional<ScalarType> api::element_of(const rise::Type& t) {
  switch (t->kind) {
    case rise::TypeKind::Scalar:
    case rise::TypeKind::Vector:
      return static_cast<ScalarType>(t->scalar);
    case rise::TypeKind::Array:
      return element_of(t->a);
    case rise::TypeKind::Index:
      return ScalarType::I32;  // a C int
    case rise::TypeKind::NatData:
      return ScalarType::I64;  // an int64_t, as the interpreter's natType values
    default:
      return std::nullopt;
  }
}

static_assert(static_cast<int>(ScalarType::F64) == static_cast<int>(rise::ScalarKind::F64) &&
                  static_cast<int>(ScalarType::Bool) == static_cast<int>(rise::ScalarKind::Bool),
              "ScalarType mirrors rise::ScalarKind");

std::string scalar_type_name(ScalarType t) {
  return rise::scalar_name(static_cast<rise::ScalarKind>(t));
}

std::string version() {
  return RISEC_VERSION;
}

// ---- strategies ----

Strategy api::wrap(elevate::Strategy s) {
  return Strategy(std::make_shared<const Strategy::Impl>(Strategy::Impl{std::move(s)}));
}

Strategy Strategy::parse(const std::string& text, const std::string& name,
                         const std::vector<std::string>& params) {
  return api::wrap(on_large_stack([&] {
    return elevate::parse_strategy_file(std::make_shared<SourceFile>(SourceFile{name, text}),
                                        elevate::parse_param_values(params));
  }));
}

Strategy Strategy::load(const std::string& path, const std::vector<std::string>& params) {
  return api::wrap(on_large_stack([&] { return driver::load_strategy(path, params); }));
}

Strategy Strategy::library(const std::string& name, const std::vector<StrategyArg>& args) {
  std::vector<elevate::Arg> out;
  for (const StrategyArg& a : args) {
    std::visit(
        [&](const auto& v) {
          using T = std::decay_t<decltype(v)>;
          if constexpr (std::is_same_v<T, Strategy>) {
            out.push_back(v.impl().strategy);
          } else if constexpr (std::is_same_v<T, std::string>) {
            // An address space where the entry takes one, else a name.
            const elevate::LibraryEntry* e = elevate::find_entry(name);
            size_t i = out.size();
            if (e && i < e->params.size() && e->params[i] == elevate::ParamKind::Addr) {
              std::optional<rise::AddrSpace> sp = rise::addr_from_name(v);
              if (!sp)
                throw Error(ErrorKind::User, name + ": '" + v +
                                                 "' is not an address space (global, local, "
                                                 "private, constant)");
              out.push_back(*sp);
            } else {
              out.push_back(v);
            }
          } else {
            out.push_back(v);
          }
        },
        a);
  }
  return api::wrap(elevate::make_strategy(name, out));
}

const std::string& Strategy::name() const {
  return impl_->strategy.name();
}

namespace strategies {
Strategy id() {
  return api::wrap(elevate::id());
}
Strategy seq(const Strategy& a, const Strategy& b) {
  return api::wrap(elevate::seq(a.impl().strategy, b.impl().strategy));
}
Strategy lchoice(const Strategy& a, const Strategy& b) {
  return api::wrap(elevate::lchoice(a.impl().strategy, b.impl().strategy));
}
Strategy try_(const Strategy& s) {
  return api::wrap(elevate::try_(s.impl().strategy));
}
Strategy repeat(const Strategy& s) {
  return api::wrap(elevate::repeat(s.impl().strategy));
}
Strategy top_down(const Strategy& s) {
  return api::wrap(elevate::top_down(s.impl().strategy));
}
Strategy bottom_up(const Strategy& s) {
  return api::wrap(elevate::bottom_up(s.impl().strategy));
}
Strategy normalize(const Strategy& s) {
  return api::wrap(elevate::normalize(s.impl().strategy));
}
Strategy body(const Strategy& s) {
  return api::wrap(elevate::body(s.impl().strategy));
}
Strategy outermost(const Strategy& pred, const Strategy& s) {
  return api::wrap(elevate::outermost(pred.impl().strategy, s.impl().strategy));
}
Strategy innermost(const Strategy& pred, const Strategy& s) {
  return api::wrap(elevate::innermost(pred.impl().strategy, s.impl().strategy));
}
Strategy lower_to_c() {
  return api::wrap(elevate::make_strategy("lowerToC"));
}
}  // namespace strategies

Strategy operator>>(const Strategy& a, const Strategy& b) {
  return strategies::seq(a, b);
}
Strategy operator|(const Strategy& a, const Strategy& b) {
  return strategies::lchoice(a, b);
}

// ---- programs ----

Program api::wrap(rise::Program p) {
  return Program(std::make_shared<const Program::Impl>(Program::Impl{std::move(p)}));
}

Program Program::parse(const std::string& text, const std::string& name) {
  return api::wrap(on_large_stack([&] {
    return rise::parse_program(std::make_shared<SourceFile>(SourceFile{name, text}));
  }));
}

Program Program::load(const std::string& path) {
  return api::wrap(on_large_stack([&] { return driver::load_program(path); }));
}

std::vector<std::string> Program::definitions() const {
  std::vector<std::string> out;
  for (const auto& d : impl_->program.defs) out.push_back(d.name);
  return out;
}

std::string Program::print() const {
  return on_large_stack([&] { return rise::print_program(impl_->program); });
}

Function Program::check(const std::string& entry, const Sizes& sizes) const {
  return on_large_stack([&] {
    const rise::Program& p = impl_->program;
    rise::require_definitions(p);
    rise::Checked c = rise::check_program(p, entry, sizes.empty() ? nullptr : &sizes);
    std::string name = entry.empty() ? p.defs.back().name : entry;
    return Function(std::make_shared<const Function::Impl>(Function::Impl{name, std::move(c)}));
  });
}

const std::string& Function::name() const {
  return impl_->name;
}

std::string Function::type() const {
  return rise::print(impl_->checked.type);
}

std::vector<std::string> Function::requirements() const {
  std::vector<std::string> out;
  for (const auto& sc : impl_->checked.conditions)
    out.push_back(sc.describe() + " (" + sc.primitive + ")");
  return out;
}

std::string Function::print(bool types) const {
  return on_large_stack([&] {
    rise::PrintOptions opts;
    opts.types = types;
    return "def " + impl_->name + " = " + rise::print_expr(impl_->checked.expr, opts);
  });
}

Function Function::rewrite(const Strategy& s) const {
  return on_large_stack([&] {
    rise::Checked r = driver::apply_strategy(s.impl().strategy, impl_->checked, false);
    return Function(std::make_shared<const Function::Impl>(Function::Impl{impl_->name, r}));
  });
}

// ---- code generation ----

Source compile(const Program& program, const CompileOptions& options) {
  return on_large_stack([&] {
    rise::require_definitions(program.impl().program);
    if (options.tuned && options.strategy) driver::tuned_with_strategy();
    auto impl = std::make_shared<Source::Impl>();
    driver::CompileRequest req;
    req.program = &program.impl().program;
    req.entry = options.entry;
    req.sizes = options.sizes.empty() ? nullptr : &options.sizes;
    req.strategy = options.strategy ? &options.strategy->impl().strategy : nullptr;
    req.target = options.target;
    req.trace = options.trace;
    req.simplify = options.simplify;
    req.shift_tails = options.shift_tails;
    req.bounds_checks = options.bounds_checks;
    req.profile = options.profile;
    req.bind = &options.bind;
    // Arrays bound from memory: copied row-major into the compiler's own arrays.
    driver::BoundArrays arrays;
    for (const auto& [name, a] : options.bind_arrays) {
      // Refused as a call refuses them (the array is read right here).
      for (int64_t e : a.shape)
        if (e < 0)
          bad_api_argument(bind_given(name, "") + ": the array's shape " +
                           runtime::shape_string(a.shape) + " has a negative extent");
      if (!a.data && a.count() > 0) bad_api_argument(bind_given(name, "") + ": the array is null");
      runtime::NdArray nd;
      nd.dtype = static_cast<runtime::DType>(a.element);
      nd.shape = a.shape;
      nd.data = runtime::AlignedBuffer(a.bytes());
      if (a.count() > 0) a.copy_to(nd.data.data());
      arrays.emplace(name, std::move(nd));
    }
    req.bind_arrays = &arrays;
    // The record of the sizes the program is specialised to: --size and the shapes of
    // the bound inputs (its `tunedAt` sees the same).
    std::optional<elevate::Strategy> tuned;
    if (options.tuned) {
      const rise::SizeMap fixed = driver::fixed_sizes(req);
      // Sizes the entry does not have are refused before the lookup's note about them
      // (held-out L: "no tuning record ... at sizes m=128", then the size error).
      (void)rise::check_program(program.impl().program, options.entry, &fixed);
      tuned = driver::tuned_strategy(
          driver::tuned_key(
              program.impl().program, options.entry, fixed,
              driver::target_code(options.target, options.shift_tails, options.bounds_checks)),
          options.tuning_db);
      if (tuned) req.strategy = &*tuned;
    }
    impl->program = program.impl().program;
    impl->entry = options.entry;
    impl->compiled = driver::compile(req);
    impl->target = options.target;
    impl->fixed_sizes = impl->compiled.sizes;
    rise::Type t = impl->compiled.high.type;
    while (t->kind == rise::TypeKind::DepFun) t = t->b;
    for (const driver::EntryParam& p : driver::value_parameters(impl->compiled.high)) {
      impl->input_types.push_back(p.type);
      impl->inputs.push_back({p.name, rise::print(p.type), api::element_of(p.type)});
      t = t->b;
    }
    impl->output_type = t;
    impl->output = {"output", rise::print(t), api::element_of(t)};
    impl->aligned_vectors = (options.target == "c" || options.target == "openmp") &&
                            impl->compiled.unit.source.find("vector_size(") != std::string::npos;
    return Source(std::move(impl));
  });
}

const std::string& Source::name() const {
  return impl_->compiled.unit.name;
}
const std::string& Source::target() const {
  return impl_->target;
}
const std::string& Source::code() const {
  return impl_->compiled.unit.source;
}
const std::string& Source::header() const {
  return impl_->compiled.unit.header;
}
const std::string& Source::kernels() const {
  return impl_->compiled.unit.kernel_source;
}
std::vector<std::string> Source::size_parameters() const {
  return impl_->compiled.size_names;
}
std::vector<Parameter> Source::inputs() const {
  return impl_->inputs;
}
Parameter Source::output() const {
  return impl_->output;
}
Sizes Source::fixed_sizes() const {
  return impl_->fixed_sizes;
}
std::string Source::dpia() const {
  return dpia::print(impl_->compiled.dpia);
}

// ---- running ----

struct Kernel::Impl {
  Impl(Source s, runtime::Module m) : source(std::move(s)), module(std::move(m)) {}
  Source source;
  runtime::Module module;
  // Whether a call of a GPU target's module has set it up (see operator()).
  mutable std::atomic<bool> set_up{false};
};

Kernel::Kernel(const Source& source) {
  const Source::Impl& s = source.impl();
  const runtime::CompileOptions co = driver::c_compile_options(s.compiled);
  const std::string& name = s.compiled.unit.name;
  // CUDA code needs a GPU: without one every call would raise "no CUDA GPU" (the host
  // code's RISEC_DEVICE_FAILED), so loading it is the error, before nvcc runs (the code
  // itself is made without loading: Source, Python's load=False). The probe runs in a
  // child process.
  std::string why;
  if (s.target == "cuda" && !driver::probe_gpu_device("cuda", &why))
    throw Error(ErrorKind::External,
                "cannot load the CUDA kernel " + name + ": " + why +
                    "; the CUDA target runs on an NVIDIA GPU (its code is made without one: "
                    "compile() without loading, load=False in Python)");
  // Code using OpenMP stays loaded (runtime/jit.h: unloading libgomp while its
  // threads wait crashes the process); a cached object that fails to load (damaged,
  // truncated) is removed and built once more before the failure is reported. A fault
  // of the data in a call is an Error, not the end of the caller's process
  // (runtime::with_fault_recording, which jit_compile applies).
  runtime::Module m = runtime::jit_compile(s.compiled.unit.source, name, co);
  impl_ = std::make_shared<const Impl>(source, std::move(m));
}

std::vector<Kernel::Stage> Kernel::profile() const {
  const std::string& name = impl_->source.impl().compiled.unit.name;
  const auto& stages = impl_->source.impl().compiled.unit.profile_stages;
  const auto* count =
      static_cast<const int*>(impl_->module.symbol(name + "__risec_profile_stages"));
  const auto* ms = static_cast<const double*>(impl_->module.symbol(name + "__risec_profile_ms"));
  std::vector<Stage> out;
  if (!count || !ms) return out;
  for (size_t k = 0; k < stages.size() && k < static_cast<size_t>(*count); ++k)
    out.push_back({stages[k].what, stages[k].where, stages[k].source, stages[k].writes, ms[k]});
  return out;
}

const Source& Kernel::source() const {
  return impl_->source;
}

namespace {

// The sizes of the unit's parameters, checked: every one given, each fitting a C
// int; a size that was fixed at compile time may be repeated with the same value.
std::vector<int> source_size_arguments(const Source::Impl& s, const Sizes& sizes) {
  const std::vector<std::string>& names = s.compiled.size_names;
  for (const auto& [name, value] : sizes) {
    if (std::find(names.begin(), names.end(), name) != names.end()) continue;
    auto fixed = s.fixed_sizes.find(name);
    if (fixed != s.fixed_sizes.end() && fixed->second == value) continue;
    if (fixed != s.fixed_sizes.end())
      bad_api_argument("size " + name + " was fixed to " + std::to_string(fixed->second) +
                       " at compile time, " + std::to_string(value) + " given");
    std::vector<std::string> known = names;
    for (const auto& [n, v] : s.fixed_sizes) known.push_back(n);
    const std::string near = nearest_name(name, known);
    bad_api_argument(
        "the kernel " + s.compiled.unit.name + " has no size parameter '" + name + "'" +
        (near.empty() ? std::string() : "; did you mean '" + near + "'?") +
        (names.empty() ? std::string(" (it takes none)") : " (its sizes: " + join(names) + ")"));
  }
  std::vector<int> out;
  for (const std::string& name : names) {
    auto it = sizes.find(name);
    if (it == sizes.end())
      bad_api_argument("size " + name + " has no value; the kernel " + s.compiled.unit.name +
                       " takes the sizes " + join(names));
    if (it->second < 1 || it->second > INT32_MAX)
      bad_api_argument("size " + name + " = " + std::to_string(it->second) +
                       " must be positive and fit in a C int");
    out.push_back(static_cast<int>(it->second));
  }
  return out;
}

}  // namespace

// The program's side conditions on the sizes (4 divides n), checked here so that a
// breaking size is an Error rather than the generated code's abort().
void api::check_conditions(const Source::Impl& s, const Sizes& sizes) {
  arith::Assignment env(sizes.begin(), sizes.end());
  for (const auto& [name, value] : s.fixed_sizes) env.emplace(name, value);
  for (const rise::Checked* c : {&s.compiled.high, &s.compiled.low})
    for (const rise::SideCondition& sc : c->conditions) {
      bool ok = true;
      try {
        if (sc.kind == rise::SideCondition::Kind::Divides) {
          int64_t d = arith::evaluate(sc.divides.divisor, env);
          ok = d != 0 && arith::evaluate(sc.divides.dividend, env) % d == 0;
        } else {
          ok = arith::evaluate(sc.value, env) >= 0;
        }
      } catch (const arith::ArithError&) {
        ok = false;
      }
      if (ok) continue;
      std::string at = sc.span.known() ? " at " + location(sc.span) : "";
      std::string given;
      for (const auto& [name, value] : sizes)
        given += (given.empty() ? "" : ", ") + name + " = " + std::to_string(value);
      bad_api_argument("the sizes (" + given + ") break a condition of " + s.compiled.unit.name +
                       ": " + sc.describe() + " (" + sc.primitive + at + ")");
    }
}

namespace {

size_t bytes_at(const rise::Type& t, const Source::Impl& s, const Sizes& sizes) {
  arith::Substitution at;
  for (const std::string& n : s.compiled.size_names)
    if (auto it = sizes.find(n); it != sizes.end()) at.emplace(n, arith::Nat(it->second));
  return runtime::c_layout(rise::substitute(t, rise::TypeSubst{at, {}, {}, {}})).size;
}

}  // namespace

size_t Kernel::bytes(const std::string& parameter, const Sizes& sizes) const {
  const Source::Impl& s = impl_->source.impl();
  source_size_arguments(s, sizes);
  // An input's own name first: "output" is the result only when no input has it.
  for (size_t i = 0; i < s.inputs.size(); ++i)
    if (s.inputs[i].name == parameter) return bytes_at(s.input_types[i], s, sizes);
  if (parameter == "output") return bytes_at(s.output_type, s, sizes);
  std::vector<std::string> names = {"output"};
  for (const auto& p : s.inputs) names.push_back(p.name);
  bad_api_argument("the kernel " + s.compiled.unit.name + " has no parameter '" + parameter +
                   "' (its parameters: " + join(names) + ")");
}

size_t Kernel::output_bytes(const Sizes& sizes) const {
  const Source::Impl& s = impl_->source.impl();
  source_size_arguments(s, sizes);
  return bytes_at(s.output_type, s, sizes);
}

void Kernel::operator()(const Buffer& output, const std::vector<Buffer>& inputs,
                        const Sizes& sizes) const {
  const Source::Impl& s = impl_->source.impl();
  const std::string& fn = s.compiled.unit.name;
  if (inputs.size() != s.inputs.size())
    bad_api_argument("the kernel " + fn + " takes " + std::to_string(s.inputs.size()) +
                     " input(s), " + std::to_string(inputs.size()) + " given");
  std::vector<int> size_args = source_size_arguments(s, sizes);
  api::check_conditions(s, sizes);
  auto check = [&](const Buffer& b, const Parameter& p, const rise::Type& t) {
    size_t want = bytes_at(t, s, sizes);
    // An empty array's memory may be null (PyTorch's, for one): not read or written.
    if (!b.data && (want != 0 || b.bytes != 0))
      bad_api_argument("the buffer for " + p.name + " of " + fn + " is null");
    if (b.element && p.element && *b.element != *p.element)
      bad_api_argument("the buffer for " + p.name + " of " + fn + " holds " +
                       scalar_type_name(*b.element) + ", the parameter (" + p.type + ") needs " +
                       scalar_type_name(*p.element));
    if (b.bytes != want)
      bad_api_argument("the buffer for " + p.name + " of " + fn + " has " +
                       std::to_string(b.bytes) + " bytes, the parameter (" + p.type + ") needs " +
                       std::to_string(want));
  };
  // The generated code is given a valid pointer for an empty array all the same.
  alignas(64) static unsigned char no_elements[64];
  auto pointer = [](const Buffer& b) { return b.data ? b.data : static_cast<void*>(no_elements); };
  check(output, s.output, s.output_type);
  std::vector<void*> buffers = {pointer(output)};
  for (size_t i = 0; i < inputs.size(); ++i) {
    check(inputs[i], s.inputs[i], s.input_types[i]);
    buffers.push_back(pointer(inputs[i]));
  }
  // The host code of a GPU target sets up the device on its first call (OpenCL:
  // platform, device, context, program build), which is not thread-safe across kernels (PoCL's
  // platform set-up crashes when two kernels do it at once). First calls of GPU kernels are
  // therefore serialised process-wide, here where every call of the API (C++ and Python) passes;
  // later calls run concurrently (the generated code locks its own buffers).
  const bool gpu = s.target == "opencl" || s.target == "cuda";
  if (gpu && !impl_->set_up.load(std::memory_order_acquire)) {
    static std::mutex set_up;
    std::lock_guard<std::mutex> lock(set_up);
    try {
      impl_->module.call(buffers, size_args);
    } catch (const Error& e) {
      // A fault of the data: the device was set up all the same. A failure of the device
      // (External) may have undone the set-up, which the next call then does again.
      if (e.kind() == ErrorKind::Fault) impl_->set_up.store(true, std::memory_order_release);
      throw;
    }
    impl_->set_up.store(true, std::memory_order_release);
    return;
  }
  impl_->module.call(buffers, size_args);
}

Kernel jit(const Program& program, const CompileOptions& options) {
  return Kernel(compile(program, options));
}

}  // namespace risec
