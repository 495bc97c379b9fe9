// `risec run`: compile, load, run, time and check generated code (see run.h).
#include "driver/run.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <optional>
#include <sstream>

#include "driver/api_impl.h"
#include "driver/memory_check.h"
#include "driver/sizes_from_inputs.h"
#include "rise/interp.h"
#include "runtime/isolated.h"
#include "runtime/jit.h"
#include "runtime/layout.h"
#include "runtime/npy.h"
#include "support/diagnostics.h"
#include "support/files.h"
#include "support/random.h"
#include "support/words.h"

namespace risec::driver {

namespace {

[[noreturn]] void run_usage(const std::string& msg) {
  throw Error(ErrorKind::Usage, msg);
}

double parse_double(const std::string& text, const std::string& what) {
  const char* s = text.c_str();
  char* end = nullptr;
  double v = std::strtod(s, &end);
  if (text.empty() || end != s + text.size() || !std::isfinite(v))
    run_usage(what + ": '" + text + "' is not a number");
  return v;
}

int parse_repeat(const std::string& text) {
  const char* s = text.c_str();
  char* end = nullptr;
  long v = std::strtol(s, &end, 10);
  if (text.empty() || end != s + text.size() || v < 1 || v > 1000000)
    run_usage("--repeat: '" + text + "' is not a positive number of runs");
  return static_cast<int>(v);
}

// numpy-like text for an array: dtype, shape and values (elided when long), as
// `risec eval` prints its result.

std::string format_ms(double ms) {
  char buf[64];
  if (ms >= 1)
    std::snprintf(buf, sizeof buf, "%.3f", ms);
  else
    std::snprintf(buf, sizeof buf, "%.3g", ms);
  return buf;
}

std::string format_g(double x, int digits = 3) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*g", digits, x);
  return buf;
}

// ---- --flops expressions ----

class SizeExprParser {
 public:
  SizeExprParser(const std::string& text, const rise::SizeMap& sizes) : s_(text), sizes_(sizes) {}

