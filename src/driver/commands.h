// The subcommands of the risec command line as library functions: each takes its
// parsed options (its struct of options.h, which cli.h parses), prints its result on
// stdout and returns the exit code; errors are thrown as risec::Error and turned into
// messages by the tool.
#pragma once

#include <string>
#include <vector>

#include "driver/options.h"
#include "elevate/strategy.h"
#include "rise/check.h"
#include "rise/expr.h"
#include "support/buffer.h"

namespace risec::driver {

int cmd_check(const CheckArgs& o);
int cmd_print(const PrintArgs& o);
int cmd_eval(const EvalArgs& o);
int cmd_rules(const RulesArgs& o);
int cmd_rewrite(const RewriteArgs& o);
int cmd_compile(const CompileArgs& o);

// Helpers shared with tests.
rise::Program load_program(const std::string& path);
rise::SizeMap parse_sizes(const std::vector<std::string>& texts);
uint64_t parse_seed(const std::string& text);
// What --strategy ARG names, as a source: the file ARG when it exists; else a library
// strategy without arguments named ARG (`simplify`); else ARG itself as strategy text
// when it looks like one (it has a space or one of `;@()<+`): a whole file's text
// (`let main = ...;`), or one strategy expression, parsed as it is written. Its
// name in messages is `<--strategy>`, and its imports are relative to the current
// directory. Anything else is the User error "cannot read 'ARG'".
SourceRef strategy_source(const std::string& arg);
// The strategy --strategy ARG names (strategy_source) with its parameters' values
// given as --param texts.
// --param without --strategy gives values to nothing: a usage error (exit 2).
void require_strategy_for_params(const std::vector<std::string>& params,
                                 const std::string& strategy);
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
// `trace` reports each rule applied on stderr; `tracer`, when given, is called instead.
// Without `note`, the failure's error has no note showing the subterm: for callers that
// try rewrites and keep at most the message (the autoscheduler's space, explore's
// sites), since printing the subterm is a tenth of building a space.
// `work`, when given, bounds the rewrite's work (elevate::WorkMeter).
rise::Checked apply_strategy(const elevate::Strategy& s, const rise::Checked& c, bool trace,
                             const elevate::Tracer* tracer = nullptr, bool note = true,
                             elevate::WorkMeter* work = nullptr);

}  // namespace risec::driver
