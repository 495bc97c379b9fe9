// `risec run` (spec/cli.md) and the library calls under it: compile a program with a
// strategy, run the generated code on the inputs `risec eval` would use (the same
// files, or the same seeded random data), time it, and check it against the
// reference interpreter. The end-to-end tests call these functions directly.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "driver/commands.h"
#include "driver/compile.h"
#include "rise/check.h"
#include "rise/rounding_bound.h"
#include "rise/value.h"
#include "runtime/jit.h"

namespace risec::driver {

// --check tolerances when --rtol/--atol are not given: float results must satisfy
// |got - expected| <= atol + rtol * max(|got|, |expected|) + allowance element by
// element, the allowance the rounding bound of any evaluation order of the same
// expression (rise/rounding_bound.h) where compare_values is given one, and 0 when
// rtol and atol are both 0 (bit-identical results).
inline constexpr double kDefaultRtol = 1e-4;
inline constexpr double kDefaultAtol = 1e-5;

// One value parameter of the entry (its leading `fun` parameters, in order).
struct EntryParam {
  std::string name;
  rise::Type type;
  Span span = {};  // the parameter's lambda, when the entry names it
};
// The value parameters of a checked entry whose sizes are all given. Throws
// risec::Error (User) "size n has no value; pass --size" when one is missing.
std::vector<EntryParam> entry_parameters(const rise::Checked& checked);
// The value parameters of a checked entry, its sizes given or not (their types are
// then symbolic in them).
std::vector<EntryParam> value_parameters(const rise::Checked& checked);
// The entry's result type (same conditions).
rise::Type entry_result_type(const rise::Checked& checked);

// "NAME=FILE.npy" texts of --input (or `flag`: --bind) as a map (Usage error when
// malformed or repeated).
std::map<std::string, std::string> parse_input_options(const std::vector<std::string>& texts,
                                                       const std::string& flag = "--input");

// A Usage error naming a parameter given both with --bind (`binds`) and --input.
void check_bound_not_input(const std::map<std::string, std::string>& files,
                           const std::map<std::string, std::string>& binds);

// The inputs of the program without --bind (make_inputs of `unbound`: the same seeded
// data), less the bound ones, which are constants of the bound program.
std::vector<rise::Value> unbound_inputs(const rise::Checked& unbound,
                                        const std::map<std::string, std::string>& files,
                                        const std::map<std::string, std::string>& binds,
                                        uint64_t seed);

// A Usage error naming a key of `files` that is none of the parameter names `params`
// (with the nearest name as a suggestion), as an error of the option `flag`.
void check_input_names(const std::vector<std::string>& params,
                       const std::map<std::string, std::string>& files,
                       const std::string& flag = "--input");

// The inputs exactly as `risec eval` makes them: parameter i is read from
// files[name] when given (risec::Error User naming the option and file when its
// shape or element type is wrong), else rise::random_input(type, derive_seed(seed,
// i)). A name in `files` that is no parameter is a Usage error.
std::vector<rise::Value> make_inputs(const rise::Checked& checked,
                                     const std::map<std::string, std::string>& files,
                                     uint64_t seed);

// How generated code is executed.
enum class ExecMode {
  SharedObject,  // compiled to a shared object, loaded and called in a forked child
                 // (runtime/isolated.h): a fault of the program is an Error (External)
  Standalone,    // linked into a standalone program run as a child process (use this
                 // with runtime::sanitizer_flags() in extra_cflags)
};

struct ExecOptions {
  ExecMode mode = ExecMode::SharedObject;
  std::vector<std::string> extra_cflags;  // appended to the compiler flags
  int repeat = 1;                         // number of timed calls (at least 1)
  // Kill the program after this long (0: no limit): Standalone, each process run;
  // SharedObject, the forked child from its start (loading included). A program
  // stopped so is an Error (External), or with `timeout_returns` an Execution with
  // `timed_out` set (a search's measurement: "slower than the limit" is its answer).
  double timeout_s = 0;
  bool timeout_returns = false;
  // OpenCL: the launch sizes instead of the program's ("N" or "N,M,..." per
  // dimension; $RISEC_OPENCL_GLOBAL / $RISEC_OPENCL_LOCAL of the host function).
  std::string global, local;
};

struct Execution {
  rise::Value output;            // of the entry's result type
  std::vector<double> times_ms;  // wall time of each call (Standalone: of each process run)
  bool cache_hit = false;        // the compiled code came from the cache
  // OpenCL: times_ms are the kernels' time (profiling events), and where they ran
  // ("platform NAME, device NAME"; SharedObject mode).
  bool kernel_times = false;
  std::string device;
  // A unit compiled with profiling (SharedObject mode): each stage's milliseconds,
  // summed over the calls (the stages are the unit's CUnit::profile_stages).
  std::vector<double> profile_ms;
  // SharedObject mode: the program's minor page faults during its first call and
  // during the calls after it, together (runtime::CallInfo).
  long faults_first_call = 0;
  long faults_later_calls = 0;
  // SharedObject mode with ExecOptions::timeout_returns: the program ran past
  // timeout_s and was killed; `output` and `times_ms` are empty.
  bool timed_out = false;
};

// The C compiler's options execute() uses for the unit (so that building it ahead,
// e.g. in parallel, fills the cache execute() reads).
runtime::CompileOptions c_compile_options(const Compiled& c, const ExecOptions& options = {});

// Run the compiled unit on `inputs` (values of the entry's parameter types), with
// the sizes the unit still has as parameters taken from `sizes`. Errors:
// risec::Error External when the C compiler fails or the program fails in
// SharedObject mode (killed by a signal: "the program was killed by SIGFPE ...");
// Internal when a standalone program fails (a sanitizer report, a crash); User when
// a size is missing.
Execution execute(const Compiled& compiled, const rise::SizeMap& sizes,
                  const std::vector<rise::Value>& inputs, const ExecOptions& options = {});

// The reference interpreter on the checked (high-level) program.
rise::Value interpret(const rise::Checked& checked, const std::vector<rise::Value>& inputs);

struct Comparison {
  bool ok = true;
  int64_t elements = 0;        // scalar leaves compared (vector lanes, pair components)
  int64_t mismatches = 0;      // leaves outside the tolerance
  double max_abs_error = 0;    // over floating-point leaves (NaN/inf pairs excluded)
  std::string first_mismatch;  // "element [3][7]: 1.5 vs 1.25" (got vs expected)
  // Mismatches where either side is NaN or infinite (NaN vs a number or infinity, an
  // infinity vs a number or the other infinity): no finite error measures them, so
  // max_abs_error leaves them out and the summary counts them instead.
  int64_t nonfinite_mismatches = 0;
  std::string first_nonfinite;  // "element [2]: nan vs 1", as first_mismatch
  // Integer, boolean and index leaves, compared exactly: how many there are, and the
  // largest difference |got - expected| among them (exact: two 64-bit values differ by
  // less than 2^64).
  int64_t integer_elements = 0;
  uint64_t max_integer_difference = 0;
  // Float leaves outside atol + rtol * max(|got|, |expected|) but within the rounding
  // allowance (a reassociated sum, a contracted multiply-add), and the largest
  // allowance among them.
  int64_t within_rounding_bound = 0;
  double max_allowance_used = 0;
};
// Compare a result with the interpreter's (rise::values_close semantics), with the
// rounding allowance of `bound` (of `expected`'s program and inputs) when given.
Comparison compare_values(const rise::Value& got, const rise::Value& expected,
                          const rise::Type& type, double rtol = kDefaultRtol,
                          double atol = kDefaultAtol, const rise::RoundingBound* bound = nullptr);

// The rounding bound of the checked program on `inputs` (rise::rounding_bound):
// nullopt when the program has none.
std::optional<rise::RoundingBound> rounding_bound(const rise::Checked& checked,
                                                  const std::vector<rise::Value>& inputs);

// What `run --check` says after "check failed: ..." and "check: passed (N elements":
// the maximum absolute error over the finite mismatches, and the NaN/inf mismatches
// counted with the first of them ("2 of them NaN or infinite against a different
// value, first element [2]: nan vs 1; max abs error of the others 0.25"). A result
// without floating-point leaves says "max integer difference N" instead, and one with
// both kinds says both when integers differ.
std::string error_summary(const Comparison& cmp);

// Evaluates an arithmetic expression over size names and numbers (+ - * / ^,
// parentheses, unary minus), e.g. "2*n*m*k" (--flops). Throws risec::Error (Usage)
// naming the unknown size or the syntax error.
double eval_size_expr(const std::string& expr, const rise::SizeMap& sizes);

// The `run` subcommand.
int cmd_run(const RunArgs& o);

}  // namespace risec::driver
