// The subcommands of the risec command line as library functions: each takes the
// parsed options, prints its result on stdout and returns the exit code; errors are
// thrown as risec::Error and turned into messages by the tool.
#pragma once

#include <string>
#include <vector>

#include "elevate/strategy.h"
#include "rise/check.h"
#include "rise/expr.h"
#include "support/buffer.h"

namespace risec::driver {

struct Options {
  std::string file;
  std::string entry;
  std::vector<std::string> sizes_text;  // "n=1024,m=512" (repeatable)
  std::vector<std::string> inputs;      // "NAME=FILE.npy"
  std::vector<std::string> binds;       // --bind "NAME=FILE.npy" (compile, run)
  std::string output;
  std::string seed_text;
  std::string strategy;             // --strategy S.elv
  std::vector<std::string> params;  // --param ti=32,v=16 (repeatable)
  std::string target = "c";
  bool dump_dpia = false;
  bool trace = false;
  bool no_simplify = false;       // --no-simplify: the default lowering is lowerToC alone
  bool no_shift_tails = false;    // --no-shift-tails: plain innermost loops (c, openmp)
  bool no_bounds_checks = false;  // --no-bounds-checks: data-dependent indices unchecked
  bool types = false;
  bool full = false;  // --full (eval, run): print every element of the result
  bool help = false;
  std::vector<std::string> given;  // the options as written (before any `=value`)
  // risec run
  bool check = false;       // --check
  std::string rtol_text;    // --rtol R
  std::string atol_text;    // --atol A
  std::string repeat_text;  // --repeat K
  std::string flops;        // --flops EXPR
  std::string global;       // --global N[,M,..] (OpenCL launch size)
  std::string local;        // --local N[,M,..] (OpenCL work-group size)
  // risec tune (driver/tune.h)
  std::string budget_text;   // --budget N
  std::string db;            // --db FILE
  std::string workers_text;  // --workers K
  std::string search;        // --search evolutionary|random
  bool explain = false;      // --explain: without --strategy, the chosen schedule in words
  // risec explore (driver/explore.h)
  std::string trials_text;  // --trials T: points tuned per variant with --strategy
};

int cmd_check(const Options& o);
int cmd_print(const Options& o);
int cmd_eval(const Options& o);
int cmd_rules(const Options& o);
int cmd_rewrite(const Options& o);
int cmd_compile(const Options& o);

// Helpers shared with tests.
rise::Program load_program(const std::string& path);
rise::SizeMap parse_sizes(const std::vector<std::string>& texts);
uint64_t parse_seed(const std::string& text);
// What --strategy ARG names, as a source: the file ARG when it exists; else a library
// strategy without arguments named ARG (`simplify`); else ARG itself as strategy text
// when it looks like one (it has a space or one of `;@()<+`): a whole file's text
// (`let main = ...;`), or one strategy expression, read as `let main = ARG;`. Its
// name in messages is `<--strategy>`, and its imports are relative to the current
// directory. Anything else is the User error "cannot read 'ARG'".
SourceRef strategy_source(const std::string& arg);
// The strategy --strategy ARG names (strategy_source) with its parameters' values
// given as --param texts.
elevate::Strategy load_strategy(const std::string& path,
                                const std::vector<std::string>& params = {});
// The text of a file (User error "cannot read" when it cannot be read), noted as an
// input of the command (`role` in messages: "the program"; support/files.h).
std::string read_text_file(const std::string& path, const std::string& role = "an input");
// Print a result (or write it to `output` as .npy; a result of several arrays, from
// pairs, as output_0.npy, output_1.npy, ...): its dtype, shape and values, the first
// and last 10 of more than 20, or with `full` every value, nested by dimension.
void emit_result(const std::vector<runtime::NdArray>& outs, const std::string& output,
                 bool full = false);
// Apply a strategy to a checked program; a failure becomes a located risec::Error
// naming the rule and showing the subterm. With `trace`, each rule applied is
// reported on stderr.
rise::Checked apply_strategy(const elevate::Strategy& s, const rise::Checked& c, bool trace);

}  // namespace risec::driver
