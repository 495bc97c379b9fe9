// The codegen tests' way to compile a .rise text with a strategy for a target: one
// helper, so every test compiles programs the way the driver does.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "driver/compile.h"
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

}  // namespace risec::test
