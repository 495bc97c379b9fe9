// A test helper of the driver's tests: strategy text, compiled and run on seeded
// inputs, computes what the interpreter computes (explore_test, explore_bounds_test).
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "driver/run.h"
#include "elevate/library.h"
#include "rise/parser.h"

namespace risec::driver {

inline void expect_strategy_matches_interpreter(const rise::Program& p, const rise::SizeMap& sizes,
                                                const std::string& strategy, uint64_t seed) {
  rise::Checked high = rise::check_program(p, "", &sizes);
  std::vector<rise::Value> inputs = make_inputs(high, {}, seed);
  rise::Value expected = interpret(high, inputs);
  elevate::Strategy s =
      elevate::parse_strategy_file(std::make_shared<SourceFile>(SourceFile{"t.elv", strategy}));
  CompileRequest req;
  req.program = &p;
  req.sizes = &sizes;
  req.strategy = &s;
  Execution ex = execute(compile(req), sizes, inputs);
  Comparison cmp = compare_values(ex.output, expected, entry_result_type(high));
  EXPECT_TRUE(cmp.ok) << strategy << cmp.first_mismatch;
}

}  // namespace risec::driver