  double parse() {
    double v = expr();
    skip();
    if (pos_ != s_.size()) fail("unexpected '" + s_.substr(pos_, 1) + "'");
    // A flop count that overflows a double (2**n**n), or 0/0, would print "inf GFLOP/s"
    // or "nan GFLOP/s" as if measured: refused instead.
    if (!std::isfinite(v))
      run_usage(
          "--flops '" + s_ + "': the flop count is not a finite number (" +
          (std::isnan(v) ? std::string("not a number") : std::string("it overflows a double")) +
          ") at these sizes");
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& what) {
    run_usage("--flops '" + s_ + "': " + what + " at column " + std::to_string(pos_ + 1));
  }
  void skip() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  bool eat(const char* tok) {
    skip();
    size_t n = std::char_traits<char>::length(tok);
    if (s_.compare(pos_, n, tok) != 0) return false;
    pos_ += n;
    return true;
  }
  double expr() {
    double v = term();
    for (;;) {
      if (eat("+"))
        v += term();
      else if (eat("-"))
        v -= term();
      else
        return v;
    }
  }
  double term() {
    double v = unary();
    for (;;) {
      skip();
      if (s_.compare(pos_, 2, "**") != 0 && eat("*")) {
        v *= unary();
      } else if (eat("/")) {
        double d = unary();
        if (d == 0) fail("division by zero");
        v /= d;
      } else {
        return v;
      }
    }
  }
  double unary() {
    if (eat("-")) return -unary();
    if (eat("+")) return unary();
    double base = primary();
    if (eat("^") || eat("**")) return std::pow(base, unary());
    return base;
  }
  double primary() {
    skip();
    if (pos_ >= s_.size()) fail("expected a number, a size or '('");
    char c = s_[pos_];
    if (c == '(') {
      ++pos_;
      double v = expr();
      if (!eat(")")) fail("expected ')'");
      return v;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') {
      const char* begin = s_.c_str() + pos_;
      char* end = nullptr;
      double v = std::strtod(begin, &end);
      if (end == begin) fail("malformed number");
      pos_ += static_cast<size_t>(end - begin);
      return v;
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      size_t start = pos_;
      while (pos_ < s_.size() &&
             (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_'))
        ++pos_;
      std::string name = s_.substr(start, pos_ - start);
      auto it = sizes_.find(name);
      if (it == sizes_.end()) {
        pos_ = start;
        std::string known;
        for (const auto& [k, v] : sizes_) known += (known.empty() ? "" : ", ") + k;
        fail("'" + name + "' is not a size given with --size" +
             (known.empty() ? std::string("") : " (sizes: " + known + ")"));
      }
      return static_cast<double>(it->second);
    }
    fail("unexpected '" + std::string(1, c) + "'");
  }

  const std::string& s_;
  const rise::SizeMap& sizes_;
  size_t pos_ = 0;
};

// An environment variable set to `value` (unless empty) while it lives, then restored.
class EnvOverride {
 public:
  EnvOverride(const char* var, const std::string& value) : var_(var) {
    if (value.empty()) return;
    const char* old = std::getenv(var);
    if (old) old_ = old;
    ::setenv(var, value.c_str(), 1);
    set_ = true;
  }
  EnvOverride(const EnvOverride&) = delete;
  EnvOverride& operator=(const EnvOverride&) = delete;
  ~EnvOverride() {
    if (!set_) return;
    if (old_)
      ::setenv(var_, old_->c_str(), 1);
    else
      ::unsetenv(var_);
  }

 private:
  const char* var_;
  std::optional<std::string> old_;
  bool set_ = false;
};

// The sizes the unit still takes as parameters, in order.
std::vector<int> compiled_size_arguments(const Compiled& c, const rise::SizeMap& sizes) {
  std::vector<int> out;
  for (const std::string& name : c.size_names) {
    auto it = sizes.find(name);
    if (it == sizes.end()) user_error("size " + name + " has no value; pass --size");
    if (it->second < 0 || it->second > INT32_MAX)
      user_error("size " + name + " = " + std::to_string(it->second) + " does not fit in a C int");
    out.push_back(static_cast<int>(it->second));
  }
  return out;
}

}  // namespace

// ---------------------------------------------------------------------------------
// Inputs
// ---------------------------------------------------------------------------------

std::vector<EntryParam> value_parameters(const rise::Checked& checked) {
  std::vector<EntryParam> out;
  rise::Expr x = checked.expr;
  rise::Type t = checked.type;
  while (t->kind == rise::TypeKind::DepFun) t = t->b;
  while (x && x->kind == rise::ExprKind::DepLambda) x = x->fn;
  for (size_t i = 0; t->kind == rise::TypeKind::Fun; ++i, t = t->b) {
    std::string name = "input" + std::to_string(i);
    Span span;
    if (x && x->kind == rise::ExprKind::Lambda) {
      name = x->name;
      span = x->span;
      x = x->fn;
    } else {
      x = nullptr;
    }
    out.push_back({name, t->a, span});
  }
  return out;
}

std::vector<EntryParam> entry_parameters(const rise::Checked& checked) {
  rise::entry_signature(checked.type);  // the error naming a size without a value
  return value_parameters(checked);
}

rise::Type entry_result_type(const rise::Checked& checked) {
  return rise::entry_signature(checked.type).result;
}

std::map<std::string, std::string> parse_input_options(const std::vector<std::string>& texts,
                                                       const std::string& flag) {
  std::map<std::string, std::string> out;
  for (const std::string& in : texts) {
    size_t eq = in.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == in.size())
      run_usage(flag + " expects NAME=FILE.npy, got '" + in + "'");
    std::string name = in.substr(0, eq);
    if (!out.emplace(name, in.substr(eq + 1)).second)
      run_usage(flag + " " + name + " is given twice");
  }
  return out;
}

void check_input_names(const std::vector<std::string>& params,
                       const std::map<std::string, std::string>& files, const std::string& flag) {
  for (const auto& [name, file] : files) {
    if (std::find(params.begin(), params.end(), name) != params.end()) continue;
    std::string near = nearest_name(name, params);
    // The API's bind= names the parameter as its interface does (support/words.h);
    // another `flag` is the whole of how it was given.
    const std::string given = flag.rfind("--", 0) == 0 ? flag + " " + name
                              : flag == bind_word()    ? bind_given(name, file)
                                                       : flag;
    run_usage(given + ": the entry has no parameter named '" + name + "'" +
              (near.empty() ? std::string("") : " (did you mean '" + near + "'?)"));
  }
}

// Whether no value has type t: idx[0], or an array, vector or pair with such elements
// (arrays of inputs are never empty: sizes are positive).
static bool has_no_values(const rise::Type& t) {
  switch (t->kind) {
    case rise::TypeKind::Index:
      return t->size.is_const(0);
    case rise::TypeKind::Array:
    case rise::TypeKind::Vector:
      return !t->size.is_const(0) && has_no_values(t->a);
    case rise::TypeKind::Pair:
      return has_no_values(t->a) || has_no_values(t->b);
    default:
      return false;
  }
}

std::vector<rise::Value> make_inputs(const rise::Checked& checked,
                                     const std::map<std::string, std::string>& files,
                                     uint64_t seed) {
  ActivityScope activity("making the inputs");
  std::vector<EntryParam> params = entry_parameters(checked);
  std::vector<std::string> names;
  for (const auto& p : params) names.push_back(p.name);
  check_input_names(names, files);
  std::vector<rise::Value> out;
  for (size_t i = 0; i < params.size(); ++i) {
    const EntryParam& p = params[i];
    if (has_no_values(p.type))
      throw Error(ErrorKind::Usage,
                  "the input '" + p.name + "' has type " + rise::print(p.type) +
                      ", which has no values (idx[0] has none), so no input can be given",
                  p.span);
    auto it = files.find(p.name);
    if (it == files.end()) {
      out.push_back(rise::random_input(p.type, runtime::derive_seed(seed, i)));
      continue;
    }
    try {
      out.push_back(rise::from_ndarray(runtime::read_npy(it->second), p.type));
    } catch (const Error& e) {
      throw Error(e.kind(), "--input " + p.name + "=" + it->second + ": " + e.message(), e.span(),
                  e.note());
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------
// Execution
// ---------------------------------------------------------------------------------

runtime::CompileOptions c_compile_options(const Compiled& c, const ExecOptions& options) {
  runtime::CompileOptions co;
  co.openmp = c.unit.uses_openmp;
  co.extra_flags = options.extra_cflags;
  co.cuda = c.unit.uses_cuda;
  if (c.unit.uses_opencl) co.libs.push_back("-lOpenCL");
  return co;
}

Execution execute(const Compiled& c, const rise::SizeMap& sizes,
                  const std::vector<rise::Value>& inputs, const ExecOptions& options) {
  if (options.repeat < 1) internal_error("execute: repeat must be at least 1");
  ActivityScope activity("running the compiled program");
  // The unit's value parameters: the output, then the inputs (sizes are separate).
  std::vector<const codegen::CParam*> data_params;
  for (const auto& p : c.unit.params)
    if (!p.is_size) data_params.push_back(&p);
  if (data_params.size() != inputs.size() + 1)
    internal_error("the generated function takes " + std::to_string(data_params.size() - 1) +
                   " input(s), " + std::to_string(inputs.size()) + " given");
  const rise::Type out_type = entry_result_type(c.high);
  std::vector<rise::Type> in_types;
  for (const auto& p : entry_parameters(c.high)) in_types.push_back(p.type);
  if (in_types.size() != inputs.size())
    internal_error("execute: the entry takes " + std::to_string(in_types.size()) + " input(s), " +
                   std::to_string(inputs.size()) + " given");
  // A unit generic in sizes has symbolic parameter types: compare them at the sizes
  // it is called with (the entry `c.high` may be specialised to them).
  arith::Substitution at_sizes;
  for (const std::string& n : c.size_names)
    if (auto it = sizes.find(n); it != sizes.end()) at_sizes.emplace(n, arith::Nat(it->second));
  for (size_t i = 0; i < in_types.size(); ++i)
    if (!rise::equal(in_types[i], rise::substitute(data_params[i + 1]->dt,
                                                   rise::TypeSubst{at_sizes, {}, {}, {}})))
      internal_error("the generated function's input " + data_params[i + 1]->name + " has type " +
                     rise::print(data_params[i + 1]->dt) + ", the entry's " +
                     rise::print(in_types[i]));

  std::vector<int> size_args = compiled_size_arguments(c, sizes);
  std::vector<runtime::AlignedBuffer> in_bufs;
  for (size_t i = 0; i < inputs.size(); ++i)
    in_bufs.push_back(runtime::to_c_buffer(inputs[i], in_types[i]));
  runtime::CLayout out_layout = runtime::c_layout(out_type);
  if (out_layout.align > runtime::AlignedBuffer::kAlignment)
    user_error("results of type " + rise::print(out_type) + " need " +
               std::to_string(out_layout.align) + "-byte alignment; the runtime provides " +
               std::to_string(runtime::AlignedBuffer::kAlignment));

  const runtime::CompileOptions co = c_compile_options(c, options);
  // The host function reads the launch sizes from its environment (inherited by the
  // child that runs it), set for this call only.
  const bool cuda = c.unit.uses_cuda;
  EnvOverride global_size(cuda ? "RISEC_CUDA_GLOBAL" : "RISEC_OPENCL_GLOBAL", options.global);
  EnvOverride local_size(cuda ? "RISEC_CUDA_LOCAL" : "RISEC_OPENCL_LOCAL", options.local);
  Execution ex;
  using Clock = std::chrono::steady_clock;
  // A GPU program forked from a process that started OpenCL or CUDA itself would wait
  // forever for the platform's threads (runtime::gpu_runtime_loaded): it runs as a
  // fresh process instead, timed per process run.
  const bool fresh_process = (c.unit.uses_opencl || cuda) && runtime::gpu_runtime_loaded();
  if (options.mode == ExecMode::SharedObject && !fresh_process) {
    // In a forked child, so that a fault of the program is reported as its own
    // (runtime/isolated.h); the result is written straight into shared memory.
    // Every buffer at one offset in its page, runtime::kPlacementOffset, the inputs
    // copied there: with the output 64 bytes off the input's offset, softmax's and layer
    // norm's calls (4096 x 1024) took 19% and 28% longer on the AVX-512 Xeon, and the
    // inputs' own offset depended on how they were made (seeded, or read from .npy
    // files, which left them in glibc's heap): the timing measured where the buffers
    // lay, not the code (docs/performance.md).
    std::vector<runtime::PlacedBuffer> placed;
    for (auto& b : in_bufs) {
      placed.emplace_back(b.size(), runtime::kPlacementOffset);
      if (b.size()) std::memcpy(placed.back().data(), b.data(), b.size());
      b = runtime::AlignedBuffer();
    }
    runtime::SharedBuffer out_buf(out_layout.size, runtime::kPlacementOffset);
    std::vector<void*> buffers = {out_buf.data()};
    for (auto& b : placed) buffers.push_back(b.data());
    const bool keep = runtime::uses_openmp_runtime(co);
    runtime::Artifact a = runtime::build_shared_object(c.unit.source, co);
    ex.cache_hit = a.cache_hit;
    bool load_failed = false;
    runtime::CallInfo info;
    try {
      ex.times_ms = runtime::call_isolated(a.path, c.unit.name, keep, buffers, size_args,
                                           options.repeat, &load_failed, &info, options.timeout_s);
    } catch (const Error& e) {
      if (load_failed && !a.cache_hit) runtime::discard_unloadable(a.path, e);
      if (!load_failed) throw;
      // A damaged cache entry (e.g. copied between machines): build it again.
      std::remove(a.path.c_str());
      a = runtime::build_shared_object(c.unit.source, co);
      load_failed = false;
      try {
        ex.times_ms =
            runtime::call_isolated(a.path, c.unit.name, keep, buffers, size_args, options.repeat,
                                   &load_failed, &info, options.timeout_s);
      } catch (const Error& again) {
        if (load_failed) runtime::discard_unloadable(a.path, again);
        throw;
      }
    }
    if (info.timed_out) {
      if (!options.timeout_returns) {
        char limit[64];
        std::snprintf(limit, sizeof limit, "%g s", options.timeout_s);
        throw Error(ErrorKind::External, std::string("the program ran past its time limit (") +
                                             limit + ") and was stopped");
      }
      ex.timed_out = true;
      return ex;
    }
    ex.kernel_times = info.kernel_times;
    ex.device = info.device;
    ex.profile_ms = info.profile_ms;
    ex.faults_first_call = info.faults_first_call;
    ex.faults_later_calls = info.faults_later_calls;
    ex.output = runtime::from_c_bytes(out_buf.data(), out_type);
    return ex;
  }
  runtime::AlignedBuffer out_buf(out_layout.size);
  runtime::Artifact a = runtime::build_executable(c.unit.source, c.unit.name, co);
  ex.cache_hit = a.cache_hit;
  runtime::Executable exe(a.path);
  std::vector<runtime::Bytes> in_bytes;
  for (auto& b : in_bufs) in_bytes.push_back({b.data(), b.size()});
  runtime::Executable::Options eo;
  eo.timeout_s = options.timeout_s;
  for (int k = 0; k < options.repeat; ++k) {
    auto t0 = Clock::now();
    exe.call(out_buf.data(), out_buf.size(), in_bytes, size_args, eo);
    auto t1 = Clock::now();
    ex.times_ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  ex.output = runtime::from_c_bytes(out_buf.data(), out_type);
  return ex;
}

rise::Value interpret(const rise::Checked& checked, const std::vector<rise::Value>& inputs) {
  ActivityScope activity("interpreting the program");
  rise::Interpreter interp;
  return interp.run(checked.expr, inputs);
}

// The share of mismatching elements, as "0.15%": a few elements out of many (iteration
// counts of points on a fractal's border, where a fused multiply-add rounds one step
// differently) read differently from a wrong program.
static std::string share(const Comparison& cmp) {
  const double pct =
      cmp.elements ? 100.0 * static_cast<double>(cmp.mismatches) / static_cast<double>(cmp.elements)
                   : 0.0;
  return format_g(pct, pct < 1 ? 2 : 3) + "%";
}

// "[2][5]": the position of the i-th element (row-major) of an array of `shape`.
static std::string flat_position(const std::vector<int64_t>& shape, int64_t i) {
  std::vector<int64_t> at(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    at[d] = shape[d] ? i % shape[d] : 0;
    i = shape[d] ? i / shape[d] : 0;
  }
  std::string s;
  for (int64_t k : at) s += "[" + std::to_string(k) + "]";
  return s.empty() ? "[]" : s;
}

// The floating-point leaves' part of error_summary.
static std::string float_error_summary(const Comparison& cmp) {
  const int64_t odd = cmp.nonfinite_mismatches;
  if (odd == 0) return "max abs error " + format_g(cmp.max_abs_error);
  const std::string what = " NaN or infinite against a different value";
  if (odd == cmp.mismatches)  // the first mismatch shown is one of them
    return (odd == 1 ? "it is" : "all " + std::to_string(odd) + " are") + what +
           ", which no finite error measures";
  return std::to_string(odd) + " of them" + what + " (first: " + cmp.first_nonfinite +
         "); max abs error of the others " + format_g(cmp.max_abs_error);
}

std::string error_summary(const Comparison& cmp) {
  const bool has_floats = cmp.elements > cmp.integer_elements;
  const std::string ints = "max integer difference " + std::to_string(cmp.max_integer_difference);
  if (!has_floats) return ints;
  if (cmp.max_integer_difference == 0) return float_error_summary(cmp);
  return float_error_summary(cmp) + "; " + ints;
}

// |a - b| of two integer leaves of type T, exact in 64 bits.
template <typename T>
static uint64_t integer_difference(const unsigned char* a, const unsigned char* b) {
  T x, y;
  std::memcpy(&x, a, sizeof x);
  std::memcpy(&y, b, sizeof y);
  if (x < y) std::swap(x, y);
  return static_cast<uint64_t>(x) - static_cast<uint64_t>(y);
}

static uint64_t integer_difference(runtime::DType t, const unsigned char* a,
                                   const unsigned char* b) {
  switch (t) {
    case runtime::DType::Bool:
    case runtime::DType::U8:
      return integer_difference<uint8_t>(a, b);
    case runtime::DType::I8:
      return integer_difference<int8_t>(a, b);
    case runtime::DType::I16:
      return integer_difference<int16_t>(a, b);
    case runtime::DType::U16:
      return integer_difference<uint16_t>(a, b);
    case runtime::DType::I32:
      return integer_difference<int32_t>(a, b);
    case runtime::DType::U32:
      return integer_difference<uint32_t>(a, b);
    case runtime::DType::I64:
      return integer_difference<int64_t>(a, b);
    case runtime::DType::U64:
      return integer_difference<uint64_t>(a, b);
    case runtime::DType::F32:
    case runtime::DType::F64:
      break;
  }
  internal_error("integer_difference: a floating-point leaf");
}

Comparison compare_values(const rise::Value& got, const rise::Value& expected,
                          const rise::Type& type, double rtol, double atol,
                          const rise::RoundingBound* bound) {
  Comparison r;
  std::vector<runtime::NdArray> a = rise::to_ndarrays(got, type);
  std::vector<runtime::NdArray> b = rise::to_ndarrays(expected, type);
  if (a.size() != b.size()) internal_error("compare_values: different leaf counts");
  if (rtol == 0 && atol == 0) bound = nullptr;  // bit-identical results demanded
  std::vector<runtime::NdArray> mag, cnt;
  if (bound) {
    mag = rise::to_ndarrays(bound->magnitude, type);
    cnt = rise::to_ndarrays(bound->count, type);
    if (mag.size() != a.size() || cnt.size() != a.size())
      internal_error("compare_values: the rounding bound has different leaves");
  }
  for (size_t l = 0; l < a.size(); ++l) {
    const runtime::NdArray& x = a[l];
    const runtime::NdArray& y = b[l];
    if (x.dtype != y.dtype || x.shape != y.shape)
      internal_error("compare_values: different leaf shapes");
    const int64_t n = x.count();
    r.elements += n;
    const bool f64 = x.dtype == runtime::DType::F64;
    if (bound && (f64 || x.dtype == runtime::DType::F32) &&
        (mag[l].dtype != x.dtype || cnt[l].dtype != x.dtype || mag[l].count() != n ||
         cnt[l].count() != n))
      internal_error("compare_values: the rounding bound has different leaf shapes");
    auto bound_at = [&](int64_t i) {
      if (!bound) return 0.0;
      const runtime::NdArray& m = mag[l];
      const runtime::NdArray& k = cnt[l];
      return f64 ? rise::rounding_allowance(bound->unit_roundoff, m.as<double>()[i],
                                            k.as<double>()[i])
                 : rise::rounding_allowance(bound->unit_roundoff, m.as<float>()[i],
                                            k.as<float>()[i]);
    };
    auto where = [&](double p, double q, int64_t i) {
      return "element " + flat_position(x.shape, i) +
             (a.size() > 1 ? " of part " + std::to_string(l + 1) : "") + ": " + format_g(p) +
             " vs " + format_g(q);
    };
    auto close = [&](double p, double q, int64_t i) {
      if (std::isfinite(p) && std::isfinite(q)) {
        double d = std::fabs(p - q);
        r.max_abs_error = std::max(r.max_abs_error, d);
        const double tol = atol + rtol * std::max(std::fabs(p), std::fabs(q));
        if (d <= tol) return true;
        const double allowance = bound_at(i);
        if (d <= tol + allowance) {
          ++r.within_rounding_bound;
          r.max_allowance_used = std::max(r.max_allowance_used, allowance);
          return true;
        }
        return false;
      }
      if (std::isnan(p) ? std::isnan(q) : p == q) return true;  // the same NaN or infinity
      if (r.nonfinite_mismatches++ == 0) r.first_nonfinite = where(p, q, i);
      return false;
    };
    if (x.dtype == runtime::DType::F32) {
      const float* p = x.as<float>();
      const float* q = y.as<float>();
      for (int64_t i = 0; i < n; ++i) r.mismatches += !close(p[i], q[i], i);
    } else if (f64) {
      const double* p = x.as<double>();
      const double* q = y.as<double>();
      for (int64_t i = 0; i < n; ++i) r.mismatches += !close(p[i], q[i], i);
    } else {
      const size_t es = runtime::dtype_size(x.dtype);
      r.integer_elements += n;
      for (int64_t i = 0; i < n; ++i) {
        const auto* p = reinterpret_cast<const unsigned char*>(x.data.data()) + i * es;
        const auto* q = reinterpret_cast<const unsigned char*>(y.data.data()) + i * es;
        if (std::memcmp(p, q, es) == 0) continue;
        ++r.mismatches;
        r.max_integer_difference =
            std::max(r.max_integer_difference, integer_difference(x.dtype, p, q));
      }
    }
  }
  r.ok = r.mismatches == 0;
  if (!r.ok) {
    std::string where;
    if (rise::values_close(got, expected, rtol, atol, &where, bound))
      where = "(no single element located)";
    r.first_mismatch = where;
  }
  return r;
}

std::optional<rise::RoundingBound> rounding_bound(const rise::Checked& checked,
                                                  const std::vector<rise::Value>& inputs) {
  ActivityScope activity("computing the rounding bound of --check");
  return rise::rounding_bound(checked.expr, inputs);
}

double eval_size_expr(const std::string& expr, const rise::SizeMap& sizes) {
  return SizeExprParser(expr, sizes).parse();
}

// ---------------------------------------------------------------------------------
// The subcommand
// ---------------------------------------------------------------------------------

void check_bound_not_input(const std::map<std::string, std::string>& files,
                           const std::map<std::string, std::string>& binds) {
  for (const auto& [name, file] : binds)
    if (files.count(name))
      run_usage("--bind " + name + ": the parameter " + name + " is also given with --input; " +
                "give it once");
}

std::vector<rise::Value> unbound_inputs(const rise::Checked& unbound,
                                        const std::map<std::string, std::string>& files,
                                        const std::map<std::string, std::string>& binds,
                                        uint64_t seed) {
  const std::vector<EntryParam> params = entry_parameters(unbound);
  const std::vector<rise::Value> all = make_inputs(unbound, files, seed);
  std::vector<rise::Value> inputs;
  for (size_t i = 0; i < params.size(); ++i)
    if (!binds.count(params[i].name)) inputs.push_back(all[i]);
  return inputs;
}

static_assert(runtime::kMaxProfileStages == codegen::kMaxProfileStages);

// `run --profile`: each stage's mean time per call and share of the mean call, and the
// time outside the stages (allocations, the entry's checks, scalar code).
static void print_profile(const Compiled& c, const Execution& ex, std::ostream& out) {
  const std::vector<codegen::ProfileStage>& stages = c.unit.profile_stages;
  const double calls = static_cast<double>(ex.times_ms.size());
  double call_ms = 0;
  for (double t : ex.times_ms) call_ms += t;
  call_ms /= calls;
  out << "profile: " << stages.size() << (stages.size() == 1 ? " stage" : " stages")
      << ", milliseconds per call (mean of " << ex.times_ms.size()
      << (ex.times_ms.size() == 1 ? " call" : " calls") << ")\n";
  double staged = 0;
  auto row = [&](double ms, const std::string& what) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%12.4f %6.1f%%  ", ms, call_ms > 0 ? 100 * ms / call_ms : 0.0);
    out << buf << what << "\n";
  };
  for (size_t k = 0; k < stages.size() && k < ex.profile_ms.size(); ++k) {
    const double ms = ex.profile_ms[k] / calls;
    staged += ms;
    const codegen::ProfileStage& s = stages[k];
    row(ms, s.what + (s.where.empty() ? " (made by the translation)" : " at " + s.where) +
                (s.writes.empty() ? "" : " -> " + s.writes) +
                (s.source.empty() ? "" : "  | " + s.source));
  }
  row(std::max(0.0, call_ms - staged),
      "outside the stages (allocation, checks, scalar code" +
          (c.unit.profile_untimed
               ? ", and " + std::to_string(c.unit.profile_untimed) + " loop nest(s) past the " +
                     std::to_string(codegen::kMaxProfileStages) + " timed"
               : std::string()) +
          ")");
}

int cmd_run(const RunArgs& o) {
  require_strategy_for_params(o.params, o.strategy);
  if (!o.check && (!o.rtol_text.empty() || !o.atol_text.empty()))
    run_usage("--rtol and --atol set the tolerance of --check; add --check");
  const double rtol = o.rtol_text.empty() ? kDefaultRtol : parse_double(o.rtol_text, "--rtol");
  const double atol = o.atol_text.empty() ? kDefaultAtol : parse_double(o.atol_text, "--atol");
  if (rtol < 0 || atol < 0) run_usage("--rtol and --atol must not be negative");
  const int repeat = o.repeat_text.empty() ? 1 : parse_repeat(o.repeat_text);
  int warmup = 0;
  if (!o.warmup_text.empty()) {
    const char* s = o.warmup_text.c_str();
    char* end = nullptr;
    const long v = std::strtol(s, &end, 10);
    if (end != s + o.warmup_text.size() || v < 0 || v > 1000000)
      run_usage("--warmup: '" + o.warmup_text + "' is not a number of runs (0 or more)");
    warmup = static_cast<int>(v);
  }
  const uint64_t seed = parse_seed(o.seed_text);
  const std::map<std::string, std::string> files = parse_input_options(o.inputs);
  const std::map<std::string, std::string> binds = parse_input_options(o.binds, "--bind");
  check_bound_not_input(files, binds);

  rise::Program p = load_program(o.file);
  rise::SizeMap sizes = parse_sizes(o.sizes_text);
  sizes_from_inputs(p, o.entry, files, &sizes, binds);
  double flops = 0;
  if (!o.flops.empty()) flops = eval_size_expr(o.flops, sizes);
  // Every size must be known before spending time on the strategy.
  const rise::Checked unbound = rise::check_program(p, o.entry, &sizes);
  rise::entry_signature(unbound.type);  // the error naming a size without a value
  check_memory_needs(unbound, /*with_interpreter=*/o.check);
  // Before the work: an --output that is a directory, or in one that cannot be written.
  if (!o.output.empty()) check_output_file(o.output, "--output");
  // Compiled through the public API (include/risec/risec.h), as `risec compile` is.
  risec::CompileOptions co;
  co.entry = o.entry;
  co.sizes = sizes;
  if (!o.strategy.empty()) co.strategy = api::wrap(load_strategy(o.strategy, o.params));
  co.target = o.target;
  co.trace = o.trace;
  co.simplify = !o.no_simplify;
  co.shift_tails = !o.no_shift_tails;
  co.bounds_checks = !o.no_bounds_checks;
  co.profile = o.profile;
  co.bind = binds;
  if (!o.db.empty() && !o.tuned)
    run_usage("--db names the tuning database of --tuned; add --tuned");
  co.tuned = o.tuned;
  co.tuning_db = o.db;
  const risec::Source source = [&] {
    ActivityScope activity("compiling the program");
    return risec::compile(api::wrap(std::move(p)), co);
  }();
  const Compiled& c = source.impl().compiled;
  if (o.dump_dpia) std::cerr << dpia::print(c.dpia);

  // The bound inputs are constants of the compiled program (and of c.high, the
  // interpreter's program).
  std::vector<rise::Value> inputs = unbound_inputs(unbound, files, binds, seed);
  ExecOptions eo;
  // The warm-up calls run first in the same child (its OpenMP threads started, its
  // pages and caches warm), and their times are dropped below.
  eo.repeat = warmup + repeat;
  for (const auto& [flag, text] :
       {std::pair{"--global", &o.global}, std::pair{"--local", &o.local}}) {
    if (text->empty()) continue;
    if (!c.unit.uses_opencl && !c.unit.uses_cuda)
      run_usage(std::string(flag) +
                " sets a GPU launch size: add --target opencl or --target cuda");
    // Up to three comma-separated positive numbers (no empty part, no leading 0).
    std::istringstream parts(*text + ",");
    int count = 0;
    bool ok = true;
    for (std::string part; std::getline(parts, part, ',');) {
      const bool number = !part.empty() && part[0] != '0' &&
                          part.find_first_not_of("0123456789") == std::string::npos;
      if (number && part.size() > 9)
        run_usage(std::string(flag) + " " + part +
                  " is too large: a launch size is at most 999999999");
      ok = ok && ++count <= 3 && number;
    }
    if (!ok)
      run_usage(std::string(flag) + " expects up to three positive sizes N[,M[,K]], got '" + *text +
                "'");
  }
  eo.global = o.global;
  eo.local = o.local;
  Execution ex = [&] {
    try {
      return execute(c, sizes, inputs, eo);
    } catch (const Error& e) {
      // A CPU OpenCL device (PoCL) runs a work group's work items on one stack: a
      // --local of many work items, each with private arrays, can overflow it, which
      // ends in SIGSEGV as an index out of bounds would (held-out finding F7).
      const char* env = std::getenv("RISEC_OPENCL_LOCAL");
      const std::string given = !o.local.empty() ? "--local " + o.local
                                : env && *env    ? std::string("RISEC_OPENCL_LOCAL=") + env
                                                 : "";
      if (given.empty() || !c.unit.uses_opencl ||
          e.message().find("SIGSEGV") == std::string::npos || !e.note().empty())
        throw;
      throw e.with_note("with " + given +
                        ": on a CPU OpenCL device a work group's work items share one stack, "
                        "which private arrays of that many work items can overflow; try a "
                        "smaller work group");
    }
  }();
  const rise::Type out_type = entry_result_type(c.high);

  // The result, as eval writes or prints it.
  emit_result(rise::to_ndarrays(ex.output, out_type), o.output, o.full);
  if (!ex.device.empty())
    std::cout << (c.unit.uses_cuda ? "cuda: " : "opencl: ") << ex.device << "\n";

  const size_t skip = std::min(static_cast<size_t>(warmup), ex.times_ms.size() - 1);
  std::vector<double> sorted(ex.times_ms.begin() + static_cast<std::ptrdiff_t>(skip),
                             ex.times_ms.end());
  std::sort(sorted.begin(), sorted.end());
  const double median = sorted.size() % 2
                            ? sorted[sorted.size() / 2]
                            : (sorted[sorted.size() / 2 - 1] + sorted[sorted.size() / 2]) / 2;
  if (o.repeat_text.empty())
    std::cout << "time: " << format_ms(sorted[0]) << " ms\n";
  else
    std::cout << "time: min " << format_ms(sorted[0]) << " ms, median " << format_ms(median)
              << " ms (" << sorted.size() << (sorted.size() == 1 ? " run" : " runs")
              << (ex.kernel_times ? ", kernel time" : "") << ")\n";
  if (o.profile) print_profile(c, ex, std::cout);
  if (!o.flops.empty()) {
    double gflops = median > 0 ? flops / (median * 1e6) : 0;
    std::cout << "performance: " << format_g(gflops, 4) << " GFLOP/s (" << format_g(flops, 4)
              << " flop in " << format_ms(median) << " ms)\n";
  }
  std::cout.flush();

  if (o.check) {
    rise::Value expected = interpret(c.high, inputs);
    Comparison cmp = compare_values(ex.output, expected, out_type, rtol, atol);
    // The rounding bound's two shadow runs only when the tolerance alone fails.
    if (!cmp.ok && (rtol != 0 || atol != 0))
      if (const std::optional<rise::RoundingBound> bound = rounding_bound(c.high, inputs))
        cmp = compare_values(ex.output, expected, out_type, rtol, atol, &*bound);
    if (!cmp.ok)
      throw Error(ErrorKind::Mismatch, "check failed: " + std::to_string(cmp.mismatches) + " of " +
                                           std::to_string(cmp.elements) + " elements (" +
                                           share(cmp) + ") differ from the interpreter (rtol " +
                                           format_g(rtol) + ", atol " + format_g(atol) +
                                           "); first: " + cmp.first_mismatch +
                                           " (compiled vs interpreter); " + error_summary(cmp));
    std::cout << "check: passed (" << cmp.elements << " elements, max abs error "
              << format_g(cmp.max_abs_error);
    if (cmp.within_rounding_bound)
      std::cout << "; " << cmp.within_rounding_bound << " of them beyond rtol/atol but within"
                << " the rounding bound of a reordered evaluation, at most "
                << format_g(cmp.max_allowance_used);
    std::cout << ")\n";
  }
  return 0;
}

}  // namespace risec::driver
