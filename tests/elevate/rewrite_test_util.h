// Helpers for strategy tests: parse and type a RISE program, run a strategy on it,
// and check with the reference interpreter that the result computes the same thing
// on seeded random inputs.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "elevate/library.h"
#include "elevate/strategy.h"
#include "rise/check.h"
#include "rise/interp.h"
#include "rise/parser.h"
#include "rise/printer.h"
#include "runtime/random.h"

namespace risec::elevate::testing {

// Parse `text` (one or more definitions) and type its last definition, with sizes.
inline rise::Checked typed(const std::string& text, const rise::SizeMap& sizes = {}) {
  auto src = std::make_shared<SourceFile>(SourceFile{"<test>", text});
  rise::Program p = rise::parse_program(src);
  return rise::check_program(p, "", sizes.empty() ? nullptr : &sizes);
}

// Evaluate a closed typed entry on inputs drawn from `seed`.
inline rise::Value run_on_random(const rise::Expr& e, uint64_t seed) {
  rise::EntrySignature sig = rise::entry_signature(e->type);
  std::vector<rise::Value> inputs;
  for (size_t i = 0; i < sig.params.size(); ++i)
    inputs.push_back(rise::random_input(sig.params[i], runtime::derive_seed(seed, i)));
  rise::Interpreter interp;
  return interp.run(e, inputs);
}

// Whether two typed entries compute the same on a few random inputs.
inline ::testing::AssertionResult same_semantics(const rise::Expr& a, const rise::Expr& b,
                                                 double rtol = 1e-4, double atol = 1e-5,
                                                 int trials = 3) {
  for (int seed = 0; seed < trials; ++seed) {
    rise::Value va = run_on_random(a, seed);
    rise::Value vb = run_on_random(b, seed);
    std::string where;
    if (!rise::values_close(va, vb, rtol, atol, &where))
      return ::testing::AssertionFailure()
             << "results differ (seed " << seed << "): " << where << "\nbefore:\n"
             << rise::print_expr(a) << "\nafter:\n"
             << rise::print_expr(b);
  }
  return ::testing::AssertionSuccess();
}

// Apply `s` to the typed program; the result must be a success.
inline rise::Expr apply_ok(const Strategy& s, const rise::Expr& e) {
  Result r = s(e);
  if (!r.ok()) {
    ADD_FAILURE() << "strategy " << s.name() << " failed: " << r.failure().reason
                  << "\nprogram:\n"
                  << rise::print_expr(e);
    return e;
  }
  return r.expr();
}

// The rewritten program re-checks from scratch (well typed) with the same type.
inline ::testing::AssertionResult well_typed(const rise::Expr& e) {
  try {
    rise::Checked c = rise::infer_expr(e);
    if (!rise::equal(c.type, e->type))
      return ::testing::AssertionFailure() << "type changed: " << rise::print(e->type) << " vs "
                                           << rise::print(c.type);
  } catch (const Error& err) {
    return ::testing::AssertionFailure() << "ill-typed: " << err.message() << "\n"
                                         << rise::print_expr(e);
  }
  return ::testing::AssertionSuccess();
}

}  // namespace risec::elevate::testing
