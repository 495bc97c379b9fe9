// Helpers for end-to-end tests: compile a RISE program with a strategy, run the
// generated code (as a shared object, or as a sanitized standalone program) on
// seeded random inputs, and compare with the reference interpreter; and run the
// `risec` binary itself.
//
//   EXPECT_TRUE(compile_and_check("examples/mv/mv.rise", "DFNF ; ...", "n=64,m=32"));
//   EXPECT_TRUE(compile_and_check("examples/mm/mm.rise", "examples/mm/baseline.elv",
//                                 "n=64,m=64,k=64", "openmp", /*sanitize=*/true));
//
// Each test binary that includes this uses a private, empty cache of compiled code
// (RISEC_CACHE_DIR, removed at exit) unless RISEC_CACHE_DIR is already set.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "driver/compile.h"
#include "driver/run.h"

namespace risec::e2e {

// A path in the source tree ("examples/mv/mv.rise"); absolute paths are unchanged.
std::string source_path(const std::string& relative);

// How often `what` occurs in `s` (overlapping occurrences counted).
int occurrences(const std::string& s, const std::string& what);

struct CheckOptions {
  std::string target = "c";  // c | openmp
  bool sanitize = false;     // standalone program under -fsanitize=address,undefined
  uint64_t seed = 0;
  double rtol = driver::kDefaultRtol;
  double atol = driver::kDefaultAtol;
  std::string entry;  // empty: the last definition
  // Compile without the sizes (code generic in them, checking its preconditions on
  // entry) and run it as a standalone process with `sizes` as arguments; the
  // interpreter runs the program specialised to them. A violated precondition is an
  // Error (Internal, holding the program's message).
  bool generic = false;
  // --input and --bind: parameter name -> .npy file (driver/bind.h); the other
  // inputs are drawn from `seed`.
  std::map<std::string, std::string> inputs, bind;
  // Innermost loops with shifted tails (dpia/shift_tail.h; --no-shift-tails when false).
  bool shift_tails = true;
  // A strategy given as text: its name in messages, and where its imports are resolved
  // from (a source path such as an example's, for an edited copy of it).
  std::string strategy_name;  // "": <strategy>, imports from the current directory
};

struct CheckReport {
  driver::Compiled compiled;
  std::vector<rise::Value> inputs;
  driver::Execution execution;
  rise::Value expected;
  driver::Comparison comparison;
};

// `strategy`: a path to an .elv file (relative to the source tree or absolute), the
// text of a strategy, or "" for the default lowering. `sizes`: "n=64,m=32". Throws
// risec::Error as the pipeline does.
CheckReport run_and_compare(const std::string& file, const std::string& strategy,
                            const std::string& sizes, const CheckOptions& options = {});

// run_and_compare as a gtest assertion: failure messages hold the formatted error
// (compile errors, compiler output, sanitizer reports) or the first mismatch.
::testing::AssertionResult compile_and_check(const std::string& file, const std::string& strategy,
                                             const std::string& sizes,
                                             const std::string& target = "c",
                                             bool sanitize = false);
::testing::AssertionResult compile_and_check(const std::string& file, const std::string& strategy,
                                             const std::string& sizes, const CheckOptions& options);

// Runs risec::test::risec_binary() with `args` (runtime::run_process, in the source tree so that
// relative example paths work), with extra environment entries "NAME=VALUE".
struct CliResult {
  int exit_code = -1;  // -1 when killed by a signal
  std::string out, err;
};
CliResult run_risec(const std::vector<std::string>& args, const std::vector<std::string>& env = {});
// The exit code, stdout and stderr of a run, for failure messages.
std::string show(const CliResult& r);

// Every example with small sizes its strategies divide, for the fuzz tests:
// {"mm", "n=16,m=16,k=16"}, ... The program is examples/NAME/NAME.rise.
struct ExampleSizes {
  const char* name;
  const char* sizes;
};
const std::vector<ExampleSizes>& fuzz_examples();

// Small sizes satisfying each example's constraints (multiples of 16 where a
// strategy vectorises or tiles by 16 or 32), by example name: every example has one.
const std::map<std::string, std::string>& example_sizes();

// Whether a strategy's text uses a GPU primitive (mapGlobal, mapWorkGroup, mapLocal,
// toGlobal, toLocal, toPrivate, oclReduceSeq): it targets OpenCL or CUDA.
bool uses_gpu_primitives(const std::string& strategy_text);

// Every program under examples/ (not the embedding project) with the default
// lowering (strategy "", target "c") and then each of its .elv strategies, in order
// of example and file name, with the target it runs on: opencl for a strategy using
// a GPU primitive, openmp for a parallel one (its name says so, or it uses
// `parallel @` or mapPar), else c.
struct ExampleStrategy {
  std::string example;   // folder name
  std::string file;      // examples/NAME/NAME.rise
  std::string strategy;  // "" for the default lowering, else examples/NAME/S.elv
  std::string target;
};
std::vector<ExampleStrategy> example_strategies();
// A gtest parameter name for one: "mm_parallel", "mm_default".
std::string example_case_name(const std::string& example, const std::string& strategy);

// The scalars of a value in row-major order (nested arrays flattened).
std::vector<double> flat_values(const rise::Value& v);

// Every GPU strategy of the examples (examples/NAME/S.elv using a GPU primitive),
// with the example's sizes, in order of example and file name.
struct GpuStrategy {
  std::string example;   // NAME; the program is examples/NAME/NAME.rise
  std::string strategy;  // examples/NAME/S.elv
  std::string sizes;     // example_sizes() of NAME
};
std::vector<GpuStrategy> gpu_strategies();

// A file in a per-process scratch directory (created on first use, removed at exit).
std::string scratch_path(const std::string& name);
// Whether the preprocessor condition `guard` holds for the C compiler with risec's
// flags (the guard of a whole-vector helper, `#if ... #else` lane loop `#endif`).
bool guard_holds(const std::string& guard);
// Reads generated C line by line and says whether a line is in the lane-loop fallback
// (`#else`) of a whole-vector helper that this compiler's target does not compile:
// the helper's forms are `#if` (AVX-512) and `#elif` (AVX2) branches, and the fallback
// is skipped where any of their guards holds.
class FallbackLines {
 public:
  bool skipped(const std::string& line);

 private:
  std::vector<std::string> guards_;
  bool skip_ = false;
};
// Writes `text` to scratch_path(name) and returns the path.
std::string write_scratch(const std::string& name, const std::string& text);

}  // namespace risec::e2e
