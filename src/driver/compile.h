// The compilation pipeline as one library call: check (with --size), rewrite with
// a strategy (lowerToC when none is given), translate to DPIA, generate C for a
// target.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "codegen/c/c_backend.h"
#include "elevate/default_lowering.h"
#include "elevate/strategy.h"
#include "rise/check.h"
#include "support/buffer.h"

namespace risec::driver {

struct CompileRequest {
  const rise::Program* program = nullptr;
  std::string entry;                            // empty: the last definition
  const rise::SizeMap* sizes = nullptr;         // fixes sizes (specialisation)
  const elevate::Strategy* strategy = nullptr;  // null: the default lowering
  std::string target = "c";                     // c | openmp
  bool trace = false;
  bool simplify = true;  // without a strategy: `simplify ; lowerToC` (else lowerToC)
  // c and openmp: innermost loops with shifted tails (dpia/shift_tail.h; else --no-shift-tails)
  bool shift_tails = true;
  // every target: data-dependent indices are checked (codegen/c/bounds_checks.cpp;
  // else --no-bounds-checks)
  bool bounds_checks = true;
  // c and openmp: each top-level loop nest times itself (codegen/c/profile.cpp; --profile)
  bool profile = false;
  // `risec view`: each rule the strategy applies is reported here (instead of --trace's
  // stderr), and the generated code and DPIA carry the source location of each loop
  const elevate::Tracer* tracer = nullptr;
  bool annotate_sources = false;
  // --bind: parameter name -> .npy file whose values become constants (driver/bind.h)
  const std::map<std::string, std::string>* bind = nullptr;
  // The same from memory (the API's CompileOptions::bind_arrays)
  const std::map<std::string, runtime::NdArray>* bind_arrays = nullptr;
};

struct Compiled {
  std::string entry_name;
  rise::SizeMap sizes;                  // the sizes fixed (--size, and the --bind shapes)
  rise::Checked high;                   // the program as checked (specialised, bound)
  rise::Checked low;                    // after the strategy
  std::vector<std::string> size_names;  // symbolic sizes, in C parameter order
  codegen::CUnit unit;
  dpia::CommandP dpia;  // imperative DPIA; dpia::print it for --dump-dpia
};

// The default lowering `compile` applies without a strategy to the checked entry
// `high` for `target` (simplify and the unrolling on small programs only; simplify
// unless --no-simplify): the one decision compile and the autoscheduler's default
// candidate share. Usage error for an unknown target.
elevate::DefaultLowering default_lowering_for(const rise::Expr& high, const std::string& target,
                                              bool simplify = true);

// The same with its mapping over global threads decided as compile decides it (on the
// GPU targets: two dimensions, one or none, the first compile's checks accept; on
// openmp: its parallel loops or none): what the autoscheduler measures as its default
// candidate and writes when it wins.
elevate::DefaultLowering default_lowering_checked(const rise::Checked& high,
                                                  const std::string& target);

// Throws risec::Error: User for program/strategy/memory errors, Usage for a bad
// target name.
Compiled compile(const CompileRequest& req);

// The sizes `compile` fixes for `req` (Compiled::sizes): req.sizes and those the
// shapes of the bound inputs (req.bind, req.bind_arrays) determine. `--tuned` looks
// its record up at these sizes, the program is specialised to them, and the
// strategy's `tunedAt` sees them. Errors as compile's (a shape disagreeing with a
// size).
rise::SizeMap fixed_sizes(const CompileRequest& req);

}  // namespace risec::driver
