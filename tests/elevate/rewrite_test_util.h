// Helpers for strategy tests: parse and type a RISE program, run a strategy on it,
// and check with the reference interpreter that the result computes the same thing
// on seeded random inputs.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <string>

#include "elevate/library.h"
#include "elevate/rule_util.h"
#include "elevate/strategy.h"
#include "rise/check.h"
#include "rise/interp.h"
#include "rise/parser.h"
#include "rise/printer.h"
#include "support/random.h"

namespace risec::elevate::testing {

using rise::PrimId;

// Parse `text` (one or more definitions) and type its last definition, with sizes.
inline rise::Checked typed(const std::string& text, const rise::SizeMap& sizes = {}) {
  auto src = std::make_shared<SourceFile>(SourceFile{"<test>", text});
  rise::Program p = rise::parse_program(src);
  return rise::check_program(p, "", sizes.empty() ? nullptr : &sizes);
}

// Whether two typed entries compute the same on a few random inputs.
inline ::testing::AssertionResult same_semantics(const rise::Expr& a, const rise::Expr& b,
                                                 double rtol = 1e-4, double atol = 1e-5,
                                                 int trials = 3) {
  for (int seed = 0; seed < trials; ++seed) {
    rise::Value va = rise::run_on_random_inputs(a, seed);
    rise::Value vb = rise::run_on_random_inputs(b, seed);
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
    ADD_FAILURE() << "strategy " << s.name() << " failed: " << r.failure().reason << "\nprogram:\n"
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
      return ::testing::AssertionFailure()
             << "type changed: " << rise::print(e->type) << " vs " << rise::print(c.type);
  } catch (const Error& err) {
    return ::testing::AssertionFailure() << "ill-typed: " << err.message() << "\n"
                                         << rise::print_expr(e);
  }
  return ::testing::AssertionSuccess();
}

// ---- shared by the rule tests ----

inline rise::Expr prog(const std::string& text, const rise::SizeMap& sizes) {
  return typed(text, sizes).expr;
}

inline Strategy lib(const std::string& name, const std::vector<Arg>& args = {}) {
  return make_strategy(name, args);
}

// s applies, the result is well typed, computes the same, and differs from p.
inline rise::Expr check_rewrite(const Strategy& s, const rise::Expr& p) {
  rise::Expr r = apply_ok(s, p);
  EXPECT_TRUE(well_typed(r));
  EXPECT_TRUE(same_semantics(p, r));
  EXPECT_FALSE(rise::alpha_equal(p, r)) << "nothing changed:\n" << rise::print_expr(p);
  return r;
}

// s fails on p, with a reason mentioning `mention` when given.
inline void check_fails(const Strategy& s, const rise::Expr& p, const std::string& mention = "") {
  Result r = s(p);
  EXPECT_FALSE(r.ok()) << "unexpectedly succeeded:\n" << (r.ok() ? rise::print_expr(r.expr()) : "");
  if (!r.ok() && !mention.empty()) {
    EXPECT_NE(r.failure().reason.find(mention), std::string::npos) << r.failure().reason;
  }
}

// The rule fails on e with a reason containing `what`.
inline ::testing::AssertionResult fails_with(const Strategy& s, const rise::Expr& e,
                                             const std::string& what) {
  Result r = s(e);
  if (r.ok())
    return ::testing::AssertionFailure() << s.name() << " succeeded:\n"
                                         << rise::print_expr(r.expr());
  if (r.failure().reason.find(what) == std::string::npos)
    return ::testing::AssertionFailure() << s.name() << " failed with \"" << r.failure().reason
                                         << "\", which does not mention \"" << what << "\"";
  return ::testing::AssertionSuccess();
}

// The loop nests of a program: computing maps and reductions with their lengths,
// e.g. "mapSeq[32](reduceSeq[4](mapSeq[1]))".
inline std::string loops(const rise::Expr& e);
inline void loops_into(const rise::Expr& e, std::vector<std::string>& out) {
  auto c = util::as_prim_call(e);
  static const std::set<std::string> maps = {"map", "mapSeq", "mapSeqUnroll", "mapPar"};
  static const std::set<std::string> reds = {"reduce", "reduceSeq", "reduceSeqUnroll", "reducePar"};
  if (c && ((maps.count(c->name()) && c->args.size() == 2 &&
             (!c->is(PrimId::Map) || util::computes(c->args[0]))) ||
            (reds.count(c->name()) && c->args.size() == 3))) {
    auto n = util::array_size(c->args.back()->type);
    std::string s = c->name() + "[" + (n ? n->to_string() : "?") + "]";
    std::string in = loops(c->args[0]);
    if (!in.empty()) s += "(" + in + ")";
    out.push_back(s);
    for (size_t i = 1; i < c->args.size(); ++i) loops_into(c->args[i], out);
    return;
  }
  for (const rise::Expr& k : children(e)) loops_into(k, out);
}

inline std::string loops(const rise::Expr& e) {
  std::vector<std::string> v;
  loops_into(e, v);
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? " " : "") + v[i];
  return s;
}

}  // namespace risec::elevate::testing
