// The codegen tests' way to compile a .rise text with a strategy for a target: one
// helper, so every test compiles programs the way the driver does.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "driver/compile.h"
#include "driver/run.h"
#include "elevate/parser.h"
#include "rise/parser.h"

namespace risec::test {

inline rise::Program parse_rise(const std::string& text) {
  return rise::parse_program(std::make_shared<SourceFile>(SourceFile{"t.rise", text}));
}

// The compiled unit of the last definition of `text` (sizes specialised when given).
// `strategy_name` names the strategy text in messages and is where its imports are
// resolved from (an example's path for an edited copy of it).
inline driver::Compiled compile_rise(const std::string& text, const std::string& strategy,
                                     const rise::SizeMap& sizes = {},
                                     const std::string& target = "c",
                                     const std::string& strategy_name = "<strategy>") {
  // the compiled unit refers into its program, which therefore lives to the end
  static std::vector<std::unique_ptr<rise::Program>> keep;
  keep.push_back(std::make_unique<rise::Program>(parse_rise(text)));
  elevate::Strategy s = elevate::parse_strategy(strategy, strategy_name);
  driver::CompileRequest req;
  req.program = keep.back().get();
  req.sizes = sizes.empty() ? nullptr : &sizes;
  req.strategy = &s;
  req.target = target;
  return driver::compile(req);
}

// Runs `compiled` at `sizes` on inputs drawn from `seed` and expects exactly the
// interpreter's result (no tolerance).
inline void expect_exactly_as_interpreter(const driver::Compiled& compiled,
                                          const rise::SizeMap& sizes, uint64_t seed,
                                          const driver::ExecOptions& options = {}) {
  std::vector<rise::Value> inputs = driver::make_inputs(compiled.high, {}, seed);
  driver::Execution run = driver::execute(compiled, sizes, inputs, options);
  rise::Value expected = driver::interpret(compiled.high, inputs);
  driver::Comparison cmp = driver::compare_values(
      run.output, expected, driver::entry_result_type(compiled.high), 0.0, 0.0);
  EXPECT_TRUE(cmp.ok) << cmp.first_mismatch << " (compiled vs interpreter); "
                      << driver::error_summary(cmp) << "\n"
                      << compiled.unit.source.substr(0, 6000);
}

}  // namespace risec::test
